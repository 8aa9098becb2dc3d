"""Stacked king or single man: the king stage's parts on hand-built profiles, and rendered
scenes whose ground truth (which squares hold two discs) comes from the renderer."""

import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.store import BoardCalibration, Calibration
from game.board import BaseBoard
from sim.render import render
from sim.scene import sample_position, sample_scene, sample_world
from sim.world import TableSpec
from tests.vision.scenes import SPEC, VARIANT, evaluation_frame, observe, scene_and_board
from vision import kings
from vision.config import KingConfig, VisionConfig
from vision.king_samples import _kind_across_line
from vision.kings import (
    board_beyond,
    fit_width,
    height_preference,
    height_scores,
    interval_scores,
    king_split,
    likeness,
    likeness_distances,
    piece_likeness,
    set_preference,
    set_radius,
    shade_apart,
    short_runs,
    unlike_a_piece,
    wall_length_preference,
    wall_preference,
)
from vision.pipeline import BoardObserver

STEP = 0.01
T = np.arange(-0.8, 1.3, STEP)
LINES = np.array([-0.2, -0.1, 0.0, 0.1, 0.2])


def _profile(radius, shift, side, lean):
    """Likeness +1 where a piece swept `lean` away from the camera covers each line, else -1."""
    rows = []
    for b in LINES:
        c2 = radius ** 2 - (b - side) ** 2
        c = np.sqrt(max(c2, 0.0))
        inside = (T >= shift - c) & (T <= shift + lean + c) if c2 > 0 else np.zeros(len(T), bool)
        rows.append(np.where(inside, 1.0, -1.0))
    return np.array(rows)


def test_interval_score_is_highest_on_the_true_interval():
    p = np.where((T >= -0.2) & (T < 0.3), 1.0, -1.0)[None]
    cum = np.concatenate([[0.0], np.cumsum(p[0])])[None].astype(np.float32)
    starts = np.array([[-0.3, -0.2, -0.1]])
    ends = np.array([[0.3, 0.3, 0.3]])
    got = interval_scores(cum, (starts - T[0]) / STEP + 0.5, (ends - T[0]) / STEP + 0.5)[0]
    assert np.argmax(got) == 1
    # Inside minus outside: 50 samples of +1 in, all the others (-1) out: every sample counts.
    assert got[1] == pytest.approx(len(T), abs=2.0)


@pytest.mark.parametrize("discs", [1, 2])
@pytest.mark.parametrize("shift, side", [(0.0, 0.0), (0.1, -0.05), (-0.12, 0.1), (0.15, 0.0)])
@pytest.mark.parametrize("cost", [0.0, 1.0])
def test_height_preference_names_the_number_of_discs_whatever_the_shift(discs, shift, side,
                                                                        cost):
    """(Clear edges: a shift past where pieces usually stand, which costs, still fits.)"""
    radius, lean = 0.375, 0.12
    p = _profile(radius, shift, side, discs * lean)[None]
    pref = height_preference(p, STEP, float(T[0]), LINES, np.array([radius]), np.array([side]),
                             np.array([[lean, 2 * lean]]), np.ones((1, 2)), 0.15, 13, 0.1,
                             cost)[0]
    assert pref > 0.6 if discs == 2 else pref < -0.6


@pytest.mark.parametrize("discs", [1, 2])
def test_a_shade_of_the_piece_before_its_near_edge_does_not_set_a_king_back(discs):
    """A dark square in a shade of the piece's colour (white before black) reads barely as
    board: before the piece's near edge, a stretch one lean long reads faintly as piece.  A
    king set back by a lean covers it and ends where the man does; the shift it needs, past
    where pieces stand, costs more than the faint stretch gains."""
    radius, lean = 0.375, 0.18
    p = _profile(radius, 0.0, 0.0, discs * lean)
    for j, b in enumerate(LINES):
        near = np.sqrt(radius ** 2 - b ** 2)
        p[j, (T >= -near - lean) & (T < -near)] = 0.1
    args = (STEP, float(T[0]), LINES, np.array([radius]), np.array([0.0]),
            np.array([[lean, 2 * lean]]), np.ones((1, 2)), 0.15, 13)
    pref = height_preference(p[None], *args, 0.1, 1.0)[0]
    if discs == 2:
        assert pref > 0.9
    else:
        assert pref < -0.15
        # (Free to shift, the fit hardly tells: the test does test the cost.)
        assert height_preference(p[None], *args)[0] > -0.1


def _man_before_own_colour(radius, lean, side):
    """A man whose board past its far edge reads as piece (a frame of its own colour)."""
    p = _profile(radius, 0.0, side, lean)
    for row, b in zip(p, LINES, strict=True):
        c = np.sqrt(max(radius ** 2 - (b - side) ** 2, 0.0))
        row[T > lean + c] = 1.0
    return p[None]


def test_board_beyond_trusts_a_silhouette_against_board_and_not_one_against_its_own_colour():
    radius, lean, side = 0.375, 0.12, 0.0
    lam, rho = np.array([[lean, 2 * lean]]), np.ones((1, 2))
    args = (STEP, float(T[0]), LINES, np.array([radius]), np.array([side]), lam, rho, 0.15)
    everywhere = np.ones((1, len(LINES), len(T)), bool)
    man = _profile(radius, 0.0, side, lean)[None]
    assert board_beyond(man, *args, everywhere)[0] == pytest.approx(1.0)
    fooled = _man_before_own_colour(radius, lean, side)
    # The silhouette alone takes it for a king (the band past a man's top reads as piece) ...
    pref = height_preference(fooled, *args, 13)[0]
    assert pref > 0.6
    # ... but the board beyond reads as piece too: the test says nothing.
    assert board_beyond(fooled, *args, everywhere)[0] == pytest.approx(0.0)
    # Beyond lies a playable square (another piece may stand there): not read, trusted.
    assert board_beyond(fooled, *args, np.zeros_like(everywhere))[0] == pytest.approx(1.0)


