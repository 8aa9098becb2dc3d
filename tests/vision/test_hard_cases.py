"""Hard cases of the per-square reading on rendered scenes (the renderer's ground truth is the
independent answer): a hand over the board must be reported, not guessed."""

import random
from dataclasses import replace
from functools import partial
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.store import Calibration
from game.board import Board, Color, Piece
from game.variants import find_variant
from sim.render import render
from sim.scene import sample_scene, sample_world
from sim.world import TableSpec
from tests.vision.scenes import (
    evaluation_frame,
    observe,
    occupancy_and_colour_errors,
    pieces_read_in_grey,
)
from vision import kings, occlusion, pieces
from vision.config import KingConfig, RimConfig, VisionConfig
from vision.king_samples import _diagonal
from vision.pipeline import BoardObserver

HAND_SEEDS = range(101, 111)


def test_a_hand_over_the_board_is_reported_occluded_not_guessed():
    covered = reported = wrongly_hidden = 0
    for seed in HAND_SEEDS:
        frame, obs = observe(seed, hand=True)
        covered += len(frame.occluded)
        reported += len(frame.occluded & obs.occluded)
        # A square the hand does not touch must be read, not hidden; only at the hand's fringe
        # (a square sharing a grid corner with one it covers, whose piece it may reach over)
        # is caution allowed.
        touched = frame.occluded | frame.partly_occluded
        geo = frame.placement.geometry
        for sq in obs.occluded - touched:
            f, r = geo.coords[sq]
            if not any(abs(f - geo.coords[t][0]) <= 1 and abs(r - geo.coords[t][1]) <= 1
                       for t in frame.occluded):
                wrongly_hidden += 1
    assert covered >= 40, "the scenes must have hands over the board"
    # Measured 69 of 80 (before the light field and the corner test: 56 of 80, one false).
    assert reported >= 0.85 * covered
    assert wrongly_hidden == 0


def test_a_lone_covered_square_inside_the_board_is_no_hand():
    """A hand reaches in from beyond the board: a square read as covered inside the board,
    with no covered square diagonally beside it, is not one it covers; on the edge, or one
    of two side by side, it may be."""
    playable = [(f, r) for r in range(8) for f in range(8) if (f + r) % 2 == 0]
    at = {fr: i for i, fr in enumerate(playable)}
    read = np.zeros(len(playable), bool)
    for fr in ((3, 3), (0, 4), (5, 5), (6, 6)):  # d4 alone; a5 on the edge; f6 and g7
        read[at[fr]] = True
    lone = occlusion.lone_inside(read, _diagonal(playable, 8))
    assert list(np.flatnonzero(lone)) == [at[(3, 3)]]


@pytest.mark.parametrize("seed,name,truth", [(1000489, "d4", "white_man"),
                                             (1000683, "b6", "white_man"),
                                             (7000525, "e5", "white_man")])
def test_a_lone_square_glare_or_a_shadows_edge_makes_foreign_is_read(seed, name, truth):
    """Evaluation scenes with no hand, a glare spot over each (and a hard shadow over the
    first): one white man each, inside the board and with no other square read as covered
    beside him, was reported covered (his colour in the glare off both sets' and the
    board's)."""
    frame, obs = _evaluation_scene(seed)
    assert not frame.occluded and not frame.partly_occluded
    geo = frame.placement.geometry
    square = {geo.algebraic(sq): sq for sq in frame.placement.squares}[name]
    assert obs.label(square) == truth
    assert not obs.occluded
    kept = _read_again(frame, obs, VisionConfig(hands_reach_in=False))
    # (The test does exercise the rule.  Without it, a piece diagonally beside him may pass
    # for the edge of the hand he is taken for, as in 1000683.)
    assert square in kept.occluded
    assert len(kept.occluded) <= 2


@pytest.mark.parametrize("seed,name", [(1001049, "f4"), (7000177, "g5")])
def test_a_king_on_a_lone_square_read_again_is_a_king(seed, name):
    """Evaluation scenes where a king inside the board, no other square covered beside him,
    was first reported covered: read again as what he shows, he was read as a man, the king
    test having passed him by.  He is a king (the renderer stacked him)."""
    frame, obs = _evaluation_scene(seed)
    geo = frame.placement.geometry
    square = {geo.algebraic(sq): sq for sq in frame.placement.squares}[name]
    truth = frame.placement.piece_at(square).value
    assert truth.endswith("king")
    assert obs.label(square) == truth
    kept = _read_again(frame, obs, VisionConfig(hands_reach_in=False))
    assert square in kept.occluded  # (the test does exercise the rule)


# Black pieces on navy squares (a dark set on dark squares) with a hand over the board.  The
# hand's squares once raised the board's "normal stray" until the black set fell under it
# (seed 111: five black men read as empty), and its colours joined the dark set's (106, 109:
# black men read as empty; 110: the sets swapped).
_NAVY = ((110, 45, 25), (90, 200, 225))
_WOOD_BLACK = ((150, 190, 215), (40, 40, 45))


@pytest.mark.parametrize("seed", range(101, 113))
def test_a_dark_set_on_dark_squares_is_seen_beside_a_hand(seed):
    frame, obs = observe(seed, hand=True, board_bgr=_NAVY, pieces_bgr=_WOOD_BLACK)
    assert occupancy_and_colour_errors(frame, obs) == []


# The classic set on the classic board: black men on a black-and-white board's black squares,
# of exactly the squares' colour.  Only a lit rim and a shaded wall tell them from the bare
# squares; before they were seen as a set, every one of these scenes read black men as empty
# (5, 11, 4 and 11 squares).
_BLACK_WHITE_BOARD = ((40, 40, 40), (225, 228, 228))
_WHITE_BLACK_SET = ((228, 228, 225), (40, 40, 40))


@pytest.mark.parametrize("seed", [6, 12, 16, 20])
def test_a_set_the_colour_of_its_squares_is_seen(seed):
    frame, obs = observe(seed, board_bgr=_BLACK_WHITE_BOARD, pieces_bgr=_WHITE_BLACK_SET)
    assert occupancy_and_colour_errors(frame, obs) == []


def _evaluation_scene(seed: int, camouflaged: bool = False):
    """Scene `seed` of bench/vision_eval.py (`--camouflaged`), drawn the same way, read with
    its calibration."""
    frame, variant = evaluation_frame(seed, camouflaged)
    obs = BoardObserver(variant, calibration=Calibration(camera=frame.intrinsics),
                        corners_px=frame.corners_px).observe(frame.image)
    return frame, obs


@pytest.mark.parametrize("seed", [1000005, 1000006])
def test_a_set_the_colour_of_its_squares_is_seen_beside_its_kings(seed):
    """Scenes of `vision_eval.py --camouflaged` (seed 1): the darker set's kings, their walls
    taller, were seen as pieces and made its colour, its men not: their squares look bare,
    nearer the bare square's colour than that set's, and were dropped as a shadow's edge
    would be (13 and 5 men read as empty).  A set itself near the dark squares' colour keeps
    them."""
    frame, obs = _evaluation_scene(seed, camouflaged=True)
    assert occupancy_and_colour_errors(frame, obs) == []


def test_a_camouflaged_man_is_judged_by_the_pixels_that_differ():
    """Scene 1000036 of `vision_eval.py --camouflaged`: dark brown men on dark brown squares,
    a little lighter than them at the rim.  Each man's square was judged by the median of its
    whole disc, the square's own colour, and all nine were dropped as a shadow's edge would
    be; the pixels that differ from the bare square are the black set's.  (One man, at h8,
    is still missed: measured.)"""
    frame, obs = _evaluation_scene(1000036, camouflaged=True)
    assert len(occupancy_and_colour_errors(frame, obs)) <= 1


