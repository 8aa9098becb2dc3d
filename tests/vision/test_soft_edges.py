"""vision.soft_edges on drawn images: a disc's edge is a step, a glare spot's a slope.

The images are drawn here, so which square holds a disc and which only a spot of light is
known by construction.
"""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.soft_edges import burnt_out, edge_sharpness, settle_by_edges, soft_glare

SQUARE_PX = 50
U = np.linspace(-0.5, 0.5, SQUARE_PX + 1)  # one sample a pixel across a square
CENTRES = [(50, 50), (150, 50), (250, 50), (350, 50), (50, 150), (150, 150), (250, 150)]
DISCS = [0, 1, 2, 3, 4]  # sharp discs; 5 is a bare square under a glare spot
SPOT, DISC_ON_SLOPE = 5, 6  # 6: a disc in the fall-off of a spot beside it


def _lines() -> np.ndarray:
    """(S, 3, U, 2) three lines across each square (the view along y)."""
    rows = []
    for cx, cy in CENTRES:
        rows.append([[(cx + u * SQUARE_PX, cy + dy) for u in U] for dy in (-6, 0, 6)])
    return np.array(rows, np.float32)


def _spot(img: np.ndarray, x: float, y: float, sigma_px: float, level: float) -> None:
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]]
    img += (level * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * sigma_px ** 2)))[..., None]


def _image() -> np.ndarray:
    img = np.full((200, 400, 3), 60.0, np.float32)
    for i in DISCS + [DISC_ON_SLOPE]:
        cv2.circle(img, CENTRES[i], 18, (200, 200, 200), -1, cv2.LINE_AA)
    _spot(img, *CENTRES[SPOT], 12.0, 170.0)
    cx, cy = CENTRES[DISC_ON_SLOPE]
    _spot(img, cx + 25, cy, 14.0, 120.0)
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_a_disc_edge_is_sharper_than_a_glare_spots_fall_off():
    ks = SimpleNamespace(across_xy=_lines(), u=U)
    sharp, span = edge_sharpness(_image(), ks, np.arange(len(CENTRES)), 0.45)
    assert sharp[SPOT] < 0.5 * min(sharp[i] for i in DISCS)
    assert span[SPOT] > 50  # bright enough to pass for a light piece by colour


def test_only_the_spot_over_a_bare_square_is_glare():
    ks = SimpleNamespace(across_xy=_lines(), u=U)
    pieces = np.ones(len(CENTRES), bool)
    maybe = np.zeros(len(CENTRES), bool)
    maybe[[0, SPOT, DISC_ON_SLOPE]] = True  # what colour alone cannot tell from glare
    soft = soft_glare(_image(), ks, pieces, maybe, VisionConfig())
    assert np.flatnonzero(soft).tolist() == [SPOT]


def test_nothing_is_judged_without_pieces_to_compare_with():
    ks = SimpleNamespace(across_xy=_lines(), u=U)
    pieces = np.zeros(len(CENTRES), bool)
    pieces[[SPOT, 0, 1]] = True
    maybe = np.zeros(len(CENTRES), bool)
    maybe[SPOT] = True
    assert not soft_glare(_image(), ks, pieces, maybe, VisionConfig()).any()


def test_of_two_things_settle_by_edges_the_soft_one_is_glare_the_sharp_one_a_piece():
    ks = SimpleNamespace(across_xy=_lines(), u=U)
    seen = np.arange(len(CENTRES))
    unlike = np.zeros(len(CENTRES), bool)
    unlike[[0, SPOT]] = True
    veil = np.full(len(CENTRES), 20.0)
    free = np.ones(len(CENTRES), bool)
    nothing_beside = np.zeros(len(CENTRES), bool)
    bare, piece = settle_by_edges(_image(), ks, seen, unlike, veil, free, nothing_beside,
                                      VisionConfig())
    assert np.flatnonzero(bare).tolist() == [SPOT]
    assert np.flatnonzero(piece).tolist() == [0]
    # Beside a hidden square a sharp edge may be a finger's: left to the occlusion.
    hand_beside = nothing_beside.copy()
    hand_beside[0] = True
    _, piece = settle_by_edges(_image(), ks, seen, unlike, veil, free, hand_beside,
                                   VisionConfig())
    assert not piece.any()
    # Without a glare veil a soft spot is not taken for glare either.
    bare, _ = settle_by_edges(_image(), ks, seen, unlike, np.zeros(len(CENTRES)), free,
                                  nothing_beside, VisionConfig())
    assert not bare.any()


def test_a_middle_glare_burnt_out_over_the_dark_square_is_bare_and_nothing_else_is():
    cfg = VisionConfig()
    dark = np.array([40.0, 60.0, 120.0])  # (BGR) a reddish brown square
    colour = np.array([
        [254.0, 254.0, 254.0],  # clipped all over, flat: burnt out
        [170.0, 190.0, 252.0],  # red at the limit, the rest the square under a 130 veil
        [170.0, 190.0, 252.0],  # ... but with a silhouette's contrast across it
        [76.0, 122.0, 186.0],   # a hand: flat, but brings no light (nowhere at the limit)
        [244.0, 246.0, 252.0],  # a white piece under a 240 veil: the square at a gain of 0.1
        [120.0, 190.0, 252.0],  # red at the limit, the rest no veil over the square
    ])
    span = np.array([3.0, 14.0, 70.0, 2.0, 10.0, 8.0])
    assert burnt_out(colour, span, dark, cfg).tolist() == [True, True, False, False, False,
                                                           False]
