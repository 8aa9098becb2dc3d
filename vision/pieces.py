"""Classify every playable square from precomputed samples: empty, man, king, occluded.

The stage is pure: an image and `SquareSamples` in, per-square labels and confidences out.
Colours are compared in L*a*b* after removing the local light: each square's colour is divided
by its own corner patches (the bare board next to it) and multiplied by the board-wide median,
so a shadow or a brightness gradient cancels.  Every threshold is a fraction of the contrast
between the board's own dark and light squares in this very image.

- Occupied: the base disc differs from the bare dark square.
- Colour: occupied squares split into a lighter and a darker set (2-means in Lab, or the
  calibrated piece colours when known); the lighter set is "white".
- King: test which height explains the image.  Around the square, which points of the playing
  surface are hidden (not board-coloured)?  A cylinder one disc high and one two discs high,
  each at its best off-centre shift, predict different hidden sets (a king leans further away
  from the camera); the better prediction wins.
- Occluded: a colour that is neither board nor either piece set, or a square whose light
  neighbours are foreign too (a hand or an arm), is reported, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.colour import ColourModel
from vision.config import VisionConfig
from vision.frame_extent import frame_extent
from vision.king_samples import diagonal_marked
from vision.kings import _ray_distance, _ray_distance_rows, read_kings
from vision.light import board_colours, fit_veil, local_light
from vision.occlusion import covered_squares, lone_inside, occluded_squares
from vision.rims import rim_strength
from vision.sampling import SquareSamples
from vision.soft_edges import settle_by_edges, soft_glare
from vision.sources import has_colour
from vision.stats import channel_sum, median, median_of_finite

EMPTY, WHITE_MAN, BLACK_MAN, WHITE_KING, BLACK_KING, OCCLUDED = range(6)


@dataclass(frozen=True)
class SquareVerdicts:
    labels: np.ndarray  # (S,) codes above, internal square order
    confidence: np.ndarray  # (S,)
    dark_lab: np.ndarray
    light_lab: np.ndarray
    white_lab: np.ndarray | None
    black_lab: np.ndarray | None
    contrast: float
    disc_height_sq: float = 0.0  # the discs' height the king stage read with (0: no piece)


def _to_lab(bgr: np.ndarray) -> np.ndarray:
    flat = np.clip(bgr.reshape(-1, 1, 3), 0, 255).astype(np.uint8)
    return cv2.cvtColor(flat, cv2.COLOR_BGR2LAB).reshape(bgr.shape).astype(np.float32)


def _to_bgr_rows(lab: np.ndarray) -> np.ndarray:
    """BGR of Lab colours (N, 3) (OpenCV's 8-bit Lab)."""
    px = np.clip(np.asarray(lab, np.float64), 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_LAB2BGR).reshape(-1, 3).astype(np.float64)


def _to_bgr(lab: np.ndarray) -> np.ndarray:
    """BGR of one Lab colour (3,) (OpenCV's 8-bit Lab)."""
    return _to_bgr_rows(np.asarray(lab).reshape(1, 3))[0]


def _sigmoid(x: np.ndarray | float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.asarray(x, np.float64)))


# A colour within this share of its size of a shade of a set's colour, with at least
# `_SHADED_LIGHT` of its light, is that set in a shadow (see _piece_sets and _hue_sets; the
# camouflage test asks the same light, VisionConfig.camouflage_one_set_light).  (A set lit and
# shaded lies within 2% on the rendered scenes; a black set has a tenth to a fifth of a white
# one's light.)
# Whether a picture has colour at all is read on every this-many-th pixel each way (a few
# thousand of a camera frame: a colour picture's noise shows in far more than a thousandth).
_GREY_STRIDE = 16
_SHADE_WITHIN = 0.05
_SHADED_LIGHT = 0.45


