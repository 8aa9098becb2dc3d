"""The light model and the colour statistics the classifier learns from the board itself.

Expected values are the ones the synthetic data were built with (a known gain and veil field,
a known board colour, known piece sets), not the pipeline's output.
"""

import numpy as np
import pytest

from vision.config import VisionConfig
from vision.light import board_colour, board_colours, local_light, plan_light
from vision.pieces import (
    _across_shadow_edge,
    _camouflaged_pieces,
    _camouflaged_set,
    _hand_shadow_set,
    _hue_sets,
    _piece_sets,
    _to_lab,
)

DARK = np.array([40.0, 70.0, 120.0])  # BGR of the bare playable squares
LIGHT = np.array([150.0, 200.0, 225.0])
GRID = 8


def _board_refs():
    """Corner-patch and light-probe positions of an 8x8 board, as vision.sampling lays them."""
    playable = [(f, r) for r in range(GRID) for f in range(GRID) if (f + r) % 2 == 0]
    light = [(f, r) for r in range(GRID) for f in range(GRID) if (f + r) % 2 == 1]
    patch = np.array([(a, b) for a in (0.13, 0.87) for b in (0.13, 0.87)])
    corner_uv = np.array([np.add(patch, sq) for sq in playable])  # (S, 4, 2)
    probe_uv = np.array(light, float) + 0.5
    centre_uv = np.array(playable, float) + 0.5
    base_uv = centre_uv[:, None, :] + np.array([(0.0, 0.0), (0.2, 0.0), (0.0, 0.2)])[None]
    grid_uv = np.array([(x, y) for y in range(1, GRID) for x in range(1, GRID)], float)
    return corner_uv, probe_uv, centre_uv, base_uv, grid_uv


def _field(uv):
    """A shadow getting deeper towards one side, and a broad glare spot (grey veil)."""
    gain = 1.0 - 0.06 * uv[..., 0]
    veil = 90.0 * np.exp(-((uv[..., 0] - 5.0) ** 2 + (uv[..., 1] - 4.0) ** 2) / (2 * 1.5 ** 2))
    return gain, veil


def _observe(uv, true):
    gain, veil = _field(uv)
    return gain[..., None] * true + veil[..., None]


def test_light_field_recovers_a_known_shadow_and_glare():
    corner_uv, probe_uv, centre_uv, base_uv, grid_uv = _board_refs()
    plan = plan_light(corner_uv, probe_uv, base_uv, centre_uv, grid_uv, sigma_sq=0.5)
    light = local_light(plan, _observe(corner_uv, DARK), _observe(probe_uv, LIGHT), DARK, LIGHT,
                        base_uv.shape[1])
    gain, veil = _field(centre_uv)
    inner = (centre_uv[:, 0] > 1) & (centre_uv[:, 0] < 7) & (centre_uv[:, 1] > 1) & \
        (centre_uv[:, 1] < 7)
    assert np.abs(light.gain - gain)[inner].max() < 0.06
    assert np.abs(light.offset[:, 0] - veil)[inner].max() < 12.0
    # A bare square under the glare looks like a bare square once the light is undone.
    seen = _observe(base_uv, DARK)
    corrected = light.correct_base(seen)
    assert np.abs(seen - DARK)[inner].max() > 60.0  # what the glare did
    assert np.abs(corrected - DARK)[inner].max() < 20.0


@pytest.mark.xfail(reason="a skin colour that equals the dark squares plus a grey veil is taken "
                          "for glare by the light fit; the checker test at the grid corners "
                          "(vision.occlusion) is what finds such a hand", strict=True)
def test_a_hand_over_the_references_is_not_taken_for_light():
    corner_uv, probe_uv, centre_uv, base_uv, grid_uv = _board_refs()
    plan = plan_light(corner_uv, probe_uv, base_uv, centre_uv, grid_uv, sigma_sq=0.5)
    skin = np.array([105.0, 130.0, 205.0])
    refs = np.tile(DARK, (len(corner_uv), 4, 1))
    probes = np.tile(LIGHT, (len(probe_uv), 1))
    # An arm across three ranks of the board, covering references and squares alike.
    refs[(corner_uv[..., 1] > 3) & (corner_uv[..., 1] < 6)] = skin
    probes[(probe_uv[:, 1] > 3) & (probe_uv[:, 1] < 6)] = skin
    light = local_light(plan, refs, probes, DARK, LIGHT, base_uv.shape[1])
    under = (centre_uv[:, 1] > 4) & (centre_uv[:, 1] < 5)
    assert under.any()
    corrected = light.correct_all(np.tile(skin, (len(centre_uv), 1, 1)))[:, 0]
    # Still far from the bare square's colour: the occlusion test can see a foreign colour.
    assert np.linalg.norm(corrected - DARK, axis=1)[under].min() > 60.0
    assert np.abs(light.gain[~under] - 1.0).max() < 0.1


