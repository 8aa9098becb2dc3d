"""The Pi's pins on the simulated table: gpiozero's `MockFactory`, wired to the emulator.

A magnet (or servo lift) on a Pi pin is driven by gpiozero exactly as on the Pi; in the
simulation the pin is a `MockPin`, and `wire_pin` forwards its state changes to the simulated
gantry, so the discs follow the same code path that drives the real MOSFET.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def mock_factory(pwm: bool = False) -> Any:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    return MockFactory(pin_class=MockPWMPin) if pwm else MockFactory()


def wire_pin(factory: Any, pin: int, on_change: Callable[[float], None]) -> Any:
    """Call `on_change(state)` whenever the mock pin's output changes; returns the pin."""
    mock_pin = factory.pin(pin)
    original = mock_pin._change_state

    def changed(value: Any) -> bool:
        result = bool(original(value))
        if result:
            on_change(float(value))
        return result

    mock_pin._change_state = changed
    return mock_pin


def wire_magnet(factory: Any, pin: int, emulator: Any) -> Any:
    """The magnet MOSFET on `pin` switches the emulator's external magnet input."""
    return wire_pin(factory, pin, lambda v: emulator.set_external_magnet(v > 0))


def wire_servo_lift(factory: Any, pin: int, emulator: Any) -> Any:
    """A servo pulse shorter than mid travel (1.5 ms of 20 ms) means "lowered": gpiozero's
    `Servo` at -1 (1 ms) is the configured down position by default."""
    return wire_pin(factory, pin, lambda v: emulator.set_external_lift(0 < v < 0.075))
