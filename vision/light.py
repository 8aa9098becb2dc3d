"""The light over the board, from the bare board itself: obs = gain(x) * true + veil(x).

A shadow scales every colour (gain < 1); glare and veiling reflections add light of the lamp's
colour, which the camera's white balance makes grey (veil >= 0, the same in every channel).
The board shows its own references everywhere: patches just inside each playable square's
corners (dark colour) and the far halves of the light squares (light colour), whose true colours
are the board-wide medians.  At any point the gain and the veil are a least-squares fit to the
references around it, weighted by distance (a Gaussian of `sigma_sq` squares), so the light may
vary within a square (a glare spot, a shadow's edge) as it does on the board.

Not every reference shows bare board: a piece leaning over a corner patch, a hand or an arm.
Such a reference does not fit the light its neighbours imply (a coloured hand is neither a
dimmed nor a veiled board colour), so the fit is repeated with each reference weighted by how
well the others explain it.  A point with no trusted reference nearby falls back to the fit of
the whole board.  Inverting the model makes a square under glare or in a shadow look like the
same square in plain light, and leaves a hand looking like a hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.stats import channel_sum, median

# A reference with a channel this bright may be clipped by the sensor: it understates the light.
_SATURATED = 250.0


# OpenBLAS runs a matrix product on one thread when m * n * k is at most this (65536 times its
# default GEMM_MULTITHREAD_THRESHOLD of 4): a multithreaded product of these small sizes, on a
# small computer busy with the camera, costs more than it saves.
_ONE_THREAD_MNK = 65536 * 4


@dataclass(frozen=True)
class Weights:
    """Row x takes `matrix[x, r]` of reference r (at most `max_refs` non-zero per row).

    Applied as a dense matrix product in blocks of rows small enough for one thread: a product
    does the few hundred thousand multiplications several times faster than gathering only
    the non-zero ones."""

    matrix: np.ndarray  # (X, R) float64

    def apply(self, per_ref: np.ndarray) -> np.ndarray:
        """(X, C) weighted sums of `per_ref` (R, C)."""
        rows = max(1, _ONE_THREAD_MNK // (per_ref.shape[1] * self.matrix.shape[1]))
        if len(self.matrix) <= rows:
            return self.matrix @ per_ref
        return np.vstack([self.matrix[i:i + rows] @ per_ref
                          for i in range(0, len(self.matrix), rows)])


@dataclass(frozen=True)
class LightPlan:
    """Where the references are, and their weights at every point the classifier reads.

    Computed once per board pose (see `vision.sampling`).  References: four corner patches per
    playable square (index 4 * square + corner), then one per light square.
    """

    n_dark: int  # number of corner-patch references (4 per playable square)
    w_ref: Weights  # (R) of the other references at each reference (never itself)
    w_base: Weights  # (S * P) at every base-disc sample
    w_centre: Weights  # (S) at each playable square's centre
    w_probe: Weights  # (L) at each light square's probe centre
    w_corner: Weights  # (C) at each interior grid corner


def _weights(points_uv: np.ndarray, refs_uv: np.ndarray, sigma_sq: float,
             exclude_self: bool = False, max_refs: int = 24) -> Weights:
    d2 = ((points_uv[:, None, :] - refs_uv[None, :, :]) ** 2).sum(axis=-1)
    w = np.exp(-d2 / (2 * sigma_sq ** 2))
    w[w < 1e-2] = 0.0  # beyond 3 sigma a reference says little about this point
    if exclude_self:
        np.fill_diagonal(w, 0.0)
    k = min(max_refs, max(1, int((w > 0).sum(axis=1).max())))
    idx = np.argsort(-w, axis=1)[:, :k]
    matrix = np.zeros_like(w)
    np.put_along_axis(matrix, idx, np.take_along_axis(w, idx, axis=1), axis=1)
    return Weights(matrix)


def plan_light(corner_uv: np.ndarray, probe_uv: np.ndarray, base_uv: np.ndarray,
               centre_uv: np.ndarray, grid_uv: np.ndarray, sigma_sq: float) -> LightPlan:
    """Weights for the references at (S, 4, 2) corner patches and (L, 2) light probes."""
    refs = np.vstack([corner_uv.reshape(-1, 2), probe_uv])
    return LightPlan(corner_uv.shape[0] * 4, _weights(refs, refs, sigma_sq, exclude_self=True),
                     _weights(base_uv.reshape(-1, 2), refs, sigma_sq),
                     _weights(centre_uv, refs, sigma_sq), _weights(probe_uv, refs, sigma_sq),
                     _weights(grid_uv.reshape(-1, 2), refs, sigma_sq))


@dataclass(frozen=True)
class LocalLight:
    gain: np.ndarray  # (S,) at each playable square's centre
    offset: np.ndarray  # (S, 3) BGR, the veil at the centre (equal channels)
    light_gain: np.ndarray  # (L,) at each light square's probes
    light_offset: np.ndarray  # (L, 3)
    base_gain: np.ndarray  # (S, P) at each base-disc sample
    base_offset: np.ndarray  # (S, P)
    corner_gain: np.ndarray  # (C,) at each interior grid corner
    corner_offset: np.ndarray  # (C,)
    trust: np.ndarray  # (R,) 0..1, how well the other references explain each reference

    def correct(self, bgr: np.ndarray, i: int) -> np.ndarray:
        """True colour of pixels seen near the centre of playable square i."""
        return (bgr - self.offset[i]) / self.gain[i]

    def light_gain_of(self, idx: np.ndarray) -> np.ndarray:
        """Gains of the playable squares `idx`."""
        return self.gain[idx]

    def correct_all(self, bgr: np.ndarray) -> np.ndarray:
        """(S, K, 3) samples of every playable square, with the light at its centre."""
        return (bgr - self.offset[:, None, :]) / self.gain[:, None, None]

    def correct_base(self, bgr: np.ndarray) -> np.ndarray:
        """(S, P, 3) base-disc samples, each with the light at its own place."""
        return (bgr - self.base_offset[..., None]) / self.base_gain[..., None]

    def correct_light(self, bgr: np.ndarray) -> np.ndarray:
        """(L, Q, 3) samples of every light square."""
        return (bgr - self.light_offset[:, None, :]) / self.light_gain[:, None, None]


def _solve(w: Weights, q: np.ndarray, prior_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares for (gain, veil) at each row of `w` (see `local_light`)."""
    a, b, c, e, f = (w.apply(q) + prior_q).T
    det = np.maximum(a * c - b * b, 1e-9)
    return (e * c - b * f) / det, (a * f - b * e) / det


