"""GRBL 1.1's default settings and how its protocol layer reads a line: comments and spaces
dropped, letters upper-cased, then `letter number` words."""

from __future__ import annotations

import re

# The simulated machine's EEPROM: GRBL 1.1's layout, tuned like the robot's defaults (X, Y:
# 6000 mm/min, 500 mm/s^2; Z: 3000 mm/min, 500 mm/s^2).  GRBL's own firmware defaults are
# in tests/robot/transcripts/startup_idle.grbl.
DEFAULT_SETTINGS: dict[int, float] = {
    0: 10, 1: 25, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 10: 1, 11: 0.010, 12: 0.002, 13: 0, 20: 0,
    21: 0, 22: 0, 23: 0, 24: 25.0, 25: 500.0, 26: 250, 27: 1.0, 30: 1000, 31: 0, 32: 0,
    100: 80.0, 101: 80.0, 102: 400.0, 110: 6000.0, 111: 6000.0, 112: 3000.0,
    120: 500.0, 121: 500.0, 122: 500.0, 130: 500.0, 131: 400.0, 132: 60.0,
}
INT_SETTINGS = {0, 1, 2, 3, 4, 5, 6, 10, 13, 20, 21, 22, 23, 26, 30, 31, 32}
WORD = re.compile(r"([A-Z])([-+]?(?:\d+\.?\d*|\.\d+))")


def clean_line(raw: str) -> str:
    """Upper case, no spaces, no comments: what GRBL's protocol layer hands the parser."""
    out, depth = [], 0
    for ch in raw:
        if ch == ";" and depth == 0:
            break
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0 and not ch.isspace():
            out.append(ch.upper())
    return "".join(out)


def words_of(line: str) -> dict[str, list[float]] | None:
    pos = 0
    words: dict[str, list[float]] = {}
    for m in WORD.finditer(line):
        if m.start() != pos:
            return None
        words.setdefault(m.group(1), []).append(float(m.group(2)))
        pos = m.end()
    if pos != len(line):
        return None
    return words
