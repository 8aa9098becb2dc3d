"""Learn the colour model from the board itself when a game begins (issue 4: "colour models
learned from the board itself (empty squares, and the start position)").

At the start the program knows where every piece stands, so it can look at them: the mean
colour of the top faces of each set, of the empty playable squares and of the light squares
becomes a `calibration.colour.ColourModel`.  With it, the classifier no longer has to guess
which of two similar sets is "white" (lighter) frame by frame.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.colour import ColourModel, Lab
from game.board import BaseBoard, Color
from vision.geometry import BoardPose

PIECE_TOP_SQ = 7.0 / 40.0  # height of a man's top face, in squares (7 mm discs, 40 mm squares)
PATCH_SQ = 0.12  # half-size of the sampled patch, in squares


def _mean_lab(image: np.ndarray, pose: BoardPose, centres_uvw: list[tuple[float, float, float]]
              ) -> Lab | None:
    if not centres_uvw:
        return None
    offsets = [(dx, dy) for dx in (-PATCH_SQ, 0.0, PATCH_SQ) for dy in (-PATCH_SQ, 0.0, PATCH_SQ)]
    pts = np.array([(u + dx, v + dy, w) for u, v, w in centres_uvw for dx, dy in offsets],
                   np.float64)
    px = np.round(pose.project(pts)).astype(int)
    h, w = image.shape[:2]
    px[:, 0] = np.clip(px[:, 0], 0, w - 1)
    px[:, 1] = np.clip(px[:, 1], 0, h - 1)
    bgr = image[px[:, 1], px[:, 0]].reshape(-1, 1, 3).astype(np.uint8)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)
    m = np.median(lab, axis=0)
    return (float(m[0]), float(m[1]), float(m[2]))


def learn_colours(image: np.ndarray, pose: BoardPose, placement: BaseBoard,
                  piece_top_sq: float = PIECE_TOP_SQ) -> ColourModel:
    """The colour model from an image of a known placement (normally the start position)."""
    geo = placement.geometry
    sets: dict[Color, list[tuple[float, float, float]]] = {Color.WHITE: [], Color.BLACK: []}
    empty_dark: list[tuple[float, float, float]] = []
    for sq in placement.squares:
        f, r = geo.coords[sq]
        piece = placement.piece_at(sq)
        if piece is None:
            empty_dark.append((f + 0.5, r + 0.5, 0.0))
        else:
            top = piece_top_sq * (2 if piece.is_king else 1)
            sets[piece.color].append((f + 0.5, r + 0.5, top))
    light = [(f + 0.5, r + 0.5, 0.0) for r in range(geo.height) for f in range(geo.width)
             if (f + r) % 2]
    return ColourModel(dark_square_lab=_mean_lab(image, pose, empty_dark),
                       light_square_lab=_mean_lab(image, pose, light),
                       white_piece_lab=_mean_lab(image, pose, sets[Color.WHITE]),
                       black_piece_lab=_mean_lab(image, pose, sets[Color.BLACK]))
