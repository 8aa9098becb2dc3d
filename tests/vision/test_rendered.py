"""Hard cases on rendered scenes; the renderer's ground truth is the independent answer.

Cases the pipeline already reads correctly are asserted strictly; the ones it does not yet read
well enough (a saturating glare spot, every hand-covered square) are kept as expected failures so
the gap stays visible (see bench/vision_eval.py for the measured rates).
"""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from game.board import Color
from sim.render import camera_pose, render
from sim.world import World
from tests.vision.scenes import (
    SPEC,
    VARIANT,
    observe,
    occupancy_and_colour_errors,
    scene_and_board,
)

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


# Seed 101: a spot that clips most channels around e5 (read occluded before the clipped-channel
# veil fit of the square's corners and of the grid corners).  Seed 102: a spot clipping every
# channel over several squares (read as a piece or occluded before a middle so burnt out was
# taken for bare board: vision.soft_edges.burnt_out).  Seed 103: a black man whose grid
# corners the spot washes out (reported occluded before a piece darker than the bare square
# was read as what glare cannot make).
@pytest.mark.parametrize("seed", [101, 102, 103])
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


def test_red_pieces_on_dark_red_squares():
    """The red set is a lighter shade of the dark squares: shading must not make every bare
    square a red piece (a rendered replay game read the whole board as occupied).  Told by
    brightness alone, a few squares in 15 scenes still go wrong: measured 9 of 480 (28 when a
    square's centre was read on the board, not at half a man's height)."""
    errors = []
    for seed in range(101, 116):
        frame, obs = observe(seed, board_bgr=((45, 45, 150), (180, 220, 235)),
                             pieces_bgr=((50, 50, 205), (35, 35, 35)))
        errors += occupancy_and_colour_errors(frame, obs)
    assert len(errors) <= 12, errors


@pytest.mark.parametrize("away_mm", [1.0, -1.0])
def test_a_crowns_wall_is_drawn_over_its_bases_top_face(away_mm):
    """A crown sits up to a millimetre off its base.  Pushed away from the camera, it is the
    farther disc; drawn before its base, the base's top face painted over the crown's wall and
    every such king looked like one tall disc with a bright band.  Light straight from above:
    the wall (vertical) is darker than the top face."""
    scene, _, _ = scene_and_board(7, tilt=40.0)
    scene = replace(scene, light=replace(scene.light, elevation_deg=90.0, glare=None,
                                         hard_shadow=None, ambient=0.3))
    world = World(SPEC)
    x, y = world.square_center_mm(3, 3)
    _, _, cam = camera_pose(scene)
    away = np.array([x - cam[0], y - cam[1]])
    away /= np.linalg.norm(away)
    world.add_disc(Color.WHITE, x, y, 0)
    cx, cy = x + away_mm * away[0], y + away_mm * away[1]
    world.add_disc(Color.WHITE, cx, cy, 1)
    frame = render(world, scene, VARIANT, seed=7)
    h, r = SPEC.disc_height_mm, SPEC.disc_diameter_mm / 2
    near = (cx - 0.9 * r * away[0], cy - 0.9 * r * away[1])  # the crown's wall facing the camera
    pts = np.array([[*near, 1.5 * h], [cx, cy, 2 * h]], np.float64)
    k = frame.intrinsics
    kmat = np.array([[k.fx_px, 0, k.cx_px], [0, k.fy_px, k.cy_px], [0, 0, 1]])
    px, _ = cv2.projectPoints(pts, frame.rvec, frame.tvec, kmat, np.array(k.dist))
    wall, top = (float(frame.image[int(round(v)), int(round(u))].mean())
                 for u, v in px.reshape(-1, 2))
    assert wall < 0.8 * top, (wall, top)