def test_board_colour_ignores_a_hand_and_follows_no_shadow():
    rng = np.random.default_rng(3)
    gains = rng.uniform(0.5, 1.3, 70)
    board = gains[:, None] * DARK + rng.normal(0, 2, (70, 3))
    hand = np.array([105.0, 130.0, 205.0]) + rng.normal(0, 3, (30, 3))
    got = board_colour(np.vstack([board, hand]))
    chroma = got / got.sum()
    assert np.abs(chroma - DARK / DARK.sum()).max() < 0.02


def test_board_colours_when_a_hand_covers_most_of_both_kinds_of_square():
    """A hand over 60% of the board is the colour most samples of dark and of light squares
    share: the two board colours are found among the rest."""
    rng = np.random.default_rng(4)
    light_sq = np.array([190.0, 215.0, 230.0])
    hand = np.array([105.0, 130.0, 205.0])
    dark = np.vstack([DARK + rng.normal(0, 2, (20, 3)), hand + rng.normal(0, 3, (30, 3))])
    light = np.vstack([light_sq + rng.normal(0, 2, (20, 3)), hand + rng.normal(0, 3, (30, 3))])
    # Each vote alone takes the hand...
    assert np.linalg.norm(board_colour(dark) - hand) < 10
    got_dark, got_light = board_colours(dark, light)
    assert np.linalg.norm(got_dark - DARK) < 5
    assert np.linalg.norm(got_light - light_sq) < 5



def test_board_colours_when_a_hand_covers_most_light_squares_and_fewer_dark_ones():
    """A hand over 18 of 32 light squares' probes wins the light vote, and as it lies over 12
    dark squares' corner patches as well it is not the dark vote's, so the two differ and the
    hand stood as the light colour.  Dark squares' patches never show the light squares'
    colour: one more than a fifth of them share is voted again without it."""
    rng = np.random.default_rng(8)
    light_sq = np.array([180.0, 220.0, 235.0])
    hand = np.array([95.0, 130.0, 190.0])
    dark = np.vstack([hand + rng.normal(0, 3, (12, 4, 3)), DARK + rng.normal(0, 2, (20, 4, 3))])
    light = np.vstack([hand + rng.normal(0, 3, (18, 3)), light_sq + rng.normal(0, 2, (14, 3))])
    assert np.linalg.norm(board_colour(light) - hand) < 10  # the light vote alone
    got_dark, got_light = board_colours(dark, light)
    assert np.linalg.norm(got_light - light_sq) < 5
    assert np.linalg.norm(got_dark - DARK) < 5


def test_a_grey_and_white_board_keeps_its_light_colour_beside_a_hand():
    """Grey and white pass for one colour in two lights, so every dark patch "shares" the
    light colour; a small hand over four light squares has too little support to replace it."""
    rng = np.random.default_rng(9)
    grey, white = np.array([110.0, 112.0, 115.0]), np.array([225.0, 228.0, 230.0])
    hand = np.array([95.0, 130.0, 190.0])
    dark = grey + rng.normal(0, 2, (32, 4, 3))
    light = np.vstack([hand + rng.normal(0, 3, (4, 3)), white + rng.normal(0, 2, (28, 3))])
    got_dark, got_light = board_colours(dark, light)
    assert np.linalg.norm(got_light - white) < 5
    assert np.linalg.norm(got_dark - grey) < 5


def _strip_beside(n: int) -> np.ndarray:
    """(n, n): dark square i of a strip borders light squares i and i + 1 (mod n)."""
    beside = np.zeros((n, n), bool)
    for i in range(n):
        beside[i, i] = beside[i, (i + 1) % n] = True
    return beside


