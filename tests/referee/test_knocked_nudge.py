"""A piece nudged in the move right after the camera was knocked, before any still view at
the new pose (the game of `replay_eval.py --bump`'s seed 17, on the rendered table: the next
move's hand comes a fraction of a second after the knock).  The stream takes its reference
view from the first frame after the board was found again where nothing moves and no hand is
seen, so the nudge is told as in any other move (before, nothing was there to compare with)."""

from __future__ import annotations

from bench.replay_eval import ANNOUNCE_PROBABILITY, _bump
from game.referee import EventType
from sim.scripted_game import ScriptConfig, game_scene, script_game
from tests.referee.test_rendered import WIDTH_PX, rendered_frames, replay

SEED = 17


def test_a_nudge_right_after_a_knock_is_seen() -> None:
    script = script_game(SEED, config=ScriptConfig(plies=6,
                                                   announce_probability=ANNOUNCE_PROBABILITY))
    scene = game_scene(SEED, script, width_px=WIDTH_PX)
    knock = _bump(script, scene)
    assert knock is not None
    (nudge,) = [p for p in script.planted if p.kind == "nudge"]
    index = next(i for i, m in enumerate(script.moves) if m.text == nudge.move)
    # The nudged move is the first after the knock, and no still view lies between.
    assert script.moves[index - 1].hand_gone_frame < knock[0] < script.moves[index].hand_gone_frame
    assert any(st.hand is not None for st in script.frames
               if knock[0] < st.frame < knock[0] + int(0.5 * script.table.fps))
    # Up to the frame the hand comes back for the move after it.
    back = next(st.frame for st in script.frames
                if st.frame > script.moves[index].hand_gone_frame and st.hand is not None)
    ref = replay(script, *rendered_frames(SEED, script, until=back, knock=knock))
    assert [e.move for e in ref.events if e.type is EventType.MOVE] == \
        [m.text for m in script.moves[:index + 1]]
    touches = [e for e in ref.events if e.type is EventType.TOUCH_MOVE]
    assert [(e.move, set(e.squares) & set(nudge.squares) != set()) for e in touches] == \
        [(nudge.move, True)]
