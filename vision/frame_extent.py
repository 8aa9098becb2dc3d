"""How far the board's frame reaches beyond the grid, side by side.

For a piece on an edge rank, the king stage's lines along the view (vision.kings) run past
the grid over the frame, and in an oblique view on beyond it, onto the table.  The frame's
colour is measured (the ring just outside the grid), the table's is not: a table the colour
of a set reads there as piece, and the stage took it for a frame of the set's colour - the
silhouette then decided nothing and the wall alone called men kings.  Past the frame, the
samples say nothing.

Frames differ (none on a printed sheet laid on a table, a wide rim on a wooden box), so the
extent is measured in each image: on each side, the farthest probe distance at which most
probes along that side still show the frame's colour in some shade.  Pieces leaning over the
frame cover its inner part only, and a hand one stretch of a side; a table of the frame's
colour is taken for frame, which costs nothing (it reads as board, as the frame does).
"""

from __future__ import annotations

import numpy as np

from vision.config import VisionConfig
from vision.kings import _ray_distance
from vision.stats import median


def probe_distances_sq(cfg: VisionConfig) -> np.ndarray:
    """(D,) distances outside the grid (squares) at which the frame is probed."""
    return np.arange(cfg.frame_probe_step_sq, cfg.frame_reach_sq + 1e-9, cfg.frame_probe_step_sq)


def frame_extent(probes_bgr: np.ndarray, cfg: VisionConfig) -> np.ndarray:
    """(4,) squares: how far the frame reaches past the grid on each side (as the sides of
    vision.king_samples.outside), from the probes' colours (4, K, D, 3) at K places along each
    side and the distances of `probe_distances_sq`; 0 where no probe distance shows it.

    Each side's frame colour is its own, the median of its probes within `frame_ref_sq` of
    the grid (a lamp by one side lights it, and adds light no gain of another side's colour
    makes)."""
    dist = probe_distances_sq(cfg)
    lo, hi = cfg.frame_ref_sq
    ref = median(probes_bgr[:, :, (dist >= lo) & (dist <= hi)].reshape(4, -1, 3), axis=1)
    framed = _ray_distance(median(probes_bgr, axis=1), ref[:, None, :],
                           *cfg.frame_shade) <= cfg.frame_match  # (4, D)
    last = np.where(framed.any(axis=1), len(dist) - 1 - np.argmax(framed[:, ::-1], axis=1), -1)
    return np.where(last >= 0, dist[np.maximum(last, 0)] + 0.5 * cfg.frame_probe_step_sq, 0.0)
