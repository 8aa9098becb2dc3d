"""A hand held still over the board for longer than `still_occluded_s` passes for a square
the classifier keeps misreading, and the view it is in becomes the still view the stream
compares later frames with (the game of `replay_eval.py`'s seed 19, on the rendered table: the
person lifts h6, touched, holds it over the board, puts it back off-centre and plays f6-e5).
That view saw no board under the hand: once the hand has gone, the squares it hid are read
again, and the piece it held is compared with the view before."""

from __future__ import annotations

import pytest

from bench.replay_eval import ANNOUNCE_PROBABILITY
from game.referee import EventType, Referee
from sim.scripted_game import GameScript, ScriptConfig, script_game
from tests.referee.test_rendered import rendered_frames, replay

SEED = 19


@pytest.fixture(scope="module")
def game() -> tuple[GameScript, Referee]:
    """The script and the referee after the frames up to the hand's return for the fourth
    move."""
    script = script_game(SEED, config=ScriptConfig(plies=6,
                                                   announce_probability=ANNOUNCE_PROBABILITY))
    third = script.moves[2]
    assert [(p.kind, p.move) for p in script.planted][1] == ("touch_move", third.text), \
        "the third move must be the one after a piece was held (touched)"
    back = next(st.frame for st in script.frames
                if st.frame > third.hand_gone_frame and st.hand is not None)
    return script, replay(script, *rendered_frames(SEED, script, until=back))


def test_squares_a_still_hand_hid_are_read_again_once_it_has_gone(game) -> None:
    # (Before, h8 read 'covered' and g7 kept the still view's 'occluded' until the next hand
    # came: neither f6-e5 nor the next move was read.)
    script, ref = game
    moves = [e.move for e in ref.events if e.type is EventType.MOVE]
    assert moves == [m.text for m in script.moves[:3]]


def test_the_piece_it_held_and_put_back_askew_is_seen_touched(game) -> None:
    # (Before, h6 was compared with the still view that had the hand over it: unseen.)
    script, ref = game
    (touch,) = [p for p in script.planted if p.kind == "touch_move"]
    touches = [(e.move, set(e.squares)) for e in ref.events if e.type is EventType.TOUCH_MOVE]
    assert touches == [(touch.move, set(touch.squares))]