def test_the_lighter_set_in_two_lights_is_one_set():
    """Scene 1000044 of `vision_eval.py --camouflaged`: green men lit and on their shaded
    side were taken for two sets (apart in hue, though each a shade of the other), so the
    other set, drawn the colour of the black squares, was never looked for: its nine pieces
    read as empty."""
    frame, obs = _evaluation_scene(1000044, camouflaged=True)
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [1000103, 1000134])
def test_a_camouflaged_set_is_looked_for_on_a_board_of_little_contrast(seed):
    """Scenes of `vision_eval.py --camouflaged`: a red-and-cream printed board of little
    contrast (56) and a wooden one (78).  The occupancy threshold, set by how far bare squares
    stray, came to 27% and 16% of the contrast, and a set the colour of its squares was not
    looked for past 15% (nine and five men read as empty); its other test, that the bare
    squares are clean, is what tells a mottled board."""
    frame, obs = _evaluation_scene(seed, camouflaged=True)
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [1000169, 1000187])
def test_a_set_half_in_a_hard_shadow_leaves_room_for_the_camouflaged_one(seed):
    """Scenes of `vision_eval.py --camouflaged` with a hard shadow over part of the board: the
    lighter set's pieces in it, a shade of those out of it, were taken for the second set, so
    the darker set, drawn the colour of its squares, was never looked for (six and five men
    read as empty)."""
    frame, obs = _evaluation_scene(seed, camouflaged=True)
    assert occupancy_and_colour_errors(frame, obs) == []


def test_a_set_mostly_in_a_hard_shadow_is_not_taken_into_the_dark_set():
    """Scene 7000714 of `vision_eval.py --seed 7` (red and near-black navy men on a blue and
    green board, a hard shadow over all but its left edge): the lit red men the lightest
    colour, most of the red set in the shadow at half their light, and three-means, seeded at
    the lightest and darkest colours, gave the shaded red men to the dark group (they lie
    between the lit red and the black).  The sets came out "lit red" and "shaded red and
    black": the red men read black and the black men, nearer their dark squares than any set,
    empty (17 squares wrong).  A shaded red man is a shade of the lit one within about 1%.
    The one square left wrong (measured), a red man where the shadow's edge crosses him,
    reads occluded."""
    frame, obs = _evaluation_scene(7000714)
    assert len(occupancy_and_colour_errors(frame, obs)) <= 1


@pytest.mark.parametrize("seed, missed", [(1000063, 3), (1000158, 2)])
def test_camouflaged_men_that_hardly_show_do_not_hide_the_others(seed, missed):
    """Scenes of `vision_eval.py --camouflaged` (brown men on walnut, purple on purple): the
    set shows on ten squares, but two or three of its men show nothing but a pixel or two of
    their disc, and counted among the bare squares they made the board look mottled, so none
    was looked for (13 and 12 read as empty).  Those few are still missed (measured)."""
    frame, obs = _evaluation_scene(seed, camouflaged=True)
    assert len(occupancy_and_colour_errors(frame, obs)) <= missed


@pytest.mark.parametrize("seed", [1000160, 1000065])
def test_a_camouflaged_man_the_first_look_saw_is_kept(seed):
    """Scenes of `vision_eval.py --camouflaged`: men of a set near its squares' colour that
    the first look saw (a wall, a rim: most of the disc off the bare square), which the second
    look, where the bare square's shades take in most of such a man's pixels, dropped as
    empty (three men and kings in each).  A king there read as occluded, the hand-like dark
    of its two walls, is another matter (1000065's h6)."""
    frame, obs = _evaluation_scene(seed, camouflaged=True)
    assert [e for e in occupancy_and_colour_errors(frame, obs)
            if not e.endswith("->occluded")] == []


def _read_again(frame, obs, cfg: VisionConfig):
    """The same frame read with another configuration (the control of a hard case)."""
    return BoardObserver(obs.board.variant, cfg=cfg,
                         calibration=Calibration(camera=frame.intrinsics),
                         corners_px=frame.corners_px).observe(frame.image)


def _still_board_read_right(seed: int) -> None:
    """Evaluation scene `seed` has no hand, and every square is read (kings and men aside)."""
    frame, obs = _evaluation_scene(seed)
    assert frame.occluded == frozenset() and frame.partly_occluded == frozenset()
    assert obs.occluded == frozenset()
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [7030, 11244, 11235])
def test_pieces_beside_a_glare_spot_are_seen(seed):
    """Evaluation scenes with a glare spot: the veil the light model subtracts there drove a
    set's mean colour below zero (7030: six red-black men read as empty; 11244, 11235: five
    black men), and a piece does not carry the board's reflection anyway."""
    frame, obs = _evaluation_scene(seed)
    missed = [obs.board.square_name(sq) for sq in frame.placement.squares
              if frame.placement.piece_at(sq) is not None and sq not in frame.occluded
              and obs.label(sq) == "empty"]
    assert missed == []


def test_a_dark_set_seen_brighter_than_its_colour_is_seen():
    """Evaluation scene 11258: navy men on brown squares under a glare spot.  Corrected with
    the board's light, the men away from the spot are nearly black and those beside it three
    times brighter, beyond the shades a set may take: three black men read as empty."""
    frame, obs = _evaluation_scene(11258)
    black = [sq for sq in frame.placement.squares
             if (p := frame.placement.piece_at(sq)) is not None and p.color.value == "black"]
    assert len(black) > 10
    missed = [obs.board.square_name(sq) for sq in black if obs.label(sq) == "empty"]
    assert missed == []


def test_a_pieces_dark_wall_and_shadow_are_no_hand():
    """Evaluation scene 9225: blue and orange sets on a wooden
    board at 42 deg, no hand.  The near-black wall and shadow of three pieces were colours of
    no set and no square: a third of their centre 'foreign', they read covered."""
    frame, obs = _evaluation_scene(9225)
    assert frame.occluded == frozenset()
    assert sorted(obs.board.square_name(sq) for sq in obs.occluded) == []


def test_glare_spots_do_not_make_a_piece_set():
    """Evaluation scene 11183: red and black men, and a glare spot over two empty dark
    squares.  Read as pieces, the two spots made a third colour group, farther from the
    black set than the red men are: the sets became glare and black, and every red man read
    empty.  Every red piece is seen, and no spot is read as a piece."""
    frame, obs = _evaluation_scene(11183)
    for sq in frame.placement.squares:
        piece = frame.placement.piece_at(sq)
        if piece is not None and piece.color.value == "white":
            assert obs.label(sq) in ("white_man", "white_king"), obs.board.square_name(sq)
        elif piece is None:
            assert obs.label(sq) in ("empty", "occluded"), obs.board.square_name(sq)


def test_the_few_pieces_of_a_set_are_read_not_occluded():
    """Evaluation scene 7147: eleven black men and kings and three wooden pieces on a printed
    wood board under a hard shadow.  The black set fell into two colour groups (lit and
    shaded), the one wooden piece it learned from was left out as neither set, and all three
    wooden pieces read as something over their squares."""
    frame, obs = _evaluation_scene(7147)
    wooden = [sq for sq in frame.placement.squares
              if (p := frame.placement.piece_at(sq)) is not None and p.color.value == "white"]
    assert len(wooden) == 3
    assert [obs.board.square_name(sq) for sq in wooden
            if obs.label(sq) not in ("white_man", "white_king")] == []


