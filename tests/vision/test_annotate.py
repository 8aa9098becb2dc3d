"""`damas detect --annotate`: the picture a person checks the reading against."""

import random

import cv2
import numpy as np

from game.variants import find_variant
from sim.render import render
from sim.scene import sample_position, sample_scene, sample_world
from sim.world import TableSpec
from vision.annotate import annotate
from vision.pipeline import BoardObserver


def _far_board() -> tuple[np.ndarray, np.ndarray]:
    """A rendered board shrunk to a third, in the middle of a canvas twice the frame's size (a
    board far off in a large photo): (image, its grid corners)."""
    rng = random.Random(11)
    variant = find_variant("brazilian")
    spec = TableSpec(grid=8)
    scene = sample_scene(rng, spec, tilt_max_deg=10, hand_probability=0, glare_probability=0,
                         hard_shadow_probability=0)
    frame = render(sample_world(rng, sample_position(rng, variant), spec), scene, variant,
                   seed=11)
    small = cv2.resize(frame.image, None, fx=1 / 3, fy=1 / 3, interpolation=cv2.INTER_AREA)
    h, w = frame.image.shape[:2]
    canvas = np.full((2 * h, 2 * w, 3), 90, np.uint8)
    y0, x0 = h - small.shape[0] // 2, w - small.shape[1] // 2
    canvas[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    return canvas, frame.corners_px / 3 + np.array([x0, y0])


def test_marks_are_sized_by_the_squares_not_the_image():
    """Marks scaled with the image's size buried a far board under circles wider than its
    squares, drawn over the table beyond it: every mark now stays on the board's grid (within
    a fifth of a square past its outer lines), and the marks leave most of it as it was."""
    image, corners = _far_board()
    obs = BoardObserver("brazilian", corners_px=corners).observe(image)
    out = annotate(image, obs)
    changed = np.any(out != image, axis=2).astype(np.uint8)
    side = float(np.linalg.norm(corners[1] - corners[0])) / 8
    centre = corners.mean(axis=0)
    grown = centre + (corners - centre) * (1 + 2 * 0.2 / 8)
    board = np.zeros_like(changed)
    cv2.fillConvexPoly(board, np.round(grown).astype(np.int32), 1)
    assert changed.sum() > 0
    assert (changed & (1 - board)).sum() == 0
    # (No mark fills its square: an empty square's dot and a piece's ring leave most of it.)
    assert changed.sum() < 0.5 * (8 * side) ** 2