def _brightness(radius, shift, lean, wall, top, board=40.0):
    """A piece seen along the view: its wall (`wall` bright) from the base's near edge to the
    top face's near edge `lean` further, then the top face (`top`), the board around."""
    rows = []
    for b in LINES:
        c = np.sqrt(max(radius ** 2 - b ** 2, 0.0))
        row = np.full(len(T), board)
        row[(T >= shift - c) & (T < shift + lean - c)] = wall
        row[(T >= shift + lean - c) & (T <= shift + lean + c)] = top
        rows.append(row)
    return np.array(rows, np.float32)[None]


@pytest.mark.parametrize("discs", [1, 2])
def test_the_wall_says_where_the_top_face_begins(discs):
    radius, lean, shift = 0.375, 0.12, 0.05
    lum = _brightness(radius, shift, discs * lean, wall=90.0, top=200.0)
    args = (STEP, float(T[0]), LINES, np.array([radius]), np.zeros(1),
            np.array([[lean, 2 * lean]]), np.ones((1, 2)), np.array([shift]), KingConfig())
    got = wall_preference(lum, *args)[0]
    assert got > 0.8 if discs == 2 else got < -0.8


def test_a_wall_as_bright_as_the_top_says_nothing():
    radius, lean = 0.375, 0.12
    lum = _brightness(radius, 0.0, 2 * lean, wall=200.0, top=200.0)
    got = wall_preference(lum, STEP, float(T[0]), LINES, np.array([radius]), np.zeros(1),
                          np.array([[lean, 2 * lean]]), np.ones((1, 2)), np.zeros(1),
                          KingConfig())[0]
    assert got == 0.0


def _wall_length(discs, shift, wall=90.0, top=200.0):
    radius, lean = 0.375, 0.12
    p = _profile(radius, shift, 0.0, discs * lean)[None]
    lum = _brightness(radius, shift, discs * lean, wall=wall, top=top)
    return wall_length_preference(p, lum, STEP, float(T[0]), LINES, np.array([radius]),
                                  np.zeros(1), np.array([[lean, 2 * lean]]), np.ones((1, 2)),
                                  KingConfig())[0]


@pytest.mark.parametrize("discs", [1, 2])
@pytest.mark.parametrize("shift", [-0.08, 0.0, 0.08])
def test_the_walls_length_edge_to_edge_says_how_many_discs_wherever_the_piece_stands(discs,
                                                                                     shift):
    """The base's near edge (board to piece) and the top face's (dark wall to bright top)
    are a lean apart for a man and two for a king, whatever the piece's offset."""
    got = _wall_length(discs, shift)
    assert got > 0.8 if discs == 2 else got < -0.8


def test_a_wall_as_bright_as_the_top_has_no_length():
    assert _wall_length(2, 0.0, wall=200.0, top=200.0) == 0.0


# Evaluation scenes (bench/vision_eval.py) where the silhouette and the wall test, at the
# shift the silhouette fit chose, hardly decided and got it wrong; the wall's length measured
# edge to edge tells them.  (The scenes' ground truth is the renderer's.  Until the height
# fit read dark shades of the piece fully, KingConfig.near_apart, these were (1000148, 10),
# (1000714, 23), (1000716, 16) and (1000905, 6): since, the first reads as a king again and
# the others are read right without the wall's length.  Since the board's colours as voted
# are the king stage's background (vision.pieces), (7000183, 45) is read wrong and
# (7000125, 7) took its place.  On seed 7's 1,000 scenes it still sets 13 squares right:
# 325 misread without, 312 with.)
_WALL_LENGTH_SCENES = [(7000030, 17), (7000070, 12), (7000125, 7), (7000790, 0)]


def _evaluation_pieces_right(scenes, *cfgs):
    """For each of `cfgs`, how many of the pieces `scenes` ((seed, square) of evaluation
    scenes) it reads right: colour, and one disc or two."""
    right = [0] * len(cfgs)
    for seed, sq in scenes:
        frame, variant = evaluation_frame(seed)
        for k, cfg in enumerate(cfgs):
            obs = BoardObserver(variant, cfg=cfg, calibration=Calibration(
                camera=frame.intrinsics), corners_px=frame.corners_px).observe(frame.image)
            right[k] += obs.board.piece_at(sq) == frame.placement.piece_at(sq)
    return right


def test_the_board_beside_a_piece_is_its_colour_as_voted_not_its_samples_median():
    """Evaluation scene 1000367 (ground truth the renderer's): navy and yellow squares, white
    and red men and kings at 39 deg, an arm over the board.  The dark squares' corner patches
    hold so much wall, shadow and arm that their plain median is a grey-brown, (68, 66, 84),
    where the vote (vision.light.board_colours) finds navy, (74, 34, 26).  Compared with the
    grey-brown, the navy beside five white men on the far ranks passed for the shade of their
    walls, and they read as kings; the king on e5, with the arm on his square's edge, as a
    man."""
    frame, variant = evaluation_frame(1000367)
    obs = BoardObserver(variant, calibration=Calibration(camera=frame.intrinsics),
                        corners_px=frame.corners_px).observe(frame.image)
    truth = frame.placement
    pieces = [sq for sq in truth.squares
              if truth.piece_at(sq) is not None and sq not in frame.occluded]
    white_men = [sq for sq in pieces if truth.piece_at(sq).value == "white_man"]
    assert len(white_men) >= 5
    # (Squares the arm partly hides may be reported covered.)
    assert [truth.square_name(sq) for sq in pieces
            if obs.board.piece_at(sq) != truth.piece_at(sq)
            and not (sq in frame.partly_occluded and obs.label(sq) == "occluded")] == []


