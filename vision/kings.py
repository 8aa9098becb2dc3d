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
    """Distance from colours x (..., 3) to the segment {a*b : lo <= a <= hi}."""
    bb = max(float(b @ b), 1e-6)
    a = np.clip((x @ b) / bb, lo, hi)
    return np.linalg.norm(x - a[..., None] * b, axis=-1)


def piece_score(x: np.ndarray, piece_bgr: np.ndarray, board_bgr: np.ndarray) -> np.ndarray:
    """Positive where colour x is nearer the piece (any shade) than the board under it."""
    d_piece = _ray_distance(x, piece_bgr, 0.2, 1.6)
    bb = np.maximum((board_bgr * board_bgr).sum(axis=-1), 1e-6)
    a = np.clip((x * board_bgr).sum(axis=-1) / bb, 0.25, 1.5)
    d_board = np.linalg.norm(x - a[..., None] * board_bgr, axis=-1)
    return d_board - d_piece


def hidden_run_length(score: np.ndarray, t: np.ndarray, max_gap: int,
                      bright: np.ndarray | None = None, max_bright: int = 0) -> float:
    """Length (in t units) of the run of score > 0 around t = 0, bridging gaps up to
    `max_gap` samples, and stretches of `bright` samples (a specular spot) up to `max_bright`;
    its ends are placed where the score crosses zero (sub-pixel)."""
    seen = score > 0
    if bright is None:
        bright = np.zeros(len(seen), bool)
    i0 = int(np.argmin(np.abs(t)))
    if not seen[i0]:
        lo_i = max(0, i0 - 3 * max_gap - 1)
        near = np.flatnonzero(seen[lo_i:i0 + 3 * max_gap + 2])
        if len(near) == 0:
            return 0.0
        i0 = lo_i + int(near[np.argmin(np.abs(lo_i + near - i0))])
    lo = hi = i0
    gap = shine = 0
    j = i0
    while j + 1 < len(seen) and gap <= max_gap and shine <= max_bright:
        j += 1
        if seen[j]:
            hi, gap, shine = j, 0, 0
        elif bright[j]:
            shine += 1
        else:
            gap += 1
    gap = shine = 0
    j = i0
    while j - 1 >= 0 and gap <= max_gap and shine <= max_bright:
        j -= 1
        if seen[j]:
            lo, gap, shine = j, 0, 0
        elif bright[j]:
            shine += 1
        else:
            gap += 1
    end, start = float(t[hi]), float(t[lo])
    if hi + 1 < len(t):
        a, b = float(score[hi]), float(score[hi + 1])
        end += (t[hi + 1] - t[hi]) * a / max(a - b, 1e-6)
    if lo > 0:
        a, b = float(score[lo]), float(score[lo - 1])
        start -= (t[lo] - t[lo - 1]) * a / max(a - b, 1e-6)
    return end - start


def run_lengths(image: np.ndarray, s: SquareSamples, i: int, light: LocalLight,
                piece_bgr: np.ndarray, background_bgr: np.ndarray, cfg: VisionConfig,
                ) -> tuple[np.ndarray, float]:
    """Hidden runs of square i: along the view on each profile line, and the widest across.

    `background_bgr` holds the dark square, light square and frame colours (3 x 3).
    """
    out = []
    for px, t, kind in ((s.line_px[i], s.line_t[i], s.line_light[i]),
                        (s.cross_px[i], s.cross_t[i], s.cross_light[i])):
        colours = cv2.remap(image, px[..., 0], px[..., 1], cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        score = piece_score(light.correct(colours, i), piece_bgr,
                            background_bgr[kind.astype(int)])
        # The middle of the piece is piece whatever it looks like (a specular spot, a printed
        # emblem): only the ends of the run carry information.
        inner = cfg.pieces.radius_sq - cfg.max_offset_sq - 0.03
        score[:, np.abs(t) < inner] = np.maximum(score[:, np.abs(t) < inner], 1.0)
        step = max(float(t[1] - t[0]), 1e-6)
        gap = max(2, int(round(cfg.max_gap_sq / step)))
        shine = int(round(cfg.max_highlight_sq / step))
        # A specular spot: much lighter than the piece and nearly grey.
        lum = colours.mean(axis=-1)
        chroma = colours.max(axis=-1) - colours.min(axis=-1)
        bright = (lum > float(piece_bgr.mean()) + cfg.highlight_delta) & (chroma < 0.35 * lum)
        out.append(np.array([hidden_run_length(row, t, gap, b, shine)
                             for row, b in zip(score, bright, strict=True)]))
    return out[0], float(out[1].max())


def fit_lean(along: np.ndarray, offsets: np.ndarray, radius: float, max_shift: float,
             ) -> float:
    """Lean (squares) of the top face from the along-view runs of parallel profile lines.

    A piece of radius R shifted by o across the view hides, on the line at offset b, a run of
    2*sqrt(R^2 - (b - o)^2) + lean.  The shift is searched; the lean is the median residual,
    so one line spoiled by a ridge or a neighbour does not decide.
    """
    best_cost, best_lean = np.inf, 0.0
    for o in np.linspace(-max_shift, max_shift, 13):
        chord = 2 * np.sqrt(np.maximum(radius ** 2 - (offsets - o) ** 2, 0.0))
        resid = along - chord
        lean = float(np.median(resid))
        cost = float(np.abs(resid - lean).sum())
        if cost < best_cost:
            best_cost, best_lean = cost, lean
    return best_lean


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
    excess = {i: fit_lean(a, offsets, radius[groups[i]], cfg.max_offset_sq)
              for i, a in along.items()}
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