def test_a_glare_spot_is_no_hand_and_has_no_fringe():
    """Frame 200 of rendered replay game 34 (bench/replay_eval.py): a glare spot and a hard
    shadow, no hand; three moves played (a3xe7 f8xd6 f4-e5).  The spot hides the grid corners
    under it, and once made the empty f4 beside it read as a hand's fringe (the referee then
    missed f4-e5).  Every square reads its true content, or at most the one or two under
    the spot read covered."""
    path = Path(__file__).parent / "data" / "game034_frame200_glare.jpg"
    corners = np.array([[310.42, 446.71], [716.00, 394.59], [608.08, 148.68], [317.13, 172.24]])
    truth = Board.from_fen("W:Wa1,c1,e1,g1,f2,a3,c3,e3,f4,h4:Bb4,g5,d6,f6,h6,g7,b8,d8,f8,h8",
                           "brazilian")
    for move in ("a3xe7", "f8xd6", "f4-e5"):
        truth.push_pdn(move)
    obs = BoardObserver(truth.variant, corners_px=corners).observe(cv2.imread(str(path)))
    assert obs.label(truth.parse_square("f4")) == "empty"
    assert len(obs.occluded) <= 2
    for sq in truth.squares:
        if sq not in obs.occluded:
            piece = truth.piece_at(sq)
            assert obs.label(sq) == (piece.value if piece else "empty"), truth.square_name(sq)


def test_a_coloured_man_in_a_glare_spot_is_read_not_covered():
    """Frame 198 of rendered replay game 103 (bench/replay_eval.py --bump): red and black
    men on a brown and cream board, a glare spot over b2 and c3 that washes out their grid
    corners.  The red man on b2 read covered, as anything there might be glare's making; but
    no grey veil over the brown square makes red.  b2 reads the man; at most the empty c3,
    washed out, reads covered; every other square its true content."""
    path = Path(__file__).parent / "data" / "game103_frame198_glare.jpg"
    corners = np.array([[276.31, 481.47], [697.82, 427.85], [610.84, 115.78], [274.80, 150.74]])
    truth = Board.from_fen("W:Wa1,e1,b2,f2,h2,a3,b4,d4:Bf4,a5,a7,c7,e7,g7,b8,d8,f8,h8",
                           "brazilian")
    obs = BoardObserver(truth.variant, corners_px=corners).observe(cv2.imread(str(path)))
    assert obs.label(truth.parse_square("b2")) == "white_man"
    assert {truth.square_name(sq) for sq in obs.occluded} <= {"c3"}
    for sq in truth.squares:
        if sq not in obs.occluded:
            piece = truth.piece_at(sq)
            assert obs.label(sq) == (piece.value if piece else "empty"), truth.square_name(sq)


def test_a_lone_piece_of_the_other_set_is_seen():
    """Evaluation scene 7000135: nine orange men and kings, some in the light and some not,
    and one blue king (the end of a game).  Colour groups: lit orange, shaded orange, and the
    one blue piece, which was taken for something of neither set and read empty.  Two groups
    of one hue that differ in lightness are one set in two lights: the blue king is the
    other set."""
    frame, obs = _evaluation_scene(7000135)
    e1 = frame.placement.parse_square("e1")
    assert frame.placement.piece_at(e1).value == "black_king"
    assert sum(1 for sq in frame.placement.squares
               if (p := frame.placement.piece_at(sq)) is not None and p.color.value == "black") == 1
    assert obs.label(e1) == "black_king"


@pytest.mark.parametrize("seed", [7072, 11012])
def test_a_tall_king_in_an_oblique_view_is_seen(seed):
    """Evaluation scenes 7072 and 11012, tilt 45-50 deg: read on the board itself, a square's
    centre lies behind a king's two walls, dark in the shade, which passed for the bare square:
    kings read empty.  Read at half a man's height, it is on the piece."""
    frame, obs = _evaluation_scene(seed)
    kings = [sq for sq in frame.placement.squares
             if (p := frame.placement.piece_at(sq)) is not None and p.is_king
             and sq not in frame.occluded]
    assert len(kings) >= 3
    assert [obs.board.square_name(sq) for sq in kings if obs.label(sq) == "empty"] == []


@pytest.mark.parametrize("seed", [7008, 7137, 9067, 9139])
def test_bare_squares_under_a_saturating_glare_spot_are_not_occluded(seed):
    """Evaluation scenes with a glare spot that drives grid corners to the sensor's limit: no
    checker pattern shows at those corners, which passed for a hand over one or two bare
    squares.  Glare brings light, a hand none: a square covered only through such corners and
    read as bare board is bare."""
    frame, obs = _evaluation_scene(seed)
    assert frame.occluded == frozenset() and frame.partly_occluded == frozenset()
    bare = [sq for sq in frame.placement.squares if frame.placement.piece_at(sq) is None]
    assert len(bare) >= 8
    assert [obs.board.square_name(sq) for sq in bare if obs.label(sq) != "empty"] == []



@pytest.mark.parametrize("seed", [7000492, 7000542])
def test_a_king_leaning_over_the_far_corner_square_is_no_hand(seed):
    """Evaluation scenes 7000492 and 7000542 (tilt 40-50 deg, no hand): h8, the far corner
    square, has one grid corner inside the board, and a king on g7, leaning away from the
    camera, hides it; a square needing only that corner was reported occluded.  A corner a
    piece beside it may hide says nothing for such a square."""
    frame, obs = _evaluation_scene(seed)
    assert frame.occluded == frozenset() and frame.partly_occluded == frozenset()
    g7, h8 = obs.board.parse_square("g7"), obs.board.parse_square("h8")
    assert (p := frame.placement.piece_at(g7)) is not None and p.is_king
    assert frame.placement.piece_at(h8) is not None
    assert obs.label(h8) == frame.placement.piece_at(h8).value
    assert obs.occluded == frozenset()


@pytest.mark.parametrize("seed", [1000769, 1001010])
def test_the_squares_beside_a_hand_over_most_light_squares_are_read(seed):
    """Evaluation scenes 1000769 and 1001010: a hand over more than half the light squares was
    taken for their colour, and every light square it left bare then looked foreign: the
    squares beside them were reported occluded, eight and more."""
    frame, obs = _evaluation_scene(seed)
    assert len(frame.occluded) >= 8
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [1000134, 30000307])
def test_pieces_beside_light_squares_washed_white_by_glare_are_read(seed):
    """Evaluation scenes 1000134 and 30000307 (no hand): a glare spot washes light squares
    out to near white, off their hue, and they passed for an arm reaching over the men
    beside them, reported occluded.  A grey veil over the light colour, or the sensor's
    limit, is more light, and a hand brings none of its own."""
    _still_board_read_right(seed)


@pytest.mark.parametrize("seed", [7006, 9024])
def test_a_black_man_under_a_saturating_glare_spot_is_read(seed):
    """Evaluation scenes 7006 and 9024: a glare spot drives the grid corners around a black
    man to the sensor's limit, and the man was reported occluded.  Glare only adds light: a
    piece darker than the bare dark square is not its making, and stands."""
    frame, obs = _evaluation_scene(seed)
    assert frame.occluded == frozenset()
    black = [sq for sq in frame.placement.squares
             if (p := frame.placement.piece_at(sq)) is not None and p.value == "black_man"]
    assert len(black) >= 4
    assert [obs.board.square_name(sq) for sq in black if obs.label(sq) != "black_man"] == []

