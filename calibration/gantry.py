"""Where the board is, in the gantry's machine coordinates.

The gantry moves in machine millimetres (GRBL's MPos); the planner thinks in the board frame
(origin at the outer corner of the grid next to a1, x towards h1, y towards a8).  The two are
related by an affine map: a rotation (the board is never perfectly square to the rails), a
scale per axis (steps/mm a little off) and a shear (rails not quite orthogonal).  Fitting it to
the magnet jogged over the centres of a1, h1, h8 and a8 uses 8 equations for 6 unknowns, so
the residual says how well the four points agree - a large one means a corner was mis-jogged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

CORNER_NAMES = ("a1", "h1", "h8", "a8")


@dataclass(frozen=True)
class GantryCalibration:
    """machine = [[xx, xy], [yx, yy]] @ board + [x0, y0]; Z is passed through unchanged."""

    xx: float = 1.0
    xy: float = 0.0
    yx: float = 0.0
    yy: float = 1.0
    x0_mm: float = 0.0
    y0_mm: float = 0.0
    residual_mm: float = 0.0  # worst corner error of the fit that produced this mapping

    def __post_init__(self) -> None:
        if abs(self.determinant) < 1e-6:
            raise ValueError("gantry mapping is singular (the corners are collinear)")

    @property
    def determinant(self) -> float:
        return self.xx * self.yy - self.xy * self.yx

    def to_machine(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        return (self.xx * x_mm + self.xy * y_mm + self.x0_mm,
                self.yx * x_mm + self.yy * y_mm + self.y0_mm)

    def to_board(self, mx_mm: float, my_mm: float) -> tuple[float, float]:
        dx, dy = mx_mm - self.x0_mm, my_mm - self.y0_mm
        det = self.determinant
        return ((self.yy * dx - self.xy * dy) / det, (-self.yx * dx + self.xx * dy) / det)

    @property
    def scale(self) -> float:
        """Mean machine mm per board mm (for converting feeds and distances)."""
        return math.sqrt(abs(self.determinant))

    # -- serialisation (the `gantry` section of calibration.store) --------------------------
    def to_dict(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GantryCalibration:
        if not isinstance(data, Mapping):
            raise ValueError(f"gantry calibration: expected a table, got {data!r}")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ValueError(f"gantry calibration: unknown field {key!r} "
                                 f"(expected {', '.join(sorted(known))})")
        values: dict[str, float] = {}
        for key, value in data.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"gantry calibration: {key} must be a number, got {value!r}")
            values[key] = float(value)
        return cls(**values)


def corner_centres_mm(grid: int, square_mm: float) -> dict[str, tuple[float, float]]:
    """Board-frame centres of the four corner squares a1, h1, h8, a8 (named for 8x8)."""
    lo, hi = 0.5 * square_mm, (grid - 0.5) * square_mm
    return {"a1": (lo, lo), "h1": (hi, lo), "h8": (hi, hi), "a8": (lo, hi)}


def fit_gantry(machine_points: Mapping[str, tuple[float, float]], grid: int = 8,
               square_mm: float = 40.0) -> GantryCalibration:
    """Least-squares affine map from the board centres of a1, h1, h8, a8 to the jogged points.

    `residual_mm` is the largest distance between a jogged point and where the fitted map puts
    that corner (0 for a perfect parallelogram).
    """
    board = corner_centres_mm(grid, square_mm)
    missing = [n for n in CORNER_NAMES if n not in machine_points]
    if missing:
        raise ValueError(f"gantry fit needs the corners {', '.join(missing)}")
    src = [board[n] for n in CORNER_NAMES]
    dst = [machine_points[n] for n in CORNER_NAMES]
    # Normal equations of [x y 1] @ [a b c] = u, solved separately for u = X and u = Y.
    ata = [[0.0] * 3 for _ in range(3)]
    for x, y in src:
        row = (x, y, 1.0)
        for i in range(3):
            for j in range(3):
                ata[i][j] += row[i] * row[j]
    sol = []
    for axis in range(2):
        atb = [0.0, 0.0, 0.0]
        for (x, y), p in zip(src, dst, strict=False):
            for i, r in enumerate((x, y, 1.0)):
                atb[i] += r * p[axis]
        sol.append(_solve3(ata, atb))
    (xx, xy, x0), (yx, yy, y0) = sol
    cal = GantryCalibration(xx, xy, yx, yy, x0, y0)
    worst = max(math.dist(cal.to_machine(*s), d) for s, d in zip(src, dst, strict=False))
    return GantryCalibration(xx, xy, yx, yy, x0, y0, residual_mm=worst)


def _solve3(a: list[list[float]], b: list[float]) -> tuple[float, float, float]:
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(3):
        piv = max(range(col, 3), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-12:
            raise ValueError("gantry fit: the corner points are degenerate")
        m[col], m[piv] = m[piv], m[col]
        for r in range(3):
            if r != col:
                f = m[r][col] / m[col][col]
                for c in range(col, 4):
                    m[r][c] -= f * m[col][c]
    return (m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2])
