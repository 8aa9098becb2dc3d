"""Squares hidden by something that is neither board nor piece (a hand, an arm, a sleeve).

A covered square must be reported, not guessed.  Each sample pixel is compared with every
colour the board can show there: the bare square, either piece set (and for light squares,
their own colour).  A pixel far from all of them, relative to the board's own contrast, is
foreign.  A playable square is occluded when enough of its centre is foreign, when some of it is
and a light square next to it is foreign too, or when the light squares around it are nearly
all foreign (an arm is bigger than a square, and a hand may share the colour of the dark
squares or of a piece set, but hardly of the light squares *and* everything else).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vision.config import VisionConfig
from vision.king_samples import diagonal_marked
from vision.light import LocalLight, fit_veil
from vision.sampling import SquareSamples
from vision.stats import channel_sum, median

_WEIGHTS = np.array([0.5, 1.0, 1.0], np.float32)  # lightness counts less: shadows, glare


def _foreign(lab: np.ndarray, known: list[np.ndarray], contrast: float,
             threshold: float) -> np.ndarray:
    # Squared distances to all the known colours at once, from dot products.
    y = (np.asarray(lab, np.float64) * _WEIGHTS).reshape(-1, 3)
    ky = np.array(known, np.float64).reshape(-1, 3) * _WEIGHTS
    d2 = channel_sum(y * y)[:, None] - 2.0 * (y @ ky.T) + channel_sum(ky * ky)[None, :]
    d = np.sqrt(np.maximum(d2.min(axis=1), 0.0)).reshape(lab.shape[:-1])
    return d / contrast > threshold


def _lit_piece(lab: np.ndarray, piece_labs: list[np.ndarray], hue_deg: float = 15.0,
               min_chroma: float = 12.0) -> np.ndarray:
    """Pixels (..., 3) that are a piece set's colour under more light: at least as light, at
    least as saturated, the same hue (a coloured set only: grey has no hue to keep)."""
    out = np.zeros(lab.shape[:-1], bool)
    ab = lab[..., 1:] - 128.0
    chroma = np.linalg.norm(ab, axis=-1)
    for k in piece_labs:
        kab = k[1:] - 128.0
        kc = float(np.linalg.norm(kab))
        if kc < min_chroma:
            continue
        cos = (ab @ kab) / np.maximum(chroma * kc, 1e-6)
        out |= ((lab[..., 0] >= k[0]) & (chroma >= 0.8 * kc)
                & (cos >= np.cos(np.radians(hue_deg))))
    return out


def _lit_light_square(probe_lab: np.ndarray, light_lab: np.ndarray, lit: np.ndarray,
                      ) -> np.ndarray:
    """(L, Q) light-square samples (Lab, (L, Q, 3)) that are the light squares' colour under
    more light, on the light squares `lit` (L,) brighter than that colour: as a lit piece is
    its set's (`_lit_piece`), lighter and more saturated in the same hue.  A hard shadow over
    most of the board, lit by a tinted ambient, taught the board's colours, and the light
    squares in the lamp's light, much more saturated, looked foreign: an arm over all of them
    (a hand brings no light of its own)."""
    return lit[:, None] & _lit_piece(probe_lab, [light_lab])


def _corner_quadrants(flat: np.ndarray, s: SquareSamples) -> np.ndarray:
    """Median colours (C, 4, 3) of the two dark and two light quadrants at each grid corner."""
    dark = median(flat[s.corner_dark], axis=2)  # (C, 2, 3)
    light_q = median(flat[s.corner_light], axis=2)
    return np.concatenate([dark, light_q], axis=1)


def corner_visible(raw: np.ndarray, contrast: float, cfg: VisionConfig, light: LocalLight,
                   board_bgr: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Per interior grid corner: is the checker pattern there (some dark quadrant differs from
    some light quadrant by a good part of the board's contrast, in the light at that corner)?
    Under a hand it is not; in a shadow or under glare it is.

    A glare spot sharper than the light model can wash a corner out to nearly one colour; given
    the board's (dark, light) colours, a corner whose four quadrants are those colours under one
    gain and one grey veil (`fit_veil`) is visible too.  A hand has one colour over all four:
    no gain makes dark and light squares both look like it.  `raw` (C, 4, 3): the colours of
    each corner's two dark and two light quadrants (`_corner_quadrants`)."""
    import cv2

    both = (raw - light.corner_offset[:, None, None]) / light.corner_gain[:, None, None]
    both = np.clip(both, 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(both, cv2.COLOR_BGR2LAB).astype(np.float32)
    d = np.linalg.norm(lab[:, :2, None, :] - lab[:, None, 2:, :], axis=-1)  # (C, 2, 2)
    visible = d.reshape(len(d), -1).max(axis=1) / contrast >= cfg.corner_contrast
    # (Only with two clearly different board colours: a hand over most of the board can pass
    # for both of them.)
    if board_bgr is not None and not visible.all() and float(
            np.linalg.norm(board_bgr[1] - board_bgr[0])) >= cfg.corner_veil_min_contrast:
        true = np.stack([board_bgr[0], board_bgr[0], board_bgr[1], board_bgr[1]])  # (4, 3)
        g, v, r = fit_veil(raw, true, axes=(-2, -1))
        visible |= (g > 0.4) & (g < 2.5) & (v > -10.0) & (r < np.maximum(
            cfg.corner_veil_rms, 0.04 * raw.mean(axis=(1, 2))))
    return visible


def _washed_grey(raw: np.ndarray, cfg: VisionConfig) -> np.ndarray:
    """(C,) corners glare drove towards white without clipping them: bright, grey, and the
    squares still a little apart (see `VisionConfig.washed_grey_level`).  raw (C, 4, 3)."""
    mean = raw.mean(axis=1)  # (C, 3)
    grey = mean.max(axis=1) - mean.min(axis=1) <= cfg.washed_grey_chroma * mean.mean(axis=1)
    spread = np.linalg.norm(raw - mean[:, None], axis=2).max(axis=1)
    return grey & (raw.min(axis=(1, 2)) >= cfg.washed_grey_level) & (
        spread >= cfg.washed_grey_spread)


class Cover(NamedTuple):
    """Which squares something is over, from their grid corners (`covered_squares`)."""

    squares: np.ndarray  # (S,) `hidden_corners` of its grid corners show no checker pattern
    hidden_under: np.ndarray  # (S, C) of those corners, the ones not washed out by light
    # (S,) covered only through corners the light drove to the sensor's limit: glare, not a
    # hand (one brings no light of its own), which hides the pattern but maybe not the square.
    washed_only: np.ndarray


def covered_squares(flat: np.ndarray, s: SquareSamples, contrast: float, cfg: VisionConfig,
                    light: LocalLight, board_bgr: tuple[np.ndarray, np.ndarray] | None = None,
                    occupied: np.ndarray | None = None) -> Cover:
    """Squares `hidden_corners` of whose grid corners show no checker pattern: something is
    over them.  (It needs only the board's colours, not the pieces'.)

    A square with fewer grid corners than that (a corner square has one) needs them all; where
    `occupied` (S,) is given, a corner none of whose dark-light quadrant pairs is clear of the
    pieces standing beside it (a king leaning over it: `SquareSamples.corner_dark_hidable`)
    does not count for such a square, for a piece explains it as well as a hand - unless that
    square is covered itself (a hand over squares is taken for pieces there).  Elsewhere it
    still counts: two hidden corners are evidence enough.  A square on the board's edge (two
    grid corners) is covered by one hidden corner too, when something is over the board
    elsewhere (squares covered, not only through washed-out corners) and that corner is not
    at the sensor's limit, nor one a piece beside it may hide."""
    raw = _corner_quadrants(flat, s)
    visible = corner_visible(raw, contrast, cfg, light, board_bgr)
    corners = s.corner_incidence  # (S, C)
    n_corners = corners.sum(axis=1)
    hidden_at = corners & ~visible
    need = np.minimum(cfg.hidden_corners, n_corners)
    few = n_corners < cfg.hidden_corners
    judged = np.ones(len(visible), bool)
    if occupied is not None and occupied.any():
        # (Only pieces whose own corners show: one under a hand may be the hand.)
        piece = occupied & ~((n_corners > 0) & (hidden_at.sum(axis=1) >= need))
        dark_free = ~(s.corner_dark_hidable & piece).any(axis=2)  # (C, 2)
        light_free = ~(s.corner_light_hidable & piece).any(axis=2)
        judged = (dark_free[:, :, None] & light_free[:, None, :]).any(axis=(1, 2))
        hidden_at[few] &= judged[None, :]
    hidden = hidden_at.sum(axis=1)
    # Hidden under something, not washed out by light: all four quadrants near the sensor's
    # limit (or driven bright and grey, `_washed_grey`), or on average brighter than the
    # light squares in the board's usual light (a veil adds light; a hand brings none of its
    # own).  (Not the light model's gain at the corner: the model takes a hand for a shadow
    # and lowers it there.)
    saturated = (raw.min(axis=(1, 2)) >= cfg.washed_out_level) | _washed_grey(raw, cfg)
    washed = saturated.copy()
    if board_bgr is not None:
        usual = float(median(light.corner_gain, axis=0)) * float(np.mean(board_bgr[1]))
        washed |= raw.mean(axis=(1, 2)) > usual
    hidden_under = hidden_at & ~washed[None, :]
    covered = (n_corners > 0) & (hidden >= need)
    washed_only = covered & ((hidden_at & ~saturated[None, :]).sum(axis=1) < need)
    # A square on the board's edge has only two grid corners inside it, and an arm reaching
    # in from that side hides the square before both: with something over the board
    # elsewhere, one corner hidden (not at the sensor's limit, nor by a piece standing beside
    # it) is enough there.  (One brighter than the light squares counts: a light hand is.)
    edge = (n_corners == cfg.hidden_corners) & (
        hidden_at & ~saturated[None, :] & judged[None, :]).any(axis=1) & (
        covered & ~washed_only).any()
    return Cover(covered | edge, hidden_under, washed_only & ~edge)


def occluded_squares(flat: np.ndarray, s: SquareSamples, base_lab: np.ndarray,
                     probe_lab: np.ndarray,
                     dark_lab: np.ndarray, light_lab: np.ndarray,
                     piece_labs: list[np.ndarray], contrast: float, cfg: VisionConfig,
                     light: LocalLight, bare_px: np.ndarray | None = None,
                     board_bgr: tuple[np.ndarray, np.ndarray] | None = None,
                     covered: Cover | None = None, past_glare: np.ndarray | None = None,
                     occupied: np.ndarray | None = None, probe_glare: np.ndarray | None = None,
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(occluded per playable square, foreign share of its centre).

    `base_lab` (S, P, 3) and `probe_lab` (L, Q, 3) are light-corrected Lab samples;
    `bare_px` (S, P), where given, marks base pixels already explained: the bare square under
    glare the light model cannot follow, or a darker shade of a known colour (a piece's wall,
    its shadow), or at the sensor's limit (glare: a hand brings no light of its own); never
    foreign.  `covered`, where given, is `covered_squares` already
    computed (else it is computed here, with `occupied` as there).  `past_glare` (S,), where
    given, marks squares read as what glare cannot have made: bare board, or a piece darker
    than the bare dark square (glare only adds light).
    Under glare that washed out their grid corners (`Cover.washed_only`) that reading stands
    (a piece's wall and shadow show through glare); any other piece guessed at there is still
    not reported.  `probe_glare` (L, Q), where given, marks light-square samples washed out by
    glare: never foreign.
    """
    foreign_px = _foreign(base_lab, [dark_lab, *piece_labs], contrast, cfg.foreign_contrast)
    if bare_px is not None:
        foreign_px &= ~bare_px
    # The probes sit where no piece reaches (see sampling): only the light colour belongs there.
    # Lighter than it, in its hue, is more light (sun through a window, glare: what a smooth
    # light model misses at a sharp edge), not a hand: only darkness and hue count, and not
    # even hue where it is also more saturated in the same hue (`_lit_light_square`).
    lit_probe = median(probe_lab[..., 0], axis=1) > light_lab[0] + 0.25 * contrast
    lit_light = _lit_light_square(probe_lab, light_lab, lit_probe)
    probe_lab = probe_lab.copy()
    probe_lab[..., 0] = np.minimum(probe_lab[..., 0], light_lab[0])
    # In such a patch of extra light a piece is lighter and more saturated than its set,
    # in the set's hue: not foreign either (hands bring no light of their own).
    beside = s.light_incidence  # (S, L)
    n_beside = beside.sum(axis=1)
    lit = (n_beside > 0) & ((beside & lit_probe).sum(axis=1) >= 0.5 * n_beside)
    if lit.any():
        foreign_px[lit] &= ~_lit_piece(base_lab[lit], piece_labs)
    base_foreign = foreign_px.mean(axis=1)
    probe_foreign = _foreign(probe_lab, [light_lab], contrast, cfg.foreign_contrast) & ~lit_light
    if probe_glare is not None:
        probe_foreign &= ~probe_glare
    light_foreign = probe_foreign.mean(axis=1) > 0.5
    occluded = base_foreign > cfg.foreign_share
    if covered is None:
        covered = covered_squares(flat, s, contrast, cfg, light, board_bgr, occupied)
    covered_sq, hidden_at, washed_only = covered
    if past_glare is not None:
        covered_sq = covered_sq & ~(washed_only & past_glare)
    occluded |= covered_sq
    # The fringe of a hand: a square not bare (a piece, or the hand) with a corner hidden (not
    # washed out by light) that a covered square shares, two such corners hidden.
    hand = covered_sq & (hidden_at.sum(axis=1) >= cfg.hidden_corners)
    if hand.any():
        not_bare = (np.linalg.norm(base_lab - dark_lab, axis=2)
                    > cfg.occupied_contrast * contrast).mean(axis=1) > cfg.occupied_share
        occluded |= not_bare & (hidden_at & hidden_at[hand].any(axis=0)[None, :]).any(axis=1)
    # Foreign light squares beside a square: an arm reaching over it.
    n_foreign = (beside & light_foreign).sum(axis=1)
    occluded |= (n_beside > 0) & (
        ((n_foreign >= 1) & (base_foreign > 0.5 * cfg.foreign_share))
        | ((n_foreign >= cfg.foreign_light_squares) & (n_foreign >= n_beside - 1)))
    return occluded, base_foreign


def lone_inside(occluded: np.ndarray, diagonal: np.ndarray) -> np.ndarray:
    """(S,) squares read as covered that no hand can cover: off the board's edge, with no
    covered square diagonally beside them.  A hand reaches in from beyond the board, over
    the squares between.  (`diagonal`: `KingSamples.diagonal`.)  (Rendered scenes, seed 1:
    of 3,741 squares read as covered, every one truly under the hand belonged to a group
    reaching the edge; the 8 lone ones inside were each a piece or a bare square under glare
    or a shadow's edge.)"""
    inside = (diagonal >= 0).all(axis=1)
    return occluded & inside & ~diagonal_marked(diagonal, occluded).any(axis=1)
