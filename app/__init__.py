"""The application: configuration, building real or simulated devices, the CLI, game loop and web page."""
