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
or in glare).
"""

from __future__ import annotations

import numpy as np

from vision.config import VisionConfig
from vision.king_samples import KingSamples
from vision.kings import _sample
from vision.stats import median


def edge_sharpness(image_bgr: np.ndarray, ks: KingSamples, squares: np.ndarray,
                   inside_sq: float) -> tuple[np.ndarray, np.ndarray]:
    """(sharpness, span) of each of `squares` (internal order): on each line across the view,
    within `inside_sq` of the square's middle (short of its grid lines), the steepest
    brightness step between neighbouring samples (a pixel apart) as a share of the line's
    brightness span; the median over the lines of both."""
    xy = ks.across_xy[squares][:, :, np.abs(ks.u) <= inside_sq]  # (N, A, U', 2)
    lum = _sample(image_bgr, xy.reshape(-1, 2)).mean(axis=1).reshape(xy.shape[:3])
    span = lum.max(axis=2) - lum.min(axis=2)
    step = np.abs(np.diff(lum, axis=2)).max(axis=2)
    return median(step / np.maximum(span, 1.0), axis=1), median(span, axis=1)


def soft_glare(image_bgr: np.ndarray, ks: KingSamples, pieces: np.ndarray, maybe: np.ndarray,
               cfg: VisionConfig) -> np.ndarray:
    """(S,) bool: the squares of `maybe` (S,: "pieces" glare may have made) that are a glare
    spot's fall-off over a bare square.  `pieces` (S,): every square read as a piece, the
    yardstick of a sharp edge in this image; with fewer than `cfg.glare_edge_min_pieces` of
    them nothing is judged."""
    soft = np.zeros(len(maybe), bool)
    seen = np.flatnonzero(pieces | maybe)
    if not maybe.any() or pieces.sum() < cfg.glare_edge_min_pieces:
        return soft
    sharp, span = edge_sharpness(image_bgr, ks, seen, cfg.glare_edge_inside_sq)
    typical = float(median(sharp[pieces[seen]], axis=0))
    bar = min(cfg.glare_edge_share * typical, cfg.glare_edge_max)
    soft[seen] = maybe[seen] & (sharp < bar) & (span >= cfg.glare_edge_span)
    return soft


def settle_by_edges(image_bgr: np.ndarray, ks: KingSamples, seen: np.ndarray,
                    doubtful: np.ndarray, veil: np.ndarray, free: np.ndarray,
                    beside_cover: np.ndarray, cfg: VisionConfig,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(bare, piece), both over `seen` (the squares read as pieces, internal order), for those
    of them `doubtful` (to be reported occluded for glare's sake): `bare` is a glare spot's
    soft fall-off (under a veil `veil` of at least `cfg.glare_edge_veil` levels, edges less
    than `cfg.edge_soft_share` as sharp as the median piece's, span as in `soft_glare`);
    `piece` a silhouette at least `cfg.edge_sharp_share` as sharp over a span of
    `cfg.edge_sharp_span` levels or more, where no square diagonally beside it is hidden
    (`beside_cover`: a hand's fingers have sharp edges too).  Only squares `free` of a hand
    over their grid corners are either."""
    none = np.zeros(len(seen), bool)
    if not doubtful.any():
        return none, none
    sharp, span = edge_sharpness(image_bgr, ks, seen, cfg.glare_edge_inside_sq)
    share = sharp / max(float(median(sharp, axis=0)), 1e-6)
    candidates = doubtful & free
    bare = candidates & (veil >= cfg.glare_edge_veil) & (span >= cfg.glare_edge_span) \
        & (share < cfg.edge_soft_share)
    piece = candidates & ~beside_cover & (span >= cfg.edge_sharp_span) \
        & (share >= cfg.edge_sharp_share)
    return bare, piece
