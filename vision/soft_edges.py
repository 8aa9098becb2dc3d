"""Glare's soft fall-off is no piece: a piece's silhouette is a step as sharp as the lens allows.

A spot of glare over a bare dark square has, in colour, every mark of a light piece standing
there: both are the square's colour under a grey veil, and the occupancy and glare steps of
vision.pieces cannot tell them apart.  The shape can: a piece ends at its silhouette, a step a
pixel or two wide, while glare fades over many pixels.  Each square's sharpness is judged
against the pieces of the same image, so a soft lens or a blurred photograph, which soften every
edge alike, do not empty the board.

The same measure settles squares that would otherwise be reported occluded for glare's sake:
what the king stage found bigger than any piece (its surroundings look like the piece:
vision.kings.unlike_a_piece), and a light "piece" whose grid corners glare washed out.  A
soft glare spot there is a bare square, and a sharp silhouette of high contrast with no hand
beside it is a piece whose surroundings only look like it (a white man between white squares,
or in glare).  Where glare burnt the middle out to the sensor's limit, flat, there are no
edges to judge: that colour, the dark square under a veil or past measuring, says bare board
(`burnt_out`), for a hand brings no light of its own.
"""

from __future__ import annotations

import numpy as np

from vision.config import VisionConfig
from vision.king_samples import KingSamples
from vision.kings import _sample
from vision.light import fit_veil
from vision.stats import median


def _middle(image_bgr: np.ndarray, ks: KingSamples, squares: np.ndarray,
            inside_sq: float) -> np.ndarray:
    """(N, A, U', 3) colours on each of `squares`' lines across the view, within `inside_sq`
    of its middle (short of its grid lines), a pixel apart."""
    xy = ks.across_xy[squares][:, :, np.abs(ks.u) <= inside_sq]  # (N, A, U', 2)
    return _sample(image_bgr, xy.reshape(-1, 2)).reshape(*xy.shape[:3], 3)


def _sharpness(lum: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    span = lum.max(axis=2) - lum.min(axis=2)
    step = np.abs(np.diff(lum, axis=2)).max(axis=2)
    return median(step / np.maximum(span, 1.0), axis=1), median(span, axis=1)


def edge_sharpness(image_bgr: np.ndarray, ks: KingSamples, squares: np.ndarray,
                   inside_sq: float) -> tuple[np.ndarray, np.ndarray]:
    """(sharpness, span) of each of `squares` (internal order): on each line across the view,
    within `inside_sq` of the square's middle (short of its grid lines), the steepest
    brightness step between neighbouring samples (a pixel apart) as a share of the line's
    brightness span; the median over the lines of both."""
    return _sharpness(_middle(image_bgr, ks, squares, inside_sq).mean(axis=-1))


def burnt_out(colour_bgr: np.ndarray, span: np.ndarray, dark_bgr: np.ndarray,
              cfg: VisionConfig) -> np.ndarray:
    """(N,) middles (median colours `colour_bgr` (N, 3), brightness spans `span` (N,)) that
    glare burnt out over a bare dark square: at the sensor's limit (`cfg.burnt_level`) in
    some channel, the rest (if any) the dark square `dark_bgr` under a grey veil at a gain
    within `cfg.burnt_gain` (a white piece so veiled has a much lower one), and spanning
    less than `cfg.burnt_span`: no silhouette in it.  The sharpness of such a flat middle
    is only its noise, so `settle_by_edges` cannot judge it by its edges; and a hand brings
    no light of its own, so it is not one."""
    g, _, r = fit_veil(colour_bgr, dark_bgr, clip=cfg.burnt_level)
    lo, hi = cfg.burnt_gain
    veiled = ~np.isfinite(g) | ((g >= lo) & (g <= hi) & (np.sqrt(3.0) * r <= cfg.burnt_miss))
    return (colour_bgr.max(axis=-1) >= cfg.burnt_level) & veiled & (span < cfg.burnt_span)


def _burnt_middle(middle: np.ndarray, span: np.ndarray, dark_bgr: np.ndarray,
                  cfg: VisionConfig) -> np.ndarray:
    """`burnt_out` of `_middle`'s samples (N, A, U', 3), by their median colour."""
    return burnt_out(median(middle.reshape(len(middle), -1, 3), axis=1), span, dark_bgr, cfg)


def soft_glare(image_bgr: np.ndarray, ks: KingSamples, pieces: np.ndarray, maybe: np.ndarray,
               cfg: VisionConfig, dark_bgr: np.ndarray | None = None) -> np.ndarray:
    """(S,) bool: the squares of `maybe` (S,: "pieces" glare may have made) that are a glare
    spot's fall-off over a bare square.  `pieces` (S,): every square read as a piece, the
    yardstick of a sharp edge in this image; with fewer than `cfg.glare_edge_min_pieces` of
    them nothing is judged.  Given the bare dark square's colour `dark_bgr`, a middle glare
    burnt out (`burnt_out`), too flat for its sharpness to say anything, is such a square
    too."""
    soft = np.zeros(len(maybe), bool)
    seen = np.flatnonzero(pieces | maybe)
    if not maybe.any() or pieces.sum() < cfg.glare_edge_min_pieces:
        return soft
    middle = _middle(image_bgr, ks, seen, cfg.glare_edge_inside_sq)
    sharp, span = _sharpness(middle.mean(axis=-1))
    typical = float(median(sharp[pieces[seen]], axis=0))
    bar = min(cfg.glare_edge_share * typical, cfg.glare_edge_max)
    soft[seen] = maybe[seen] & (sharp < bar) & (span >= cfg.glare_edge_span)
    if dark_bgr is not None:
        soft[seen] |= maybe[seen] & _burnt_middle(middle, span, dark_bgr, cfg)
    return soft


def settle_by_edges(image_bgr: np.ndarray, ks: KingSamples, seen: np.ndarray,
                    doubtful: np.ndarray, veil: np.ndarray, free: np.ndarray,
                    beside_cover: np.ndarray, cfg: VisionConfig,
                    dark_bgr: np.ndarray | None = None,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(bare, piece), both over `seen` (the squares read as pieces, internal order), for those
    of them `doubtful` (to be reported occluded for glare's sake): `bare` is a glare spot's
    soft fall-off (under a veil `veil` of at least `cfg.glare_edge_veil` levels, edges less
    than `cfg.edge_soft_share` as sharp as the median piece's, span as in `soft_glare`);
    `piece` a silhouette at least `cfg.edge_sharp_share` as sharp over a span of
    `cfg.edge_sharp_span` levels or more, where no square diagonally beside it is hidden
    (`beside_cover`: a hand's fingers have sharp edges too).  Only squares `free` of a hand
    over their grid corners are either.  Given the bare dark square's colour `dark_bgr`, a
    middle glare burnt out (`burnt_out`) is bare too, whatever the veil the light model saw.
    """
    none = np.zeros(len(seen), bool)
    if not doubtful.any():
        return none, none
    middle = _middle(image_bgr, ks, seen, cfg.glare_edge_inside_sq)
    sharp, span = _sharpness(middle.mean(axis=-1))
    share = sharp / max(float(median(sharp, axis=0)), 1e-6)
    candidates = doubtful & free
    bare = candidates & (veil >= cfg.glare_edge_veil) & (span >= cfg.glare_edge_span) \
        & (share < cfg.edge_soft_share)
    if dark_bgr is not None:
        bare |= candidates & _burnt_middle(middle, span, dark_bgr, cfg)
    piece = candidates & ~beside_cover & (span >= cfg.edge_sharp_span) \
        & (share >= cfg.edge_sharp_share)
    return bare, piece
