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


def occupied_by_parity(image_bgr: np.ndarray, corners_px: np.ndarray, grid: int,
                       ) -> tuple[int, int]:
    """(squares that look occupied among those of a1's colour, among the others) for the board
    whose outer corners are corners_px (a1, h1, h8, a8)."""
    outer = np.array([[0.0, 0.0], [grid, 0.0], [grid, grid], [0.0, grid]], np.float32)
    hom = cv2.getPerspectiveTransform(outer, np.asarray(corners_px, np.float32).reshape(4, 2))
    cells = np.array([(i, j) for j in range(grid) for i in range(grid)], np.float64)
    bgr = cv2.blur(image_bgr, (3, 3)).astype(np.float32)

    def colours(offsets: np.ndarray) -> np.ndarray:
        uv = (cells[:, None, :] + offsets[None]).reshape(-1, 1, 2)
        xy = cv2.perspectiveTransform(uv, hom).reshape(-1, 2).astype(np.float32)
        h, w = bgr.shape[:2]
        xy[:, 0] = np.clip(xy[:, 0], 0, w - 1)
        xy[:, 1] = np.clip(xy[:, 1], 0, h - 1)
        got = cv2.remap(bgr, xy[:, 0].reshape(1, -1), xy[:, 1].reshape(1, -1), cv2.INTER_LINEAR)
        return got.reshape(len(cells), len(offsets), 3)

    middle = np.median(colours(_MIDDLE), axis=1)
    bare = np.median(colours(_CORNERS), axis=1)
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