def test_black_men_on_walnut_squares_in_dim_light_are_seen():
    """Evaluation scene 9056: black men on walnut-brown squares, exposure 0.67.  Each is
    nearer the bare square's colour than the board's grain lets the first look tell, so only
    the wooden set seemed to be on the board and all six black men read empty.  Black is no
    shade of brown: they stand out from the bare squares as a second set."""
    frame, obs = _evaluation_scene(9056)
    black = [sq for sq in frame.placement.squares
             if (p := frame.placement.piece_at(sq)) is not None and p.color is Color.BLACK]
    assert len(black) >= 5
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [9140, 11093, 7000656, 7000948])
def test_bare_squares_across_a_hard_shadows_edge_are_not_pieces(seed):
    """Evaluation scenes with a hard shadow.  9140: its edge runs along the h-file, through
    four bare squares; the smooth light model put them in the shadow, and their lit halves,
    corrected by twice the light, read as magenta men.  11093: bare squares on both edges of
    the shadow read as a third, olive "set" that took the cream set's place (four empty
    squares read white, the one cream man empty).  Their own corners show both sides of the
    edge, and the rest of the square is a shade of the dark colour between them.
    7000656 and 7000948: most of the board lies in the shadow, so the dark colour learned is
    the shaded one and the lit side is 2.2 and 1.46 times as bright, past the 1.3 allowed
    for ordinary light (no glare) when the brighter side was taken for the board's own:
    five and four bare squares on the edges read as men and kings, and 7000948's lone magenta
    set was named white beside that false "set"."""
    frame, obs = _evaluation_scene(seed)
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [11023, 11146])
def test_men_under_a_glare_veil_are_not_read_as_kings(seed):
    """Evaluation scenes with a glare spot (11023: tilt 19 deg; 11146: 47 deg): the board
    beyond a man, lit past what the smooth light model follows, passed for more of the piece,
    and the man read as a king (11023: a white and a black man; 11146: a white one).  Under a
    veil a king must win by more."""
    frame, obs = _evaluation_scene(seed)
    assert _man_king_mixups(frame, obs, min_pieces=8) == []


def _man_king_mixups(frame, obs, min_pieces):
    """Squares (names) whose piece, read in some colour, is read as a man for a king or a
    king for a man; the scene must show at least `min_pieces` pieces uncovered."""
    pieces = [sq for sq in frame.placement.squares
              if frame.placement.piece_at(sq) is not None and sq not in frame.occluded]
    assert len(pieces) >= min_pieces
    return [obs.board.square_name(sq) for sq in pieces
            if obs.label(sq) not in ("empty", "occluded")
            and (obs.label(sq).endswith("king") != frame.placement.piece_at(sq).is_king)]


def test_kings_beside_a_hand_are_told_from_men():
    """Evaluation scene 7124 (tilt 23 deg, a hand over the board): the squares under the hand,
    taken for pieces before the occlusion test, sized the black set and set its discs' height,
    and a black king beside the hand read as a man.  Squares whose grid corners the hand hides
    measure no set now."""
    frame, obs = _evaluation_scene(7124)
    assert _man_king_mixups(frame, obs, min_pieces=12) == []


@pytest.mark.xfail(strict=True, reason=(
    "since an edge square needs one hidden grid corner (d8 here is found covered), h2, under "
    "the arm with every grid corner showing, is named a black man and measures that set "
    "again: the king on c7 reads as a man (2026-12-05)"))
def test_the_squares_a_hand_covers_do_not_measure_the_kings():
    """Evaluation scene 9193 (tilt 33 deg, an arm across the board): squares under the arm
    (a reddish arm, near the colour of the red set read as black) passed for pieces, and
    measured the sets' size and height: the black king beside the arm read as a man.
    Squares found occluded take no part in the king test now."""
    frame, obs = _evaluation_scene(9193)
    kings = [sq for sq in frame.placement.squares if sq not in frame.occluded
             and (p := frame.placement.piece_at(sq)) is not None and p.is_king]
    assert len(kings) >= 2
    assert [obs.label(sq) for sq in kings] == [frame.placement.piece_at(sq).value
                                               for sq in kings]


@pytest.mark.parametrize("seed", [11107, 9158])
def test_a_hand_the_colour_of_a_set_is_not_read_as_a_king(seed):
    """Evaluation scenes 11107 (a peach hand near the orange set's colour, tilt 40 deg) and
    9158 (a pink one near the red set's, tilt 49 deg): squares under the hand passed for
    pieces of that set, and tall ones, kings.  Bigger than any piece, they are reported
    occluded now."""
    frame, obs = _evaluation_scene(seed)
    assert frame.occluded
    assert [obs.board.square_name(sq) for sq in frame.occluded
            if obs.label(sq) != "occluded"] == []


@pytest.mark.parametrize("seed", [1000138, 1000415, 1000848, 1001847])
def test_a_hands_edge_over_the_far_part_of_a_square_is_reported_occluded(seed):
    """Scenes of `vision_eval.py` (seed 1, tilts 27 to 47 deg): a hand the colour of a set
    over half or more of a square, its edge over where a king's top would stand or across
    the square, read as a man or a king.  Its shape gives it away beside the squares the hand
    is seen over: every square the renderer says the hand covers is reported occluded."""
    frame, obs = _evaluation_scene(seed)
    assert frame.occluded
    assert [obs.board.square_name(sq) for sq in frame.occluded
            if obs.label(sq) != "occluded"] == []


def test_a_hand_over_most_dark_squares_does_not_become_the_board():
    """Evaluation scene 199 (a hand over 20 of the 32 dark squares): the hand's colour won
    the vote for the dark squares' colour, so bare navy squares read as black kings and cream
    men as empty.  Only dark squares beside light squares in the light colour, showing a
    checker there, vote now."""
    frame, obs = _evaluation_scene(199)
    seen = [sq for sq in frame.placement.squares if sq not in frame.occluded]
    assert len(seen) >= 10
    wrong = [obs.board.square_name(sq) for sq in seen if obs.label(sq) != "occluded"
             and (obs.label(sq) == "empty") != (frame.placement.piece_at(sq) is None)]
    assert wrong == []


def test_an_arm_the_colour_of_the_light_squares_does_not_become_them():
    """Evaluation scene 30077 (an arm of the pale wood's own hue, casting its shadow over six
    light squares): the sample with the most like-coloured neighbours lay between the arm, its
    shadow and the lit squares, so the light squares' colour came out as their shaded one, the
    lit ones looked foreign, and eight squares the arm does not touch read as occluded.  The
    members are re-drawn around their own median colour now."""
    frame, obs = _evaluation_scene(30077)
    assert frame.occluded
    touched = frame.occluded | frame.partly_occluded
    assert [obs.board.square_name(sq) for sq in obs.occluded - touched] == []


@pytest.mark.parametrize("seed", [30238, 30376, 495])
def test_a_dark_set_near_the_dark_squares_colour_is_seen_as_a_set(seed):
    """Evaluation scenes 30238 (dark teal men on dark olive squares, an arm over half the
    board), 30376 (black men on dark brown squares, half the board in a shadow) and 495
    (black men on near-black wood, a hand): most of each black man's disc differs from the
    bare square, but its colour is within the margin that drops a shadow's edge or a glare
    spot, so the whole set was dropped (six, six and five black pieces read as empty) and the
    sets were learned from the arm or the shaded white men.  Several squares of one colour,
    darker than the bare square and off its shades, are a set now."""
    frame, obs = _evaluation_scene(seed)
    black = [sq for sq in frame.placement.squares if sq not in frame.occluded
             and (p := frame.placement.piece_at(sq)) is not None and p.color is Color.BLACK]
    assert len(black) >= 5
    assert [obs.board.square_name(sq) for sq in black if obs.label(sq) == "empty"] == []


