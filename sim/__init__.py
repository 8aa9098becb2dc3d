"""The simulated table: a physical world of pieces in mm, a rendered camera, a GRBL emulator and a
simulated opponent. Only `app` imports it."""