def _piece_sets(x: np.ndarray, min_separation: float, board_bgr: np.ndarray | None = None,
                iters: int = 12, veil: np.ndarray | None = None,
                ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]] | None:
    """(lighter, darker) colours of the two piece sets among the pieces' colours (rows of x).

    Three-means, seeded at the lightest, the darkest and the colour farthest from both (then
    the darkest group's shades of the lightest's colour given to it: a set mostly in a hard
    shadow): two groups are the sets; a third is either part of a set seen in other light (it
    lies nearer one set than the sets lie to each other: merged) or a few things that are
    neither (a glare spot, a hand), which must not pull a set's colour; but when the two
    largest groups are one set in two lights, the third, far from it, is the other set.
    None when no two sets are this far apart, nor apart in hue (`_hue_sets`): one set on the
    board.  The third item lists the colours of a third group left out of the sets (shown to
    the occlusion test as seen on pieces, not as foreign).

    A lone square whose colour is a lighter shade of the bare square `board_bgr`, when that
    has a clear hue (a square the light model left too light), is no set: it is left out
    first, whatever the distances; and, under a veil (`_LONE_SHADE_VEIL`), it is not the
    other set's lone piece either.

    `veil` (rows of x): the grey veil (levels) the light model found over each square.  The
    lightest and darkest seeds are taken from squares under none (`_SET_IN_GLARE`), when those
    lie `min_separation` apart: two glare-washed bare squares, the lightest colours and far
    from everything, took two of the three seeds, and two sets of pieces were left one group.
    Of three sizeable groups, one whose every member stands under glare while the other two's
    do not is not a set either, however far from the others its colour lies.
    """
    lo, hi = x[np.argmin(x[:, 0])], x[np.argmax(x[:, 0])]
    if veil is not None and (veil < _SET_IN_GLARE).sum() >= 2:
        clear = x[veil < _SET_IN_GLARE]
        lo_c, hi_c = clear[np.argmin(clear[:, 0])], clear[np.argmax(clear[:, 0])]
        if np.linalg.norm(hi_c - lo_c) >= min_separation:
            lo, hi = lo_c, hi_c
    third = x[np.argmax(np.minimum(np.linalg.norm(x - lo, axis=1),
                                   np.linalg.norm(x - hi, axis=1)))]
    centres = np.stack([hi, lo, third]).astype(np.float64)
    assign = np.full(len(x), -1)
    for _ in range(iters):
        new = np.argmin(((x[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
        if np.array_equal(new, assign):
            break
        assign = new
        for k in range(3):
            if (assign == k).any():
                centres[k] = x[assign == k].mean(axis=0)
    # A set in two lights, a hard shadow over most of it: its shaded pieces lie between its
    # lit ones and a darker set, and three-means gave them to that set.  A piece of the
    # darkest group that is nearly a shade of the lightest group's colour (`_SHADE_WITHIN`),
    # with at least `_SHADED_LIGHT` of its light, is the lighter set's, when the group keeps
    # members that are not (the darker set).  (Not one of the middle group: that is left out
    # of the sets, or merged, as it was.  Nor a darkest group all of such shades: a lone king
    # whose shaded walls darken his disc in an oblique view is told by his top face later.)
    top, bottom = int(np.argmax(centres[:, 0])), int(np.argmin(centres[:, 0]))
    if (assign == top).any() and top != bottom:
        lit = _to_bgr(centres[top])
        bgr = _to_bgr_rows(x)
        shaded = (assign == bottom) & _is_shade(bgr, lit, _SHADE_WITHIN, _SHADED_LIGHT)
        if shaded.any() and (assign[~shaded] == bottom).any():
            assign[shaded] = top
            for k in range(3):
                if (assign == k).any():
                    centres[k] = x[assign == k].mean(axis=0)
    sizes = np.bincount(assign, minlength=3)
    order = np.argsort(-sizes, kind="stable")
    lone_shade = np.zeros(3, bool)
    if board_bgr is not None and float(np.ptp(board_bgr)) >= _COLOURED_SQUARE:
        bgr = np.array([_to_bgr(c) for c in centres])
        lone_shade = (sizes == 1) & (_ray_distance(bgr, board_bgr, *_LIGHTER_SHADE)
                                     < _SHADE_OF_BOARD * np.linalg.norm(bgr, axis=1))
        if lone_shade[order[1]] and not lone_shade[order[2]] and sizes[order[2]] == 1:
            order[[1, 2]] = order[[2, 1]]
    # (Such a square under a glare veil, even a faint one, is not the other set's lone piece
    # either: a red man alone on red squares is a lighter shade of them too, but shows none.)
    veiled_shade = lone_shade & np.array(
        [veil is not None and (assign == k).any()
         and float(np.median(veil[assign == k])) >= _LONE_SHADE_VEIL for k in range(3)])
    a, b, c = (centres[k] for k in order)
    others: list[np.ndarray] = []
    if sizes[order[2]] > 0:
        gap = float(np.linalg.norm(a - b))
        da, db = float(np.linalg.norm(c - a)), float(np.linalg.norm(c - b))
        if min(da, db) < 0.5 * gap:
            # Part of a set: the set's colour is the mean over all its members.
            k_near = order[0] if da <= db else order[1]
            members = (assign == k_near) | (assign == order[2])
            merged = x[members].mean(axis=0)
            a, b = (merged, b) if da <= db else (a, merged)
        elif sizes[order[2]] >= sizes[order[1]] * 0.5 and not lone_shade[order[2]]:
            # Two sizeable groups besides the largest: the sets are the two farthest apart.
            trio = [a, b, c]
            pairs = [(0, 1), (0, 2), (1, 2)]
            if veil is not None:
                # (Not a group all under glare while the other two are not.)
                glared = [bool((veil[assign == k] >= _SET_IN_GLARE).all()) for k in order]
                if sum(glared) == 1:
                    pairs = [p for p in pairs if not glared[p[0]] and not glared[p[1]]]
            pair = max(pairs, key=lambda p: float(np.linalg.norm(trio[p[0]] - trio[p[1]])))
            a, b = trio[pair[0]], trio[pair[1]]
            others.append(trio[3 - sum(pair)])
        else:
            if not veiled_shade[order[2]] and _one_set_in_two_lights(a, b, c):
                one = x[(assign == order[0]) | (assign == order[1])].mean(axis=0)
                if np.linalg.norm(one - c) >= min_separation:
                    # The few left over are the other set (a lone king at the end of a game).
                    return _lighter_first(one, c, x, veil, min_separation) + ([],)
            others.append(c)
    if np.linalg.norm(a - b) < min_separation:
        by_hue = _hue_sets(x)
        if by_hue is not None:
            return _lighter_first(*by_hue, x, veil, min_separation) + ([],)
        if not others or len(x) < 3:
            return None
        # The two largest groups are one set in two lights; the few left over, far from it,
        # are the other set (a lone king at the end of a game).
        one = x[(assign == order[0]) | (assign == order[1])].mean(axis=0)
        if np.linalg.norm(one - c) < min_separation or veiled_shade[order[2]]:
            return None
        a, b, others = one, c, []
    return _lighter_first(a, b, x, veil, min_separation) + (others,)


def _lighter_first(a: np.ndarray, b: np.ndarray, x: np.ndarray, veil: np.ndarray | None,
                   min_separation: float) -> tuple[np.ndarray, np.ndarray]:
    """The sets a, b (Lab) as (lighter, darker), each seen with the glare veil over its
    members (rows of x nearer it than the other; their median veil) given back: glare is the
    board's reflection, which a piece standing in it hides.  With the veil taken off, a green
    king alone in a glare spot was darker than the magenta men, and a white man and king
    under a veil of 89 levels darker than the red men: the sets were named the wrong way
    round.  (Seeds 1, 7, 11 and 30 of vision_eval.py, 5,000 scenes: the names changed in six,
    rightly in five; in the sixth a hand over a square, not found covered, was taken for a
    set, and the veil the light model fitted there is the hand's.  That square is now set
    aside as a lone lighter shade of the bare square under a veil, `_LONE_SHADE_VEIL`.)

    Not when, the veils given back, the two are less than `min_separation` apart: one set,
    part of it in the glare, part not, which the veil does not name.  (Scene 1000038 of
    `vision_eval.py --camouflaged`: red men in and out of a glare spot, the other set the
    colour of its squares; named by the veil, the reds out of the glare read as black.  Taken
    for one set, the reds all read black, as a set darker than the board's middle.)"""
    plain = (a, b) if a[0] >= b[0] else (b, a)
    if veil is None or len(x) == 0:
        return plain
    near_a = _set_distance(x, a) <= _set_distance(x, b)
    lifted = []
    for c, members in ((a, near_a), (b, ~near_a)):
        given = float(np.median(np.maximum(veil[members], 0.0))) if members.any() else 0.0
        lifted.append(_to_lab(_to_bgr(c) + given) if given > 0 else c)
    if np.linalg.norm(lifted[0] - lifted[1]) < min_separation:
        return plain
    return (a, b) if lifted[0][0] >= lifted[1][0] else (b, a)


def _hand_shadow_set(white_lab: np.ndarray, black_lab: np.ndarray, x: np.ndarray,
                     dark_bgr: np.ndarray, most: int = 3, within: float = 0.03,
                     darker: float = 0.95) -> np.ndarray | None:
    """Is one of the two sets (Lab) a few bare dark squares in a hand's shadow, its members
    (rows of x, the nearer set's; at most `most`) each the bare square's own colour, darker
    (at most `darker` of its light) and within `within` of its own size of that shade?  A
    hand's fingers shade the squares beside them; on a board of one set, those made the other
    set.  (Only on coloured dark squares: on grey ones, any black set is such a shade.)
    Which rows of x are those squares, or None."""
    if float(np.ptp(dark_bgr)) < _COLOURED_SQUARE:
        return None
    near_white = _set_distance(x, white_lab) <= _set_distance(x, black_lab)
    for members in (near_white, ~near_white):
        if not members.any() or members.sum() > most:
            continue
        bgr = _to_bgr_rows(x[members])
        gain = bgr @ dark_bgr / float(dark_bgr @ dark_bgr)
        if ((gain <= darker) & _is_shade(bgr, dark_bgr, within, 0.0)).all():
            return members
    return None


def _one_set_in_two_lights(a: np.ndarray, b: np.ndarray, c: np.ndarray,
                           ratio: float = 0.5, min_chroma: float = 12.0) -> bool:
    """Are the two large colour groups a, b (Lab) one set in two lights and the small one c
    the other set?  Light changes a set's lightness far more than its hue, so a and b, much
    nearer each other than c is to either (lightness counting half, `_set_distance`), are one
    set; unless c is lighter than both and nearly grey, as glare is."""
    if c[0] > max(a[0], b[0]) and float(np.linalg.norm(c[1:] - 128.0)) < min_chroma:
        return False
    gap = float(_set_distance(a, b))
    return gap < ratio * min(float(_set_distance(c, a)), float(_set_distance(c, b)))


def _hue_sets(x: np.ndarray, min_apart: float = 12.0, spreads: float = 3.0, iters: int = 10,
              shade_within: float = _SHADE_WITHIN) -> tuple[np.ndarray, np.ndarray] | None:
    """Two sets told apart by hue and saturation (a*, b*) alone: the mean colours (Lab) of the
    two groups of x (rows) that two-means finds on a*, b*, when their hues lie `min_apart`
    and `spreads` times each group's own variation apart, each group at least two pieces;
    else None.  Light changes a set's lightness far more than its hue, so sets alike in
    lightness (tan wood and red in a dim photo), which lightness mixes, still differ here.

    Nor are two groups one of which is a shade of the other (in BGR, within `shade_within`
    of its size): a set in two lights.  Less light takes saturation with lightness, so a
    strongly coloured set's shaded pieces lie apart from its lit ones on a*, b* too (green
    men at 48 degrees' tilt, their lit and shaded sides: two "sets", and the other set, the
    colour of its squares, was never looked for).  Those lie within 2% of a shade of each
    other; two sets of faint hues alike in lightness (tan and red men in a washed-out photo,
    greyish tan and greyish pink) 9%, and near grey any two colours are nearly shades of each
    other: hence 5%."""
    if len(x) < 4:
        return None
    ab = x[:, 1:].astype(np.float64)
    d = np.linalg.norm(ab[:, None] - ab[None], axis=2)
    i, j = np.unravel_index(int(np.argmax(d)), d.shape)
    centres = ab[[i, j]].copy()
    near = np.zeros(len(x), bool)
    for _ in range(iters):
        new = np.linalg.norm(ab - centres[0], axis=1) <= np.linalg.norm(ab - centres[1], axis=1)
        if new.sum() < 2 or (~new).sum() < 2:
            return None
        if np.array_equal(new, near):
            break
        near = new
        centres = np.stack([ab[near].mean(axis=0), ab[~near].mean(axis=0)])
    spread = np.sqrt(np.mean(np.concatenate([((ab[near] - centres[0]) ** 2).sum(axis=1),
                                             ((ab[~near] - centres[1]) ** 2).sum(axis=1)])))
    apart = float(np.linalg.norm(centres[0] - centres[1]))
    if apart < min_apart or apart < spreads * float(spread):
        return None
    a, b = x[near].mean(axis=0), x[~near].mean(axis=0)
    if _in_two_lights(a, b, shade_within):
        return None
    return a, b


def _in_two_lights(a_lab: np.ndarray, b_lab: np.ndarray, within: float = 0.1,
                   least: float = 0.0) -> bool:
    """Is the darker of two colours (Lab) the lighter one in less light: a shade of it (in
    BGR, within `within` of its own size), at least `least` times as bright?"""
    lit, dim = (_to_bgr(a_lab), _to_bgr(b_lab)) if a_lab[0] >= b_lab[0] else (
        _to_bgr(b_lab), _to_bgr(a_lab))
    return bool(_is_shade(dim, lit, within, least))


def _is_shade(dim_bgr: np.ndarray, lit_bgr: np.ndarray, within: float,
              least: float) -> np.ndarray:
    """Which colours `dim_bgr` (..., 3) are `lit_bgr` (3,) in less light: within `within` of
    their own size of a shade of it, at least `least` times as bright."""
    return _ray_distance(dim_bgr, lit_bgr, least, 1.0) < within * np.linalg.norm(dim_bgr,
                                                                                  axis=-1)


# Shadows and uneven light change a colour's lightness far more than its hue and saturation,
# and the light correction leaves some of that: a piece is given to the nearer set with
# lightness counting half (two sets that differ only in lightness still differ).
_SET_METRIC = np.array([0.5, 1.0, 1.0], np.float32)
# Two piece sets' colours lie at least this share of the board's contrast apart (Lab): less,
# and they are one set (in two lights, or kings and men).
_SET_SEPARATION = 0.3
_DARKEST_SET_BGR = 8.0  # a set's colour is kept at least this (a dark grey), see classify
_SET_IN_GLARE = 10.0  # a set whose median piece has this veil (levels) is in glare, see classify
# A colour this near (share of its own size) a lighter shade of the bare square (these gains)
# is that square under light the model did not follow, not a piece set's colour (see
# _piece_sets).  (Not a darker or equal one: a black man on a black square is that.)  Up to
# 2.5 times: a bare square in a lamp's light, the dark colour learned in a hard shadow over
# most of the board, was 2.6 times a shade of it (2.0 before: scene 7000607).
_SHADE_OF_BOARD = 0.15
_LIGHTER_SHADE = (1.2, 2.5)
# A lone such square under at least this veil (levels) is no lone piece of the other set.
_LONE_SHADE_VEIL = 5.0
# ... and only on squares of a clear hue (BGR max - min): a glossy black man on a black square
# is a lighter grey of it.
_COLOURED_SQUARE = 30.0
# A colour this far (in BGR levels, or this share of its own size) from every gain * the bare
# dark square + a grey veil is no glare over that square (see classify's occlusion step).
_VEIL_MISS_PX = 12.0
_VEIL_MISS = 0.1
# A light square's sample washed out by glare (classify's occlusion step): every channel at
# the sensor's limit, or a grey veil of at least `_VEIL_MIN` of the light colour's brightness
# that leaves it at least `_BRIGHTER` times as bright.
_CLIPPED = 250.0
_VEIL_MIN = 0.15
_BRIGHTER = 1.1
# A light "piece" in glare within `_VEILED_BOARD` (share of its size) of the bare dark square
# under a grey veil, and at least `_NO_VEILED_SET` of its size and `_VEIL_APART` times as far
# from either set under one, is the veil (see classify).
_VEILED_BOARD = 0.02
_NO_VEILED_SET = 0.05
_VEIL_APART = 4.0


def _set_distance(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.linalg.norm((x - c) * _SET_METRIC, axis=-1)


# A piece of the lighter set in a shadow the light model did not follow (a hard shadow's edge
# across it: an arm's, the gantry's) can be as dark as the darker set, and lightness then
# outweighs its hue.  Where the two sets differ in hue (neither within `_SETS_APART` of a
# shade of the other), a piece within `_DIM_WITHIN` of a dimmer shade of the lighter set and
# `_SETS_APART` or more off every shade of the darker one is the lighter set's.  (Not in a
# glare veil: a veil greys a dark piece towards any light one; seed 7's 7000095, a black man
# under one, read white.)
_DIM_WITHIN = 0.08
_SETS_APART = 0.2
_HUES_APART = 0.1  # (and their chromaticities this far apart: a dark set's hue is noise)
_DIMMED_CONFIDENCE = 0.6


def _dim_lighter_set(piece_lab: np.ndarray, lighter_lab: np.ndarray, darker_lab: np.ndarray,
                     ) -> np.ndarray:
    """(N,) which pieces (Lab, (N, 3)) are the lighter set (Lab) in less light, by hue (see
    `_DIM_WITHIN`): all False when the sets are shades of each other."""
    lighter, darker = _to_bgr(lighter_lab), _to_bgr(darker_lab)
    if _is_shade(darker, lighter, _SETS_APART, 0.0) or np.linalg.norm(
            _chromaticity(darker) - _chromaticity(lighter)) < _HUES_APART:
        return np.zeros(len(piece_lab), bool)
    x = _to_bgr_rows(piece_lab)
    size = np.linalg.norm(x, axis=-1)
    return _is_shade(x, lighter, _DIM_WITHIN, 0.2) & (
        _ray_distance(x, darker, 0.2, 2.0) >= _SETS_APART * size)


def _shade_of_board(piece_bgr: np.ndarray, board_bgr: np.ndarray, within: float = 0.35,
                    ) -> bool:
    """Is the bare square's colour (BGR) a shade of a piece set's, within the noise of its
    distance from it (`within` times that distance: red pieces on dark red squares)?"""
    return float(_ray_distance(board_bgr, piece_bgr, 0.45, 1.6)) < \
        within * float(np.linalg.norm(board_bgr - piece_bgr))


def _shade_range(piece_bgr: np.ndarray, board_bgr: np.ndarray, within: float = 0.35,
                 ) -> tuple[float, float]:
    """How far a piece set's colour may be darkened or lightened and still count as that set.

    Shading (walls, shadows) scales a colour, so any shade of the set counts; but a set whose
    colour is a lighter shade of the dark squares (red pieces on dark red squares) would then
    swallow the bare squares: such a set keeps to its own brightness.
    """
    if _shade_of_board(piece_bgr, board_bgr, within):
        return 0.8, 1.25
    # A set much darker than the squares: additive light (gloss, a light model made for the
    # board that under-corrects a piece) lifts it by many times its own brightness, up to about
    # that of the squares.
    return 0.45, float(np.clip(0.8 * np.linalg.norm(board_bgr)
                               / max(float(np.linalg.norm(piece_bgr)), 1.0), 1.6, 3.0))


def _board_shade_range(sets_bgr: list[np.ndarray], board_bgr: np.ndarray,
                       lo: float = 0.35, hi: float = 1.6, reach: float | None = None,
                       ) -> tuple[float, float]:
    """How far the bare square's colour may be darkened or lightened and still count as bare
    board: from `lo` to `hi` times, but short of a set that is itself such a shade (red
    pieces on dark red squares, lighter; black pieces on dark brown ones, darker), halfway
    (geometrically) to the set's own brightness.

    A set counts as a shade if it is one up to `reach` times the square's brightness (by
    default `hi` squared: every set that would bring the bound below `hi`).  A set twice as
    bright as the squares (blue men on navy squares, their colour learned from the men in the
    best light) is no shade within `hi`, yet its men in a duller light are."""
    bb = float(board_bgr @ board_bgr)
    if reach is None:
        reach = hi * hi
    for c in sets_bgr:
        if float(_ray_distance(c, board_bgr, 0.45, reach)) < \
                0.35 * float(np.linalg.norm(board_bgr - c)):
            gain = float(c @ board_bgr) / max(bb, 1e-6)
            if gain > 1.0:
                hi = min(hi, max(1.0, float(np.sqrt(gain))))
            else:
                lo = max(lo, min(1.0, float(np.sqrt(max(gain, 0.0)))))
    return lo, hi


def _chromaticity(bgr: np.ndarray, floor: float = 10.0) -> np.ndarray:
    """Each channel's share of the brightness: what a shadow or a dimmer light leaves alone."""
    x = bgr + floor
    return x / x.sum(axis=-1, keepdims=True)


def _own_board(patches_bgr: np.ndarray, dark_bgr: np.ndarray,
               chroma_tol: float = 0.035) -> tuple[np.ndarray, np.ndarray]:
    """Each square's bare colour as seen right beside it, in the image's own light.

    Of the four corner patches, those with the chromaticity of the dark squares (any shade:
    whatever shadow or light lies on the square lies on them too) show the bare square;
    their mean is the square's own reference, no light model needed.  Returns the (S, 3)
    references and whether each square has three such patches (a piece leaning over its
    square hides at most two; else no reference).
    """
    d = np.linalg.norm(_chromaticity(patches_bgr) - _chromaticity(dark_bgr), axis=-1)  # (S, 4)
    bare = d < chroma_tol
    ok = bare.sum(axis=1) >= 3
    ref = (patches_bgr * bare[..., None]).sum(axis=1) / np.maximum(bare.sum(axis=1), 1)[:, None]
    return np.where(ok[:, None], ref, dark_bgr), ok


def _shades_of(x: np.ndarray, dark_bgr: np.ndarray, tol_px: float = 4.0, tol: float = 0.06,
               ) -> tuple[np.ndarray, np.ndarray]:
    """(gain, is a shade): colours x (..., 3) as gain * the dark colour, and whether they lie
    on that ray within noise (a grey veil or another hue does not)."""
    d = dark_bgr.astype(np.float64)
    g = (x @ d) / float(d @ d)
    off = _ray_distance(x, d, -np.inf, np.inf)  # (to the whole line: any gain)
    return g, off < np.maximum(tol_px, tol * np.linalg.norm(x, axis=-1))


def _across_shadow_edge(patches_bgr: np.ndarray, raw_bgr: np.ndarray, dark_bgr: np.ndarray,
                        span: float, margin: float = 0.2, lit_max: float = 1.3,
                        lit_within: float = 0.12) -> np.ndarray:
    """(S, P) base pixels that are the bare square on either side of a shadow's sharp edge
    across it: no smooth light model follows such an edge, but the square's own bare corners
    show both sides (shades of the dark colour whose gains differ by `span` times or more),
    and a pixel that is a shade of it at a gain between theirs (widened by `margin`) is bare
    board too.  Squares with fewer than three such corners, or no edge, have none.

    The brighter side must be in ordinary light, not glare: at most `lit_max` times the dark
    colour, or within `lit_within` of the gain of the board's lit part (`_lit_part`) where
    the board lies mostly in the shadow and its dark colour was learned there (the lit side
    was 1.46 and 2.2 times it in two evaluation scenes)."""
    g, bare = _shades_of(patches_bgr, dark_bgr)
    g_lo = np.where(bare, g, np.inf).min(axis=1)
    g_hi = np.where(bare, g, -np.inf).max(axis=1)
    lit = _lit_part(g[bare], lit_max)
    ordinary = (g_hi <= lit_max) if lit is None else (
        (g_hi <= lit_max) | (np.abs(g_hi / lit - 1.0) <= lit_within))
    edge = (bare.sum(axis=1) >= 3) & (g_lo > 0.05) & (g_hi >= span * g_lo) & ordinary
    gx, shade = _shades_of(raw_bgr, dark_bgr)
    return edge[:, None] & shade & (gx >= (1 - margin) * g_lo[:, None]) & (
        gx <= (1 + margin) * g_hi[:, None])


def _lit_part(gains: np.ndarray, lit_max: float, least: float = 0.15,
              spread: float = 0.1) -> float | None:
    """The gain of the board's part in ordinary light beyond a hard shadow over most of it,
    if there is one: at least `least` of the bare corners brighter than `lit_max` times the
    dark colour (learned in the shadow), all at about one gain (their quartiles within
    `spread` of it; a glare spot brightens its corners by every amount)."""
    bright = gains[gains > lit_max]
    if len(bright) < max(4, least * len(gains)):
        return None
    q1, mid, q3 = np.percentile(bright, [25, 50, 75])
    return float(mid) if q3 - q1 <= spread * mid else None


def _glare_coloured(mean_bgr: np.ndarray, seen: np.ndarray, dark_bgr: np.ndarray,
                    gain_range: tuple[float, float] = (0.85, 1.18), min_veil: float = 20.0,
                    tol: float = 0.04) -> np.ndarray:
    """(S,) squares whose not-board pixels' mean colour `mean_bgr` (light-corrected; `seen`:
    the square has such pixels) is the dark colour under a grey veil at about its own gain:
    a glare spot, not a piece."""
    g, v, r = fit_veil(mean_bgr, dark_bgr.astype(np.float64))
    return (seen & (g >= gain_range[0]) & (g <= gain_range[1]) & (v >= min_veil)
            & (r * np.sqrt(3.0) < tol * np.linalg.norm(mean_bgr, axis=-1)))


def _camouflaged_set(base_bgr: np.ndarray, dark_bgr: np.ndarray, free: np.ndarray,
                     min_members: int = 2, factor: float = 6.0, floor: float = 8.0,
                     ) -> np.ndarray | None:
    """BGR colour of a second piece set that the first look took for bare board, or None.

    A set near the dark squares' colour (black men on walnut) is hardly farther from the bare
    square than the square's own grain and noise, so only one set seems to stand on the board.
    What still tells it apart is that it is no shade of the dark colour: among the squares
    read as free (`free`, S), the ones far off every shade of it, compared with how far the
    bare ones stray (most free squares are bare: the quarter nearest), and of one colour.
    """
    cand = np.flatnonzero(free)
    if len(cand) < 2 * min_members:
        return None
    d = _ray_distance(base_bgr[cand], dark_bgr, 0.35, 1.6)
    out = cand[d > max(factor * float(np.percentile(d, 25)), floor)]
    if len(out) < min_members:
        return None
    colour = median(base_bgr[out], axis=0)
    # (One colour: a scatter of odd squares, a shadow's edge here and a hand there, is not.)
    scatter = float(np.median(np.linalg.norm(base_bgr[out] - colour, axis=1)))
    if scatter > 0.5 * float(_ray_distance(colour, dark_bgr, 0.35, 1.6)):
        return None
    return colour


def _camouflaged_pieces(share: np.ndarray, free: np.ndarray, cfg: VisionConfig) -> np.ndarray:
    """(S,) bool: squares of a set the colour of its squares (black men on a black-and-white
    board's black squares), among the `free` squares (S; not read as pieces nor covered).

    Such pieces differ from their square only here and there (a lit rim, a shaded wall): too
    little of the disc for a piece on its own, and their colour is too near the square's.  As
    a set they still show: several squares where a fair share of the disc differs, on a board
    whose other free squares are clean (a pixel or two of the disc at most).  On a board with grain,
    noise or uneven light the free squares' shares spread out and nothing is claimed.
    """
    out = np.zeros(len(share), bool)
    cand = free & (share >= cfg.camouflage_share)
    bare = free & ~cand
    if cand.sum() < cfg.camouflage_min_squares or bare.sum() < cfg.camouflage_min_squares:
        return out
    if float(np.percentile(share[bare], 90)) > cfg.camouflage_bare_share:
        return out
    return cand


def _dark_set(piece_lab: np.ndarray, base_bgr: np.ndarray, dark_lab: np.ndarray,
              dark_bgr: np.ndarray, cand: np.ndarray, bare: np.ndarray, min_offset: float,
              min_members: int, tight: float = 0.25, off_shade: float = 2.0,
              floor: float = 4.0) -> np.ndarray:
    """(S,) bool: the squares of `cand` (S) that are a piece set near the dark squares' colour.

    Most of such a square's disc differs from the bare square, yet its colour is hardly
    farther off than a shadow's edge or a glare spot makes a bare square.  Those are one-off
    and each of its own colour; a set is several squares of one colour, further from the bare
    square's colour (by at least `min_offset`, Lab) than from one another.  And no shade of
    the bare square's (as a shadow's edge over several squares is), compared with how far
    the `bare` squares (S) stray from its shades, and darker than it."""
    out = np.zeros(len(cand), bool)
    members = np.flatnonzero(cand)
    if len(members) < min_members:
        return out
    centre = median(piece_lab[members], axis=0)
    apart = np.linalg.norm(piece_lab[members] - centre, axis=1)
    offset = float(np.linalg.norm(centre - dark_lab))
    close = members[apart < tight * offset]
    if len(close) < min_members or offset < min_offset:
        return out
    # (The quietest bare squares: a hand the light model took for a shadow strays more.)
    stray = float(np.percentile(_ray_distance(base_bgr[bare], dark_bgr, 0.35, 1.6), 10)) \
        if bare.any() else 0.0
    off = _ray_distance(base_bgr[close], dark_bgr, 0.35, 1.6)
    if float(np.median(off)) < max(off_shade * stray, floor):
        return out
    # (And darker than the bare square, as black men on dark wood are: a few squares
    # lighter than it, just off its shades, are where a shadow's edge crosses them, a blend
    # of two lights that differ a little in colour, which the light model follows only
    # smoothly.)
    if float(median(base_bgr[close], axis=0).sum()) >= float(dark_bgr.sum()):
        return out
    out[close] = True
    return out


def _blurred(image: np.ndarray, roi: tuple[int, int, int, int], size_px: int) -> np.ndarray:
    """The image box-blurred over `roi` (x0, y0, x1, y1), the only part the samples read
    (blurring a whole 1280x720 frame costs more than everything else one square needs).
    Outside it the result is undefined."""
    if size_px <= 1:
        return image
    x0, y0, x1, y1 = roi
    if x1 <= x0 or y1 <= y0:
        return cv2.blur(image, (size_px, size_px))
    out = np.empty_like(image)
    roi_out = out[y0:y1, x0:x1]
    # (Straight into the region of the output, no copy; OpenCV writes into a view it is given.)
    blurred = cv2.blur(image[y0:y1, x0:x1], (size_px, size_px), dst=roi_out)
    if blurred is not roi_out and not np.shares_memory(blurred, out):
        roi_out[...] = blurred
    return out


def _veil_fit(x: np.ndarray, dark_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gain, veil, residual) of colours x (..., 3) as gain * dark + veil * (1, 1, 1): the
    bare dark square under a dimmer or brighter light plus a grey veil of glare (clipped
    channels as in `fit_veil`; the residual is the Euclidean one, sqrt(3) times the rms)."""
    g, v, r = fit_veil(x, dark_bgr)
    return g, v, r * np.sqrt(3.0)


def _held_veil_miss(x: np.ndarray, true_bgr: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                    ) -> np.ndarray:
    """(N,) how far (BGR, Euclidean) colours x (N, 3) lie from gain * `true_bgr` + a grey
    veil, the gain held within lo..hi (N,): a colour far brighter than `true_bgr` fits a
    small gain and a large veil whatever its hue, and no piece of a set is seen at a tenth of
    the light."""
    g, _, _ = fit_veil(x, true_bgr)
    g = np.clip(np.nan_to_num(g, nan=1.0), lo, hi)[:, None]
    rest = x - g * true_bgr
    return np.linalg.norm(rest - rest.mean(axis=1, keepdims=True), axis=1)


def _median_of_known(x: np.ndarray) -> np.ndarray:
    """(S, 1) median of each row of four values, NaN (unknown) left out, where at least three
    are known; NaN elsewhere."""
    return np.where(np.isfinite(x).sum(axis=1) >= 3, median_of_finite(x), np.nan)[:, None]


def _veiled_board(patches_bgr: np.ndarray, base_bgr: np.ndarray, dark_bgr: np.ndarray,
                  min_tint: float = 8.0, tol: float = 0.04, tol_px: float = 4.0,
                  veil_tol: float = 15.0) -> np.ndarray:
    """(S, P): base pixels that are the bare square under the glare on its own corners.

    Glare adds grey light, so a bare dark square under it keeps the dark colour's tint (its
    gain) under a veil; a sharp glare spot defeats the smooth light model, but the square's
    own corner patches show the veil right there.  A base pixel is bare board when it is such a
    veiled dark colour at a gain the corners share (a white piece under a veil is a veiled
    dark colour too, but at a much lower gain), with at most about twice their veil (the spot
    may peak inside the square).  Only on boards whose dark squares have a tint: a grey one
    cannot tell a veil from a gain.
    """
    d = dark_bgr.astype(np.float64)
    if float(np.linalg.norm(d - d.mean())) < min_tint:
        return np.zeros(base_bgr.shape[:2], bool)
    g, v, r = _veil_fit(patches_bgr, d)
    # Glare hardly changes the gain across a square; a patch at another gain is a piece
    # leaning over it (a set that is a lighter shade of the dark squares) or a shadow's edge.
    # Its veil is smooth too: one corner far more veiled than the others is a grey piece
    # leaning over it, not glare.  (More than `veil_tol` or the others' own veil: a light
    # wooden man is the dark wood under a grey veil of about 40, and leaning over one corner
    # of a square with no glare he gave it a veil of 20-30, which let his whole disc pass
    # for veiled board.  Rendered scenes, seeds 1, 7, 30: 716, 245, 385 squares misread at
    # 30; 710, 245, 384 at 15; 711 on seed 1 at 8 and at 20.)
    g_mid, v_mid = _median_of_known(g), _median_of_known(v)
    bare = (r < np.maximum(tol_px, tol * np.linalg.norm(patches_bgr, axis=-1))) & \
        (g > 0.3) & (v > -10.0) & (np.abs(g - g_mid) <= 0.25 * g_mid) & \
        (np.abs(v - v_mid) <= np.maximum(veil_tol, np.abs(v_mid)))
    ok = bare.sum(axis=1) >= 3
    g_lo = np.where(bare, g, np.inf).min(axis=1) * 0.8
    g_hi = np.where(bare, g, -np.inf).max(axis=1) * 1.25
    v_hi = np.where(bare, v, -np.inf).max(axis=1) * 2.0 + 15.0
    gx, vx, rx = _veil_fit(base_bgr, d)
    return (ok[:, None] & (rx < np.maximum(tol_px, tol * np.linalg.norm(base_bgr, axis=-1)))
            & (gx >= g_lo[:, None]) & (gx <= g_hi[:, None]) & (vx >= -10.0)
            & (vx <= v_hi[:, None]))


def _top_readings(top: np.ndarray, gain: np.ndarray, veil: np.ndarray) -> list[np.ndarray]:
    """Lab colours (K, 3) of kings' top faces (raw samples (K, T, 3)), read both corrected for
    the light (gain and veil (K,) at each king) and under its gain alone, as a piece's pixels
    are in `classify`: a king standing in a glare veil does not carry it, and a white top with
    the veil taken off looked grey, nearer a black set.  The reading nearer a set decides."""
    g = gain[:, None, None]
    return [_to_lab(median((top - veil[:, None, None]) / g, axis=1)),
            _to_lab(median(top / g, axis=1))]


class _FloatGather:
    """`g[idx]` gives the pixels at flat indices `idx` as float32 BGR."""

    def __init__(self, pixels: np.ndarray) -> None:
        self.pixels = pixels

    def __getitem__(self, idx: np.ndarray) -> np.ndarray:
        # (np.take: fancy indexing of rows is several times slower)
        return np.take(self.pixels, idx, axis=0).astype(np.float32)


def classify(image_bgr: np.ndarray, s: SquareSamples, cfg: VisionConfig,
             colours: ColourModel | None = None, trace: dict[str, object] | None = None,
             known_discs: np.ndarray | None = None) -> SquareVerdicts:
    """Labels of every playable square; `trace`, when given, receives the intermediate values
    (for bench/vision_eval.py's diagnostics).  `known_discs` (S,), where given, is how many
    discs stand on each square (a known position): the king stage measures the discs' height
    from them (`SquareVerdicts.disc_height_sq`)."""
    colourless = not has_colour(image_bgr[::_GREY_STRIDE, ::_GREY_STRIDE])
    if colourless:
        # (Nor is a dark grey a piece's wall in shade rather than the board: KingConfig.
        # near_apart is off.  On 300 scenes read without colour: 1,218 squares misread with
        # it off, 1,247 on.)
        kc = cfg.kings
        cfg = replace(cfg, kings=replace(kc, board_shade=kc.grey_board_shade,
                                         piece_shade=kc.grey_piece_shade, near_apart=0.0,
                                         split=kc.split + kc.grey_split,
                                         wall_weight=kc.grey_wall_weight),
                      rims=replace(cfg.rims, max_veil=cfg.rims.grey_max_veil))
    img = _blurred(image_bgr, s.roi, cfg.blur_px)
    # Read only the sampled pixels as floats (converting the whole frame costs milliseconds).
    flat = _FloatGather(img.reshape(-1, 3))

    n = len(s.playable)
    ref_raw = flat[s.ref].reshape(n, 4, -1, 3)
    probe_raw = flat[s.probe]
    raw_base = flat[s.base]
    patches = median(ref_raw, axis=2)  # (S, 4, 3)
    probe_bgr = median(probe_raw, axis=1)  # (L, 3)
    dark_bgr, light_bgr = board_colours(patches, probe_bgr, beside=s.light_incidence)
    # Shadows scale colours, glare adds light: undo both where each sample lies (vision.light).
    light = local_light(s.light_plan, patches, probe_bgr, dark_bgr, light_bgr, s.base.shape[1])
    # Per square, the two corner patches that best look like bare board under that light.
    best = np.argsort(-light.trust[:4 * n].reshape(n, 4), axis=1)[:, :2]

    base_all = light.correct_base(raw_base)
    base_bgr = median(base_all, axis=1)
    dark_lab = _to_lab(dark_bgr[None])[0]
    light_lab = _to_lab(light_bgr[None])[0]
    contrast = max(20.0, float(np.linalg.norm(dark_lab - light_lab)))
    base_lab = _to_lab(base_bgr)

    # -- occupancy ------------------------------------------------------------------------------
    # Share of the base disc that is not bare dark square: robust to pieces standing off-centre.
    base_px = _to_lab(base_all)
    # How far bare dark squares stray from their mean (grain, noise, the light): a piece must
    # stand out of that, or out of a small share of the board's contrast, whichever is more.
    # (Only the two corner patches per square that looked bare, as for the light; and the
    # quieter squares' stray: a hand or a shadow's edge over many squares must not raise the
    # bar until a dark set on dark squares falls under it.)
    ref_px = np.take_along_axis(ref_raw, best[:, :, None, None], axis=1).reshape(
        len(s.playable), -1, 3)
    ref_lab = _to_lab(light.correct_all(ref_px))
    spread = float(np.percentile(median(np.linalg.norm(ref_lab - dark_lab, axis=2), axis=1),
                                 25))
    threshold = max(cfg.occupied_spread * spread, cfg.occupied_contrast * contrast)
    not_board = np.linalg.norm(base_px - dark_lab, axis=2) > threshold
    # The light model is smooth; a shadow's sharp edge or clipped light squares can leave a
    # bare square miscorrected.  A base pixel that matches the square's own bare corners in
    # the raw image is board whatever the model says.
    # (Its tolerance is set by how far the bare patches stray from their own reference.)
    own_bgr, own_ok = _own_board(patches, dark_bgr)
    own_lab = _to_lab(own_bgr)
    own_spread = float(np.percentile(np.linalg.norm(
        _to_lab(ref_px) - own_lab[:, None, :], axis=2)[own_ok], 50)) if own_ok.any() else 0.0
    own_threshold = max(cfg.occupied_spread * own_spread, cfg.occupied_contrast * contrast)
    # Only where the model visibly fails: it does not turn the square's own bare corners into
    # the board's dark colour (elsewhere a weak piece-board contrast stays the model's call).
    own_fixed = _to_lab(light.correct_all(own_bgr[:, None, :]))[:, 0]
    model_off = np.linalg.norm(own_fixed - dark_lab, axis=1) > max(
        0.5 * cfg.occupied_spread * spread, 0.5 * cfg.occupied_contrast * contrast)
    own_board = (own_ok & model_off)[:, None] & (np.linalg.norm(
        _to_lab(raw_base) - own_lab[:, None, :], axis=2) <= own_threshold)
    veil_px = np.zeros_like(own_board)
    if model_off.any():
        veil_px[model_off] = _veiled_board(patches[model_off], raw_base[model_off], dark_bgr)
        own_board |= veil_px
    # (Wherever an edge crosses a square, not only where the model visibly fails: its
    # correction may bring the square's mean right and each side wrong.)
    own_board |= _across_shadow_edge(patches, raw_base, dark_bgr, cfg.edge_span)
    # (The veto decides occupancy only: a piece's colour and silhouette keep all its pixels.)
    share = (not_board & ~own_board).mean(axis=1)
    occ = share > cfg.occupied_share
    occ_conf = _sigmoid(np.abs(share - cfg.occupied_share) / 0.08) * 2 - 1
    if occ.any():
        # A piece is seen where most of the disc differs; use those pixels for its colour.
        sel = not_board[..., None]
        cnt = np.maximum(not_board.sum(axis=1), 1)[:, None]
        piece_only = (base_px * sel).sum(axis=1) / cnt
        base_lab = np.where(occ[:, None], piece_only, base_lab)
    # Each square's colour where not bare board (BGR, light-corrected).
    n_not_board = not_board.sum(axis=1)
    own = (base_all * not_board[..., None]).sum(axis=1) / np.maximum(n_not_board, 1)[:, None]
    # A glare veil is light the board reflects: a piece standing in it does not carry it, so a
    # piece's pixels are also read corrected for the light's gain alone.
    gain_only = raw_base / light.base_gain[..., None]
    own_gain = (gain_only * not_board[..., None]).sum(axis=1) / np.maximum(n_not_board, 1)[:, None]

    # -- colour sets -----------------------------------------------------------------------------
    labels = np.full(n, EMPTY)
    conf = np.clip(occ_conf, 0.0, 1.0)
    white_lab = black_lab = None
    covered = corner_cover = None
    hidden_bgr = None
    other_labs: list[np.ndarray] = []
    piece_lab = base_lab
    is_white = np.zeros(n, bool)
    col_conf = np.ones(n)
    idx = np.flatnonzero(occ)
    learn = idx  # (the squares the sets are learned from)
    camo = np.zeros(n, bool)
    set_like_squares = False  # (the darker set near its squares' colour, and darker)
    if colours is not None and colours.has_pieces:
        white_lab = np.array(colours.white_piece_lab, np.float32)
        black_lab = np.array(colours.black_piece_lab, np.float32)
    else:
        # A piece differs clearly from the square it stands on (nobody plays with pieces the
        # colour of the board): a "piece" hardly off the bare square's colour is a bare square
        # that a shadow's edge or a glare spot made look different.
        margin = max(threshold, cfg.min_set_distance_lab)
        near = np.linalg.norm(piece_lab - dark_lab, axis=1) < margin
        # A hand over squares brings colours of its own: the sets are learned from the
        # squares whose grid corners show, when enough do.
        corner_cover = covered_squares(flat, s, contrast, cfg, light, (dark_bgr, light_bgr), occ)
        covered = corner_cover.squares
        dark_set = _dark_set(piece_lab, base_bgr, dark_lab, dark_bgr, occ & near & ~covered,
                             ~occ & ~covered, 0.5 * margin, cfg.camouflage_min_squares)
        if trace is not None:
            trace["near"] = near & occ
        near &= ~dark_set
        occ &= ~near
        idx = np.flatnonzero(occ)
        # Nor from glare: a "piece" whose colour is the bare square's under a grey veil, at
        # the square's own brightness (a set lighter than the squares is a veiled dark colour
        # too, but at a lower gain).
        # (A few squares: a set of wood on dark wood is such a colour, and has more members.)
        glare = _glare_coloured(own, n_not_board > 0, dark_bgr)
        # A set the colour of its squares (black men on a black-and-white board's black
        # squares) was just dropped as near the bare square: it shows as several squares that
        # differ a little on a board whose bare squares do not differ at all.  (Only where bare
        # squares stray little next to the board's contrast: a washed-out or mottled board has
        # no clean squares to stand out from.)
        if threshold <= cfg.camouflage_max_stray * contrast:
            camo = _camouflaged_pieces(share, ~occ & ~covered, cfg)
        if glare[idx].sum() > max(2, 0.2 * len(idx)):
            glare[:] = False
        keep = ~covered & ~glare
        learn = idx[keep[idx]] if keep[idx].sum() >= 2 else (
            idx[~covered[idx]] if (~covered[idx]).sum() >= 2 else idx)
        if len(idx) >= 2:
            sets = _piece_sets(piece_lab[learn], _SET_SEPARATION * contrast, dark_bgr,
                               veil=light.offset[learn].mean(axis=1))
            if trace is not None:
                trace["clusters"] = sets
            # (With a hand over the board, a few bare squares its fingers shade are no set:
            # they are bare.)
            if sets is not None and covered.any():
                shade = _hand_shadow_set(sets[0], sets[1], piece_lab[learn], dark_bgr)
                if shade is not None:
                    occ[learn[shade]] = False
                    idx = np.flatnonzero(occ)
                    learn = learn[~shade]
                    sets = None
            if sets is not None and camo.sum() >= cfg.camouflage_set_min_squares and \
                    not colourless and \
                    _in_two_lights(sets[0], sets[1], least=cfg.camouflage_one_set_light):
                # Two "sets", one a shade of the other (a hard shadow over some of a set's
                # pieces), and squares of a set the colour of its squares: that set is the
                # other one.  (Not in a picture with no colour, where every grey is a shade of
                # every other: a red set and a black one, the black 0.47 times as bright in
                # grey, were one set and every red piece read black.  Rendered scenes read so,
                # 300 each: squares misread on seed 1 928 -> 891, seed 7 972 -> 966, seed 30
                # 789 -> 774; pieces read as empty 129 -> 147, 130 -> 152, 62 -> 81.)
                sets = None
            if sets is not None:
                white_lab, black_lab, other_labs = sets
                if dark_set.any():
                    # (Its colour is its own members', not a cluster's that took in others.)
                    own_colour = median(piece_lab[dark_set], axis=0)
                    if _set_distance(own_colour[None], white_lab)[0] < _set_distance(
                            own_colour[None], black_lab)[0]:
                        white_lab = own_colour
                    else:
                        black_lab = own_colour
                    if white_lab[0] < black_lab[0]:
                        white_lab, black_lab = black_lab, white_lab
                # With both sets seen elsewhere, a camouflaged piece is one of them: the pixels of
                # its square that differ from the bare square (`own`; the whole disc's median is the
                # square's colour) nearer a shade of one set than a shade of the bare square (a
                # shadow's edge is one).  Unless the darker set seen is itself near the dark
                # squares' colour and darker, its kings seen by their taller walls and its men not,
                # and several squares differ a little: those are its men, whose colour is the bare
                # square's.  (A shadow's soft edge crosses a square or two, not several; a set
                # lighter than the squares shows its men; a "set" of the squares' very colour is
                # squares a shadow's edge crosses.  Rendered scenes of such sets: 93.1% of squares
                # right, 87.8% before these tests; the other scenes read alike.)
                set_like_squares = bool(
                    _set_distance(black_lab, dark_lab) <= cfg.camouflage_set_apart
                    * _set_distance(white_lab, black_lab)
                    and black_lab[0] <= cfg.camouflage_set_darker * dark_lab[0])
                if camo.any() and (not set_like_squares
                                   or camo.sum() < cfg.camouflage_set_min_squares):
                    sets_bgr = [_to_bgr(white_lab), _to_bgr(black_lab)]
                    d_sets = np.min([_ray_distance(own, c, *_shade_range(c, dark_bgr,
                                                                          cfg.shade_within))
                                     for c in sets_bgr], axis=0)
                    camo &= d_sets < _ray_distance(own, dark_bgr,
                                                   *_board_shade_range(sets_bgr, dark_bgr))
                if camo.sum() < cfg.camouflage_min_squares:
                    camo[:] = False
            elif camo.any():
                hidden_bgr = median(base_bgr[camo], axis=0)
            else:
                # One set seen: the other may be one the first look took for bare board.
                # (Squares where no pixel stands out of the bare squares' stray are bare,
                # whatever their mean colour: the rest of a glare spot the light model took
                # in, say.)
                hidden_bgr = _camouflaged_set(base_bgr, dark_bgr, ~occ & ~covered & ~glare
                                              & (share >= cfg.camouflage_share))
            if sets is None and hidden_bgr is not None:
                seen_lab = median(piece_lab[learn], axis=0)
                hidden_lab = _to_lab(hidden_bgr[None])[0]
                if np.linalg.norm(seen_lab - hidden_lab) >= _SET_SEPARATION * contrast:
                    white_lab, black_lab = ((seen_lab, hidden_lab)
                                            if seen_lab[0] >= hidden_lab[0]
                                            else (hidden_lab, seen_lab))
                else:
                    camo[:] = False
    if white_lab is not None and black_lab is not None and len(idx) >= 2:
        first_occ = occ.copy()
        # Second look with the piece colours now known: a base pixel belongs to a piece when it
        # is nearer some shade of a piece set than any shade of the bare square.  This finds a
        # dark set on dark squares, which the first look (distance from the board) misses.
        base_bgr_px = base_all
        first_white = np.linalg.norm(piece_lab - white_lab, axis=1) < \
            np.linalg.norm(piece_lab - black_lab, axis=1)
        # (Each piece's colour: `own`, the mean of its pixels that are not bare board.)
        centres = []
        centres_gain = []  # (the same under the light's gain alone, for sets in a glare veil)
        for group in (first_white, ~first_white):
            members = idx[group[idx]]
            if covered is not None and (~covered[members]).any():
                members = members[~covered[members]]  # (not the hand's colours)
            if len(members):
                # (The light correction may push a black set below zero, where a shade of
                # it is no longer a colour: keep it a dark grey at least.)
                centres.append(np.maximum(median(own[members], axis=0), _DARKEST_SET_BGR))
                if float(median(light.offset[members].mean(axis=1), axis=0)) >= _SET_IN_GLARE:
                    # (A set in a glare veil, corrected for it, may be below zero and clamped
                    # to a grey that no shade of the set matches; its colour under the gain
                    # alone, which it keeps if it does not carry the veil, is that set too.)
                    centres_gain.append(np.maximum(median(own_gain[members], axis=0),
                                                   _DARKEST_SET_BGR))
            elif hidden_bgr is not None and not (camo.any() and np.linalg.norm(
                    _to_lab(hidden_bgr[None])[0] - dark_lab) < threshold):
                # (A camouflaged set within the bare squares' own stray of their colour would
                # claim every bare square: its pieces are the ones found as a set, no more.)
                centres.append(np.maximum(hidden_bgr, _DARKEST_SET_BGR))
        d_board = _ray_distance(base_bgr_px, dark_bgr, *_board_shade_range(centres, dark_bgr))
        # (A piece's pixel is also judged by the light's gain alone, `gain_only`.)
        d_each = np.array([_ray_distance(base_bgr_px, c,
                                         *_shade_range(c, dark_bgr, cfg.shade_within))
                           for c in centres])
        d_full = d_each.min(axis=0)
        # (Which pixels matched a set that is itself a shade of the bare square: nearly one,
        # within `there_within`.  On squares nearly black any warm set is a shade of them
        # within `shade_within`, and red men on black squares in a photo taken small, which
        # the first look missed, were dropped.)
        shade_set = np.array([_shade_of_board(c, dark_bgr, cfg.there_within) for c in centres])
        as_shade = shade_set[d_each.argmin(axis=0)]
        d_gain = np.min([_ray_distance(gain_only, c,
                                       *_shade_range(c, dark_bgr, cfg.shade_within))
                         for c in centres + centres_gain], axis=0)
        d_piece = np.minimum(d_full, d_gain)
        # (and its colour is the one that matched)
        base_bgr_px = np.where((d_gain < d_full)[..., None], gain_only, base_bgr_px)
        is_piece = d_piece < d_board
        # (For occupancy, where the first look saw a piece, a set hardly a shade of the bare
        # square may take its own darker shades: a red man in shadow on walnut.)
        is_there = is_piece
        if any(_shade_of_board(c, dark_bgr, cfg.shade_within)
               != _shade_of_board(c, dark_bgr, cfg.there_within) for c in centres):
            d_there = np.min(
                [_ray_distance(base_all, c, *_shade_range(c, dark_bgr, cfg.there_within))
                 for c in centres]
                + [_ray_distance(gain_only, c, *_shade_range(c, dark_bgr, cfg.there_within))
                   for c in centres + centres_gain], axis=0)
            is_there = is_piece | ((d_there < d_board)
                                   & (share > cfg.there_first_share)[:, None])
        share2 = (is_there & ~own_board).mean(axis=1)
        if trace is not None:
            trace["share2"] = share2
        occ = share2 > cfg.occupied_share
        if set_like_squares:
            # (A man of a set near its squares' colour, seen by the first look, keeps a share
            # of his disc here as the bare square's shades take the rest: still a man.)
            occ |= first_occ & (share2 >= cfg.camouflage_share)
        # A set that is a shade of the bare square may be a shadow's (a hand's fingers on red
        # squares, a darker red): its shades then take in bare squares the light model left a
        # little dark.  Such a set claims no square where the first look saw nothing but bare
        # board.
        n_shade = (is_piece & as_shade).sum(axis=1)
        occ &= ~((share < cfg.camouflage_clean_share) & (2 * n_shade > is_piece.sum(axis=1)))
        # A light piece in real glare may match the bare square under a grey veil, its
        # corners' veil (`_veiled_board`): where giving back the pixels that test took makes a
        # square a piece again, a silhouette as sharp as the other pieces' (vision.soft_edges),
        # with no hand beside, says it is one.
        veiled = ~occ & veil_px.any(axis=1) & (
            (is_there & ~(own_board & ~veil_px)).mean(axis=1) > cfg.occupied_share)
        sharp = np.zeros(n, bool)
        if veiled.any() and occ.sum() >= cfg.glare_edge_min_pieces:
            seen = np.flatnonzero(occ | veiled)
            free = np.ones(len(seen), bool) if covered is None else ~covered[seen]
            beside = np.zeros(len(seen), bool) if covered is None else diagonal_marked(
                s.kings.diagonal[seen], covered).any(axis=1)
            sharp[seen] = settle_by_edges(image_bgr, s.kings, seen, veiled[seen],
                                          light.offset[seen].mean(axis=1), free, beside, cfg)[1]
            occ |= sharp
        occ_conf = _sigmoid(np.abs(share2 - cfg.occupied_share) / 0.08) * 2 - 1
        conf = np.where(sharp, cfg.glare_edge_confidence, np.clip(occ_conf, 0.0, 1.0))
        # (A piece's colour from its pixels at the set's own brightness, if it shows any.)
        is_piece = np.where((occ & ~is_piece.any(axis=1))[:, None], is_there, is_piece)
        cnt = np.maximum(is_piece.sum(axis=1), 1)[:, None]
        piece_lab = np.where(occ[:, None], _to_lab((base_bgr_px * is_piece[..., None]).sum(axis=1)
                                                   / cnt), piece_lab)
        not_board = np.where(occ[:, None], is_piece, not_board)
        idx = np.flatnonzero(occ)
    if camo.any():
        # (The camouflaged set's pixels are as near a shade of the bare square as of the set:
        # its squares are pieces because the first look found them as a set, and no surer.)
        occ |= camo
        conf = np.where(camo, cfg.camouflage_confidence, conf)
        idx = np.flatnonzero(occ)
    # A piece the colour of its square (black men on a black-and-white board's black
    # squares) that the colour tests missed still shows its outline: a circle of the pieces'
    # size around a free square's middle (vision.rims).  Not beside a hand: its fingers'
    # edges and shadows curve.  (Rendered scenes of such sets (`vision_eval.py
    # --camouflaged`, 200): 184 pieces read as empty, 49 with it; the 3,000 other scenes of
    # seeds 1 and 7: 45 pieces read as empty, 23 with it, and bare squares read as pieces
    # 53, 56 with it.)
    free = ~occ
    if covered is not None and covered.any():
        free &= ~covered & ~diagonal_marked(s.kings.diagonal, covered).any(axis=1)
    # (Nor under a glare veil: a spot's bright middle and its fall-off may trace a ring.  In a
    # picture with no colour only under a heavier one, `RimConfig.grey_max_veil`.)
    free &= light.offset.mean(axis=1) < cfg.rims.max_veil
    cand = np.flatnonzero(free)
    rim = np.zeros(0, np.intp)
    if len(idx) and len(cand) and s.rim_line.size:
        strength = rim_strength(image_bgr, s.rim_maps, s.rim_line, cand, cfg.pieces.radius_sq,
                                cfg)
        if trace is not None:
            trace["rims"] = (cand, strength)
        rim = cand[strength >= cfg.rims.min_strength]
        occ[rim] = True
        conf[rim] = cfg.camouflage_confidence
        idx = np.flatnonzero(occ)
    if white_lab is None and black_lab is None and len(rim):
        # One set seen, and pieces found by their rims alone, the colour of their squares:
        # those are the other set, and the lighter of the two is "white".
        seen = np.setdiff1d(learn if covered is None else learn[~covered[learn]], rim)
        if len(seen):
            seen_lab = median(piece_lab[seen], axis=0)
            rim_lab = median(piece_lab[rim], axis=0)
            if np.linalg.norm(seen_lab - rim_lab) >= _SET_SEPARATION * contrast:
                white_lab, black_lab = ((seen_lab, rim_lab) if seen_lab[0] >= rim_lab[0]
                                        else (rim_lab, seen_lab))
    if white_lab is not None and black_lab is not None:
        dw = _set_distance(piece_lab, white_lab)
        db = _set_distance(piece_lab, black_lab)
        is_white = dw < db
        col_conf = _sigmoid(np.abs(dw - db) / (0.05 * contrast)) * 2 - 1
        dimmed = ~is_white & (light.offset.mean(axis=1) < cfg.glare_edge_veil) \
            & _dim_lighter_set(piece_lab, white_lab, black_lab)
        is_white |= dimmed
        col_conf[dimmed] = _DIMMED_CONFIDENCE
    elif len(idx):
        # One set only on the board: lighter than the board's mean lightness is "white".  The
        # set is one colour, its learned members' (not a hand's, nor squares left out as
        # glare): named piece by piece, a set near that lightness read as both sets (three
        # orange men on a red-and-cream board, one white and two black).  A piece as far from
        # it as two sets lie apart (`_SET_SEPARATION`, measured as a piece is given to a set,
        # `_set_distance`) is one that learning left out, the other set's (white men on black
        # squares, taken for bare squares under a glare veil): named by its own lightness.
        # (Rendered scenes, seeds 1 and 7, the 42 read as one set: 25 squares of the wrong
        # colour before, 19 with these.)  Not in a picture with no colour: there two sets
        # differ in lightness alone, and learning, which also weighs hue, often saw one where
        # there are two; each piece is named by its own lightness.  (300 scenes read without
        # colour, seed 1: 156 squares of the wrong colour piece by piece, 233 named as one.)
        mid = 0.5 * (dark_lab[0] + light_lab[0])
        free = idx if covered is None else idx[~covered[idx]]
        own = np.intersect1d(learn, free)
        m = median(piece_lab[own if len(own) else free if len(free) else idx], axis=0)
        apart = occ & ((_set_distance(piece_lab, m) >= _SET_SEPARATION * contrast) | colourless)
        if covered is not None:
            apart &= ~covered
        is_white = np.where(apart, piece_lab[:, 0] >= mid, bool(m[0] >= mid))
        col_conf = np.full(n, 0.6)
        white_lab, black_lab = (m, None) if m[0] >= mid else (None, m)

    # -- occlusion -------------------------------------------------------------------------------
    # Light squares take the light correction of the playable squares around them.
    probe_fixed = light.correct_light(probe_raw)
    probe_px_lab = _to_lab(probe_fixed)
    # Glare may wash a light square out towards white, its hue with it: more light (a grey
    # veil over the light colour, or clipped), no hand (which brings no light of its own).
    g_p, v_p, miss_p = _veil_fit(probe_fixed, light_bgr)
    glare_probe = (probe_raw.min(axis=-1) >= _CLIPPED) | (
        (g_p >= 0.5) & (v_p >= _VEIL_MIN * float(np.mean(light_bgr)))
        & (channel_sum(probe_fixed) >= _BRIGHTER * float(np.sum(light_bgr)))
        & (miss_p <= np.maximum(_VEIL_MISS_PX, _VEIL_MISS * np.linalg.norm(probe_fixed, axis=-1))))
    piece_labs = [c for c in (white_lab, black_lab) if c is not None] + other_labs
    # A darker shade of a known colour (a piece's wall turned from the light, its shadow) is
    # not foreign either; nor a lighter shade of a set's, up to `lit_piece_shade` (a piece
    # lit past a hard shadow its set's colour was learned in).
    known_bgr = np.array([dark_bgr] + [_to_bgr(c) for c in piece_labs], np.float64)  # (K, 3)
    x = base_all.astype(np.float64)
    xx = channel_sum(x * x)[..., None]  # (the pixels' own dot products, once for all K)
    kk = channel_sum(known_bgr * known_bgr)
    brightest = np.array([1.0] + [cfg.lit_piece_shade] * len(piece_labs))
    shaded = (_ray_distance_rows(xx, x @ known_bgr.T, kk, 0.1, brightest)
              / np.maximum(np.sqrt(kk), 1.0)).min(axis=-1) < 0.15
    # (Glare adds light: a piece darker than the bare dark square is no glare's making, and
    # stands where glare washed out the grid corners as a bare square does.  So does one whose
    # colour no grey veil over the bare dark square makes: a red man in a glare spot on brown.)
    not_glare = occ & (piece_lab[:, 0] < dark_lab[0])
    if occ.any():
        # (A pixel clipped in two channels or more has no fit: glare may well have made it.)
        _, _, veil_miss = _veil_fit(raw_base[occ], dark_bgr)
        not_glare[occ] |= (np.isfinite(veil_miss) & (veil_miss > np.maximum(
            _VEIL_MISS_PX, _VEIL_MISS * np.linalg.norm(raw_base[occ], axis=-1)))
                           ).mean(axis=1) > 0.5
    # (Nor is a pixel glare drove to the sensor's limit: a hand brings no light of its own.)
    burnt_px = (raw_base >= cfg.burnt_level).sum(axis=-1) >= 2
    occluded, foreign = occluded_squares(flat, s, base_px, probe_px_lab, dark_lab, light_lab,
                                         piece_labs, contrast, cfg, light,
                                         own_board | shaded | burnt_px,
                                         (dark_bgr, light_bgr), corner_cover, ~occ | not_glare,
                                         occ, glare_probe)
    if corner_cover is not None:
        # A light "piece" covered only through grid corners glare washed out: its edges say
        # whether it is one, or the glare over a bare square (vision.soft_edges).
        washed = occluded & occ & corner_cover.squares & corner_cover.washed_only \
            & (foreign <= cfg.foreign_share)
        if washed.any():
            seen = np.flatnonzero(occ)
            hand = corner_cover.squares & ~corner_cover.washed_only
            bare, piece = settle_by_edges(image_bgr, s.kings, seen, washed[seen],
                                          light.offset[seen].mean(axis=1),
                                          np.ones(len(seen), bool),
                                          diagonal_marked(s.kings.diagonal[seen],
                                                          hand).any(axis=1), cfg, dark_bgr)
            occ[seen[bare]] = False
            conf[seen[bare]] = cfg.glare_edge_confidence
            occluded[seen[bare | piece]] = False
            idx = np.flatnonzero(occ)
    # A light "piece" in a glare veil with no sharp edge is the glare's fall-off over a bare
    # square (vision.soft_edges).
    maybe_glare = occ & ~not_glare & ~occluded & (light.offset.mean(axis=1) >= cfg.glare_edge_veil)
    if covered is not None:
        maybe_glare &= ~covered  # (a hand's edge is no glare)
    soft = soft_glare(image_bgr, s.kings, occ & ~occluded, maybe_glare, cfg, dark_bgr)
    # Nor is one whose colour is the bare dark square under the veil and neither set's under
    # any veil at a gain a piece in that light could have (sets of a clear hue: under a veil
    # a white man and a black square look alike, and only the edges tell).
    rest = maybe_glare & ~soft & ~occluded
    if rest.any() and white_lab is not None and black_lab is not None:
        x = median(raw_base[rest], axis=1)
        lg = light.gain[rest]
        lo, hi = cfg.burnt_gain[0] * lg, cfg.burnt_gain[1] * lg
        on_board = _held_veil_miss(x, dark_bgr, lo, hi)
        as_set = np.minimum(_held_veil_miss(x, _to_bgr(white_lab), lo, hi),
                            _held_veil_miss(x, _to_bgr(black_lab), lo, hi))
        size = np.linalg.norm(x, axis=1)
        soft[rest] = (on_board <= _VEILED_BOARD * size) \
            & (as_set >= np.maximum(_VEIL_APART * on_board, _NO_VEILED_SET * size))
    if soft.any():
        occ &= ~soft
        conf[soft] = cfg.glare_edge_confidence
        idx = np.flatnonzero(occ)

    # -- kings -----------------------------------------------------------------------------------
    # Which height explains each piece's silhouette, one disc or two (see vision.kings).
    frame_bgr = median(flat[s.frame], axis=0)
    # The board's two colours as voted (`board_colours`), the colours the light model maps
    # every square to.  (Not the plain medians of their samples, which the king stage had
    # from its first version: where pieces' walls, their shadows or a hand fill the corner
    # patches of many dark squares, the median is none of them.  A navy square read as a
    # grey-brown the colour of a white man's wall in shade, and five men as kings.)
    background = np.stack([dark_bgr, light_bgr, frame_bgr]).astype(np.float64)
    king = np.zeros(n, bool)
    disc_height = 0.0
    king_conf = np.full(n, 0.5)
    # (Not on occluded squares: what is there may be the hand, and it is not reported.)
    seen = idx[~occluded[idx]]
    frame_read: list[np.ndarray | None] = []  # (read once, when a piece is there to test)

    def beside_hand(at: np.ndarray) -> np.ndarray:
        """(len(at),) the squares `at` diagonally beside one read as under a hand, now."""
        hidden = occluded if covered is None else occluded | covered
        return diagonal_marked(s.kings.diagonal[at], hidden).any(axis=1)

    def kings_of(at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """read_kings for the squares `at`: (is_king, confidence, unlike a piece, height)."""
        if not frame_read:
            frame_read.append(None if s.frame_out.size == 0 else frame_extent(
                _FloatGather(image_bgr.reshape(-1, 3))[s.frame_out.reshape(-1)]
                .reshape(*s.frame_out.shape, 3), cfg))
        frame_sq = frame_read[0]
        n_px = not_board[at].sum(axis=1)
        piece_cols = np.where(
            (n_px > 0)[:, None],
            (base_all[at] * not_board[at][..., None]).sum(axis=1)
            / np.maximum(n_px, 1)[:, None],
            dark_bgr)
        # (Squares whose grid corners a hand hides may be the hand: they measure no set.)
        trusted = None if covered is None else ~covered[at]
        k_is, k_conf, _, unlike, height = read_kings(
            img, s.kings, at, light, piece_cols, background, is_white[at].astype(int), cfg,
            trusted, occ, frame_sq, None if known_discs is None else known_discs[at],
            beside_hand(at))
        return k_is, k_conf, unlike, height

    if len(seen):
        k_is, k_conf, unlike, disc_height = kings_of(seen)
        king[seen] = k_is
        king_conf[seen] = k_conf
        # Bigger than any piece: something over the square, not reported as a piece; unless
        # its edges say a glare spot over a bare square, or a piece (vision.soft_edges).
        free = np.ones(len(seen), bool) if covered is None else ~covered[seen]
        bare, piece = settle_by_edges(image_bgr, s.kings, seen, unlike,
                                      light.offset[seen].mean(axis=1), free, beside_hand(seen),
                                      cfg, dark_bgr)
        occ[seen[bare]] = False
        conf[seen[bare]] = cfg.glare_edge_confidence
        occluded[seen[unlike & ~bare & ~piece]] = True
        # A king's colour from its top face: the disc read at a man's height sees much of a
        # king's two shaded walls in an oblique view, and a light king passes for a dark one.
        kings_at = seen[k_is & ~unlike]
        if len(kings_at) and white_lab is not None and black_lab is not None:
            tops = _top_readings(flat[s.king_top[kings_at]],
                                 light.base_gain[kings_at].mean(axis=1),
                                 light.base_offset[kings_at].mean(axis=1))
            dw = np.min([_set_distance(t, white_lab) for t in tops], axis=0)
            db = np.min([_set_distance(t, black_lab) for t in tops], axis=0)
            is_white[kings_at] = dw < db
            col_conf[kings_at] = _sigmoid(np.abs(dw - db) / (0.05 * contrast)) * 2 - 1

    # (Last, once every test that reads the squares around has run: those were tuned with
    # these squares hidden.  What one shows is then read as a man or bare, not measured.)
    if cfg.hands_reach_in:
        released = occluded & lone_inside(occluded, s.kings.diagonal)
        occluded &= ~released
        # (A piece on such a square is still told man or king, with the rest as they were.)
        rel = np.flatnonzero(released & occ)
        if len(rel):
            both = np.union1d(idx[~occluded[idx] & occ[idx]], rel)
            k_is, k_conf, _, _ = kings_of(both)
            at = np.isin(both, rel)
            king[both[at]] = k_is[at]
            king_conf[both[at]] = k_conf[at]
    if trace is not None:
        trace.update(light=light, dark_bgr=dark_bgr, light_bgr=light_bgr, share=share,
                     base_bgr=base_bgr, occ=occ, threshold=threshold, spread=spread,
                     white_lab=white_lab, black_lab=black_lab, piece_lab=piece_lab,
                     occluded=occluded, own_ok=own_ok, soft=soft, own_share=own_board.mean(axis=1))
    for i in range(n):
        if occluded[i]:
            labels[i] = OCCLUDED
            conf[i] = 0.5
        elif occ[i]:
            if is_white[i]:
                labels[i] = WHITE_KING if king[i] else WHITE_MAN
            else:
                labels[i] = BLACK_KING if king[i] else BLACK_MAN
            conf[i] = float(min(conf[i], col_conf[i], king_conf[i]))
    return SquareVerdicts(labels, np.clip(conf, 0.0, 1.0), dark_lab, light_lab, white_lab,
                          black_lab, contrast, disc_height)