def test_a_set_a_lighter_shade_of_its_squares_is_seen():
    """Evaluation scene 30778 (red men on a printed board's dark red squares, a little
    brighter): the second look counted any shade of the bare square as board, the red men
    among them, and read eight of them as empty.  The board's shades stop halfway to a set's
    own brightness now; two men whose disc matches the square's own bare corners are still
    missed (measured), so the bound is two."""
    frame, obs = _evaluation_scene(30778)
    red = [sq for sq in frame.placement.squares
           if (p := frame.placement.piece_at(sq)) is not None and p.color is Color.WHITE]
    assert len(red) >= 8
    assert len([sq for sq in red if obs.label(sq) == "empty"]) <= 2


@pytest.mark.parametrize("seed", [842, 40772])
def test_bare_squares_in_uneven_light_are_not_a_hidden_set(seed):
    """Evaluation scenes 842 (orange and blue men, shadow bands across the board) and 40772
    (a glare spot on a printed board): a few bare squares where a shadow's edge crosses (a
    blend of two lights a little apart in colour), or what the light model left of a glare
    spot, share a colour off the bare square's shades.  Taken for a set near the dark
    squares' colour (842: a lighter one) or for a set the first look missed (40772: no pixel
    of theirs stands out of the bare squares' stray), they were read as men."""
    frame, obs = _evaluation_scene(seed)
    assert [obs.board.square_name(sq) for sq in frame.placement.squares
            if sq not in frame.occluded and frame.placement.piece_at(sq) is None
            and obs.label(sq) not in ("empty", "occluded")] == []


@pytest.mark.parametrize("seed", [7000295, 1000146])
def test_a_glare_spot_over_bare_squares_is_no_piece(seed):
    """Evaluation scenes 7000295 (10x10) and 1000146: a glare spot whitens bare dark squares
    to a light set's colour, and they were read as white men or kings (three and one).  A
    piece's silhouette is a sharp step; the spot fades over many pixels (vision.soft_edges)."""
    frame, obs = _evaluation_scene(seed)
    assert frame.occluded == frozenset()
    bare = [sq for sq in frame.placement.squares if frame.placement.piece_at(sq) is None]
    assert [obs.board.square_name(sq) for sq in bare if obs.label(sq) != "empty"] == []


@pytest.mark.parametrize("seed", [1000426, 7000422])
def test_a_dark_set_under_a_glare_veil_is_seen(seed):
    """Evaluation scenes 1000426 and 7000422: most of a dark set stands in a glare veil.
    Corrected for the veil, which a piece does not carry, the set's colour fell below zero and
    was clamped to a grey no shade of the set matches: its men out of the glare were read as
    bare squares (four and two).  The set's colour under the light's gain alone is the set too."""
    frame, obs = _evaluation_scene(seed)
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [1000499, 1000858, 1000136])
def test_a_white_man_amid_surroundings_that_look_like_it_is_read(seed):
    """Evaluation scenes 1000499, 1000858 (in glare) and 1000136 (between white squares): the
    board around a white man looks like the man on most sides, so the king stage found it
    bigger than any piece and it was reported occluded.  Its silhouette is a sharp step of
    high contrast and nothing beside it is hidden: a piece (vision.soft_edges)."""
    _still_board_read_right(seed)


@pytest.mark.parametrize("seed", [1000018, 1001069])
def test_a_glare_spot_bigger_than_a_piece_over_a_bare_square_is_bare(seed):
    """Evaluation scenes 1000018 and 1001069: a glare spot over a bare square, bigger than any
    piece, was reported occluded.  Its edges fade over many pixels: a bare square."""
    _still_board_read_right(seed)


@pytest.mark.parametrize("seed", [1000247, 1001413])
def test_a_square_whose_grid_corners_glare_washed_out_is_read_by_its_edges(seed):
    """Evaluation scenes 1000247 (a bare square) and 1001413 (a white man): glare drove the
    square's grid corners to the sensor's limit, and what stood there looked like a light piece,
    so it was reported occluded.  Its edges tell: the glare's soft fall-off is a bare square, a
    sharp silhouette of high contrast a piece (vision.soft_edges)."""
    _still_board_read_right(seed)


@pytest.mark.parametrize("seed, square", [(1000345, 4), (1000615, 22), (30000594, 21)])
def test_a_man_lit_past_the_hard_shadow_his_set_stands_in_is_no_hand(seed, square):
    """Evaluation scenes with a hard shadow over most of a light set (white, orange): the
    set's colour was learned in the shadow, and a man standing in the light, much brighter,
    read as foreign: reported occluded.  A set's lighter shade is the set (up to
    `VisionConfig.lit_piece_shade`)."""
    frame, obs = _evaluation_scene(seed)
    assert square not in obs.occluded
    assert obs.board.piece_at(square) == frame.placement.piece_at(square)
    unlit = _read_again(frame, obs, VisionConfig(lit_piece_shade=1.0, hands_reach_in=False))
    assert square in unlit.occluded  # (the test does exercise it)


@pytest.mark.parametrize("seed, square", [(1000283, 13), (1001734, 16), (1000051, 25)])
def test_a_bare_square_glare_burnt_out_is_no_light_piece(seed, square):
    """Evaluation scenes where glare burnt a bare dark square's middle out to the sensor's
    limit: in colour a light piece, and too flat for its edges to be judged, it was read as a
    white man or king.  Burnt out over the dark square is bare (vision.soft_edges.burnt_out)."""
    frame, obs = _evaluation_scene(seed)
    assert frame.placement.piece_at(square) is None
    assert obs.board.piece_at(square) is None and square not in obs.occluded
    blind = _read_again(frame, obs, VisionConfig(burnt_level=1000.0))
    assert blind.board.piece_at(square) is not None  # (the test does exercise it)


@pytest.mark.parametrize("seed", [1001524, 30000551, 30000771])
def test_a_light_king_in_an_oblique_view_keeps_its_colour(seed):
    """Evaluation scenes seen 45-50 degrees from vertical: a king's colour was read from the
    disc at a man's height, which there sees mostly its two shaded walls (a light king then
    read as a dark one)."""
    frame, obs = _evaluation_scene(seed)
    kings = [sq for sq in frame.placement.squares
             if (p := frame.placement.piece_at(sq)) is not None and p.value.endswith("king")]
    assert kings, "the scene must have kings"
    for sq in kings:
        truth = frame.placement.piece_at(sq).value
        got = obs.label(sq)
        if got not in ("empty", "occluded"):
            assert got.split("_")[0] == truth.split("_")[0], (sq, truth, got)


def test_a_hands_shadow_on_red_squares_is_no_black_set():
    """Evaluation scene 1001043: a hand over a red-and-cream board where only white men stand.
    The fingers' soft shadows on two red squares passed for a dark set, a darker red; its
    shades took in every bare red square (fourteen "black men").  A set that is a shade of the
    bare square claims no square where the first look saw nothing but bare board."""
    frame, obs = _evaluation_scene(1001043)
    assert all(p.color is Color.WHITE for sq in frame.placement.squares
               if (p := frame.placement.piece_at(sq)) is not None and sq not in frame.occluded)
    assert len(frame.occluded) >= 5
    ghosts = [obs.board.square_name(sq) for sq in frame.placement.squares
              if frame.placement.piece_at(sq) is None and sq not in frame.occluded
              and obs.label(sq) not in ("empty", "occluded")]
    # (The two squares under the fingers' shadows are still read as black men.)
    assert len(ghosts) <= 2, ghosts