def test_board_colours_when_a_hand_covers_most_dark_squares_only():
    """A hand over 20 of 32 dark squares' corner patches but only 12 light squares' probes wins
    the dark vote and not the light one, so the two come out different and both stood.  Only
    dark squares beside light squares that show the light colour, and themselves unlike it,
    vote now: the hand's edge squares are outvoted by the board.  Without the neighbours, the
    hand shows on 12 light squares' probes, which no dark square's colour does: the dark vote
    is taken again without it."""
    rng = np.random.default_rng(6)
    light_sq = np.array([80.0, 200.0, 245.0])
    hand = np.array([110.0, 145.0, 200.0])
    n = 32
    dark = np.vstack([hand + rng.normal(0, 3, (20, 4, 3)), DARK + rng.normal(0, 2, (12, 4, 3))])
    light = np.vstack([hand + rng.normal(0, 3, (12, 3)), light_sq + rng.normal(0, 2, (20, 3))])
    assert np.linalg.norm(board_colour(dark) - hand) < 10  # the dark vote alone
    for beside in (_strip_beside(n), None):
        got_dark, got_light = board_colours(dark, light, beside=beside)
        assert np.linalg.norm(got_dark - DARK) < 5
        assert np.linalg.norm(got_light - light_sq) < 5


def test_board_colours_when_a_hand_wins_the_dark_vote_over_a_board_in_glare():
    """Evaluation scene 1001046 in numbers: a hand over 12 of 32 dark squares, of one even
    colour, while a glare spot washes 10 of the other 20 (blue) towards grey, each by its own
    veil; the hand wins the dark vote, and every reading after it went wrong.  The hand lies
    over light squares too (13 of the 32 probes), which a dark square's colour never does: the
    dark vote is taken again without it."""
    rng = np.random.default_rng(11)
    blue, green = np.array([135.0, 50.0, 35.0]), np.array([50.0, 165.0, 75.0])
    hand = np.array([48.0, 57.0, 95.0])
    clean = blue * rng.uniform(0.85, 1.1, (10, 1, 1)) + rng.normal(0, 2, (10, 4, 3))
    veiled = np.clip(blue + rng.uniform(40, 140, (10, 1, 1)) + rng.normal(0, 2, (10, 4, 3)),
                     0, 255)
    dark = np.vstack([hand + rng.normal(0, 1.5, (12, 4, 3)), clean, veiled])
    light = np.vstack([hand + rng.normal(0, 1.5, (13, 3)), green + rng.normal(0, 2, (19, 3))])
    assert np.linalg.norm(board_colour(dark) - hand) < 10  # the dark vote alone
    got_dark, got_light = board_colours(dark, light)
    assert np.linalg.norm(got_light - green) < 5
    assert np.abs(got_dark / got_dark.sum() - blue / blue.sum()).max() < 0.02  # (a shade)


def test_board_colours_come_from_one_light():
    """A hard shadow over 18 light squares and 14 dark ones: the light vote takes the shaded
    light colour, and the dark colour must be the shaded one too (the light model explains
    every reference as one gain times these colours): it comes from beside light squares in
    that light, not from the lit majority of the dark squares."""
    rng = np.random.default_rng(7)
    light_sq = np.array([177.0, 219.0, 242.0])
    dark = np.vstack([0.5 * DARK + rng.normal(0, 1, (14, 4, 3)),
                      DARK + rng.normal(0, 1, (18, 4, 3))])
    light = np.vstack([0.5 * light_sq + rng.normal(0, 2, (18, 3)),
                       light_sq + rng.normal(0, 2, (14, 3))])
    assert np.linalg.norm(board_colours(dark, light)[0] - DARK) < 5  # without the neighbours
    got_dark, got_light = board_colours(dark, light, beside=_strip_beside(32))
    assert np.linalg.norm(got_light - 0.5 * light_sq) < 5
    assert np.linalg.norm(got_dark - 0.5 * DARK) < 5

@pytest.mark.parametrize("extra", ["glare", "second_light"])
def test_piece_sets_from_the_pieces_colours(extra):
    rng = np.random.default_rng(5)
    red = np.array([120.0, 175.0, 160.0])  # 8-bit Lab of two sets
    black = np.array([40.0, 128.0, 128.0])
    x = [red + rng.normal(0, 2, 3) for _ in range(6)] + \
        [black + rng.normal(0, 2, 3) for _ in range(6)]
    if extra == "glare":
        x.append(np.array([245.0, 128.0, 130.0]))  # one glare spot on an empty square
    else:
        x += [red * [0.75, 1, 1] + rng.normal(0, 2, 3) for _ in range(4)]  # reds in a shadow
    white_lab, black_lab, _ = _piece_sets(np.array(x), min_separation=30.0)
    assert np.linalg.norm(white_lab - red) < 15.0
    assert np.linalg.norm(black_lab - black) < 5.0


