"""Errors raised by `robot`: one base, each mixed with the builtin a caller would expect.

GRBL reports problems as numbers (`error:22`, `ALARM:1`); the errors here carry the number and
GRBL 1.1's own meaning (from its documented code tables) so a person reading one line knows
what the controller said and why.
"""

from __future__ import annotations

# GRBL 1.1 error codes (doc/csv/error_codes_en_US.csv in gnea/grbl).
GRBL_ERRORS: dict[int, str] = {
    1: "Expected command letter: G-code words consist of a letter and a value",
    2: "Bad number format",
    3: "Invalid statement: '$' system command was not recognized or supported",
    4: "Value < 0: negative value received for an expected positive value",
    5: "Setting disabled: homing is not enabled via settings",
    6: "Value < 3 usec: minimum step pulse time must be greater than 3 usec",
    7: "EEPROM read fail, using defaults",
    8: "Not idle: '$' command cannot be used unless Grbl is IDLE",
    9: "G-code lock: G-code commands are locked out during alarm or jog state",
    10: "Homing not enabled: soft limits cannot be enabled without homing",
    11: "Line overflow: max characters per line exceeded",
    12: "Step rate > 30kHz",
    13: "Check Door: safety door detected as opened",
    14: "Line length exceeded",
    15: "Travel exceeded: jog target exceeds machine travel",
    16: "Invalid jog command",
    17: "Setting disabled: laser mode requires PWM output",
    20: "Unsupported or invalid g-code command found in block",
    21: "Modal group violation",
    22: "Undefined feed rate",
    23: "G-code command in block requires an integer value",
    24: "More than one g-code command that requires axis words found in block",
    25: "Repeated g-code word found in block",
    26: "No axis words found in block for g-code command or current modal state",
    27: "Line number value is invalid",
    28: "G-code command is missing a required value word",
    29: "G59.x work coordinate systems are not supported",
    30: "G53 only allowed with G0 and G1 motion modes",
    31: "Axis words found in block when no command or current modal state uses them",
    32: "G2 and G3 arcs require at least one in-plane axis word",
    33: "Motion command target is invalid",
    34: "Arc radius value is invalid",
    35: "G2 and G3 arcs require at least one in-plane offset word",
    36: "Unused value words found in block",
    37: "G43.1 dynamic tool length offset is not assigned to configured tool length axis",
    38: "Tool number greater than max supported value",
}

# GRBL 1.1 alarm codes (doc/csv/alarm_codes_en_US.csv in gnea/grbl).
GRBL_ALARMS: dict[int, str] = {
    1: "Hard limit triggered; machine position is likely lost, re-homing recommended",
    2: "Soft limit: motion target exceeds machine travel; position retained",
    3: "Abort during cycle: reset while in motion; position likely lost",
    4: "Probe fail: probe not in the expected initial state",
    5: "Probe fail: probe did not contact the workpiece",
    6: "Homing fail: the active homing cycle was reset",
    7: "Homing fail: safety door was opened during homing",
    8: "Homing fail: pull off travel failed to clear limit switch",
    9: "Homing fail: could not find limit switch within search distances",
}


class RobotError(Exception):
    """Base of every error raised by `robot`."""


class ConfigError(RobotError, ValueError):
    """A robot configuration file or value that cannot be used; names file, field and value."""


class PlanError(RobotError, ValueError):
    """No safe plan exists for a move with the configured geometry (the message says why)."""


class MagnetError(RobotError, OSError):
    """The magnet's (or servo's) GPIO pin cannot be used: no pin library, pin busy..."""


class GantryError(RobotError, OSError):
    """Base of the errors of the gantry controller connection."""


class GantryTimeout(GantryError, TimeoutError):
    """The controller did not answer (or finish moving) within the allowed time."""


class GantryDisconnected(GantryError, ConnectionError):
    """The serial link went away (cable pulled, device reset, emulator closed)."""


class GantryCommandError(GantryError):
    """GRBL rejected a line with `error:N`."""

    def __init__(self, code: int, line: str = "") -> None:
        self.code = code
        self.line = line
        meaning = GRBL_ERRORS.get(code, "unknown error code")
        where = f" for {line!r}" if line else ""
        super().__init__(f"GRBL error:{code}{where}: {meaning}")


class GantryAlarm(GantryError):
    """GRBL entered the alarm state (`ALARM:N`, or found locked in Alarm at connect)."""

    def __init__(self, code: int | None, detail: str = "") -> None:
        self.code = code
        if code is None:
            text = "GRBL is in the Alarm state"
        else:
            text = f"GRBL ALARM:{code}: {GRBL_ALARMS.get(code, 'unknown alarm code')}"
        super().__init__(text + (f" ({detail})" if detail else ""))


class GantryProtocolError(GantryError):
    """The device said something a GRBL 1.1 controller would not (wrong firmware, noise)."""