def test_a_hand_of_one_even_colour_is_not_the_dark_squares_colour():
    """Evaluation scene 1001046: a hand over twelve blue squares of a blue-and-green board,
    a glare spot over others.  The hand's even colour won the dark squares' vote over the
    blues the glare spread apart, and then ten squares were misread (seven in colour).  A hand
    lies over light squares too, and a dark square's colour never does."""
    frame, obs = _evaluation_scene(1001046)
    assert len(frame.occluded) >= 10
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [1001058, 1001807])
def test_an_arm_over_squares_on_the_boards_edge_is_reported(seed):
    """Evaluation scenes 1001058 and 1001807: an arm reaching in over the board's edge covers
    two edge squares each.  Such a square has only two grid corners inside the board, and the
    arm hid one: they were read as a bare square or a man.  With a hand over the board, one
    corner hidden under something (not washed out by light, not by a piece beside it) is
    enough on the edge."""
    frame, obs = _evaluation_scene(seed)
    assert frame.occluded, "the scene must have a hand over the board"
    assert [obs.board.square_name(sq) for sq in frame.occluded - obs.occluded] == []
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize(("seed", "squares"), [(1000805, (1, 2, 5)), (1000683, (28,))])
def test_glare_that_greys_grid_corners_without_clipping_them_covers_no_square(seed, squares):
    """Evaluation scenes 1000805 and 1000683, no hand: a glare spot drives the grid corners
    around these squares towards white (bright and grey, the squares a trace apart) without
    reaching the sensor's limit in every channel.  They were taken for corners under a hand,
    and three bare squares and a black man in plain view reported covered."""
    frame, obs = _evaluation_scene(seed)
    assert not frame.occluded, "no hand in this scene"
    assert [obs.board.square_name(sq) for sq in squares if sq in obs.occluded] == []
    assert [obs.board.square_name(sq) for sq in squares
            if obs.board.piece_at(sq) != frame.placement.piece_at(sq)] == []


def test_a_grey_sleeve_over_the_board_still_covers_its_squares():
    """Evaluation scene 1000052: a light grey arm, as bright and grey as glare, but one colour
    over all four squares at a grid corner.  Its squares stay reported covered."""
    frame, obs = _evaluation_scene(1000052)
    assert len(frame.occluded) >= 8
    assert [obs.board.square_name(sq) for sq in frame.occluded - obs.occluded] == []


@pytest.mark.parametrize("seed, square", [(1000208, 31), (1000993, 30), (1000817, 29)])
def test_a_man_on_the_far_rank_before_a_table_of_his_colour_is_no_king(seed, square):
    """Evaluation scenes, steep views of black men on the far rank: the king stage's lines
    run over the frame onto the table, dark as the set, which read as a frame of the set's
    colour - the silhouette then decided nothing and the wall called the man a king.  Past
    the frame (measured: vision.frame_extent) the table says nothing."""
    frame, obs = _evaluation_scene(seed)
    assert obs.board.piece_at(square) == frame.placement.piece_at(square)
    framed = _read_again(frame, obs, VisionConfig(frame_match=1e9))
    # (The test does exercise it: with the frame taken to reach as far as it is probed.)
    assert framed.board.piece_at(square) != frame.placement.piece_at(square)


@pytest.mark.parametrize("seed, square", [(1001383, 31), (1000879, 29)])
def test_a_white_man_on_the_far_rank_before_a_frame_near_his_colour_is_no_king(seed, square):
    """Evaluation scenes, white men on the far rank before a frame close to their colour: the
    frame read as their top face reaching on, a king's.  A colour that close to the piece's
    says little (KingConfig.faint_apart); the wall, saying man, decides.  (A third, 30000421's
    h8, is read a man without it too since dark shades of the piece count fully in the height
    fit, KingConfig.near_apart.)"""
    frame, obs = _evaluation_scene(seed)
    assert obs.board.piece_at(square) == frame.placement.piece_at(square)
    loud = _read_again(frame, obs, VisionConfig(kings=replace(KingConfig(), faint_apart=0.0)))
    # (The test does exercise it.)
    assert loud.board.piece_at(square) != frame.placement.piece_at(square)


def test_men_of_a_set_twice_as_bright_as_its_squares_are_seen_in_duller_light(monkeypatch):
    """Evaluation scene 1000863: blue men on navy squares.  The set's colour, learned from its
    pieces in the best light, is about twice the squares' brightness, so the second look did
    not count it a shade of them and let the bare square's shades reach 1.6 times; the men
    standing in duller light, at about 1.55 times, read as empty.  A set that would bring the
    bound below 1.6 times, wherever it stands, does now.  (A fourth man, on square 29, is
    still read empty: his disc matches his square's own bare corners, which the first look
    trusts.)"""
    frame, obs = _evaluation_scene(1000863)
    men = [23, 27, 31]
    assert {frame.placement.piece_at(sq) for sq in men} == {Piece.BLACK_MAN}
    assert [obs.board.square_name(sq) for sq in men
            if obs.board.piece_at(sq) != Piece.BLACK_MAN] == []
    # (The test does exercise it: with only the shades up to 1.6 times looked at, and no
    # rims looked for, vision.rims, which find these men by their outline too.)
    monkeypatch.setattr(pieces, "_board_shade_range",
                        partial(pieces._board_shade_range, reach=1.6))
    monkeypatch.setattr(pieces, "rim_strength", lambda *a: np.zeros(len(a[3])))
    _, near = _evaluation_scene(1000863)
    assert all(near.label(sq) == "empty" for sq in men)


@pytest.mark.parametrize("seed, squares", [(1000899, [27, 28]), (1000654, [19, 31])])
def test_a_wooden_man_leaning_over_a_corner_of_his_square_is_no_glare(seed, squares,
                                                                       monkeypatch):
    """Evaluation scenes with no glare spot, light wooden men on dark wood: the wood of the
    men is the dark wood's under a grey veil of about 40.  Leaning over one corner patch of
    his square, a man gave it a veil of 20-30 while the other three showed none, and the
    test for glare on a square's own corners took that corner in: his whole disc then passed
    for veiled board and the square read empty.  A corner counts only within 15 of the
    others' veil (or their own veil, under real glare)."""
    frame, obs = _evaluation_scene(seed)
    assert [obs.board.square_name(sq) for sq in squares
            if obs.board.piece_at(sq) != frame.placement.piece_at(sq)] == []
    # (The test does exercise it: with corners 30 off the others' veil taken in, and no
    # edges judged - a man's sharp silhouette now saves a square so emptied as well, and so
    # does his rim, vision.rims.)
    monkeypatch.setattr(pieces, "_veiled_board", partial(pieces._veiled_board, veil_tol=30.0))
    loose = _read_again(frame, obs, VisionConfig(glare_edge_min_pieces=10**6,
                                                 rims=RimConfig(min_strength=np.inf)))
    assert all(loose.label(sq) == "empty" for sq in squares)


@pytest.mark.parametrize("seed, squares", [(1001352, [27, 28]), (1001269, [15]), (1000917, [31]),
                                           (1001213, [16])])
def test_a_red_piece_in_shadow_on_walnut_is_seen(seed, squares):
    """Evaluation scenes, red or magenta pieces on walnut squares: the squares' colour is
    nearly a darker shade of the set's (0.22 of its distance off one), so the second look
    kept the set to 0.8-1.25 of its brightness, lest its shades take in bare squares.  These
    pieces stand in a shadow, darker than that, and read as empty although the first look saw
    their whole disc.  For occupancy, where the first look saw a piece, only a set within 0.2
    keeps to its brightness."""
    frame, obs = _evaluation_scene(seed)
    assert [obs.board.square_name(sq) for sq in squares
            if obs.board.piece_at(sq) != frame.placement.piece_at(sq)] == []
    # (The test does exercise it: with one bound for both, and no rims looked for, which
    # find the piece by its outline too: vision.rims.)
    strict = _read_again(frame, obs, VisionConfig(there_within=0.35,
                                                  rims=RimConfig(min_strength=np.inf)))
    assert all(strict.label(sq) == "empty" for sq in squares)


