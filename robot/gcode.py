"""G-code for GRBL 1.1 from a program of operations.

Absolute millimetres (`G21 G90`), straight feed moves (`G1`) in machine coordinates through
the gantry calibration, dwells `G4 P<seconds>`.  The magnet is `M8`/`M9` (coolant) or
`M3 S<rpm>`/`M5` (spindle) when GRBL switches it - GRBL 1.1 synchronises both with the motion
queue, so the piece is never released mid-move.  A magnet on a Pi pin, a servo lift and a
crown request are not G-code: they appear as comments here and the executor acts on them
between streamed chunks.
"""

from __future__ import annotations

from robot.config import RobotConfig
from robot.motion import Op

HEADER = ("G21 G90",)


def magnet_line(cfg: RobotConfig, on: bool) -> str | None:
    """The G-code that switches the magnet, or None when the Pi switches it."""
    kind = cfg.magnet.kind
    if kind == "grbl-coolant":
        return "M8" if on else "M9"
    if kind == "grbl-spindle":
        return f"M3 S{cfg.magnet.spindle_rpm:.0f}" if on else "M5"
    return None


def _num(v: float) -> str:
    return f"{v:.3f}"


def op_line(cfg: RobotConfig, op: Op, feed_mm_min: float | None = None) -> str | None:
    """One operation as G-code; a comment for Pi-side operations; None for nothing."""
    m = cfg.motion
    if op.kind == "move":
        words = ["G1"]
        if op.x_mm is not None and op.y_mm is not None:
            x, y = cfg.gantry.to_machine(op.x_mm, op.y_mm)
            words += [f"X{_num(x)}", f"Y{_num(y)}"]
        if op.z_mm is not None:
            words.append(f"Z{_num(op.z_mm)}")
            feed = m.z_feed_mm_min if op.x_mm is None else m.feed_mm_min
        else:
            feed = m.feed_mm_min
        words.append(f"F{feed_mm_min or feed:.0f}")
        return " ".join(words)
    if op.kind == "dwell":
        return f"G4 P{op.seconds:.3f}" if op.seconds > 0 else None
    if op.kind == "magnet":
        line = magnet_line(cfg, op.on)
        if line is not None:
            return line
        return f"(magnet {'on' if op.on else 'off'}: gpio {cfg.magnet.pin})"
    if op.kind == "lift":
        return f"(lift {'down' if op.on else 'up'}: servo gpio {cfg.lift.servo_pin})"
    if op.kind == "ask":
        return f"(wait for the person to crown {op.text})"
    if op.kind == "note":
        return f"({op.text.replace('(', '[').replace(')', ']')})"
    raise ValueError(f"unknown operation {op.kind!r}")


def to_gcode(cfg: RobotConfig, ops: list[Op]) -> list[str]:
    lines = list(HEADER)
    for op in ops:
        line = op_line(cfg, op)
        if line is not None:
            lines.append(line)
    return lines


def strip_comment(line: str) -> str:
    """The line without `(...)` and `;` comments and surrounding spaces (what GRBL needs)."""
    out, depth = [], 0
    for ch in line:
        if ch == ";" and depth == 0:
            break
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip()
