"""A glare spot smaller than a square, centred on an empty dark square, on rendered scenes.

The smooth light model cannot follow a spot that sharp, so the square's own corners must say
it is bare board under a veil (vision.pieces._veiled_board).  The renderer places the spot
and knows the square is empty: that is the independent answer.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from calibration.store import Calibration
from game.board import BaseBoard
from sim.render import render
from sim.scene import sample_world
from sim.world import World
from vision.config import VisionConfig
from vision.pipeline import BoardObserver

from .scenes import SPEC, VARIANT, occupancy_and_colour_errors, scene_and_board

# Empty dark squares of the start position (ranks 4 and 5), one spot each.
SPOTS = ("a5", "c5", "e5", "d4", "f4", "h4")


def _spot_on_empty_square(seed: int, tilt_deg: float, sigma_mm: float, strength: float):
    """(frame, observation, square): the start position seen at `tilt_deg`, a glare spot
    centred on one empty dark square (which, by the seed)."""
    scene, _, rng = scene_and_board(seed, tilt=tilt_deg)
    board = BaseBoard.starting(VARIANT)
    sq = board.parse_square(SPOTS[seed % len(SPOTS)])
    x_mm, y_mm = World(SPEC).square_center_mm(*board.geometry.coords[sq])
    light = replace(scene.light, glare=(x_mm, y_mm, sigma_mm, strength))
    frame = render(sample_world(rng, board, SPEC, max_offset_mm=2.0), replace(scene, light=light),
                   VARIANT, seed=seed)
    observer = BoardObserver(VARIANT, calibration=Calibration(camera=frame.intrinsics),
                             corners_px=frame.corners_px)
    return frame, observer.observe(frame.image), sq


@pytest.mark.parametrize("seed", [201, 202, 203, 204, 205, 206])
def test_a_sharp_glare_spot_on_an_empty_square_reads_empty(seed: int) -> None:
    # sigma 18 mm under a 40 mm square; strong, but below the sensor's clipping on most boards.
    frame, obs, sq = _spot_on_empty_square(seed, 35.0, 18.0, 0.45)
    assert occupancy_and_colour_errors(frame, obs) == []
    assert obs.board.piece_at(sq) is None and sq not in obs.occluded


@pytest.mark.parametrize("seed", [310, 311, 324])
def test_a_glare_spot_that_whitens_an_empty_square_is_no_piece(seed: int) -> None:
    """A stronger spot (sigma 20 mm, 0.8, a 20 deg view) whitens the square's middle: its
    colour is then a light piece's, and its corners no longer tell (these were read as a king).
    A piece's silhouette is a sharp step, the spot's fall-off is not (vision.soft_edges)."""
    frame, obs, sq = _spot_on_empty_square(seed, 20.0, 20.0, 0.8)
    assert obs.board.piece_at(sq) is None and sq not in obs.occluded
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [402, 407, 411])
def test_a_glare_spot_that_burns_an_empty_square_out_leaves_it_bare(seed: int) -> None:
    """Stronger still (sigma 25 mm, 1.5): the square's middle and its grid corners reach the
    sensor's limit, flat, with no silhouette left to judge by its edges, and unlike any colour
    the board knows.  A hand brings no light of its own, so the square is not reported
    hidden: it is bare (vision.soft_edges.burnt_out).  Without that, it was reported occluded."""
    frame, obs, sq = _spot_on_empty_square(seed, 20.0, 25.0, 1.5)
    assert obs.board.piece_at(sq) is None and sq not in obs.occluded
    assert occupancy_and_colour_errors(frame, obs) == []
    blind = BoardObserver(VARIANT, cfg=VisionConfig(burnt_level=1000.0, hands_reach_in=False),
                          calibration=Calibration(camera=frame.intrinsics),
                          corners_px=frame.corners_px).observe(frame.image)
    assert sq in blind.occluded  # (the test does exercise the rule)
