"""The first frame of rendered replay game 33 as `damas replay --fen` reads it (colours learned
from the start position): a hard shadow over half the board, and in the lit half an orange man
lighter and more saturated than its set.  No square may be reported occluded (nothing covers
the board) and every square must hold what the renderer placed (men and kings not told apart).
"""

from app.commands.replay import make_observer
from game.board import Board
from sim.scripted_game import ScriptConfig, game_scene, render_script, script_game
from tests.vision.scenes import occupancy_and_colour_errors


def test_lit_piece_in_a_sunlit_patch_is_not_a_hand() -> None:
    seed = 33
    script = script_game(seed, config=ScriptConfig(plies=6, announce_probability=0.5))
    scene = game_scene(seed, script, width_px=960)
    _, frame = next(iter(render_script(script, scene, seed)))
    corners = " ".join(f"{x:.2f},{y:.2f}" for x, y in frame.corners_px)
    start = Board(script.start_fen, script.variant).placement()
    observer = make_observer(script.variant, corners, None, frame.image, start)
    obs = observer.observe(frame.image)
    assert obs.occluded == frozenset()
    assert occupancy_and_colour_errors(frame, obs) == []