def local_light(plan: LightPlan, ref_bgr: np.ndarray, probe_bgr: np.ndarray,
                dark_bgr: np.ndarray, light_bgr: np.ndarray, n_base: int,
                trust_share: float = 0.2, prior_weight: float = 0.05,
                iterations: int = 3) -> LocalLight:
    """Fit gain and veil around every sample from the board's references.

    `ref_bgr` (S, 4, 3): each playable square's corner patches; `probe_bgr` (L, 3): each light
    square's probe colour; `dark_bgr`, `light_bgr`: the board-wide true colours.
    """
    obs = np.vstack([ref_bgr.reshape(-1, 3), probe_bgr]).astype(np.float64)
    true = np.vstack([np.repeat(dark_bgr[None], plan.n_dark, axis=0),
                      np.repeat(light_bgr[None], len(probe_bgr), axis=0)]).astype(np.float64)
    # Per reference, the terms of the normal equations of min |obs - g * true - v * (1,1,1)|^2.
    q = np.column_stack([(true * true).sum(axis=1), true.sum(axis=1), np.full(len(obs), 3.0),
                         (true * obs).sum(axis=1), obs.sum(axis=1)])
    span = float(np.linalg.norm(light_bgr - dark_bgr))
    tol = max(trust_share * span, 6.0)
    # A sensor-clipped reference counts less.
    base_w = np.where(obs.max(axis=1) >= _SATURATED, 0.2, 1.0)
    weight = base_w
    tt = float(np.mean(q[:, 0]))

    def prior_terms(g0: float, v0: float) -> np.ndarray:
        # prior_weight * ((g - g0)^2 * tt + 3 * (v - v0)^2), as extra normal-equation terms.
        return prior_weight * np.array([tt, 0.0, 3.0, g0 * tt, 3.0 * v0])

    g0, v0 = 1.0, 0.0
    for _ in range(iterations):
        wq = q * weight[:, None]
        # The whole board's light (trusted references only) is the fallback everywhere.
        tot = wq.sum(axis=0)
        det = max(tot[0] * tot[2] - tot[1] ** 2, 1e-9)
        g0 = float(np.clip((tot[3] * tot[2] - tot[1] * tot[4]) / det, 0.2, 3.0))
        v0 = float(np.clip((tot[0] * tot[4] - tot[1] * tot[3]) / det, -30.0, 255.0))
        g, v = _solve(plan.w_ref, wq, prior_terms(g0, v0))
        g, v = np.clip(g, 0.15, 3.0), np.clip(v, -30.0, 255.0)
        resid = np.linalg.norm(obs - g[:, None] * true - v[:, None], axis=1)
        weight = base_w / (1.0 + (resid / tol) ** 4)

    wq = q * weight[:, None]
    prior = prior_terms(g0, v0)

    def field(w: Weights) -> tuple[np.ndarray, np.ndarray]:
        g, v = _solve(w, wq, prior)
        return np.clip(g, 0.15, 3.0).astype(np.float32), np.clip(v, -30.0, 255.0).astype(
            np.float32)

    gc, vc = field(plan.w_centre)
    gl, vl = field(plan.w_probe)
    gb, vb = field(plan.w_base)
    gk, vk = field(plan.w_corner)
    s = len(gc)
    return LocalLight(gc, np.repeat(vc[:, None], 3, axis=1), gl, np.repeat(vl[:, None], 3, axis=1),
                      gb.reshape(s, n_base), vb.reshape(s, n_base), gk, vk, weight)


