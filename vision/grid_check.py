"""Is the board still where it was found?

The camera is fixed, so the board is located once and every later frame is read through that
plan (vision.pipeline).  A bumped camera or a pushed board breaks that silently: every square
is then read off somewhere else.  The inner corners of the square pattern tell: at each one the
two squares on one diagonal share a colour and differ from the other two, and which diagonal
is the darker alternates from corner to corner.  Pieces stand in the squares' middles, away
from the corners, so the points read here (near each corner, on its four squares) stay bare
but for a hand.  A board moved by a square turns every corner's sign; moved by a fraction,
the corners show no checker at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.geometry import BoardPose

_NEAR_SQ = 0.12  # how far from each corner (squares, along both axes) its four squares are read


@dataclass(frozen=True)
class GridFit:
    """Inner corners seen as checker corners with the pattern's sign (`agree`) or with the
    opposite sign (`disagree`), of `corners` read."""

    agree: int
    disagree: int
    corners: int

    def moved_from(self, reference: GridFit, min_share: float = 0.35) -> bool:
        """Whether this reading says the board is no longer where `reference` (read when it
        was located) found it: more corners show the opposite sign than the right one, or
        fewer than `min_share` of the reference's show it at all.  (A hand over the board
        hides corners too: only the sign turned round is sure; the caller looks for the
        board again either way, and hides the squares only on that.)"""
        if self.disagree > max(self.agree, 3):
            return True
        return reference.agree >= 8 and self.agree < min_share * reference.agree


def corner_points(grid: int, near_sq: float = _NEAR_SQ) -> tuple[np.ndarray, np.ndarray]:
    """((K*4) x 3 board points, (K,) expected sign) for the K inner corners: the points on the
    corner's squares in the order (+,+), (-,-), (+,-), (-,+), and +1 where the (+,+) square
    has a1's colour."""
    ij = np.array([(i, j) for j in range(1, grid) for i in range(1, grid)], np.float64)
    d = near_sq
    offs = np.array([(d, d), (-d, -d), (d, -d), (-d, d)])
    pts = (ij[:, None, :] + offs[None]).reshape(-1, 2)
    expected = np.where(((ij[:, 0] + ij[:, 1]) % 2) == 0, 1.0, -1.0)
    return np.concatenate([pts, np.zeros((len(pts), 1))], axis=1), expected


@dataclass(frozen=True)
class CornerPixels:
    """Where `grid_fit` reads, for one pose: (K*4) x 2 pixels, and the K corners' expected
    signs (see `corner_points`).  Computed once per located board."""

    px: np.ndarray
    expected: np.ndarray

    @classmethod
    def of(cls, pose: BoardPose) -> CornerPixels:
        pts, expected = corner_points(pose.grid)
        return cls(np.round(pose.project(pts)).astype(np.intp), expected)


def grid_fit(image_bgr: np.ndarray, where: BoardPose | CornerPixels, sign: float = 0.0,
             min_contrast: float = 15.0) -> tuple[GridFit, float]:
    """(fit, sign) of the image to the square pattern a pose places (`where`: the pose, or
    its `CornerPixels`).

    A corner counts when its two diagonals differ by at least `min_contrast` grey levels and
    each diagonal's two squares differ by less than half that difference.  `sign` (+1 or -1)
    is which way round a1's colour is (darker or lighter than the other); 0 takes it from this
    image (when the board is located) and returns it."""
    at = where if isinstance(where, CornerPixels) else CornerPixels.of(where)
    px, expected = at.px.copy(), at.expected
    h, w = image_bgr.shape[:2]
    inside = ((px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)).reshape(-1, 4)
    px[:, 0] = np.clip(px[:, 0], 0, w - 1)
    px[:, 1] = np.clip(px[:, 1], 0, h - 1)
    grey = image_bgr[px[:, 1], px[:, 0]].astype(np.float64).mean(axis=-1).reshape(-1, 4)
    pp, mm, pm, mp = grey.T
    diff = 0.5 * ((pp + mm) - (pm + mp))
    same = np.maximum(np.abs(pp - mm), np.abs(pm - mp))
    clear = inside.all(axis=1) & (np.abs(diff) >= min_contrast) & (same < 0.5 * np.abs(diff))
    signed = np.sign(diff) * expected
    if sign == 0.0:
        sign = 1.0 if float(signed[clear].sum()) >= 0 else -1.0
    agree = int(np.count_nonzero(clear & (signed == sign)))
    disagree = int(np.count_nonzero(clear & (signed == -sign)))
    return GridFit(agree, disagree, len(expected)), sign