def test_a_lone_piece_of_the_other_set_is_a_set():
    """Eleven black men, in two lights (a hard shadow splits them into two colour groups), and
    one wooden king: the end of a game.  The two black groups are one set; the king, far from
    it, is the other (it was left out as neither set, and read as something over its square)."""
    rng = np.random.default_rng(3)
    black = np.array([50.0, 133.0, 134.0])  # 8-bit Lab
    wood = np.array([190.0, 140.0, 170.0])
    x = [black + rng.normal(0, 1, 3) for _ in range(6)] + \
        [black + [10.0, 1.0, 1.0] + rng.normal(0, 1, 3) for _ in range(5)] + [wood]
    sets = _piece_sets(np.array(x), min_separation=30.0)
    assert sets is not None
    white_lab, black_lab, others = sets
    assert np.linalg.norm(white_lab - wood) < 1.0
    assert np.linalg.norm(black_lab - black) < 8.0
    assert others == []
    # One set only (the two lights of it): no second set.
    assert _piece_sets(np.array(x[:-1]), min_separation=30.0) is None


def test_glare_washed_squares_are_no_set():
    """A dim rendered scene with a glare spot (seed 1000627 of vision_eval): black men, red
    men (some under the glare, which the light correction left dark), and two bare squares
    the glare washed to a light yellow-green (8-bit Lab, with the grey veil the light model
    found over each square).  The two washed squares took the lightest and the third seed:
    the reds fell in with the blacks, and the washed squares' colour became the white set,
    so every red piece read black."""
    x = np.array([[18.0, 128, 129], [19, 127, 128], [24, 129, 126], [25, 128, 129],
                  [22, 127, 128], [13, 128, 129], [69, 166, 145], [51, 162, 146],
                  [15, 142, 133], [10, 128, 129], [64, 167, 146], [125, 150, 82],
                  [22, 147, 136], [20, 128, 128], [67, 166, 146], [194, 137, 103],
                  [13, 128, 128]])
    veil = np.array([0.6, 0.2, 2.4, 2.3, 1.0, 10.2, 3.8, 21.3, 46.3, 17.2, 12.4, 37.0, 31.7,
                     6.5, 10.0, 14.6, 15.3])
    red, black = np.array([65.0, 165, 145]), np.array([18.0, 128, 128])  # the sets' means
    sets = _piece_sets(x, min_separation=43.3, veil=veil)
    assert sets is not None
    white_lab, black_lab, _ = sets
    assert np.linalg.norm(white_lab - red) < 10.0
    assert np.linalg.norm(black_lab - black) < 10.0
    # Without the veils, as before: the washed squares are the white set.
    white_lab, _, _ = _piece_sets(x, min_separation=43.3)
    assert white_lab[0] > 150


def test_a_set_in_glare_is_named_by_its_colour_with_the_veil_given_back():
    """Scene 1001696 of vision_eval: five magenta men out of the glare, and one green king in
    a glare spot (8-bit Lab, light-corrected; the grey veil the light model found over each
    square).  The renderer's green (BGR 70, 195, 100) is the lighter set, L 181 against the
    magenta's (120, 40, 200) 117; but the king's colour with the veil of 46.9 levels taken
    off is L 116.5, under the magenta men's 131: the sets were named the wrong way round.
    The glare is the board's reflection, which the king hides: with the veil given back, he
    is the lighter set."""
    magenta = np.array([[134.4, 197.1, 140.1], [124.9, 193.4, 139.2], [132.5, 196.6, 139.3],
                        [133.3, 196.8, 139.0], [131.0, 196.0, 139.5]])
    green = np.array([[116.5, 87.1, 172.3]])
    x = np.concatenate([magenta, green])
    veil = np.array([-0.9, 1.0, 0.2, 0.3, 0.5, 46.9])
    sets = _piece_sets(x, min_separation=30.0, veil=veil)
    assert sets is not None
    white_lab, black_lab, _ = sets
    assert np.linalg.norm(white_lab - green[0]) < 1.0
    assert np.linalg.norm(black_lab - magenta.mean(axis=0)) < 2.0
    # Without the veils, by the corrected colours alone: the magenta men are the lighter.
    white_lab, black_lab, _ = _piece_sets(x, min_separation=30.0)
    assert np.linalg.norm(white_lab - magenta.mean(axis=0)) < 2.0