def same_colour_pairs(x: np.ndarray, y: np.ndarray, chroma_tol: float = 0.035,
                      brightness_ratio: float = 4.0, floor: float = 10.0) -> np.ndarray:
    """(N,) which colours x (N, 3) are colours y (N, 3; or one, (3,)) in another light: the
    same chromaticity (within `chroma_tol`) and brightness within a factor
    `brightness_ratio` (see `board_colour`)."""
    x = np.asarray(x, np.float64)
    y = np.broadcast_to(np.asarray(y, np.float64), x.shape)
    tx, ty = x.sum(axis=1) + 3 * floor, y.sum(axis=1) + 3 * floor
    d = (x + floor) / tx[:, None] - (y + floor) / ty[:, None]
    return (((d * d).sum(axis=1) < chroma_tol ** 2)
            & (np.abs(np.log(tx) - np.log(ty)) < np.log(brightness_ratio)))


def board_colour(samples_bgr: np.ndarray, chroma_tol: float = 0.035,
                 brightness_ratio: float = 4.0, floor: float = 10.0,
                 avoid_bgr: np.ndarray | None = None) -> np.ndarray:
    """The board's own colour from many samples of it, some of which show something else.

    Shadows and a gradient change a colour's brightness a little and its chromaticity (its
    share of each channel) not at all; a piece, a hand or glare change one or the other a lot.
    So the colour is the one that most samples share, by chromaticity and within a factor
    `brightness_ratio` of brightness; a hand or an arm over a quarter of the board, or pieces on
    many corner patches, do not move it.  (`floor` keeps the chromaticity of near-black samples,
    which is mostly noise, from scattering them.)  Its value is the median of those samples.
    Samples that share `avoid_bgr`'s colour by the same test take no part (see
    `board_colours`).
    """
    x = samples_bgr.reshape(-1, 3).astype(np.float64)
    total = x.sum(axis=1)
    chroma = (x + floor) / (total + 3 * floor)[:, None]
    log_b = np.log(total + 3 * floor)
    if avoid_bgr is not None:
        same = same_colour_pairs(x, avoid_bgr, chroma_tol, brightness_ratio, floor)
        if (~same).sum() >= 3:
            x, chroma, log_b = x[~same], chroma[~same], log_b[~same]
    sq = (chroma * chroma).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (chroma @ chroma.T)
    near = (d2 < chroma_tol ** 2) & (np.abs(log_b[:, None] - log_b[None, :])
                                     < np.log(brightness_ratio))
    seed = int(np.argmax(near.sum(axis=1)))
    members = near[seed]
    # (The sample with the most neighbours may sit between two colours, say the board's and
    # a hand's of a like hue: then their median is off it, and the members are re-drawn
    # around that.)
    off = float(np.linalg.norm(median(chroma[members], axis=0) - chroma[seed]))
    for _ in range(2 if off > 0.5 * chroma_tol else 0):
        centre = median(chroma[members], axis=0)
        c_b = float(median(log_b[members], axis=0))
        members = (((chroma - centre) ** 2).sum(axis=1) < chroma_tol ** 2) & (
            np.abs(log_b - c_b) < np.log(brightness_ratio))
        if not members.any():
            members = near[seed]
            break
    return median(x[members], axis=0)


