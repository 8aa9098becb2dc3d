"""Boards played on the light squares: found without help, the pieces are still read.

The renderer's board is given light playable squares and dark other ones (its ground truth is
the answer); the board finder names a dark corner a1, so the pipeline must see that the pieces
stand on the other colour and turn the naming a quarter."""

from __future__ import annotations

import numpy as np
import pytest

from sim.render import render
from sim.scene import sample_world
from tests.vision.scenes import SPEC, VARIANT, evaluation_frame, scene_and_board
from vision.parity import occupied_by_parity, played_on_the_other_colour
from vision.pipeline import BoardObserver


def _light_playable(seed: int):
    scene, board, rng = scene_and_board(seed, tilt=30.0,
                                        board_bgr=((200, 215, 225), (40, 50, 60)))
    return render(sample_world(rng, board, SPEC), scene, VARIANT, seed=seed)


@pytest.mark.parametrize("seed", (1, 4))
def test_pieces_on_the_light_squares_are_read_on_a_board_found_without_help(seed):
    frame = _light_playable(seed)
    obs = BoardObserver(VARIANT).observe(frame.image)
    truth = {sq: (p.value if (p := frame.placement.piece_at(sq)) else "empty")
             for sq in frame.placement.squares}
    wrong = [sq for sq, t in truth.items() if obs.label(sq) != t and sq not in frame.occluded]
    assert sum(t != "empty" for t in truth.values()) >= 6
    assert wrong == []
    # (a1 where the renderer has it: the found corners turned a quarter)
    assert np.linalg.norm(np.array(obs.corners_px[0]) - frame.corners_px[0]) < 3.0


def test_the_counts_follow_the_pieces():
    frame = _light_playable(1)
    pieces = sum(frame.placement.piece_at(sq) is not None for sq in frame.placement.squares)
    on_dark, on_light = occupied_by_parity(frame.image, frame.corners_px[[1, 2, 3, 0]], 8)
    assert on_dark == 0 and on_light >= pieces - 3


@pytest.mark.parametrize("seed", (30040, 30172, 30376, 30111))
def test_a_board_played_on_the_dark_squares_is_not_turned(seed):
    """Evaluation scenes with a hand, glare or kings leaning over the light squares at 40-45
    degrees (reading the light squares as playable found pieces there in each)."""
    frame, variant = evaluation_frame(seed)
    assert not played_on_the_other_colour(frame.image, frame.corners_px, variant.width)


def test_the_colours_are_read_as_from_the_whole_image_smoothed_and_a_large_photo_is_not_copied():
    """The parity test reads a few hundred smoothed colours between pixels: as OpenCV reads
    them from the whole image box-blurred and converted to floats (the reference), without
    making that copy (a 48-megapixel photo took 700 MB for it)."""
    import tracemalloc

    import cv2

    from vision.parity import _box_blurred_between

    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (3000, 4000, 3)).astype(np.uint8)
    image = cv2.GaussianBlur(image, (0, 0), 3)  # (texture on the scale of a few pixels)
    h, w = image.shape[:2]
    xy = np.column_stack([rng.uniform(0, w - 1, 500), rng.uniform(0, h - 1, 500)])
    xy = np.vstack([xy, [[0, 0], [w - 1, h - 1], [0, h - 1], [w - 1, 0]]]).astype(np.float32)
    whole = cv2.blur(image, (3, 3)).astype(np.float32)
    want = cv2.remap(whole, xy[:, 0].reshape(1, -1), xy[:, 1].reshape(1, -1),
                     cv2.INTER_LINEAR).reshape(-1, 3)
    del whole
    tracemalloc.start()
    try:
        got = _box_blurred_between(image, xy)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.abs(got - want).max() < 1e-3
    assert peak < 1.5 * image.nbytes  # (the float copy alone is four times the image)