def test_the_walls_length_tells_kings_from_men_where_the_silhouette_hardly_does():
    without = VisionConfig(kings=replace(KingConfig(), edge_weight=0.0))
    right, right_without = _evaluation_pieces_right(_WALL_LENGTH_SCENES, VisionConfig(),
                                                    without)
    assert right == len(_WALL_LENGTH_SCENES)
    assert right_without <= 1  # (the test does measure the wall's length)


# Evaluation scenes where a white man stands on a dark square that is a dark shade of its own
# colour (black, brown, wood, blue-green): free to shift (along the view and across it), the
# silhouette fit read each as a king set back by a disc's lean.  (The scenes' ground truth is
# the renderer's.)
_NEAR_EDGE_SCENES = [(1000388, 12), (1000819, 16), (1000401, 7), (1000329, 5), (1001540, 25)]


def test_a_king_fit_needing_a_shift_past_where_pieces_stand_pays_for_it():
    free = VisionConfig(kings=replace(KingConfig(), shift_cost=0.0))
    right, right_free = _evaluation_pieces_right(_NEAR_EDGE_SCENES, VisionConfig(), free)
    assert right == len(_NEAR_EDGE_SCENES)
    # (Without the cost, all but one were misread before light squares near a piece's colour
    # said less (KingConfig.faint_apart); with that, all but two; since a set with one good
    # width is sized by it (set_radius), two still were; since dark shades of the piece count
    # fully in the height fit (KingConfig.near_apart), one is.)
    assert right_free <= 4


# Evaluation scenes where the same cost on the width fit's side shift puts the lines along
# the view where the piece stands (kings and men, light and dark sets).  ((1001741, 11) was
# one until a piece in a glare spot was compared with its own colour; (1000652, 20) took its
# place.  Since dark shades of the piece count fully in the height fit, KingConfig.near_apart,
# (1000362, 2), a black king at 16 deg, reads as a man, and (1001020, 14), (1000652, 20) and
# (1001316, 6) are read right without the cost; seed 7's scenes below took their places.
# Since the board's colours as voted are the king stage's background (vision.pieces),
# (7000503, 30) and (7000656, 11) are read right without it, and (7000072, 4) and
# (7000233, 22) took their places.  On those 1,000 scenes the cost sets 14 squares right:
# 326 misread without, 312 with.)
_SIDE_SHIFT_SCENES = [(1000019, 2), (7000072, 3), (7000250, 10), (7000072, 4), (7000233, 22)]


def test_a_width_fit_needing_a_side_shift_past_where_pieces_stand_pays_for_it(monkeypatch):
    assert _evaluation_pieces_right(_SIDE_SHIFT_SCENES, VisionConfig()) == [
        len(_SIDE_SHIFT_SCENES)]
    free_width = kings.fit_width
    monkeypatch.setattr(kings, "fit_width",
                        lambda *a, **k: free_width(*a[:5]))  # (no cost across)
    assert _evaluation_pieces_right(_SIDE_SHIFT_SCENES, VisionConfig())[0] <= 1


def test_fit_width_is_not_drawn_past_where_pieces_stand_by_a_faint_stretch():
    """A piece 0.06 off centre, and beside it a stretch reading faintly as piece (a dark
    square in a shade of the piece's colour): free to shift, the fit takes it in."""
    u = np.arange(-0.7, 0.7, STEP)
    p = np.where(np.abs(u - 0.06) <= 0.36, 1.0, -1.0)
    p[(u > 0.42) & (u <= 0.67)] = 0.1
    widths = np.linspace(0.6, 0.9, 31)
    w_free, c_free = fit_width(p[None], STEP, float(u[0]), 0.15, widths)
    w, c = fit_width(p[None], STEP, float(u[0]), 0.15, widths, 0.1, 1.0)
    assert c[0] <= 0.1 + 1e-9 < c_free[0]
    assert abs(w[0] - 0.72) < abs(w_free[0] - 0.72)


def _assert_kings_and_men_told_apart(frame, obs):
    """At least ten pieces read in their colour, kings and men among them, every one told
    right as one disc or two."""
    calls = [(obs.board.piece_at(sq), truth) for sq, truth in frame.placement.piece_map().items()]
    calls = [(got, truth) for got, truth in calls if got is not None and got.color == truth.color]
    assert len(calls) >= 10
    assert any(truth.is_king for _, truth in calls) and any(not t.is_king for _, t in calls)
    assert all(got.is_king == truth.is_king for got, truth in calls)


@pytest.mark.parametrize("seed", [401, 403, 405])
def test_white_pieces_on_white_squares_kings_told_by_the_wall(seed):
    """Over-exposed: a white top face and the white square behind it both clip, so the
    silhouette's far edge is gone; where the wall ends still tells one disc from two."""
    scene, board, rng = scene_and_board(seed, king_share=0.5, tilt=40.0,
                                        board_bgr=((40, 70, 110), (250, 250, 250)),
                                        pieces_bgr=((245, 245, 245), (30, 30, 30)))
    scene = replace(scene, light=replace(scene.light, exposure=1.3))
    frame = render(sample_world(rng, board, SPEC, max_offset_mm=2.0), scene, VARIANT, seed=seed)
    obs = BoardObserver(VARIANT, calibration=Calibration(camera=frame.intrinsics),
                        corners_px=frame.corners_px).observe(frame.image)
    _assert_kings_and_men_told_apart(frame, obs)


