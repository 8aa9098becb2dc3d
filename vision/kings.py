"""Tell a stacked king from a man: which piece height explains the image?

Along the direction pointing away from the camera, a piece hides a run of the playing surface
from its base's near edge to where its top face's far edge appears: 2R + H * lean, where
`lean` (per unit of height) follows from the calibrated pose (`SquareSamples.unit_lean`).
Across that direction the hidden run is just 2R.  Their difference, the *excess*, is therefore
H * lean whatever the piece's size or off-centre shift: about one `lean` of disc height for a
man, two for a king.  The disc height is configured, or measured from the pieces in view
(most of them are men).  When the view is so steep that a man and a king differ by less than a
few pixels, no king is called and the confidence says so.

Pixels are classed as "piece" or "board" by their distance to the colour of this piece and to
the board's dark and light colours, each allowed to vary in brightness (shading, walls,
shadows): a colour c is near a base colour b if it is near some a*b, a in a range.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.light import LocalLight
from vision.sampling import SquareSamples


def _ray_distance(x: np.ndarray, b: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Distance from colours x (..., 3) to the segments {a*b : lo <= a <= hi}; b broadcasts."""
    bb = np.maximum((b * b).sum(axis=-1), 1e-6)
    a = np.clip((x * b).sum(axis=-1) / bb, lo, hi)
    return np.linalg.norm(x - a[..., None] * b, axis=-1)


def piece_score(x: np.ndarray, piece_bgr: np.ndarray, board_bgr: np.ndarray) -> np.ndarray:
    """Positive where colour x is nearer the piece (any shade) than the board under it."""
    return _ray_distance(x, board_bgr, 0.25, 1.5) - _ray_distance(x, piece_bgr, 0.2, 1.6)


def hidden_runs(score: np.ndarray, bright: np.ndarray, t: np.ndarray, max_gap: int,
                ) -> np.ndarray:
    """Per row, the length (t units) of the run of score > 0 around t = 0 (t: rows x T).

    Gaps up to `max_gap` samples are bridged, and so are `bright` samples (a specular spot)
    inside the run; the run's ends are the outermost samples that really look like piece,
    placed where the score crosses zero (sub-pixel).
    """
    rows, n = score.shape
    seen = score > 0
    fill = (seen | bright).astype(np.uint8)
    if max_gap > 0:
        kernel = np.ones((1, 2 * max_gap + 1), np.uint8)
        fill = cv2.morphologyEx(fill, cv2.MORPH_CLOSE, kernel, borderType=cv2.BORDER_REPLICATE)
    i0 = np.argmin(np.abs(t), axis=1)[:, None]
    idx = np.arange(n)[None, :]
    zero = fill == 0
    left = np.where(zero & (idx < i0), idx, -1).max(axis=1) + 1
    right = np.where(zero & (idx > i0), idx, n).min(axis=1) - 1
    lo = np.where(seen & (idx >= left[:, None]) & (idx <= i0), idx, n).min(axis=1)
    hi = np.where(seen & (idx <= right[:, None]) & (idx >= i0), idx, -1).max(axis=1)
    lo = np.where(lo >= n, i0[:, 0], lo)
    hi = np.where(hi < 0, i0[:, 0], hi)
    r = np.arange(rows)
    end = t[r, hi]
    nxt = np.minimum(hi + 1, n - 1)
    a, b = score[r, hi], score[r, nxt]
    ok = (hi + 1 < n) & (a > b)
    end = end + np.where(ok, (t[r, nxt] - t[r, hi]) * a / np.maximum(a - b, 1e-6), 0.0)
    prv = np.maximum(lo - 1, 0)
    a, b = score[r, lo], score[r, prv]
    ok = (lo > 0) & (a > b)
    start = t[r, lo] - np.where(ok, (t[r, lo] - t[r, prv]) * a / np.maximum(a - b, 1e-6), 0.0)
    return end - start


