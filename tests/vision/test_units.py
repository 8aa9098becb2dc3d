"""Unit properties of the pipeline's stages, against hand-computed expectations."""

import pytest

from game.board import BaseBoard, Piece
from game.observation import OCCLUDED
from vision.observation import BoardObservation, to_game_observation


def test_observation_converts_to_the_referees_type():
    board = BaseBoard.empty("brazilian")
    board.set_piece_at(0, Piece.WHITE_KING)
    board.set_piece_at(5, Piece.BLACK_MAN)
    obs = BoardObservation(board, {sq: 0.9 for sq in board.squares}, frozenset({7}),
                           ((0, 0),) * 4)
    g = to_game_observation(obs, frame=3, time_s=1.5)
    assert g.squares[0] is Piece.WHITE_KING and g.squares[5] is Piece.BLACK_MAN
    assert g.squares[7] is OCCLUDED and g.squares[1] is None
    assert g.hand and g.frame == 3 and len(g.confidence) == 32
    js = obs.to_json_dict()
    assert js["squares"]["a1"] == {"piece": "white_king", "confidence": 0.9}
    assert len(js["squares"]) == 32 and js["grid"] == 8


def test_colour_model_learned_at_the_start_position_reads_it_back():
    import random

    from calibration.store import Calibration
    from game.variants import find_variant
    from sim.render import render
    from sim.scene import sample_scene, sample_world
    from sim.world import TableSpec
    from vision.pipeline import BoardObserver

    rng = random.Random(11)
    variant = find_variant("brazilian")
    spec = TableSpec()
    scene = sample_scene(rng, spec, hand_probability=0, glare_probability=0,
                         hard_shadow_probability=0)
    start = BaseBoard.starting(variant)
    frame = render(sample_world(rng, start, spec), scene, variant, seed=11)
    observer = BoardObserver(variant, calibration=Calibration(camera=frame.intrinsics),
                             corners_px=frame.corners_px)
    model = observer.learn_colours(frame.image)
    assert model.has_pieces and model.white_piece_lab[0] > model.black_piece_lab[0]
    calibrated = BoardObserver(variant, calibration=Calibration(camera=frame.intrinsics,
                                                                colours=model),
                               corners_px=frame.corners_px)
    assert calibrated.observe(frame.image).board.placement_equals(start)
    empty = BaseBoard.empty(variant)
    with pytest.raises(ValueError, match="expected position"):
        observer.learn_colours(frame.image, expected=empty)


@pytest.mark.parametrize("a, b, c, one_set", [
    # Lab (OpenCV's 0..255 scale, 128 neutral).  Orange lit and shaded, a blue piece: one set
    # in two lights, and the other set.
    ((110, 148, 173), (65, 155, 162), (48, 142, 92), True),
    # White lit and shaded, a black king: the same.
    ((240, 128, 128), (185, 129, 127), (40, 128, 129), True),
    # Orange and blue sets, and a grey glare spot lighter than both: two sets and no third.
    ((110, 148, 173), (60, 142, 92), (250, 128, 129), False),
    # White lit and shaded, and a glare spot lighter still, grey: not a set.
    ((240, 128, 128), (185, 129, 127), (254, 128, 128), False),
    # Orange and blue sets, and a red thing: the two large groups are no one set.
    ((110, 148, 173), (60, 142, 92), (90, 190, 160), False),
])
def test_one_set_in_two_lights(a, b, c, one_set):
    import numpy as np

    from vision.pieces import _one_set_in_two_lights

    assert _one_set_in_two_lights(*(np.array(v, np.float64) for v in (a, b, c))) is one_set


@pytest.mark.parametrize("gain, hi", [
    # A set a shade of the navy squares, brighter by these factors: the bare square's shades
    # stop halfway (geometrically) to the set's brightness, so 1.5 -> sqrt(1.5), 2.1 ->
    # sqrt(2.1) (a set past 1.6 times that would still bring the bound below 1.6) ...
    (1.5, 1.5 ** 0.5),
    (2.1, 2.1 ** 0.5),
    # ... and one past 1.6 squared leaves the bound at 1.6.
    (3.0, 1.6),
])
def test_the_bare_squares_shades_stop_short_of_a_brighter_set_of_their_colour(gain, hi):
    import numpy as np

    from vision.pieces import _board_shade_range

    navy = np.array([110.0, 70.0, 35.0])
    lo, got = _board_shade_range([gain * navy], navy)
    assert lo == pytest.approx(0.35)
    assert got == pytest.approx(hi)


@pytest.mark.parametrize("piece_bgr, lighter", [
    # Tan wooden men and red men (BGR, as si3p-mat.jpg shows them).  A tan man at half and at
    # a third of the light is the tan set however dark ...
    ((36.0, 52.0, 68.0), True),
    ((24.0, 35.0, 45.0), True),
    # ... a red man in the same shadow is not, nor a grey thing as dark (a hand's shade).
    ((15.0, 15.0, 50.0), False),
    ((36.0, 36.0, 36.0), False),
])
def test_a_piece_of_the_lighter_set_in_a_shadow_is_told_by_its_hue(piece_bgr, lighter):
    import numpy as np

    from vision.pieces import _dim_lighter_set, _to_lab

    tan, red = np.array([[71.0, 104.0, 135.0]]), np.array([[29.0, 29.0, 97.0]])
    got = _dim_lighter_set(_to_lab(np.array([piece_bgr])), _to_lab(tan)[0], _to_lab(red)[0])
    assert got.tolist() == [lighter]


def test_sets_of_one_hue_are_told_apart_by_lightness_alone():
    """White and black sets (one a shade of the other): a dark grey piece is no dimmed white
    man by hue, so the hue test says nothing."""
    import numpy as np

    from vision.pieces import _dim_lighter_set, _to_lab

    white, black = np.array([[210.0, 212.0, 215.0]]), np.array([[35.0, 36.0, 38.0]])
    pieces = np.array([[60.0, 61.0, 63.0], [100.0, 101.0, 104.0]])
    assert not _dim_lighter_set(_to_lab(pieces), _to_lab(white)[0], _to_lab(black)[0]).any()


def test_a_veil_over_the_black_square_is_told_from_a_veiled_set_of_a_clear_hue():
    """(BGR) A grey veil of 100 levels over a black square at 0.9 of the light fits the square
    (no miss); tan men under the same veil fit the tan set; the grey fits the tan set only at
    a gain no man in that light has (the gain held to 0.5..2, it misses by tens of levels)."""
    import numpy as np

    from vision.pieces import _held_veil_miss

    black, tan = np.array([22.0, 24.0, 26.0]), np.array([71.0, 104.0, 135.0])
    grey = 0.9 * black + 100.0
    veiled_tan = 0.9 * tan + 100.0
    x = np.array([grey, veiled_tan])
    lo, hi = np.full(2, 0.5), np.full(2, 2.0)
    on_black = _held_veil_miss(x, black, lo, hi)
    as_tan = _held_veil_miss(x, tan, lo, hi)
    assert on_black[0] < 1.0 and as_tan[1] < 1.0
    assert as_tan[0] > 15.0 and on_black[1] > 30.0
    # Free, the gain would explain the grey as a tenth of tan and a veil (hardly a miss).
    assert _held_veil_miss(x[:1], tan, np.zeros(1), np.full(1, 2.0))[0] < 0.5 * as_tan[0]