def test_a_weak_lean_needs_a_clearer_preference_for_a_king():
    kc = KingConfig()
    split = king_split(np.array([kc.min_step_px, 0.5 * (kc.min_step_px + kc.weak_step_px),
                                 kc.weak_step_px, 2 * kc.weak_step_px]), kc)
    # A slight preference for two discs: a king where the lean is clear, a man where it is not.
    slight = kc.split + 0.4 * kc.weak_split
    assert list(slight > split) == [False, False, True, True]
    assert split[0] == pytest.approx(kc.split + kc.weak_split)


def test_a_glare_veil_needs_a_clearer_preference_for_a_king():
    kc = KingConfig()
    clear = 2 * kc.weak_step_px  # a clear lean: only the veil raises the split
    split = king_split(np.full(4, clear), kc, np.array([-20.0, 0.0, 0.5 * kc.veil_full,
                                                         2 * kc.veil_full]))
    # No veil (or the negative offset of a shadow): the plain split; half the full veil: half
    # the rise; beyond the full veil: no more than `veil_split`.
    assert split.tolist() == pytest.approx([kc.split, kc.split, kc.split + 0.5 * kc.veil_split,
                                            kc.split + kc.veil_split])


def test_samples_by_a_grid_line_know_the_square_across_it():
    """Square (0, 0) is dark, (1, 0) light, outside the grid is the frame (kind 2)."""
    pts = np.array([[0.98, 0.5], [0.5, 0.5], [-0.01, 0.5], [0.5, 0.97], [1.03, 0.5]])
    got = _kind_across_line(pts, 8, 0.05)
    # By the line x=1: light across; the middle: itself; in the frame by x=0: the dark square;
    # by y=1: the light square (0, 1); just past x=1 inside the light square: the dark one.
    assert got.tolist() == [1, 0, 0, 1, 0]


def test_a_blur_of_black_and_white_squares_is_board_not_a_white_pieces_wall():
    """Mid grey between a black and a white square is what a white piece's shaded wall looks
    like; sampled by the line between the squares, it is the two squares blurred."""
    board = np.array([[20.0, 20.0, 20.0], [230.0, 230.0, 230.0], [60.0, 60.0, 60.0]])
    piece = np.array([[225.0, 225.0, 225.0]])
    grey = np.array([[125.0, 125.0, 125.0]])
    args = (piece, np.array([0]), board, np.array([0]), (0.5, 1.5), (0.2, 1.6))
    assert piece_likeness(grey, *args)[0] > 0.5  # on the dark square alone: the wall
    assert piece_likeness(grey, *args, np.array([1]))[0] < 0.0  # by the line: the board
    # A red piece's colour is no blend of the squares: a piece by the line too.
    red = np.array([[40.0, 40.0, 200.0]])
    assert piece_likeness(red, red, *args[1:], np.array([1]))[0] > 0.5


def test_a_pieces_wall_in_shade_is_told_from_a_dark_square_of_nearly_its_colour():
    """An orange man (30, 140, 240) on walnut (30, 50, 80), his wall in a lamp's shade at
    0.35 of his colour: (10.5, 49, 84).  The nearest shade of walnut is 0.968 of it, (29.0,
    48.4, 77.4), 19.6 away; the wall is 0 from the man's shade.  Lit, the two colours are
    |(0, 90, 160)| = 183.6 apart: likeness 19.6 / (0.35 * 183.6) = 0.31.  Taken as at most twice
    the two distances apart (39.3), 19.6 / (0.35 * 39.3) = 1.4: a piece, +1.  The bare walnut
    beside him, 19.9 from the man's nearest shade (0.347 of it), alike: -0.31, and -1.  The
    man's lit top face (shade 1) is judged by the lit colours' distance as before."""
    man = np.array([[30.0, 140.0, 240.0]])
    board = np.array([[30.0, 50.0, 80.0], [150.0, 200.0, 230.0], [60.0, 60.0, 60.0]])
    x = np.array([[10.5, 49.0, 84.0], [30.0, 50.0, 80.0], [30.0, 140.0, 240.0]])
    per, kind = np.zeros(3, int), np.zeros(3, int)
    d_board, d_piece, apart, shade = likeness_distances(x, man, per, board, kind, (0.5, 1.5),
                                                        (0.2, 1.6))
    assert d_board[0] == pytest.approx(19.6, abs=0.1)
    assert d_piece[1] == pytest.approx(19.9, abs=0.1)
    assert shade == pytest.approx([0.35, 0.347, 1.0], abs=0.002)
    lit = likeness(d_board, d_piece, apart, kind)
    assert lit[:2] == pytest.approx([0.31, -0.31], abs=0.01)
    near = likeness(d_board, d_piece, shade_apart(d_board, d_piece, apart, shade, 2.0, 0.7), kind)
    assert list(near) == [1.0, -1.0, 1.0]
    assert near[2] == lit[2]