@pytest.mark.parametrize("seed, squares", [(1000737, [2]), (1001249, [3]), (30000389, [17, 30])])
def test_a_lone_man_of_a_set_is_sized_by_his_own_width(seed, squares, monkeypatch):
    """Evaluation scenes where a set has one man on the board (tilt 38-40 deg, no hand, no
    glare): a set with fewer than three good widths was sized by all the pieces, mostly of
    the other set; a white man the image makes wider than the black ones (his bright edges
    bleed) then looked long for that size, and read as a king.  A set with one good width is
    sized by it now."""
    frame, obs = _evaluation_scene(seed)
    assert all(not frame.placement.piece_at(sq).is_king for sq in squares)
    assert _man_king_mixups(frame, obs, min_pieces=2) == []
    # (The test does exercise it: with a set sized by its own widths from three on.  In
    # 30000389 the white man on 17 has read as a man that way too since dark shades of the
    # piece count fully in the height fit, KingConfig.near_apart.)
    monkeypatch.setattr(kings, "set_radius", partial(kings.set_radius, min_own=3))
    _, other = _evaluation_scene(seed)
    assert any(other.label(sq).endswith("king") for sq in squares)


@pytest.mark.parametrize("seed, squares", [(1001117, [14]), (1001146, [21]),
                                           (30000730, [5, 6, 18])])
def test_a_light_piece_in_real_glare_with_a_sharp_edge_is_seen(seed, squares):
    """Evaluation scenes with a glare spot, white men and kings on dark squares: under the
    glare the piece's colour is the bare square's under a grey veil like its corners', and
    the test for glare on a square's own corners took the whole disc for veiled board (the
    square read empty).  Where only that emptied a square, a silhouette as sharp as the other
    pieces', with no hand beside it, is a piece.  (Seen, in its colour: 1001117's man at 22
    deg has read as a king since dark shades of the piece count fully in the height fit,
    KingConfig.near_apart.)"""
    frame, obs = _evaluation_scene(seed)
    assert [obs.board.square_name(sq) for sq in squares
            if (got := obs.board.piece_at(sq)) is None
            or got.color != frame.placement.piece_at(sq).color] == []
    # (The test does exercise it: with no edges judged, too few pieces to compare with.)
    blind = _read_again(frame, obs, VisionConfig(glare_edge_min_pieces=10**6))
    assert all(blind.label(sq) == "empty" for sq in squares)


@pytest.mark.parametrize("seed, squares", [(7000069, [4, 12]), (7000223, [18]),
                                           (30000114, [26])])
def test_a_light_king_in_a_glare_veil_keeps_its_colour(seed, squares, monkeypatch):
    """Evaluation scenes, white (light blue, grey) kings in a glare veil or by a hard
    shadow's edge: their top face, with the veil at their square taken off, looked grey, and
    the kings read as black.  A king does not carry the board's veil: his top is also read
    under the light's gain alone, and the reading nearer a set decides."""
    frame, obs = _evaluation_scene(seed)
    assert all(frame.placement.piece_at(sq).value == "white_king" for sq in squares)
    assert [obs.label(sq) for sq in squares] == ["white_king"] * len(squares)
    # (The test does exercise it: with the top read with the veil taken off only.)
    both = pieces._top_readings
    monkeypatch.setattr(pieces, "_top_readings", lambda top, gain, veil: both(top, gain, veil)[:1])
    _, veiled = _evaluation_scene(seed)
    assert [veiled.label(sq) for sq in squares] == ["black_king"] * len(squares)


@pytest.mark.parametrize("seed", [1001696, 30000805])
def test_sets_in_a_glare_veil_are_named_by_their_own_colour(seed, monkeypatch):
    """Evaluation scenes where the lighter set stands in a glare spot (a green king among
    magenta men on seed 1's 1001696; a white man and king under a veil of 89 levels among red
    men on seed 30's 30000805): its colour with the veil taken off was darker than the other
    set's, and every piece was read in the other set's colour.  The renderer knows each
    piece's colour; with the veil given back, as a piece hides the board's reflection, every
    one is right."""
    frame, obs = _evaluation_scene(seed)
    assert occupancy_and_colour_errors(frame, obs) == []
    # (The test does exercise it: named by the colours with the veil taken off, as before.)
    monkeypatch.setattr(pieces, "_lighter_first",
                        lambda a, b, x, veil, sep: (a, b) if a[0] >= b[0] else (b, a))
    _, veiled = _evaluation_scene(seed)
    assert len(occupancy_and_colour_errors(frame, veiled)) >= 5


def test_squares_in_a_hands_shadow_make_no_set(monkeypatch):
    """Scene 1001043 of vision_eval: white men and a king, no black piece, a hand over the
    board's top and two bare red squares darkened by its fingers' shadow.  The two were the
    black set and read as black men; they are bare, and every piece is read."""
    frame, obs = _evaluation_scene(1001043)
    assert occupancy_and_colour_errors(frame, obs) == []
    # (The test does exercise it: with no set taken for a shadow, the two are black men.)
    monkeypatch.setattr(pieces, "_hand_shadow_set", lambda *a: None)
    _, shaded = _evaluation_scene(1001043)
    assert [shaded.label(sq) for sq in (20, 28)] == ["black_man", "black_man"]


def test_a_lit_bare_square_is_no_lone_piece_of_the_other_set(monkeypatch):
    """Scene 7000607 of vision_eval (seed 7): green men and kings only, a hard shadow over most
    of a wood board, and one bare dark square in the lamp's light under a faint veil.  That
    square was taken for the other set's lone piece, lighter than the greens, and every green
    piece read black.  The renderer knows every piece is the white set's."""
    frame, obs = _evaluation_scene(7000607)
    assert occupancy_and_colour_errors(frame, obs) == []
    # (The test does exercise it: with no veil enough to set such a square aside.)
    monkeypatch.setattr(pieces, "_LONE_SHADE_VEIL", float("inf"))
    _, before = _evaluation_scene(7000607)
    assert len(occupancy_and_colour_errors(frame, before)) >= 5


def test_one_set_in_and_out_of_a_glare_spot_is_not_named_by_the_veil():
    """Scene 1000038 of `vision_eval.py --camouflaged`: red men, some in a glare spot and
    some not, and brown men on brown squares.  The reds fell into two groups, those in the
    glare darker with the veil taken off; with the veil given back they are one colour,
    which the veil does not name, and named by it the reds out of the glare read black.
    Every red piece (the renderer's white set) reads white."""
    frame, obs = _evaluation_scene(1000038, camouflaged=True)
    reds = [sq for sq in frame.placement.squares
            if (p := frame.placement.piece_at(sq)) is not None and p.color.value == "white"
            and sq not in frame.occluded and sq not in frame.partly_occluded]
    assert len(reds) >= 6
    assert [obs.board.square_name(sq) for sq in reds
            if obs.label(sq) not in ("white_man", "white_king")] == []