def test_bare_squares_in_a_hands_shadow_are_no_set():
    """Scene 1001043 of vision_eval: white men and a king on a red and cream board, a hand
    over its top, and two bare red squares beside its fingers in their shadow: (41, 48, 157)
    and (43, 49, 158), 0.83 of the bare square's (52, 58, 189.5) light and within 1.2% of
    that shade.  They were the black set, and read as black men.  Red men on those squares
    (the renderer's red, (40, 40, 185)) are 9.6% off the shade: a set."""
    dark = np.array([52.0, 58.0, 189.5])
    cream = np.array([203.0, 238.0, 254.0])
    shadows = np.array([[41.0, 48.0, 157.0], [43.0, 49.0, 158.0]])
    x = _to_lab(np.vstack([cream, cream * 0.95, shadows]))
    white_lab, black_lab = x[:2].mean(axis=0), x[2:].mean(axis=0)
    shade = _hand_shadow_set(white_lab, black_lab, x, dark)
    assert shade is not None and shade.tolist() == [False, False, True, True]
    reds = _to_lab(np.vstack([cream, cream * 0.95, [[40.0, 40.0, 185.0]] * 2]))
    assert _hand_shadow_set(white_lab, reds[2:].mean(axis=0), reds, dark) is None
    # Nor more squares than a hand's fingers shade (a set of a few pieces of that colour).
    many = _to_lab(np.vstack([cream, cream * 0.95] + [shadows] * 2))
    assert _hand_shadow_set(white_lab, black_lab, many, dark) is None
    # Nor on grey squares, of which any black set is a shade.
    grey = np.array([60.0, 60.0, 60.0])
    blacks = _to_lab(np.vstack([cream, cream * 0.95, [[30.0, 30.0, 30.0]] * 2]))
    assert _hand_shadow_set(white_lab, blacks[2:].mean(axis=0), blacks, grey) is None


def test_a_lone_square_in_the_bare_squares_colour_is_no_set():
    """The colours of fhgr-board-v2.jpg's pieces in a darker exposure, with the corners 1.5 px
    off the labelled ones: five black men, one tan king, and a dark blue square the light
    model left a little lighter than the rest (a shade of the bare square's blue).  The two
    lone squares were taken as the two sets (the farthest apart), the black men as a third
    group: every bare blue square then read as a black man, the black men as white kings."""
    dark_bgr = np.array([55.0, 13.0, 4.0])  # the bare dark blue square
    x = np.array([[3.0, 128, 128], [2, 128, 128], [51, 129, 146], [18, 156, 86],
                  [2, 128, 128], [1, 128, 128], [2, 128, 128]])  # 8-bit Lab
    sets = _piece_sets(x, min_separation=24.9, board_bgr=dark_bgr)
    assert sets is not None
    white_lab, black_lab, others = sets
    assert np.linalg.norm(white_lab - x[2]) < 1.0
    assert black_lab[0] < 4.0
    assert len(others) == 1 and np.linalg.norm(others[0] - x[3]) < 1.0
    # A lone square of another colour is not set aside: it takes part as before (here the
    # farthest pair, the black men and it).
    x[3] = [18.0, 128, 200]  # a yellowish dark: no shade of the blue square
    white_lab, black_lab, others = _piece_sets(x, min_separation=24.9, board_bgr=dark_bgr)
    assert np.linalg.norm(white_lab - x[3]) < 1.0 and black_lab[0] < 4.0
    assert len(others) == 1 and np.linalg.norm(others[0] - x[2]) < 1.0