def run_lengths(image: np.ndarray, s: SquareSamples, idx: np.ndarray, light: LocalLight,
                piece_bgr: np.ndarray, background_bgr: np.ndarray, cfg: VisionConfig,
                ) -> tuple[np.ndarray, np.ndarray]:
    """Hidden runs of the squares `idx`: (P x lines) along the view, (P,) widest across.

    `piece_bgr` (P x 3) is each piece's colour; `background_bgr` holds the dark square, light
    square and frame colours (3 x 3).  All pieces are read in one pass (one remap).
    """
    kind = s.prof_kind[idx]
    width = int((kind != 3).sum(axis=-1).max())  # trim the padding no row of these needs
    kind = kind[..., :width]
    xy = s.prof_xy[idx][:, :, :width]  # (P, R, T, 2)
    p, rows, width, _ = xy.shape
    flat_xy = xy.reshape(p * rows, width, 2)
    colours = cv2.remap(image, flat_xy[..., 0], flat_xy[..., 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    colours = colours.reshape(p, rows, width, 3)
    corrected = (colours - light.offset[idx][:, None, None, :].astype(np.float32)) / \
        light.light_gain_of(idx)[:, None, None, None].astype(np.float32)
    bg = np.concatenate([background_bgr, background_bgr[:1]]).astype(np.float32)[kind]
    score = piece_score(corrected, piece_bgr[:, None, None, :].astype(np.float32), bg)
    t = s.prof_t[idx][..., :width]
    score[kind == 3] = -1.0
    # The middle of the piece is piece whatever it looks like (a specular spot, a printed
    # emblem): only the ends of the run carry information.
    inner = np.abs(t) < cfg.pieces.radius_sq - cfg.max_offset_sq - 0.03
    score[inner] = np.maximum(score[inner], 1.0)
    step = max(float(t[0, 0, 1] - t[0, 0, 0]), 1e-6)
    gap = max(2, int(round(cfg.max_gap_sq / step)))
    # A specular spot: much lighter than the piece and nearly grey.
    lum = colours.mean(axis=-1)
    chroma = colours.max(axis=-1) - colours.min(axis=-1)
    bright = (lum > piece_bgr.mean(axis=1)[:, None, None] + cfg.highlight_delta) & \
        (chroma < 0.35 * lum)
    runs = hidden_runs(score.reshape(p * rows, width), bright.reshape(p * rows, width),
                       t.reshape(p * rows, width), gap).reshape(p, rows)
    return runs[:, :s.n_along], runs[:, s.n_along:].max(axis=1)


def fit_lean(along: np.ndarray, offsets: np.ndarray, radius: np.ndarray, max_shift: float,
             ) -> np.ndarray:
    """Lean (squares) of each piece's top face from its along-view runs (P x lines).

    A piece of radius R shifted by o across the view hides, on the line at offset b, a run of
    2*sqrt(R^2 - (b - o)^2) + lean.  The shift is searched; the lean is the median residual,
    so one line spoiled by a ridge or a neighbour does not decide.
    """
    shifts = np.linspace(-max_shift, max_shift, 13)
    r = np.asarray(radius, np.float64)[:, None, None]
    chord = 2 * np.sqrt(np.maximum(r ** 2 - (offsets[None, None, :] - shifts[None, :, None])
                                   ** 2, 0.0))  # (P, K, lines)
    resid = along[:, None, :] - chord
    lean = np.median(resid, axis=2)  # (P, K)
    cost = np.abs(resid - lean[..., None]).sum(axis=2)
    best = np.argmin(cost, axis=1)
    return lean[np.arange(len(lean)), best]


def decide_kings(along: dict[int, np.ndarray], across: dict[int, float], s: SquareSamples,
                 cfg: VisionConfig, group: np.ndarray | None = None,
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """(is_king, confidence, disc height used) for the occupied squares measured.

    `group` (per square) names the piece set: each set's apparent width is its own (a light
    set looks wider than a dark one: light bleeds over edges).
    """
    n = len(s.playable)
    king = np.zeros(n, bool)
    conf = np.full(n, 0.5)
    if not along:
        return king, conf, cfg.pieces.height_sq
    # All pieces of a set have one size: the median width across the view is its diameter.
    groups = np.zeros(n, int) if group is None else np.asarray(group, int)
    radius = {}
    for g in set(groups[list(along)].tolist()):
        widths = [w for i, w in across.items() if groups[i] == g]
        radius[g] = 0.5 * float(np.median(widths))
    offsets = np.array(cfg.line_offsets_sq)
    keys = list(along)
    leans = fit_lean(np.array([along[i] for i in keys]), offsets,
                     np.array([radius[groups[i]] for i in keys]), cfg.max_offset_sq)
    excess = dict(zip(keys, leans.tolist(), strict=True))
    height = cfg.pieces.height_sq
    bias = 0.0
    lean = s.unit_lean
    resolvable = [i for i in excess if lean[i] * height * s.square_px >= cfg.min_king_px]
    if cfg.measure_height and len(resolvable) >= cfg.min_pieces_for_height:
        height, bias = measure_height(np.array([excess[i] for i in resolvable]),
                                      np.array([lean[i] for i in resolvable]), height)
    for i, e in excess.items():
        e = e - bias
        step_px = lean[i] * height * s.square_px  # man-to-king difference in pixels
        if step_px < cfg.min_king_px:
            continue  # too steep a view to tell one disc from two: say man, unsure
        split = lean[i] * height * (1.0 + cfg.king_split)
        king[i] = e > split
        z = abs(e - split) / (0.25 * lean[i] * height)
        conf[i] = float(2.0 / (1.0 + np.exp(-z)) - 1.0)
    return king, conf, height


def measure_height(excess: np.ndarray, lean: np.ndarray, nominal: float,
                   ) -> tuple[float, float]:
    """(disc height, bias) that best explain excess = bias + lean * height * (1 or 2).

    One disc for men, two for kings; the bias absorbs what the image does to every edge alike
    (blur, the colour boundary).  An L1 fit over a grid tolerates outliers and any mix of men
    and kings; a small pull towards the nominal height and zero bias settles flat cases.
    """
    heights = nominal * np.linspace(0.5, 2.0, 31)
    biases = np.zeros(1)
    e = excess[:, None, None]
    step = lean[:, None, None] * heights[None, :, None]
    r = e - biases[None, None, :]
    cost = np.minimum(np.abs(r - step), np.abs(r - 2 * step)).sum(axis=0)
    cost = cost + 0.02 * len(excess) * (np.abs(np.log(heights / nominal))[:, None]
                                         + np.abs(biases)[None, :] / 0.04)
    hi, bi = np.unravel_index(int(np.argmin(cost)), cost.shape)
    return float(heights[hi]), float(biases[bi])