def test_a_pieces_wall_in_a_glare_spot_is_a_shade_of_its_own_colour():
    """Glare is the board's reflection: a piece standing in it does not show it.  An orange
    man (100, 140, 200) under a veil of 60 over the board: his colour, measured with the veil
    taken off, is (40, 80, 140); his wall, at 0.6 of his colour, (60, 84, 120), is (0, 24, 60)
    with the veil taken off, which is no shade of (40, 80, 140) (17.9 from the nearest, at
    0.374 of it; the dark square (30, 30, 30), 42.7 away, is 121 from the piece's colour:
    likeness (42.7 - 17.9) / (0.35 * 121) = 0.58).  With the veil given back to both, the
    wall is 0.6 of the man's colour exactly: a piece, +1."""
    board = np.array([[30.0, 30.0, 30.0], [220.0, 220.0, 220.0], [60.0, 60.0, 60.0]])
    measured = np.array([[40.0, 80.0, 140.0]])
    wall = np.array([[0.0, 24.0, 60.0]])
    args = (measured, np.array([0]), board, np.array([0]), (0.5, 1.5), (0.2, 1.6), None, 0.0)
    assert piece_likeness(wall, *args)[0] == pytest.approx(0.58, abs=0.01)
    assert piece_likeness(wall, *args, np.array([60.0]))[0] == pytest.approx(1.0)


# Evaluation scenes with glare where a piece's wall, compared with its colour less the veil,
# read as no shade of it (light and dark sets, men and kings; ground truth the renderer's).
# ((1000281, 2) and (1000281, 5) were among them until the board's colours as voted became
# the king stage's background: since, they read right either way.)
_GLARE_SCENES = [(1000198, 6), (7000152, 27), (7000429, 27), (1000383, 6), (1000921, 22),
                 (1001313, 2)]


def test_pieces_in_glare_are_read_with_their_own_light():
    veiled = VisionConfig(kings=replace(KingConfig(), pieces_unveiled=False))
    right, right_veiled = _evaluation_pieces_right(_GLARE_SCENES, VisionConfig(), veiled)
    assert right == len(_GLARE_SCENES)
    assert right_veiled == 0


def test_a_frame_near_the_pieces_colour_says_less_than_one_far_from_it():
    """A white man's colour seen over a white frame 23.3 levels from it: relative to how
    close the two are, noise; at faint_apart 40 it counts 23.3 / 40 of what it did.  Over a
    frame far from the piece's colour, and over a dark square as close, it counts in full."""
    piece = np.array([[230.0, 230.0, 230.0]])
    x = np.array([[230.0, 230.0, 230.0]])
    shades = ((0.5, 1.5), (0.2, 1.6), None)

    def like(board, kind, faint):
        return piece_likeness(x, piece, np.array([0]), np.array(board, float),
                              np.array([kind]), *shades, faint)[0]

    near = [[20, 20, 20], [120, 120, 120], [218, 218, 214]]
    # (|(230, 230, 230) - (218, 218, 214)| = sqrt(144 + 144 + 256) = 23.3)
    assert like(near, 2, 0.0) > 0.3
    assert like(near, 2, 40.0) == pytest.approx(like(near, 2, 0.0) * np.sqrt(544.0) / 40.0)
    far = [[20, 20, 20], [120, 120, 120], [40, 60, 120]]
    assert like(far, 2, 40.0) == like(far, 2, 0.0) == 1.0
    dark_near = near[::-1]  # (the dark square now the near frame's colour)
    assert like(dark_near, 0, 40.0) == like(dark_near, 0, 0.0) > 0.3


def test_fit_width_finds_the_width_and_the_side_shift():
    u = np.arange(-0.7, 0.7, STEP)
    p = np.where(np.abs(u - 0.06) <= 0.36, 1.0, -1.0)[None]
    widths = np.linspace(0.6, 0.9, 31)
    w, c = fit_width(p, STEP, float(u[0]), 0.15, widths)
    assert w[0] == pytest.approx(0.72, abs=0.015)
    assert c[0] == pytest.approx(0.06, abs=0.015)


def test_set_radius_is_chosen_by_the_whole_set():
    """Three men and a king of radius 0.36 measured as 0.4 wide: the set's fit finds 0.9."""
    lean = 0.1
    scales = np.array([0.85, 0.9, 0.95, 1.0])
    truth = [1, 1, 2, 1]
    best, most = [], []
    for discs in truth:
        p = _profile(0.36, 0.0, 0.0, discs * lean)[None]
        row_best, row_most = [], []
        for s in scales:
            b, m, _ = height_scores(p, STEP, float(T[0]), LINES, np.array([[0.4 * s]]),
                                 np.zeros(1), np.array([[[lean], [2 * lean]]]), np.ones((1, 2, 1)),
                                 0.15, 13)
            row_best.append(b[0, 0])
            row_most.append(m[0, 0])
        best.append(row_best)
        most.append(row_most)
    pref, _ = set_preference(np.array(best), np.array(most), np.zeros(4, int), scales, 1.0,
                             0.0, 0.0)
    assert list(pref > 0) == [d == 2 for d in truth]



def test_squares_under_a_hand_do_not_size_the_set():
    """Three men 0.7 wide and four squares a hand covers, each read 1.1 wide: the hand's
    squares are left out of the set's size (with them the median would be the hand's)."""
    width = np.array([0.7, 0.7, 0.7, 1.1, 1.1, 1.1, 1.1])
    group = np.zeros(7, int)
    trusted = np.array([True] * 3 + [False] * 4)
    assert set_radius(width, group, 0.5, 1.2, 0.4, trusted=trusted) == pytest.approx(
        np.full(7, 0.35))
    assert set_radius(width, group, 0.5, 1.2, 0.4)[0] == pytest.approx(0.55)


