"""Hard cases on rendered scenes; the renderer's ground truth is the independent answer.

Cases the pipeline already reads correctly are asserted strictly; the ones it does not yet read
well enough (a saturating glare spot, every hand-covered square) are kept as expected failures so
the gap stays visible (see bench/vision_eval.py for the measured rates).
"""

import pytest

from tests.vision.scenes import observe, occupancy_and_colour_errors

SEEDS = (101, 102, 103)


@pytest.mark.parametrize("seed", SEEDS)
def test_straight_down_camera(seed):
    frame, obs = observe(seed, tilt=0.0)
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_oblique_camera_48_degrees(seed):
    frame, obs = observe(seed, tilt=48.0)
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_off_centre_pieces(seed):
    frame, obs = observe(seed, offset_mm=5.0)
    assert occupancy_and_colour_errors(frame, obs) == []


_STILL_WRONG = pytest.mark.xfail(
    reason="a glare spot clipping every channel over several squares still reads as a piece or "
           "as occluded", strict=False)


# Seed 101: a spot that clips most channels around e5 (read occluded before the clipped-channel
# veil fit of the square's corners and of the grid corners).
@pytest.mark.parametrize("seed", [101, pytest.param(102, marks=_STILL_WRONG),
                                  pytest.param(103, marks=_STILL_WRONG)])
def test_glare(seed):
    frame, obs = observe(seed, glare=True)
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_hard_shadow(seed):
    frame, obs = observe(seed, hard_shadow=True)
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [101, pytest.param(102, marks=pytest.mark.xfail(
    reason="a hand the colour of the light pieces can still be read as a piece", strict=False)),
    103])
def test_hand_covered_squares_are_reported_occluded(seed):
    frame, obs = observe(seed, hand=True)
    assert frame.occluded, "the scene must have a hand over the board"
    assert frame.occluded <= obs.occluded


@pytest.mark.parametrize("seed", SEEDS)
def test_kings_in_every_row(seed):
    frame, obs = observe(seed, king_share=0.5, tilt=40.0)
    ranks = {frame.placement.geometry.coords[sq][1] for sq, p in
             frame.placement.piece_map().items() if p.is_king}
    assert len(ranks) >= 5
    assert obs.board.placement_equals(frame.placement)




@pytest.mark.parametrize("seed", [101, 102, 103])
def test_red_pieces_on_dark_red_squares(seed):
    # The red set is a lighter shade of the dark squares: shading must not make every bare
    # square a red piece (a rendered replay game read the whole board as occupied).
    frame, obs = observe(seed, board_bgr=((45, 45, 150), (180, 220, 235)),
                         pieces_bgr=((50, 50, 205), (35, 35, 35)))
    assert occupancy_and_colour_errors(frame, obs) == []
