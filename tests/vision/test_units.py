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