def test_a_set_of_one_piece_is_sized_by_its_own_width():
    """Four black men 0.72 wide and one white man 0.8 wide (a bright set bleeds over its
    edges): the white set is 0.4 in radius, not the 0.36 of the pieces' median."""
    width = np.array([0.72, 0.72, 0.72, 0.72, 0.8])
    group = np.array([0, 0, 0, 0, 1])
    assert set_radius(width, group, 0.5, 1.2, 0.375) == pytest.approx([0.36] * 4 + [0.4])
    # A set with no good width (the widest tried: no measurement) takes all pieces' median.
    width[4] = 1.2
    assert set_radius(width, group, 0.5, 1.2, 0.375)[4] == pytest.approx(0.36)


def _across(radius, side):
    """Likeness +1 across the view where a piece of `radius` standing `side` off covers."""
    return np.where(np.abs(T - side) <= radius, 1.0, -1.0)[None].repeat(3, axis=0)


@pytest.mark.parametrize("discs", [1, 2])
def test_a_piece_ends_where_its_silhouette_does(discs):
    """Men and kings, even as wide as the widest width tried, are pieces; something that goes
    on looking like one beyond a king's far edge and across the view is not."""
    lean, radius = 0.1, 0.36
    lam = np.array([[lean, 2 * lean]])
    rho = np.ones((1, 2))
    cfg = KingConfig()
    piece = unlike_a_piece(_profile(radius, 0.0, 0.0, discs * lean)[None],
                           _across(radius, 0.0)[None], T, T, np.zeros(1), np.array([radius]),
                           np.zeros(1), lam, rho, np.array([True]), cfg)
    assert not piece[0]
    # A hand over the square: piece-like from the near edge to beyond the far one and across.
    hand_along = np.where(T >= -radius, 1.0, -1.0)[None].repeat(len(LINES), axis=0)[None]
    hand_across = np.ones((1, 3, len(T)))
    args = (T, T, np.zeros(1), np.array([radius]), np.zeros(1), lam, rho)
    assert unlike_a_piece(hand_along, hand_across, *args, np.array([True]), cfg)[0]
    # (Not when narrower than the widest width tried: a piece among neighbours of its colour.)
    assert not unlike_a_piece(hand_along, hand_across, *args, np.array([False]), cfg)[0]


@pytest.mark.parametrize("discs", [1, 2])
def test_beside_a_hand_one_side_past_a_king_is_enough(discs):
    """A hand's edge over a square's far part, where a king's top would be, the colour of a
    set: piece-like from the piece's near edge on past where a king would end, on that one
    side only.  Alone, a piece (it may be a neighbour of its colour); diagonally beside a
    square read as under a hand, not one.  A man or a king there is still a piece."""
    lean, radius = 0.1, 0.36
    lam = np.array([[lean, 2 * lean]])
    rho = np.ones((1, 2))
    cfg = KingConfig()
    args = (T, T, np.zeros(1), np.array([radius]), np.zeros(1), lam, rho, np.array([True]), cfg)
    piece_along = _profile(radius, 0.0, 0.0, discs * lean)[None]
    piece_across = _across(radius, 0.0)[None]
    beside = np.array([True])
    assert not unlike_a_piece(piece_along, piece_across, *args, beside)[0]
    edge_along = np.where(T >= -radius, 1.0, -1.0)[None].repeat(len(LINES), axis=0)[None]
    assert not unlike_a_piece(edge_along, piece_across, *args)[0]
    assert not unlike_a_piece(edge_along, piece_across, *args, np.array([False]))[0]
    assert unlike_a_piece(edge_along, piece_across, *args, beside)[0]


def _stack_calls(seeds, tilt):
    """(right, total, confidences of the wrong calls) over pieces read in the right colour."""
    right = total = 0
    wrong_conf = []
    for seed in seeds:
        frame, obs = observe(seed, king_share=0.5, tilt=tilt)
        for sq, truth in frame.placement.piece_map().items():
            got = obs.board.piece_at(sq)
            if got is None or got.color != truth.color:
                continue
            total += 1
            if got.is_king == truth.is_king:
                right += 1
            else:
                wrong_conf.append(obs.confidence[sq])
    return right, total, wrong_conf


@pytest.mark.parametrize("tilt", [40.0, 48.0])
def test_oblique_views_tell_every_king_from_a_man(tilt):
    right, total, _ = _stack_calls((201, 202, 203), tilt)
    assert total >= 25
    assert right == total


def test_moderate_tilt_tells_most_kings_from_men():
    right, total, _ = _stack_calls((201, 202, 203), 20.0)
    assert right >= 0.9 * total


def test_straight_down_view_says_when_it_cannot_tell():
    """Looking straight down, a king's wall hardly shows: wrong calls must not look sure."""
    right, total, wrong_conf = _stack_calls((201, 202, 203), 0.0)
    assert total >= 25
    assert all(c <= 0.8 for c in wrong_conf), wrong_conf


def _uncalibrated(seed, tilt, disc_height_mm):
    """A scene seen by a camera nobody calibrated (no lens distortion, focal unknown)."""
    spec = TableSpec(disc_height_mm=disc_height_mm)
    rng = random.Random(seed)
    scene = sample_scene(rng, spec, hand_probability=0.0, glare_probability=0.0,
                         hard_shadow_probability=0.0)
    scene = replace(scene, camera=replace(scene.camera, tilt_deg=tilt, dist=(0.0,) * 5))
    board = sample_position(rng, VARIANT, king_share=0.4)
    frame = render(sample_world(rng, board, spec, max_offset_mm=2.0), scene, VARIANT, seed=seed)
    return frame, BoardObserver(VARIANT, corners_px=frame.corners_px).observe(frame.image)


