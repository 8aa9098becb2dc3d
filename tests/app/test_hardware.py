"""The real-device path of `damas play`: devices built from a configuration that names a camera
(here a folder of images), a serial port (here the GRBL emulator on a pseudo-terminal, the same
pyserial path as a USB port) and GPIO pins (gpiozero's mock factory).  Closing leaves the
magnet off and releases everything."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from app.config import load_config
from app.hardware import open_devices
from calibration.store import Calibration, save_calibration
from game.board import Board
from sim.grbl import GrblEmulator, PtyGrbl
from sim.world import World


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), np.zeros((48, 64, 3), np.uint8))
    save_calibration(Calibration(), tmp_path / "calibration.json")
    return tmp_path


def test_devices_open_from_the_configuration_and_close_safely(table: Path) -> None:
    with PtyGrbl(GrblEmulator(World())) as server:
        cfg = table / "pi.toml"
        cfg.write_text(f"""version = 1
[camera]
source = "folder:{table / 'frames'}"
[calibration]
file = "{table / 'calibration.json'}"
[gantry]
port = "{server.path}"
[gpio]
pin_factory = "mock"
button_ajeito = 6
led_ready = 22
""")
        devices = open_devices(load_config(cfg), Board())
        try:
            image, frame, _ = devices.camera.read()
            assert image.shape == (48, 64, 3) and frame == 0
            assert devices.grbl.banner and "Grbl 1.1" in devices.grbl.banner
            assert not devices.magnet.is_on
            devices.magnet.on()
            assert devices.magnet.is_on
            pressed = []
            devices.panel.ajeito.when_pressed = lambda: pressed.append(True)
            devices.panel.ajeito.pin.drive_low()  # the button pulls the pin to ground
            assert pressed == [True]
            devices.panel.show("human")
            assert devices.panel.ready.value == 1
        finally:
            devices.close()
        assert not devices.magnet.is_on  # closing switches the magnet off


def test_a_missing_serial_port_is_a_clear_error_and_opens_nothing(table: Path) -> None:
    cfg = table / "pi.toml"
    cfg.write_text(f"""version = 1
[camera]
source = "folder:{table / 'frames'}"
[calibration]
file = "{table / 'calibration.json'}"
[gantry]
port = "/dev/does-not-exist"
[gpio]
pin_factory = "mock"
""")
    with pytest.raises(OSError, match="does-not-exist"):
        open_devices(load_config(cfg), Board())