def test_a_lone_lit_square_under_a_veil_is_no_lone_piece_of_the_other_set():
    """Scene 7000607 of vision_eval (seed 7): green men and kings only, on a wood board whose
    dark squares (BGR 30, 52, 73) were learned in a hard shadow, and one bare dark square in
    the lit part under a faint veil (8.1 levels), 2.6 times as bright as a shade of them.  It
    was taken for the other set's lone piece and named white, and every green piece read
    black.  It is a lighter shade of the bare square with a veil: no set.  A red man alone on
    red squares is such a shade too, and shows no veil: still the other set (scene
    1000664)."""
    dark_bgr = np.array([30.0, 52.0, 73.0])
    greens = np.array([[102.5, 98.7, 154.8], [100.5, 98.1, 154.2], [92.7, 101.7, 152.0],
                       [113.2, 94.5, 158.0], [110.7, 95.4, 157.1], [83.9, 101.4, 151.6]])
    lit = np.array([[156.4, 136.3, 151.4]])
    x = np.concatenate([greens[:2], lit, greens[2:]])
    veil = np.array([1.2, 0.8, 8.1, -0.5, 4.8, 2.3, 5.1])
    assert _piece_sets(x, min_separation=30.0, board_bgr=dark_bgr, veil=veil) is None
    unveiled = veil.copy()
    unveiled[2] = 0.0
    sets = _piece_sets(x, min_separation=30.0, board_bgr=dark_bgr, veil=unveiled)
    assert sets is not None and np.linalg.norm(sets[0] - lit[0]) < 1.0


def test_two_sets_alike_in_lightness_are_told_apart_by_hue():
    """Tan wooden men and red men in a dim photo: lightness 45-90 and 25-55 overlap, and their
    centres lie 35 apart, under the 44 the board's contrast asks; but in hue (a*, b*) they lie
    20 apart with each set varying by 3.  A set in two lights (a hard shadow) differs in
    lightness only: still one set."""
    rng = np.random.default_rng(11)
    wood = np.array([[rng.uniform(45, 90), 142 + rng.normal(0, 2), 153 + rng.normal(0, 2)]
                     for _ in range(12)])
    red = np.array([[rng.uniform(25, 55), 162 + rng.normal(0, 2), 150 + rng.normal(0, 2)]
                    for _ in range(12)])
    sets = _piece_sets(np.vstack([wood, red]), min_separation=44.0)
    assert sets is not None
    white_lab, black_lab, _ = sets
    assert abs(white_lab[1] - 142) < 3 and abs(black_lab[1] - 162) < 3
    one_set = np.vstack([wood, wood * [0.75, 1, 1]])
    assert _hue_sets(one_set) is None
    assert _piece_sets(one_set, min_separation=44.0) is None


def test_a_strongly_coloured_set_in_two_lights_is_one_set():
    """Green men, some lit and some on their shaded side: less light takes saturation with
    lightness, so the shaded ones lie 12 apart from the lit ones on a*, b* (each group varying
    little): as far apart in hue as two sets would be, yet each is a shade of the other
    (0.8 times the light, in BGR).  Taken for two sets, the other set, the colour of its
    squares, was never looked for."""
    rng = np.random.default_rng(4)
    lit_bgr = np.array([69.0, 191.0, 88.0])
    lit = lit_bgr * rng.uniform(0.97, 1.03, (6, 1))
    shaded = 0.8 * lit_bgr * rng.uniform(0.97, 1.03, (4, 1))
    x = _to_lab(np.vstack([lit, shaded]))
    ab_apart = np.linalg.norm(x[:6, 1:].mean(axis=0) - x[6:, 1:].mean(axis=0))
    assert ab_apart >= 12.0  # (apart enough on a*, b* alone: the shade is what keeps them one)
    assert _hue_sets(x) is None
    assert _piece_sets(x, min_separation=63.0) is None


def test_a_set_near_the_dark_squares_colour_is_found_among_the_free_squares() -> None:
    rng = np.random.default_rng(8)
    walnut = np.array([38.0, 48.0, 89.0])  # BGR
    black = np.array([22.0, 20.0, 21.0])
    # Bare squares in uneven light (shades of walnut, with grain) and four black men.
    bare = [walnut * rng.uniform(0.6, 1.2) + rng.normal(0, 1.0, 3) for _ in range(16)]
    men = [black + rng.normal(0, 1.0, 3) for _ in range(4)]
    colours = np.array(bare + men)
    found = _camouflaged_set(colours, walnut, np.ones(len(colours), bool))
    assert found is not None and np.linalg.norm(found - black) < 3.0
    # Without the men: nothing.  With two odd squares of unrelated colours: not a set.
    assert _camouflaged_set(np.array(bare), walnut, np.ones(16, bool)) is None
    odd = np.array(bare + [np.array([30.0, 90.0, 60.0]), np.array([90.0, 40.0, 40.0])])
    assert _camouflaged_set(odd, walnut, np.ones(len(odd), bool)) is None


