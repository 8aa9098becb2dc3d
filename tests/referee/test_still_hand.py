"""A hand held still over the board for longer than `still_occluded_s` passes for a square
the classifier keeps misreading, and the view it is in becomes the still view the stream
compares later frames with.  Once the hand has gone, the squares it hid there must be read
again: they are no evidence of anything (the game of `replay_eval.py`'s seed 19, on the
rendered table: the person held h6, touched, over the board; then h8 stayed 'covered' and g7
kept the still view's 'occluded', and neither that move nor the next was ever read)."""

from __future__ import annotations

from bench.replay_eval import ANNOUNCE_PROBABILITY
from game.referee import EventType
from sim.scripted_game import ScriptConfig, script_game
from tests.referee.test_rendered import rendered_frames, replay

SEED = 19


def test_squares_a_still_hand_hid_are_read_again_once_it_has_gone() -> None:
    script = script_game(SEED, config=ScriptConfig(plies=6,
                                                   announce_probability=ANNOUNCE_PROBABILITY))
    third = script.moves[2]
    assert [(p.kind, p.move) for p in script.planted][1] == ("touch_move", third.text), \
        "the third move must be the one after a piece was held (touched)"
    # Up to the frame the hand comes back for the fourth move.
    back = next(st.frame for st in script.frames
                if st.frame > third.hand_gone_frame and st.hand is not None)
    ref = replay(script, *rendered_frames(SEED, script, until=back))
    moves = [e.move for e in ref.events if e.type is EventType.MOVE]
    assert moves == [m.text for m in script.moves[:3]]
