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

# A reference with a channel this bright may be clipped by the sensor: it understates the light.
_SATURATED = 250.0


@dataclass(frozen=True)
class LightPlan:
    """Where the references are, and their weights at every point the classifier reads.

    Computed once per board pose (see `vision.sampling`).  References: four corner patches per
    playable square (index 4 * square + corner), then one per light square.
    """

    n_dark: int  # number of corner-patch references (4 per playable square)
    w_ref: np.ndarray  # (R, R) weights of the other references at each reference (0 diagonal)
    w_base: np.ndarray  # (S * P, R) at every base-disc sample
    w_centre: np.ndarray  # (S, R) at each playable square's centre
    w_probe: np.ndarray  # (L, R) at each light square's probe centre


def _weights(points_uv: np.ndarray, refs_uv: np.ndarray, sigma_sq: float) -> np.ndarray:
    d2 = ((points_uv[:, None, :] - refs_uv[None, :, :]) ** 2).sum(axis=-1)
    w = np.exp(-d2 / (2 * sigma_sq ** 2))
    w[w < 1e-3] = 0.0
    return w.astype(np.float32)


def plan_light(corner_uv: np.ndarray, probe_uv: np.ndarray, base_uv: np.ndarray,
               centre_uv: np.ndarray, sigma_sq: float) -> LightPlan:
    """Weights for the references at (S, 4, 2) corner patches and (L, 2) light probes."""
    refs = np.vstack([corner_uv.reshape(-1, 2), probe_uv])
    w_ref = _weights(refs, refs, sigma_sq)
    np.fill_diagonal(w_ref, 0.0)
    return LightPlan(corner_uv.shape[0] * 4, w_ref,
                     _weights(base_uv.reshape(-1, 2), refs, sigma_sq),
                     _weights(centre_uv, refs, sigma_sq), _weights(probe_uv, refs, sigma_sq))


@dataclass(frozen=True)
class LocalLight:
    gain: np.ndarray  # (S,) at each playable square's centre
    offset: np.ndarray  # (S, 3) BGR, the veil at the centre (equal channels)
    light_gain: np.ndarray  # (L,) at each light square's probes
    light_offset: np.ndarray  # (L, 3)
    base_gain: np.ndarray  # (S, P) at each base-disc sample
    base_offset: np.ndarray  # (S, P)
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


def _solve(w: np.ndarray, q: np.ndarray, prior: np.ndarray, prior_q: np.ndarray,
           ) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares for (gain, veil) at each row of `w` (see `local_light`)."""
    s = w @ q + prior_q
    a, b, c, e, f = s.T
    det = np.maximum(a * c - b * b, 1e-9)
    gain = (e * c - b * f) / det
    veil = (a * f - b * e) / det
    # Where the fit is unsure (no light reference nearby), `prior_q` keeps it near `prior`.
    del prior
    return gain, veil


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
    weight = np.where(obs.max(axis=1) >= _SATURATED, 0.2, 1.0)
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
        g, v = _solve(plan.w_ref, wq, None, prior_terms(g0, v0))  # type: ignore[arg-type]
        g, v = np.clip(g, 0.15, 3.0), np.clip(v, -30.0, 255.0)
        resid = np.linalg.norm(obs - g[:, None] * true - v[:, None], axis=1)
        base_w = np.where(obs.max(axis=1) >= _SATURATED, 0.2, 1.0)
        weight = base_w / (1.0 + (resid / tol) ** 4)

    wq = q * weight[:, None]
    prior = prior_terms(g0, v0)

    def field(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g, v = _solve(w, wq, None, prior)  # type: ignore[arg-type]
        return np.clip(g, 0.15, 3.0).astype(np.float32), np.clip(v, -30.0, 255.0).astype(
            np.float32)

    gc, vc = field(plan.w_centre)
    gl, vl = field(plan.w_probe)
    gb, vb = field(plan.w_base)
    s = len(gc)
    return LocalLight(gc, np.repeat(vc[:, None], 3, axis=1), gl, np.repeat(vl[:, None], 3, axis=1),
                      gb.reshape(s, n_base), vb.reshape(s, n_base), weight)


def board_colour(samples_bgr: np.ndarray, chroma_tol: float = 0.035) -> np.ndarray:
    """The board's own colour from many samples of it, some of which show something else.

    Shadows and a gradient change a colour's brightness but not its chromaticity (its share of
    each channel), so the colour is the one whose chromaticity most samples share; a hand or an
    arm over a quarter of the board, or pieces on many corner patches, do not move it.  Its
    brightness is the median of those samples.
    """
    x = samples_bgr.reshape(-1, 3).astype(np.float64)
    chroma = x / np.maximum(x.sum(axis=1, keepdims=True), 1.0)
    # Very dark samples have no reliable chromaticity: let them count for anything dark.
    near = np.linalg.norm(chroma[:, None, :] - chroma[None, :, :], axis=-1) < chroma_tol
    support = near.sum(axis=1)
    members = near[int(np.argmax(support))]
    return np.median(x[members], axis=0)
