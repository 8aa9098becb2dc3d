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

import numpy as np

from vision.config import VisionConfig
from vision.sampling import SquareSamples


def _ray_distance(x: np.ndarray, b: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Distance from colours x (..., 3) to the segment {a*b : lo <= a <= hi}."""
    bb = max(float(b @ b), 1e-6)
    a = np.clip((x @ b) / bb, lo, hi)
    return np.linalg.norm(x - a[..., None] * b, axis=-1)


def piece_pixels(x: np.ndarray, piece_bgr: np.ndarray, board_bgr: np.ndarray) -> np.ndarray:
    """True where colour x is nearer the piece (any shade) than the board under it."""
    d_piece = _ray_distance(x, piece_bgr, 0.2, 1.6)
    bb = np.maximum((board_bgr * board_bgr).sum(axis=-1), 1e-6)
    a = np.clip((x * board_bgr).sum(axis=-1) / bb, 0.25, 1.5)
    d_board = np.linalg.norm(x - a[..., None] * board_bgr, axis=-1)
    return d_piece < d_board


def hidden_run_length(seen: np.ndarray, t: np.ndarray, max_gap: int) -> float:
    """Length (in t units) of the run of `seen` around t = 0, bridging gaps up to `max_gap`."""
    i0 = int(np.argmin(np.abs(t)))
    if not seen[i0]:
        lo_i = max(0, i0 - 3 * max_gap - 1)
        near = np.flatnonzero(seen[lo_i:i0 + 3 * max_gap + 2])
        if len(near) == 0:
            return 0.0
        i0 = lo_i + int(near[np.argmin(np.abs(lo_i + near - i0))])
    lo = hi = i0
    gap = 0
    j = i0
    while j + 1 < len(seen) and gap <= max_gap:
        j += 1
        if seen[j]:
            hi, gap = j, 0
        else:
            gap += 1
    gap = 0
    j = i0
    while j - 1 >= 0 and gap <= max_gap:
        j -= 1
        if seen[j]:
            lo, gap = j, 0
        else:
            gap += 1
    return float(t[hi] - t[lo])


def lean_excess(flat: np.ndarray, s: SquareSamples, i: int, gain: np.ndarray,
                piece_bgr: np.ndarray, background_bgr: np.ndarray, cfg: VisionConfig) -> float:
    """Hidden run along the view direction minus across it, in squares, for square i.

    `background_bgr` holds the dark square, light square and frame colours (3 x 3).
    """
    board = background_bgr
    lengths = []
    for px, t, light in ((s.line_px[i], s.line_t[i], s.line_light[i]),
                         (s.cross_px[i], s.cross_t[i], s.cross_light[i])):
        x = flat[px] * gain
        seen = piece_pixels(x, piece_bgr, board[light.astype(int)])
        lengths.append(max(hidden_run_length(row, t, cfg.max_gap_px) for row in seen))
    return lengths[0] - lengths[1]


def decide_kings(excess: np.ndarray, idx: np.ndarray, s: SquareSamples, cfg: VisionConfig,
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """(is_king, confidence, disc height used) for the occupied squares `idx`."""
    n = len(excess)
    king = np.zeros(n, bool)
    conf = np.full(n, 0.5)
    height = cfg.pieces.height_sq
    lean = s.unit_lean
    resolvable = [i for i in idx if lean[i] * height * s.square_px >= cfg.min_king_px]
    if cfg.measure_height and len(resolvable) >= cfg.min_pieces_for_height:
        ratios = np.array([excess[i] / max(lean[i], 1e-6) for i in resolvable])
        height = measure_height(ratios, height)
    for i in idx:
        step_px = lean[i] * height * s.square_px  # man-to-king difference in pixels
        if step_px < cfg.min_king_px:
            continue  # too steep a view to tell one disc from two: say man, unsure
        split = lean[i] * height * (1.0 + cfg.king_split)
        king[i] = excess[i] > split
        z = abs(excess[i] - split) / (0.25 * lean[i] * height)
        conf[i] = float(2.0 / (1.0 + np.exp(-z)) - 1.0)
    return king, conf, height


def measure_height(ratios: np.ndarray, nominal: float) -> float:
    """Disc height that best explains measured heights as one disc (men) or two (kings).

    Minimises sum(min(|r - h|, |r - 2h|)) over h in [0.5, 2] x nominal: an L1 fit that
    tolerates outliers and any mix of men and kings.
    """
    candidates = nominal * np.linspace(0.5, 2.0, 61)
    r = ratios[:, None]
    cost = np.minimum(np.abs(r - candidates), np.abs(r - 2 * candidates)).sum(axis=0)
    # Prefer the nominal height when the data hardly distinguish (few pieces, all alike).
    cost = cost + 0.05 * len(ratios) * np.abs(np.log(candidates / nominal))
    return float(candidates[int(np.argmin(cost))])
