"""Unit properties of the pipeline's stages, against hand-computed expectations."""

import numpy as np
import pytest

from game.board import BaseBoard, Piece
from game.observation import OCCLUDED
from vision.kings import fit_lean, hidden_runs, measure_height
from vision.observation import BoardObservation, to_game_observation


def test_hidden_run_bridges_small_gaps_and_stops_at_the_board():
    t = np.arange(-0.5, 0.5, 0.01)
    score = np.where(np.abs(t) <= 0.2, 1.0, -1.0)
    score[48:50] = -1.0  # a 2-sample ridge inside the piece
    length = hidden_runs(score[None], np.zeros((1, len(t)), bool), t[None], max_gap=2)[0]
    assert length == pytest.approx(0.4, abs=0.02)


def test_hidden_run_crosses_a_highlight_but_not_beyond_the_piece():
    t = np.arange(-0.5, 0.5, 0.01)
    score = np.where((t >= -0.2) & (t <= 0.3), 1.0, -1.0)
    bright = np.zeros(len(t), bool)
    bright[55:70] = True  # a specular spot inside the piece (t 0.05 .. 0.19)
    score[55:70] = -1.0
    bright[85:95] = True  # a bright light square beyond it: must not lengthen the run
    length = hidden_runs(score[None], bright[None], t[None], max_gap=2)[0]
    assert length == pytest.approx(0.5, abs=0.02)


@pytest.mark.parametrize("lean, shift", [(0.1, 0.0), (0.25, 0.08), (0.05, -0.12)])
def test_fit_lean_recovers_lean_whatever_the_shift(lean, shift):
    offsets = np.array([-0.15, -0.075, 0.0, 0.075, 0.15])
    radius = 0.375
    along = 2 * np.sqrt(radius ** 2 - (offsets - shift) ** 2) + lean
    along[1] += 0.3  # one spoiled line
    got = fit_lean(along[None], offsets, np.array([radius]), 0.15)[0]
    assert got == pytest.approx(lean, abs=0.01)


def test_measure_height_from_men_and_kings():
    lean = np.array([0.5, 0.8, 1.0, 1.2, 0.6, 0.9, 1.1])
    true_h = 0.2
    discs = np.array([1, 1, 2, 1, 2, 1, 1])
    height, _ = measure_height(lean * true_h * discs, lean, 0.175)
    assert height == pytest.approx(true_h, rel=0.06)


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
