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


def grid_fit(image_bgr: np.ndarray, where: BoardPose | CornerPixels,
             axis: np.ndarray | None = None, min_contrast: float = 15.0,
             ) -> tuple[GridFit, np.ndarray]:
    """(fit, axis) of the image to the square pattern a pose places (`where`: the pose, or
    its `CornerPixels`).

    Each corner's two diagonals are compared along `axis`, the board's own colour axis from
    the other squares' colour to a1's (BGR, unit length): None takes it from this image (when
    the board is located) and returns it.  Along it a corner counts when its diagonals differ
    by at least `min_contrast` (grey levels, as the mean of the three channels would measure
    a black and white board) and each diagonal's two squares by less than half that.  (In grey
    alone a board of two colours about as light, red and green, showed the pattern at a few
    corners only, and whether a knocked camera was noticed hung on a pixel's rounding.)"""
    at = where if isinstance(where, CornerPixels) else CornerPixels.of(where)
    px, expected = at.px.copy(), at.expected
    h, w = image_bgr.shape[:2]
    inside = ((px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)).reshape(-1, 4)
    px[:, 0] = np.clip(px[:, 0], 0, w - 1)
    px[:, 1] = np.clip(px[:, 1], 0, h - 1)
    bgr = image_bgr[px[:, 1], px[:, 0]].astype(np.float64).reshape(-1, 4, 3)
    pp, mm, pm, mp = bgr[:, 0], bgr[:, 1], bgr[:, 2], bgr[:, 3]
    diff = 0.5 * ((pp + mm) - (pm + mp))  # (K, 3)
    if axis is None:
        toward_a1 = (diff[inside.all(axis=1)] * expected[inside.all(axis=1), None]).sum(axis=0)
        norm = float(np.linalg.norm(toward_a1))
        axis = toward_a1 / norm if norm > 0 else np.full(3, 1 / np.sqrt(3))
    scale = 1.0 / np.sqrt(3.0)  # (grey levels for a black and white board)
    along = diff @ axis * scale
    same = np.maximum(np.abs((pp - mm) @ axis), np.abs((pm - mp) @ axis)) * scale
    clear = inside.all(axis=1) & (np.abs(along) >= min_contrast) & (same < 0.5 * np.abs(along))
    signed = np.sign(along) * expected
    agree = int(np.count_nonzero(clear & (signed > 0)))
    disagree = int(np.count_nonzero(clear & (signed < 0)))
    return GridFit(agree, disagree, len(expected)), axis
