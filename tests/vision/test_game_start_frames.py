"""The first still frame of rendered replay games whose whole board once read wrong.

Seed 33: a hard shadow over half the board turned the shadowed orange men into the blue set;
seed 45: red men on dark red squares made every bare square a red piece.  The renderer's
placement is the independent answer (men and kings are not told apart here).  Seed 33 also
once reported the four lit blue men occluded: the light squares beside them, lit beyond what a
smooth light model expects, looked foreign (an arm).
"""

import pytest

from sim.scripted_game import ScriptConfig, game_scene, render_script, script_game
from tests.vision.scenes import occupancy_and_colour_errors
from vision.pipeline import BoardObserver


@pytest.mark.parametrize("seed", [33, 45])
def test_start_frame_of_a_rendered_game_reads_right(seed):
    script = script_game(seed, config=ScriptConfig(plies=6, announce_probability=0.5))
    scene = game_scene(seed, script, width_px=960)
    _, frame = next(iter(render_script(script, scene, seed)))
    # As `damas replay --corners` reads it: the grid's corners, no lens calibration.
    observer = BoardObserver(script.variant, corners_px=frame.corners_px)
    errors = occupancy_and_colour_errors(frame, observer.observe(frame.image))
    assert errors == []
