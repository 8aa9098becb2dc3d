"""Real devices from the configuration: the camera, the board observer with its calibration,
the GRBL gantry with its magnet (and servo lift), and the operator panel on GPIO.

Everything is a context manager that closes in reverse order, so the magnet is switched off
and the serial port released on every exit path (gpiozero's "close on exit" behaviour).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from app.config import Config
from game.board import Board


@dataclass
class Devices:
    camera: Any
    observer: Any  # the vision.pipeline.BoardObserver reading the camera
    grbl: Any
    magnet: Any
    lift: Any
    panel: Any
    stack: contextlib.ExitStack

    def close(self) -> None:
        self.stack.close()


def pin_factory(config: Config) -> Any:
    """gpiozero's pin factory named in [gpio] ("mock" off a Pi, "lgpio" on a Pi 4/5)."""
    name = config.gpio.pin_factory
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    if name == "rpigpio":
        from gpiozero.pins.rpigpio import RPiGPIOFactory

        return RPiGPIOFactory()
    raise ValueError(f"[gpio] pin_factory: expected mock, lgpio or rpigpio, got {name!r}")


class Panel:
    """Buttons ("my move is done", "ajeito") and status LEDs/buzzer, all optional."""

    def __init__(self, config: Config, factory: Any) -> None:
        from gpiozero import LED, Button, Buzzer

        g = config.gpio
        self.devices: list[Any] = []

        def make(cls: Any, pin: int | None, **kw: Any) -> Any:
            if pin is None:
                return None
            dev = cls(pin, pin_factory=factory, **kw)
            self.devices.append(dev)
            return dev

        self.move_done = make(Button, g.button_move_done, bounce_time=g.bounce_s)
        self.ajeito = make(Button, g.button_ajeito, bounce_time=g.bounce_s)
        self.ready = make(LED, g.led_ready)
        self.thinking = make(LED, g.led_thinking)
        self.alert = make(LED, g.led_alert)
        self.buzzer = make(Buzzer, g.buzzer)

    def show(self, phase: str) -> None:
        """LEDs for "human" (your move), "robot" (thinking/moving) and "alert"."""
        for led, on in ((self.ready, phase == "human"), (self.thinking, phase == "robot"),
                        (self.alert, phase == "alert")):
            if led is not None:
                led.value = on
        if phase == "alert" and self.buzzer is not None:
            self.buzzer.beep(0.1, 0.1, n=2)

    def close(self) -> None:
        for dev in reversed(self.devices):
            dev.close()


def open_devices(config: Config, board: Board) -> Devices:
    """Open the real camera, gantry, magnet and panel named by `config` (not "sim")."""
    from calibration.store import load_calibration
    from robot.grbl import Grbl
    from robot.magnet import ServoLift, make_magnet
    from vision.pipeline import BoardObserver
    from vision.sources import open_source

    stack = contextlib.ExitStack()
    try:
        cam_cfg = config.camera
        camera = open_source(cam_cfg.source, tuple(cam_cfg.resolution), cam_cfg.fps,
                             cam_cfg.lens_position_dioptres)
        stack.callback(camera.close)
        calibration = load_calibration(config.calibration.file)
        observer = BoardObserver(board.variant, calibration=calibration)
        factory = pin_factory(config)
        robot_cfg = config.robot.for_grid(board.variant.width)
        grbl = Grbl.open(config.gantry.port, baudrate=config.gantry.baud)
        stack.callback(grbl.close)
        grbl.connect(unlock=True)  # no homing switches assumed: $X clears the start-up alarm
        magnet = make_magnet(robot_cfg.magnet, grbl, factory)
        stack.callback(magnet.close)  # closed before the port: the magnet goes off first
        lift = None
        if robot_cfg.is_overhead and robot_cfg.lift.kind == "servo":
            lift = ServoLift(robot_cfg.lift, factory)
            stack.callback(lift.close)
        panel = Panel(config, factory)
        stack.callback(panel.close)
        return Devices(camera, observer, grbl, magnet, lift, panel, stack)
    except BaseException:
        stack.close()
        raise
