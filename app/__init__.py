"""The application: configuration, real or simulated devices, the CLI, game loop and web page."""