@pytest.mark.parametrize("seed", [301, 302])
def test_without_calibration_the_disc_height_is_measured(seed):
    """Discs 10 mm high where 7 mm are configured: men and kings still told apart."""
    frame, obs = _uncalibrated(seed, 45.0, 10.0)
    _assert_kings_and_men_told_apart(frame, obs)


def test_without_calibration_a_view_25_degrees_from_vertical_still_tells_kings():
    """The focal length estimated from the board itself is good enough from 20 degrees on:
    kings are called (most of them; a scene of more kings than men can pass for men of taller
    discs, the disc height being measured), men stay men."""
    kings = men = kings_right = men_right = 0
    for seed in (304, 306, 307, 308, 309, 310, 311, 312, 313):
        frame, obs = _uncalibrated(seed, 25.0, 7.0)
        for sq, truth in frame.placement.piece_map().items():
            got = obs.board.piece_at(sq)
            if got is None or got.color != truth.color:
                continue
            if truth.is_king:
                kings += 1
                kings_right += got.is_king
            else:
                men += 1
                men_right += not got.is_king
    assert kings >= 20 and men >= 40
    assert kings_right >= 0.6 * kings, (kings_right, kings)
    assert men_right >= 0.95 * men, (men_right, men)


def _calibrated_tall_set(seed, board):
    """A scene of 10 mm discs (7 mm configured) seen by a calibrated camera, read with the
    calibration's board (`board(frame)`, None for none)."""
    spec = TableSpec(disc_height_mm=10.0)
    rng = random.Random(seed)
    scene = sample_scene(rng, spec, tilt_max_deg=45.0, hand_probability=0.0,
                         glare_probability=0.0, hard_shadow_probability=0.0)
    scene = replace(scene, camera=replace(scene.camera, tilt_deg=46.0))
    position = sample_position(rng, VARIANT, king_share=0.25)
    frame = render(sample_world(rng, position, spec, max_offset_mm=2.0), scene, VARIANT,
                   seed=seed)
    cal = Calibration(camera=frame.intrinsics, board=board(frame))
    return frame, BoardObserver(VARIANT, calibration=cal, corners_px=frame.corners_px
                                ).observe(frame.image)


def _board_of(frame, disc_height_mm):
    h, w = frame.image.shape[:2]
    corners = tuple((float(x), float(y)) for x, y in frame.corners_px)
    return BoardCalibration(8, corners, w, h, disc_height_mm=disc_height_mm)


@pytest.mark.parametrize("seed", [312, 318])
def test_a_calibrated_camera_reads_kings_of_the_disc_height_its_board_gives(seed):
    """With a calibrated lens the discs' height is not measured but given: the calibration's
    board says 10 mm, and men and kings of 10 mm discs are told apart."""
    frame, obs = _calibrated_tall_set(seed, lambda f: _board_of(f, 10.0))
    _assert_kings_and_men_told_apart(frame, obs)


def test_a_calibrated_camera_told_the_wrong_disc_height_misreads_kings():
    """The same scenes with the board saying 7 mm (or no board: the configured 7 mm): men of
    10 mm look like kings of 7.  What the test above relies on is the height given."""
    for board in (lambda f: _board_of(f, 7.0), lambda f: None):
        wrong = 0
        for seed in (312, 318, 319):
            frame, obs = _calibrated_tall_set(seed, board)
            for sq, truth in frame.placement.piece_map().items():
                got = obs.board.piece_at(sq)
                wrong += got is not None and got.color == truth.color \
                    and got.is_king != truth.is_king
        assert wrong >= 4


def _start_of(seed, disc_height_mm, position=None):
    spec = TableSpec(disc_height_mm=disc_height_mm)
    rng = random.Random(seed)
    scene = sample_scene(rng, spec, tilt_max_deg=45.0, hand_probability=0.0,
                         glare_probability=0.0, hard_shadow_probability=0.0)
    scene = replace(scene, camera=replace(scene.camera, tilt_deg=35.0))
    return render(sample_world(rng, position or BaseBoard.starting(VARIANT), spec), scene,
                  VARIANT, seed=seed)


@pytest.mark.parametrize("disc_height_mm", [7.0, 10.0, 12.0])
def test_the_start_position_measures_the_discs_height(disc_height_mm):
    """Every piece a man: the height that explains them all, against the renderer's.  (Read,
    seeds 330-339: 6.4-7.9 mm for 7, 9.1-10.4 for 10, 10.9-12.7 for 12, and 4.8-6.4 for 5 mm
    discs.)"""
    for seed in (330, 331, 332):
        frame = _start_of(seed, disc_height_mm)
        observer = BoardObserver(VARIANT, calibration=Calibration(camera=frame.intrinsics),
                                 corners_px=frame.corners_px)
        measured_mm = observer.measure_disc_height(frame.image) * SPEC.square_mm
        assert disc_height_mm * 0.85 <= measured_mm <= disc_height_mm * 1.15, (seed,
                                                                              measured_mm)


def test_a_height_past_the_range_tried_is_not_taken_for_its_end():
    """Discs of 18 mm, where 7 are configured and at most twice that is tried: the fit stops at
    the end, and that is said, not saved as the set's height."""
    frame = _start_of(330, 18.0)
    observer = BoardObserver(VARIANT, calibration=Calibration(camera=frame.intrinsics),
                             corners_px=frame.corners_px)
    with pytest.raises(ValueError, match="at least 0.35 of a square"):
        observer.measure_disc_height(frame.image)


