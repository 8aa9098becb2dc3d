"""Tell a stacked king from a man by its shadow: a stack twice as tall casts one twice as long.

Under a lamp, a piece's shadow on the board is its base disc swept away from the light by its
height times the cotangent of the light's elevation.  The lean that vision.kings reads fades
as the camera looks straight down (a man and a king then differ by a pixel or two); the shadow
does not, for it lies on the board, whose plane is known from any view.

All pieces share one light.  Its direction is where the board just beyond the pieces is
darkest; one disc's shadow length is the one that explains all pieces' shadows best, each one
disc or two (every king pays a little, so that a board of men is not read as kings of half
the height).  Then each piece is tested as in vision.kings: the band between one disc's and
two discs' shadow end is shadow for a king and lit board for a man.  Where the board shows no
shadow (diffuse light, a lamp overhead), nothing is said.

Brightness is read relative to the bare board's colour under the local light
(vision.light), so the test needs no colour of any one set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.config import ShadowConfig
from vision.geometry import segment_dist2
from vision.king_samples import KingSamples, diagonal_marked


@dataclass(frozen=True)
class ShadowReading:
    """What the pieces' shadows say.  `sure` 0 (no shadows seen: the rest says nothing)..1."""

    direction_rad: float  # on the board (squares' axes: files, then ranks), away from the light
    length_sq: float  # one disc's shadow beyond its base
    sure: float
    preference: np.ndarray  # (P,) -1 one disc .. +1 two discs, times `sure`; 0 when unseen
    evidence_px: np.ndarray  # (P,) one disc's shadow length in the image, times `sure`

    @staticmethod
    def none(n: int) -> ShadowReading:
        return ShadowReading(0.0, 0.0, 0.0, np.zeros(n), np.zeros(n))


def darkening(lum: np.ndarray, board_lum: np.ndarray) -> np.ndarray:
    """How much darker than the bare board a point is: 0 lit, up to 1 black (glare < 0)."""
    return 1.0 - lum / np.maximum(board_lum, 1.0)


def light_direction(x: np.ndarray, valid: np.ndarray, dist: np.ndarray, radius: np.ndarray,
                    ring_sq: float) -> tuple[float, float, float]:
    """(direction, as a fractional angle index; shadow darkening; lit darkening) from the
    darkening x (P, A, R) at points `dist` (P, A, R) from each piece's centre: per direction,
    the mean over pieces of the band just beyond the base (`ring_sq` wide); the shadow falls
    where it is darkest.  The lit level is the median direction's (the side facing the light
    instead, on dev scenes, called more men kings)."""
    near = valid & (dist >= radius[:, None, None]) & (dist < radius[:, None, None] + ring_sq)
    n = near.sum(axis=2)
    per_piece = np.where(n > 0, (x * near).sum(axis=2) / np.maximum(n, 1), np.nan)  # (P, A)
    seen = np.isfinite(per_piece)
    counts = seen.sum(axis=0)
    if not counts.any():
        return 0, 0.0, 0.0
    profile = np.where(counts > 0, np.nansum(per_piece, axis=0) / np.maximum(counts, 1), np.nan)
    # (A piece's own lean hides some directions: they are filled from their neighbours.)
    filled = np.where(np.isfinite(profile), profile, np.nanmedian(profile))
    smooth = (np.roll(filled, 1) + 2 * filled + np.roll(filled, -1)) / 4
    a = int(np.argmax(smooth))
    # The peak between directions: the parabola through the best and its two neighbours.
    before, after = smooth[a - 1], smooth[(a + 1) % len(smooth)]
    curve = before - 2 * smooth[a] + after
    between = float(np.clip(0.5 * (before - after) / curve, -0.5, 0.5)) if curve < 0 else 0.0
    return a + between, float(smooth[a]), float(np.median(smooth))


def shadow_reach(qx: np.ndarray, qy: np.ndarray, radius: np.ndarray, direction: np.ndarray,
                 ) -> np.ndarray:
    """(P, N): the shortest sweep along `direction` that puts each point (qx, qy) (P, N), from
    its piece's centre, in the piece's shadow; inf for points beside it.  A disc of radius r
    swept by s covers the point at (a along, b across) when |b| < r and -c <= a <= s + c,
    c = sqrt(r^2 - b^2): so from a - c on (when a >= -c)."""
    a = qx * direction[0] + qy * direction[1]
    b = qy * direction[0] - qx * direction[1]
    c2 = (radius ** 2)[:, None] - b * b
    c = np.sqrt(np.maximum(c2, 0.0))
    return np.where((c2 > 0) & (a >= -c), np.maximum(a - c, 0.0), np.inf)