def board_colours(dark_samples_bgr: np.ndarray, light_samples_bgr: np.ndarray,
                  min_distance: float = 40.0, beside: np.ndarray | None = None,
                  min_squares: int = 4, max_shared: float = 0.2, min_support: float = 0.25,
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(dark, light) board colours from samples of the dark (S, K, 3) and of the light
    squares (L, 3).

    A hand or an arm over most of the board can be the colour most samples of both kinds
    share; the two squares of a checker board are never one colour, so when the two come out
    within `min_distance` (BGR) of each other, that colour is left out of both votes.  A hand
    over most dark squares' corner patches but fewer light squares' probes can still win the
    dark vote alone.  Given `beside` (S, L: light square j borders dark square i), only dark
    squares whose light neighbours all show the light colour, and in about its light, vote
    (when at least `min_squares` do): the light model takes both colours as seen in one light,
    so a hard shadow over part of the board must not give it a lit dark colour and a shaded
    light one.  Nor those of the colour of a neighbour: no checker shows there.

    A hand over more than half the light squares wins their vote outright.  It lies over dark
    squares alike, whose samples (corner patches, clear of any piece) hardly show the light
    squares' colour (a glare spot may wash a few out to it): a winner that more than
    `max_shared` of them share, and half as many of them as of the light samples or more, is
    voted again without it, and the runner-up taken if at least `min_support` of the light
    samples show it and hardly any dark one does; the dark squares' vote then leaves the
    hand's colour out too.  (A grey-and-white board, whose two colours pass for one in two
    lights, keeps its winner: no runner-up has the support.)  Likewise a hand of one even
    colour can win the dark vote over a board whose squares glare spreads over several
    colours: a dark winner that more than `max_shared` of the light samples share is voted
    again without it, and the runner-up taken on the same terms.
    """
    light = board_colour(light_samples_bgr)
    dark_flat = dark_samples_bgr.reshape(-1, 3)
    hand = None
    on_dark = float(same_colour_pairs(dark_flat, light).mean())
    if on_dark > max_shared and on_dark >= 0.5 * float(
            same_colour_pairs(light_samples_bgr, light).mean()):
        other = board_colour(light_samples_bgr, avoid_bgr=light)
        if (float(same_colour_pairs(light_samples_bgr, other).mean()) >= min_support
                and float(same_colour_pairs(dark_flat, other).mean()) < 0.5 * max_shared):
            hand, light = light, other
    if beside is not None:
        clear = same_colour_pairs(light_samples_bgr, light, brightness_ratio=1.3)
        own = median(dark_samples_bgr, axis=1)  # (S, 3)
        i, j = np.nonzero(beside)
        fine = clear[j] & ~same_colour_pairs(own[i], light_samples_bgr[j])
        ok = beside.any(axis=1) & (np.bincount(i, ~fine, len(own)) == 0)
        if ok.sum() >= min_squares:
            dark_samples_bgr = dark_samples_bgr[ok]
    dark = board_colour(dark_samples_bgr, avoid_bgr=hand)
    if hand is None and float(same_colour_pairs(light_samples_bgr, dark).mean()) > max_shared:
        other = board_colour(dark_samples_bgr, avoid_bgr=dark)
        if (float(same_colour_pairs(dark_flat, other).mean()) >= min_support
                and float(same_colour_pairs(light_samples_bgr, other).mean()) < 0.5 * max_shared):
            dark = other
    if float(np.linalg.norm(dark - light)) < min_distance:
        common = 0.5 * (dark + light)
        dark = board_colour(dark_samples_bgr, avoid_bgr=common)
        light = board_colour(light_samples_bgr, avoid_bgr=common)
    return dark, light


def fit_veil(x: np.ndarray, true: np.ndarray, axes: tuple[int, ...] = (-1,),
             clip: float = 250.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gain, veil, rms residual) explaining observed colours x as gain * true + veil.

    `true` broadcasts against x; one (gain, veil) is fitted over `axes` (the channels, or
    several samples with their own true colours that share one light, e.g. the four squares
    at a grid corner).  A value at the sensor's limit (`clip`) only says the truth is at least
    that: it is left out of the fit and counts in the residual by how far the fit falls below
    it.  With fewer than two values left the fit is unknown (NaN gain and veil, infinite
    residual).
    """
    x = np.asarray(x, np.float64)
    t = np.broadcast_to(np.asarray(true, np.float64), x.shape)
    w = (x < clip).astype(np.float64)

    def total(a: np.ndarray) -> np.ndarray:
        return channel_sum(a) if axes in ((-1,), (x.ndim - 1,)) else a.sum(axis=axes)

    wt = w * t
    sw, swt, swtt = total(w), total(wt), total(wt * t)
    b_t, b_e = total(wt * x), total(w * x)
    det = swtt * sw - swt * swt
    known = (sw >= 2) & (np.abs(det) > 1e-6)
    det = np.where(known, det, 1.0)
    g = np.where(known, (sw * b_t - swt * b_e) / det, np.nan)
    v = np.where(known, (swtt * b_e - swt * b_t) / det, np.nan)
    g_b, v_b = np.expand_dims(g, axes), np.expand_dims(v, axes)
    pred = g_b * t + v_b
    miss = np.where(w > 0, x - pred, np.maximum(clip - 5.0 - pred, 0.0))
    n = np.prod([x.shape[a] for a in axes])
    r = np.sqrt(total(np.nan_to_num(miss) ** 2) / n)
    return g, v, np.where(known, r, np.inf)