def test_a_view_too_steep_for_an_uncalibrated_lens_measures_no_height():
    spec = TableSpec(disc_height_mm=10.0)
    rng = random.Random(333)
    scene = sample_scene(rng, spec, tilt_max_deg=12.0, hand_probability=0.0,
                         glare_probability=0.0, hard_shadow_probability=0.0)
    scene = replace(scene, camera=replace(scene.camera, tilt_deg=8.0))
    frame = render(sample_world(rng, BaseBoard.starting(VARIANT), spec), scene, VARIANT,
                   seed=333)
    observer = BoardObserver(VARIANT, corners_px=frame.corners_px)
    with pytest.raises(ValueError, match="too steep"):
        observer.measure_disc_height(frame.image)


def test_the_discs_height_is_not_measured_from_another_position():
    position = sample_position(random.Random(5), VARIANT, king_share=0.3)
    frame = _start_of(331, 10.0, position)
    observer = BoardObserver(VARIANT, calibration=Calibration(camera=frame.intrinsics),
                             corners_px=frame.corners_px)
    with pytest.raises(ValueError, match="does not show the expected position"):
        observer.measure_disc_height(frame.image)
    # Told the position it shows, it measures it, kings read at two discs.
    measured_mm = observer.measure_disc_height(frame.image, position) * SPEC.square_mm
    assert 9.5 <= measured_mm <= 12.0


def test_without_calibration_a_nearly_vertical_view_calls_no_king_and_says_so():
    frame, obs = _uncalibrated(303, 10.0, 7.0)
    assert any(p.is_king for p in frame.placement.piece_map().values())
    pieces = [sq for sq in frame.placement.piece_map() if obs.board.piece_at(sq) is not None]
    assert pieces
    assert not any(obs.board.piece_at(sq).is_king for sq in pieces)
    assert all(obs.confidence[sq] <= 0.5 for sq in pieces)


def test_only_short_bright_runs_count_as_specular_spots():
    """A spot is small: a bright run as long as a top face (a clipped white top) is kept as
    what it is.  Runs end at each row's end; a run filling a row is one run."""
    mask = np.array([[1, 1, 0, 1, 1, 1, 1, 0, 1],
                     [1, 1, 1, 0, 0, 0, 0, 1, 1],
                     [1, 1, 1, 1, 1, 1, 1, 1, 1]], bool)
    want = np.array([[1, 1, 0, 0, 0, 0, 0, 0, 1],
                     [0, 0, 0, 0, 0, 0, 0, 1, 1],
                     [0, 0, 0, 0, 0, 0, 0, 0, 0]], bool)
    assert (short_runs(mask, 2.0) == want).all()
    assert (short_runs(mask, 9.0) == mask).all()


def test_in_a_picture_with_no_colour_the_shades_allowed_narrow_and_fewer_men_pass_for_kings():
    """Evaluation scenes read as a monochrome camera sees them (the renderer's ground truth):
    with the colour pictures' wide shade ranges every grey is both board and piece, and men
    and kings are mixed up far more often than with the narrow ones a grey picture gets.
    (Both weigh the evidence as a colour picture does: the higher split and lighter wall test
    a grey picture also gets are tested on their own, in test_hard_cases.)"""
    import cv2

    kc = replace(KingConfig(), grey_split=0.0, grey_wall_weight=KingConfig().wall_weight)
    wide = VisionConfig(kings=replace(kc, grey_board_shade=kc.board_shade,
                                      grey_piece_shade=kc.piece_shade))
    right = {"narrow": 0, "wide": 0}
    pieces = 0
    for seed in range(1_000_003, 1_000_003 + 40):
        frame, variant = evaluation_frame(seed)
        grey = cv2.cvtColor(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        reads = {name: BoardObserver(variant, cfg=cfg, calibration=Calibration(
            camera=frame.intrinsics), corners_px=frame.corners_px).observe(grey).board
            for name, cfg in (("narrow", VisionConfig(kings=kc)), ("wide", wide))}
        for sq in frame.placement.squares:
            truth = frame.placement.piece_at(sq)
            if truth is None or sq in frame.occluded:
                continue
            pieces += 1
            for name, board in reads.items():
                got = board.piece_at(sq)
                right[name] += got is not None and got.is_king == truth.is_king
    assert pieces > 500
    # (Forty scenes: 509 of 632 pieces right against 470; 524 against 504 where both also
    # weigh the evidence as a grey picture does.  481 against 443 when first measured.)
    assert right["narrow"] >= right["wide"] + 0.04 * pieces


def test_in_a_picture_with_no_colour_no_dark_grey_is_read_as_a_wall_in_shade(monkeypatch):
    """Every grey is a shade of every other: a dark grey says nothing of a piece's wall, and
    the likeness of dark shades (KingConfig.near_apart) is off there.  (On 300 rendered scenes
    read without colour, 1,247 squares misread with it on, 1,218 off.)"""
    seen = []
    original = kings.shade_apart

    def spy(*args):
        seen.append(args[4])
        return original(*args)

    monkeypatch.setattr(kings, "shade_apart", spy)
    frame, variant = evaluation_frame(1000007)
    grey = cv2.cvtColor(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    for image in (frame.image, grey):
        BoardObserver(variant, calibration=Calibration(camera=frame.intrinsics),
                      corners_px=frame.corners_px).observe(image)
    assert seen and seen[0] == KingConfig().near_apart > 0 and seen[-1] == 0.0