def test_bare_pixels_on_both_sides_of_a_shadow_edge_across_the_square() -> None:
    blue = np.array([98.0, 49.0, 14.0])  # BGR of the dark squares
    magenta = np.array([108.0, 38.0, 34.0])
    # Two corners in the shadow (gain 0.4), two in the light; pixels: the bare square on
    # each side, a magenta piece in the light, and one in the shadow.
    patches = np.array([[0.4 * blue, 0.41 * blue, 1.0 * blue, 0.97 * blue]])
    pixels = np.array([[0.42 * blue, 0.95 * blue, magenta, 0.4 * magenta]])
    assert _across_shadow_edge(patches, pixels, blue, 1.35).tolist() == [
        [True, True, False, False]]
    # No edge (all four corners in one light): the smooth light model has the say.
    even = np.array([[0.9 * blue, 0.95 * blue, 1.0 * blue, 0.97 * blue]])
    assert not _across_shadow_edge(even, pixels, blue, 1.35).any()
    # A cream piece (a lighter shade of the squares) leaning over a corner is no edge.
    cream = 2.4 * blue
    leaning = np.array([[cream, 0.95 * blue, 1.0 * blue, 0.97 * blue]])
    assert not _across_shadow_edge(leaning, np.array([[cream, blue, blue, blue]]), blue,
                                   1.35).any()


def test_veil_fit_recovers_gain_and_veil_through_clipped_channels() -> None:
    from vision.light import fit_veil

    dark = np.array([40.0, 60.0, 120.0])
    # Hand-made: 1.1 * dark + 150 clips the red channel (282 -> 255); the fit must use the
    # other two and still find the light, and say the clipped value is consistent.
    seen = np.minimum(1.1 * dark + 150.0, 255.0)
    g, v, r = fit_veil(seen, dark)
    assert abs(float(g) - 1.1) < 1e-6 and abs(float(v) - 150.0) < 1e-6 and float(r) < 1e-6
    # A white piece clipped in every channel tells nothing.
    g, v, r = fit_veil(np.array([255.0, 255.0, 255.0]), dark)
    assert np.isnan(g) and np.isinf(r)
    # A grey that no gain of this tinted colour explains leaves a residual.
    g, v, r = fit_veil(np.array([128.0, 128.0, 128.0]), dark)
    assert abs(float(g)) < 0.05
    # Four quadrants of a grid corner (dark, dark, light, light) under one light.
    light = np.array([150.0, 190.0, 210.0])
    true = np.stack([dark, dark, light, light])
    g, v, r = fit_veil(0.8 * true + 40.0, true, axes=(-2, -1))
    assert abs(float(g) - 0.8) < 1e-6 and abs(float(v) - 40.0) < 1e-6
    # One colour over all four (a hand) fits only a small gain, and badly.
    g, v, r = fit_veil(np.broadcast_to(np.array([90.0, 120.0, 170.0]), (4, 3)), true,
                       axes=(-2, -1))
    assert float(g) < 0.4 and float(r) > 10.0


def test_a_set_the_colour_of_its_squares_is_found_as_a_set_on_a_clean_board() -> None:
    cfg = VisionConfig()
    rng = np.random.default_rng(3)
    share = np.zeros(32)
    share[[2, 9, 17, 26]] = [0.11, 0.14, 0.19, 0.11]  # a little of each disc differs
    free = np.ones(32, bool)
    free[[0, 5, 30]] = False  # pieces of the other set
    assert np.flatnonzero(_camouflaged_pieces(share, free, cfg)).tolist() == [2, 9, 17, 26]
    # Two such squares are a shadow's edge or two, not a set.
    two = np.zeros(32)
    two[[9, 17]] = 0.2
    assert not _camouflaged_pieces(two, free, cfg).any()
    # On a board whose bare squares differ here and there (grain, noise, uneven light) the
    # same shares say nothing.
    noisy = share + rng.uniform(0.0, 0.1, 32) * (share == 0)
    assert not _camouflaged_pieces(noisy, free, cfg).any()