def band_scores(x: np.ndarray, valid: np.ndarray, reach: np.ndarray, lengths: np.ndarray,
                weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(scores (P, L, 2), band counts (P, L)): for one disc's shadow length L and 1 or 2 discs,
    the (centred, -1..1) darkening x (P, N) of the points the shadow covers (`reach` (P, N) <=
    L or 2L), minus that of those it leaves out; the band is the points in two discs' shadow
    and not in one's.  With `weight` (P, N), each point counts that much, in the sums and the
    counts alike."""
    # Sums over the points with reach at most each threshold, from one pass of bins.
    thresholds = np.concatenate([lengths, 2 * lengths])
    order = np.argsort(thresholds)
    n_p, n_t = x.shape[0], len(thresholds)
    bins = np.searchsorted(thresholds[order], reach, side="left")  # (P, N) in 0..T
    flat = (np.arange(n_p)[:, None] * (n_t + 1) + bins)[valid]
    w = None if weight is None else weight[valid]
    xs = np.bincount(flat, x[valid] if w is None else x[valid] * w,
                     n_p * (n_t + 1)).reshape(n_p, n_t + 1)
    ns = np.bincount(flat, w, n_p * (n_t + 1)).reshape(n_p, n_t + 1)
    upto = np.empty((n_p, n_t))
    upto[:, order] = np.cumsum(xs, axis=1)[:, :n_t]
    count = np.empty((n_p, n_t))
    count[:, order] = np.cumsum(ns, axis=1)[:, :n_t]
    total = xs.sum(axis=1)[:, None]
    n_l = len(lengths)
    s1 = 2 * upto[:, :n_l] - total
    s2 = 2 * upto[:, n_l:] - total
    band = count[:, n_l:] - count[:, :n_l]
    return np.stack([s1, s2], axis=2), band


def fit_length(scores: np.ndarray, band: np.ndarray, king_cost: float) -> int:
    """The index of the length (of `band_scores`' L) that explains all pieces best, each one
    disc or two; a king pays `king_cost` of its band (both sides of it), so that pieces all
    alike are men, not kings with half as long a shadow."""
    explained = np.maximum(scores[:, :, 0], scores[:, :, 1] - 2 * king_cost * band)
    return int(np.argmax(explained.sum(axis=0)))


def read_shadows(lum: np.ndarray, board_lum: np.ndarray, ks: KingSamples, idx: np.ndarray,
                 offset_sq: np.ndarray, radius: np.ndarray, occupied: np.ndarray,
                 cfg: ShadowConfig, vote: np.ndarray | None = None) -> ShadowReading:
    """The light's direction, one disc's shadow length, and per piece (P,) which height its
    shadow says.

    lum, board_lum: (P, A, R) brightness at each piece's polar grid (`ks.ring_xy[idx]`) and
    that of the bare board there, both under the piece's local light; offset_sq (P, 2): each
    piece's centre from its square's centre on the plane; radius (P,) its base's radius
    (squares); occupied (S,) every square with something on it.  Only the pieces that `vote`
    (P,; all when None) measure the light: under a glare spot, brighter than the light model
    follows, the board beyond a piece looks lit or shaded by where the spot is, not the lamp.
    """
    n_p = len(idx)
    if n_p == 0:
        return ShadowReading.none(0)
    margin = cfg.margin_px / max(ks.square_px, 1.0)
    offset_sq = offset_sq.astype(np.float32)  # (as the grid: half the memory traffic)
    radius = radius.astype(np.float32)
    # Polar grid points from each piece's centre (P, A, R), x and y apart.
    qx = ks.ring_off[None, ..., 0] - offset_sq[:, 0, None, None]
    qy = ks.ring_off[None, ..., 1] - offset_sq[:, 1, None, None]
    dist = np.sqrt(qx * qx + qy * qy)
    kind = ks.ring_kind[idx]
    valid = (kind == ks.ring_mix[idx]) & (dist > radius[:, None, None] + margin)
    # Not on the piece itself (a king's silhouette, the tallest looked for) ...
    lean = ks.lam[idx, 1, None] * ks.away[idx]  # (P, 2)
    reach = radius * ks.rho[idx, 1] + margin
    valid &= segment_dist2(qx, qy, lean[:, 0, None, None], lean[:, 1, None, None]) \
        > (reach ** 2)[:, None, None]
    # ... nor on the pieces diagonally beside it (others are out of the grid's reach).
    nb = ks.diagonal[idx]  # (P, 4)
    here = diagonal_marked(nb, occupied)
    if here.any():
        clear = (radius.max() * ks.rho[nb, 1] + 0.12 + margin) ** 2  # (P, 4)
        far = ks.ring_neighbour_d2[idx] > clear[:, :, None, None]
        valid &= (far | ~here[:, :, None, None]).all(axis=1)
    x = darkening(lum, board_lum)
    if vote is None or vote.sum() < cfg.min_voters:
        vote = np.ones(n_p, bool)
    a, dark, lit = light_direction(x[vote], valid[vote], dist[vote], radius[vote], cfg.ring_sq)
    contrast = dark - lit
    lo, hi = cfg.contrast
    sure = float(np.clip((contrast - lo) / (hi - lo), 0.0, 1.0))
    if sure <= 0.0:
        return ShadowReading.none(n_p)
    phi = 2 * np.pi * a / cfg.angles
    direction = np.array([np.cos(phi), np.sin(phi)])
    # The sector around that direction, centred and scaled darkening.
    n_a = cfg.angles
    half = int(round(cfg.sector_deg / 360.0 * n_a))
    rows = [(int(round(a)) + k) % n_a for k in range(-half, half + 1)]

    def centred(sector: list[int]) -> np.ndarray:
        """(P, N) the darkening in `sector`'s directions, -1 lit .. +1 as dark as a shadow."""
        return np.clip((x[:, sector] - 0.5 * (dark + lit)) / (0.5 * contrast), -1.0,
                       1.0).reshape(n_p, -1)

    xs = centred(rows)
    vs = valid[:, rows].reshape(n_p, -1)
    qxs = qx[:, rows].reshape(n_p, -1)
    qys = qy[:, rows].reshape(n_p, -1)
    lo_l, hi_l, n_l = cfg.lengths_sq
    lengths = np.geomspace(lo_l, hi_l, n_l)
    reach = shadow_reach(qxs, qys, radius, direction)
    # A darkening is a share of the bare board's brightness: on a dark square the same noise
    # is a larger share, and a point there counts for less, as that brightness.
    bl = board_lum[:, rows].reshape(n_p, -1)
    weight = (bl / max(float(bl.max()), 1.0)) ** cfg.lum_weight
    scores, band = band_scores(xs, vs, reach, lengths, weight)
    li = fit_length(scores[vote], band[vote], cfg.king_cost)
    length = float(lengths[li])
    # The band's points a piece shows, against those it would show unhidden.
    in_band = (reach > length) & (reach <= 2 * length)
    shown = (in_band & vs).sum(axis=1) / np.maximum(in_band.sum(axis=1), 1)
    pref = (scores[:, li, 1] - scores[:, li, 0]) / np.maximum(2.0 * band[:, li], 1.0)
    seen = shown >= cfg.min_band_share
    # A shadow ends: board as dark past where a king's would (the edge of a hard shadow on
    # the piece's shadow side, a hand's) is no piece's shadow, and says little of its height.
    # The board one more length past (-1 lit .. +1 as dark as the shadows) keeps the
    # preference whole while no darker than halfway, and none of it as dark as a shadow.
    # (Rendered scenes, seeds 1, 7, 30: 22 men and kings fewer misread, 8 more; most in a
    # hard shadow.  Scaled to nothing from halfway already: 9 fewer on seed 1 against 11.)
    past = (reach > 2 * length) & (reach <= 3 * length) & vs
    n_past = (past * weight).sum(axis=1)
    dark_past = np.where(n_past >= 1.0,
                         (xs * past * weight).sum(axis=1) / np.maximum(n_past, 1e-6), -1.0)
    pref = pref * np.clip(1.0 - dark_past, 0.0, 1.0)
    # Nor is the board dark on the side facing the light: the piece stands in a shadow (of a
    # hand, the edge of a hard one) that no light model this smooth follows, and the board
    # beyond it is dark whatever the piece's height.  Read as far out as a king's shadow
    # reaches, in the sector opposite.  (Seeds 1, 7, 30: 13 fewer misread, none more.)
    front = [(r + n_a // 2) % n_a for r in rows]
    xf = centred(front)
    vf = valid[:, front].reshape(n_p, -1) & (
        dist[:, front].reshape(n_p, -1) <= radius[:, None] + 2 * length)
    wf = (board_lum[:, front].reshape(n_p, -1) / max(float(bl.max()), 1.0)) ** cfg.lum_weight
    n_front = (vf * wf).sum(axis=1)
    dark_front = np.where(n_front >= 1.0,
                          (xf * vf * wf).sum(axis=1) / np.maximum(n_front, 1e-6), -1.0)
    pref = pref * np.clip(1.0 - dark_front, 0.0, 1.0)
    return ShadowReading(float(phi), length, sure, np.where(seen, pref, 0.0) * sure,
                         np.where(seen, length * ks.square_px * sure, 0.0))
