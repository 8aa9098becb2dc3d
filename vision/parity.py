"""Which squares is the game played on?  The ones with pieces on them.

The board finder names a dark corner a1, as the rules have it, but some boards are played on
the light squares (or are turned a quarter, which comes to the same in the image): the pieces
then stand on the squares taken for the unplayable ones, and the board reads empty.  Pieces
are told from bare squares here without knowing their colours: the middle of a square with a
piece differs from the square's own corners, which the piece leaves bare, and not as a shade
of them (the edge of a hard shadow across a square shows its middle darker or lighter than
some of its corners: a shadow band over a board played on the dark squares made five light
squares look occupied and turned the board).  On a board played on the dark squares no light
square shows that (a hand or a glare spot covers both kinds alike).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.kings import _ray_distance

# Where a square is read, in squares from its corner: the middle (a piece's top or base) and
# the four corner patches (bare beside any piece standing on the square).
_MIDDLE = np.array([(0.5, 0.5)] + [(0.5 + r * np.cos(a), 0.5 + r * np.sin(a))
                                    for r in (0.1, 0.2)
                                    for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)])
_CORNERS = np.array([(0.12, 0.12), (0.88, 0.12), (0.88, 0.88), (0.12, 0.88)])
# A middle from 0.4 to 1.6 times its corners' colour (BGR) is a shade of it, not a piece.
_SHADES = (0.4, 1.6)


def _box_blurred_between(image_bgr: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Colours (N, 3, float32) of the image smoothed over 3x3 pixels, read between pixels at
    the points xy (N, 2, inside the image) as `cv2.remap` reads them (bilinear).  Only the
    part of the image round the points is smoothed, and kept in bytes: the whole of a
    48-megapixel photo smoothed as floats took 700 MB."""
    h, w = image_bgr.shape[:2]
    margin = 3  # (a smoothed pixel read is this far inside the part: smoothed as in the whole)
    x0 = max(int(np.floor(xy[:, 0].min())) - margin, 0)
    y0 = max(int(np.floor(xy[:, 1].min())) - margin, 0)
    x1 = min(int(np.ceil(xy[:, 0].max())) + margin + 1, w)
    y1 = min(int(np.ceil(xy[:, 1].max())) + margin + 1, h)
    part = cv2.blur(image_bgr[y0:y1, x0:x1], (3, 3))
    ph, pw = part.shape[:2]
    local = xy.astype(np.float32) - np.array([x0, y0], np.float32)
    whole = np.floor(local)
    ix, iy = whole[:, 0].astype(np.intp), whole[:, 1].astype(np.intp)
    fx, fy = (local - whole)[:, :1], (local - whole)[:, 1:]

    def px(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        inside = (x < pw) & (y < ph)  # (past the image's last pixel: 0, weighed 0)
        return np.where(inside[:, None], part[np.minimum(y, ph - 1), np.minimum(x, pw - 1)],
                        0).astype(np.float32)

    top = px(ix, iy) * (1 - fx) + px(ix + 1, iy) * fx
    bottom = px(ix, iy + 1) * (1 - fx) + px(ix + 1, iy + 1) * fx
    return top * (1 - fy) + bottom * fy


def occupied_by_parity(image_bgr: np.ndarray, corners_px: np.ndarray, grid: int,
                       ) -> tuple[int, int]:
    """(squares that look occupied among those of a1's colour, among the others) for the board
    whose outer corners are corners_px (a1, h1, h8, a8)."""
    outer = np.array([[0.0, 0.0], [grid, 0.0], [grid, grid], [0.0, grid]], np.float32)
    hom = cv2.getPerspectiveTransform(outer, np.asarray(corners_px, np.float32).reshape(4, 2))
    cells = np.array([(i, j) for j in range(grid) for i in range(grid)], np.float64)
    h, w = image_bgr.shape[:2]

    def points(offsets: np.ndarray) -> np.ndarray:
        uv = (cells[:, None, :] + offsets[None]).reshape(-1, 1, 2)
        xy = cv2.perspectiveTransform(uv, hom).reshape(-1, 2).astype(np.float32)
        xy[:, 0] = np.clip(xy[:, 0], 0, w - 1)
        xy[:, 1] = np.clip(xy[:, 1], 0, h - 1)
        return xy

    xy_middle, xy_corners = points(_MIDDLE), points(_CORNERS)
    got = _box_blurred_between(image_bgr, np.vstack([xy_middle, xy_corners]))
    middle = np.median(got[:len(xy_middle)].reshape(len(cells), len(_MIDDLE), 3), axis=1)
    bare = np.median(got[len(xy_middle):].reshape(len(cells), len(_CORNERS), 3), axis=1)
    differ = _ray_distance(middle, bare, *_SHADES)  # (BGR: a shade is a multiple)
    dark = (cells.sum(axis=1) % 2) == 0  # a1's colour
    contrast = float(np.linalg.norm(np.median(bare[dark], axis=0)
                                    - np.median(bare[~dark], axis=0)))
    threshold = max(4.0 * float(np.median(differ)), 0.25 * contrast, 15.0)
    full = differ > threshold
    return int(full[dark].sum()), int(full[~dark].sum())


def played_on_the_other_colour(image_bgr: np.ndarray, corners_px: np.ndarray, grid: int,
                               min_pieces: int = 4, ratio: float = 3.0) -> bool:
    """True when clearly more pieces stand on the squares of the other colour than on a1's:
    at least `min_pieces`, and `ratio` times as many plus one.  (Tall pieces seen at a slant
    reach over the next square, and a black piece on a dark blue square hardly differs from
    it: a photo of six such pieces counted none on their squares and two beside them.)"""
    on_a1s, on_others = occupied_by_parity(image_bgr, corners_px, grid)
    return on_others >= max(min_pieces, ratio * on_a1s + 1)
