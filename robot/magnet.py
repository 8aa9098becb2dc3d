"""The electromagnet (and the servo that lowers it on an overhead carriage).

Small interfaces with several implementations, in gpiozero's spirit: a device never chooses
its hardware, it is given a pin factory (real pins on a Pi, `MockFactory` in tests and on a
laptop).  Every implementation is a context manager whose `close()` switches the magnet off
and may be called twice: "off on every exit path".

- `GpioMagnet`: a MOSFET on a Pi pin (`DigitalOutputDevice`).
- `PwmMagnet`: full power to pick a piece up, then `hold_duty` to hold it (less heat).
- `GrblMagnet`: GRBL's coolant (M8/M9) or spindle (M3/M5) output; no GPIO at all.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Protocol

from robot.config import LiftConfig, MagnetConfig
from robot.errors import GantryError, MagnetError


class Magnet(Protocol):
    @property
    def is_on(self) -> bool: ...
    def on(self) -> None: ...
    def hold(self) -> None: ...
    def off(self) -> None: ...
    def close(self) -> None: ...


class _Closing:
    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


def _gpio_device(make: Callable[[], Any], what: str) -> Any:
    """Build a gpiozero device; a missing pin library or a busy pin becomes one clear error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # gpiozero's fallback chatter on a laptop
            return make()
    except Exception as e:  # noqa: BLE001 - gpiozero raises many kinds
        raise MagnetError(
            f"cannot use {what}: {e} (on a computer without GPIO use --magnet grbl-coolant, "
            f"or GPIOZERO_PIN_FACTORY=mock for a dry run)") from None


class GpioMagnet(_Closing):
    def __init__(self, pin: int, pin_factory: Any = None) -> None:
        from gpiozero import DigitalOutputDevice

        self.device = _gpio_device(lambda: DigitalOutputDevice(
            pin, initial_value=False, pin_factory=pin_factory), f"magnet GPIO{pin}")

    @property
    def is_on(self) -> bool:
        return not self.device.closed and bool(self.device.value)

    def on(self) -> None:
        self.device.on()

    def hold(self) -> None:
        pass

    def off(self) -> None:
        if not self.device.closed:
            self.device.off()

    def close(self) -> None:
        if not self.device.closed:
            self.device.off()
            self.device.close()


class PwmMagnet(_Closing):
    def __init__(self, pin: int, hold_duty: float = 0.6, pin_factory: Any = None,
                 frequency_hz: int = 1000) -> None:
        from gpiozero import PWMOutputDevice

        if not 0.0 < hold_duty <= 1.0:
            raise ValueError(f"magnet.hold_duty must be in (0, 1], got {hold_duty}")
        self.hold_duty = hold_duty
        self.device = _gpio_device(lambda: PWMOutputDevice(
            pin, initial_value=0.0, frequency=frequency_hz, pin_factory=pin_factory),
            f"magnet GPIO{pin} (PWM)")

    @property
    def is_on(self) -> bool:
        return not self.device.closed and self.device.value > 0

    def on(self) -> None:
        self.device.value = 1.0

    def hold(self) -> None:
        if self.device.value > 0:
            self.device.value = self.hold_duty

    def off(self) -> None:
        if not self.device.closed:
            self.device.value = 0.0

    def close(self) -> None:
        if not self.device.closed:
            self.device.value = 0.0
            self.device.close()


class GrblMagnet(_Closing):
    """The magnet on GRBL's coolant or spindle output.  GRBL 1.1 synchronises M8/M9 and M3/M5
    with the motion queue, so the executor streams these lines with the moves; `on()`/`off()`
    here are for direct use and the error path."""

    def __init__(self, grbl: Any, on_line: str, off_line: str) -> None:
        self.grbl = grbl
        self.on_line, self.off_line = on_line, off_line
        self._on = False

    @property
    def is_on(self) -> bool:
        return self._on

    def on(self) -> None:
        self.grbl.command(self.on_line)
        self._on = True

    def hold(self) -> None:
        pass

    def off(self) -> None:
        self._on = False
        try:
            self.grbl.command(self.off_line)
        except GantryError:
            pass  # a dead or alarmed controller has switched its outputs off itself

    def mark(self, on: bool) -> None:
        """Record a state change streamed as G-code by the executor."""
        self._on = on

    def close(self) -> None:
        if self._on:
            self.off()


def make_magnet(cfg: MagnetConfig, grbl: Any = None, pin_factory: Any = None) -> Any:
    if cfg.kind == "gpio":
        return GpioMagnet(cfg.pin, pin_factory)
    if cfg.kind == "gpio-pwm":
        return PwmMagnet(cfg.pin, cfg.hold_duty, pin_factory)
    if grbl is None:
        raise ValueError(f"magnet kind {cfg.kind} needs the GRBL connection")
    if cfg.kind == "grbl-coolant":
        return GrblMagnet(grbl, "M8", "M9")
    return GrblMagnet(grbl, f"M3 S{cfg.spindle_rpm:.0f}", "M5")


class ServoLift(_Closing):
    """An overhead magnet lowered by a hobby servo (gpiozero `Servo`)."""

    def __init__(self, cfg: LiftConfig, pin_factory: Any = None) -> None:
        from gpiozero import Servo

        self.cfg = cfg
        self.device = _gpio_device(lambda: Servo(
            cfg.servo_pin, initial_value=cfg.servo_up, pin_factory=pin_factory),
            f"lift servo GPIO{cfg.servo_pin}")

    def down(self) -> None:
        self.device.value = self.cfg.servo_down

    def up(self) -> None:
        self.device.value = self.cfg.servo_up

    def close(self) -> None:
        if not self.device.closed:
            self.device.value = self.cfg.servo_up
            self.device.close()