def test_light_squares_in_the_lamps_light_past_a_hard_shadow_are_no_arm(monkeypatch):
    """Evaluation scene 30000457: a hard shadow over most of a wooden board taught the
    board's colours, its tinted ambient making them duller; the light squares in the lamp's
    light, much more saturated, read as foreign, an arm over the eleven playable squares
    beside them.  The light squares' colour lighter and more saturated in its own hue is more
    light, not an arm."""
    frame, obs = _evaluation_scene(30000457)
    assert frame.occluded == frozenset() and frame.partly_occluded == frozenset()
    assert obs.occluded == frozenset()
    # (The test does exercise it: with the light squares' lit colour foreign.)
    monkeypatch.setattr(occlusion, "_lit_light_square",
                        lambda probe_lab, light_lab, lit: np.zeros(probe_lab.shape[:2], bool))
    _, unlit = _evaluation_scene(30000457)
    assert len(unlit.occluded) >= 10


def _framed_tight_on_the_far_edge(seed: int, board: Board):
    """A steep view whose image ends 2 px past the grid's far edge, as a photo framed tight on
    the board: the men on the far rank lean out of it.  Returns the frame and the reading of
    the cut image (with the calibration and corners moved with the cut)."""
    variant = find_variant("brazilian")
    spec = TableSpec()
    rng = random.Random(seed)
    scene = sample_scene(rng, spec, hand_probability=0.0, glare_probability=0.0,
                         hard_shadow_probability=0.0)
    scene = replace(scene, camera=replace(scene.camera, tilt_deg=40.0))
    frame = render(sample_world(rng, board, spec), scene, variant, seed=seed)
    top = int(np.floor(frame.corners_px[2:, 1].min())) - 2  # h8 and a8: the far edge
    assert top > 0
    image = frame.image[top:].copy()
    camera = replace(frame.intrinsics, cy_px=frame.intrinsics.cy_px - top,
                     height_px=image.shape[0])
    obs = BoardObserver(variant, calibration=Calibration(camera=camera),
                        corners_px=frame.corners_px - [0, top]).observe(image)
    return frame, obs


@pytest.mark.parametrize("seed", (0, 5))
def test_a_man_the_images_edge_cuts_is_no_king(seed):
    """Past the image's edge the sampler repeats the edge's pixels, the piece's own: read as
    its top face reaching on, a king's.  There nothing is seen, and a king that is not seen is
    not called (a man, undecided)."""
    board = Board.starting(find_variant("brazilian"))
    frame, obs = _framed_tight_on_the_far_edge(seed, board)
    far_rank = [sq for sq in frame.placement.squares if frame.placement.geometry.coords[sq][1] == 7]
    assert len(far_rank) == 4
    assert [obs.board.square_name(sq) for sq in far_rank
            if obs.board.piece_at(sq) != frame.placement.piece_at(sq)] == []


@pytest.mark.parametrize("seed", (0, 5))
def test_a_king_the_images_edge_cuts_is_not_called_a_sure_man(seed):
    """The same cut with kings on the far rank: what is seen of them may be a man's, so the
    reading may say man, but only as a guess (confidence 0.5)."""
    board = Board.starting(find_variant("brazilian"))
    geo = board.geometry
    far_rank = [sq for sq in board.squares if geo.coords[sq][1] == 7]
    for sq in far_rank:
        board.set_piece_at(sq, Piece.BLACK_KING)
    frame, obs = _framed_tight_on_the_far_edge(seed, board)
    for sq in far_rank:
        assert obs.board.piece_at(sq) == Piece.BLACK_KING or obs.confidence[sq] <= 0.5, \
            obs.board.square_name(sq)


@pytest.mark.parametrize("seed", [1000365, 1001228])
def test_a_lone_set_reads_one_colour(seed):
    """Evaluation scenes 1000365 (green men and kings alone on a wooden board) and 1001228
    (magenta men and kings alone on blue and green vinyl): one set, its lightness near the
    board's middle.  Named piece by piece, its pieces fell on either side of that middle:
    two sets.  The renderer knows they are one set, and which (the green set is the lighter
    of its pair, the magenta the darker)."""
    frame, obs = _evaluation_scene(seed)
    seen = [sq for sq in frame.placement.squares
            if frame.placement.piece_at(sq) is not None
            and sq not in frame.occluded and sq not in frame.partly_occluded]
    assert len(seen) >= 4
    assert len({frame.placement.piece_at(sq).color for sq in seen}) == 1  # (one set indeed)
    assert occupancy_and_colour_errors(frame, obs) == []


def test_pieces_left_out_of_a_lone_set_are_named_by_their_own_lightness():
    """Evaluation scene 1000003: three red men and, on black squares, a white man and king
    that looked like bare squares under a glare veil and were left out when the sets were
    learned: one set read, the reds.  Named as that set, the whites read black; they lie far
    from its colour and are the other set, lighter than the board's middle."""
    frame, obs = _evaluation_scene(1000003)
    colours = {frame.placement.piece_at(sq).color.value for sq in frame.placement.squares
               if frame.placement.piece_at(sq) is not None}
    assert colours == {"white", "black"}
    assert occupancy_and_colour_errors(frame, obs) == []


@pytest.mark.parametrize("seed", [1000091, 1000171])
def test_in_a_picture_with_no_colour_pieces_read_as_one_set_are_named_each(seed):
    """Evaluation scenes 1000091 and 1000171 as a monochrome camera takes them: two sets of
    greys about 50 levels apart, which learning the sets (weighing hue too) took for one.
    Named as one set, one set took the other's colour.  Each piece named by its own
    lightness against the board's middle, every piece read has its set's colour."""
    obs, read = pieces_read_in_grey(seed)
    assert len({p.color for _, p, _ in read}) == 2 and len(read) >= 12
    assert [obs.board.square_name(sq) for sq, p, got in read if got.color != p.color] == []


@pytest.mark.parametrize("seed", [1000094, 1000104, 1000262])
def test_in_a_picture_with_no_colour_a_king_must_win_by_more(seed):
    """Evaluation scenes 1000094, 1000104 and 1000262 as a monochrome camera takes them.
    Without colour a piece's wall in shade is told from the board by its brightness alone,
    and a light set's top face from the light squares hardly at all: the silhouette fit,
    free to place a piece whose ends it cannot see, took 5, 6 and 4 men and kings for the
    other.  There a king must win by `KingConfig.grey_split` more, and the wall test, read
    where that fit puts the piece, counts less: every piece read is what it is.  (The
    control, weighed as a picture in colour is, still misreads at least three in each.)"""
    def mixed_up(cfg: VisionConfig | None) -> list[int]:
        _, read = pieces_read_in_grey(seed, cfg)
        assert len(read) >= 10
        return [sq for sq, p, got in read if got.is_king != p.is_king]

    kc = KingConfig()
    assert mixed_up(None) == []
    colour_weights = VisionConfig(kings=replace(kc, grey_split=0.0,
                                                grey_wall_weight=kc.wall_weight))
    assert len(mixed_up(colour_weights)) >= 3


def test_in_a_picture_with_no_colour_two_sets_a_shade_apart_are_two_sets():
    """Evaluation scene 1000137 as a monochrome camera takes it: red men and kings, in grey
    as grey as the dark squares, and a black set 0.47 times as bright.  With several squares
    looking like a set the colour of its squares, the two were taken for one set in two
    lights (a hard shadow over some of it), as in colour a set and its own shade are, and
    every red piece read black (14).  In grey every grey is a shade of every other: two
    sets stay two, and every piece read has its set's colour."""
    _, read = pieces_read_in_grey(1000137)
    assert len({p.color for _, p, _ in read}) == 2 and len(read) >= 20
    assert [sq for sq, p, got in read if got.color != p.color] == []
