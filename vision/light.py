"""The light on each square, from the bare board around it: obs = gain * true + offset.

A shadow scales every colour (gain < 1); glare and veiling reflections add light (offset > 0).
Each playable square has two references nearby whose true colours are known from the whole
board: its own corner patches (dark) and the far halves of the light squares next to it.  Two
references fix one gain (shared by the channels, fitted along the dark-to-light direction) and
one offset per channel, and inverting that makes a square under glare or in a shadow look like
the same square in plain light.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.sampling import SquareSamples


@dataclass(frozen=True)
class LocalLight:
    gain: np.ndarray  # (S,)
    offset: np.ndarray  # (S, 3) BGR
    light_gain: np.ndarray  # (L,) the same for each light square (mean of its neighbours)
    light_offset: np.ndarray  # (L, 3)

    def correct(self, bgr: np.ndarray, i: int) -> np.ndarray:
        """True colour of pixels seen on playable square i."""
        return (bgr - self.offset[i]) / self.gain[i]

    def correct_all(self, bgr: np.ndarray) -> np.ndarray:
        """(S, P, 3) samples of every playable square."""
        return (bgr - self.offset[:, None, :]) / self.gain[:, None, None]

    def correct_light(self, bgr: np.ndarray) -> np.ndarray:
        """(L, Q, 3) samples of every light square."""
        return (bgr - self.light_offset[:, None, :]) / self.light_gain[:, None, None]


def local_light(s: SquareSamples, ref_bgr: np.ndarray, probe_bgr: np.ndarray,
                dark_bgr: np.ndarray, light_bgr: np.ndarray, max_offset: float = 200.0,
                trust_share: float = 0.35) -> LocalLight:
    """Fit gain and offset per playable square from its own and its neighbours' references."""
    n = len(s.playable)
    span = light_bgr - dark_bgr
    span2 = max(float(span @ span), 1.0)
    gain = np.ones(n)
    offset = np.zeros((n, 3))
    tol = trust_share * float(np.sqrt(span2))
    for i, nb in enumerate(s.light_neighbours):
        d_obs = ref_bgr[i]
        if nb:
            l_obs = np.median(probe_bgr[list(nb)], axis=0)
            a_light = float(l_obs.mean()) / max(float(light_bgr.mean()), 1.0)
            # Corner patches a big or leaning piece covers do not show the square: trust them
            # only when a dimming or a veil of added light, as seen on the light squares next
            # to them, explains them.
            dimmed = float(np.linalg.norm(d_obs - a_light * dark_bgr))
            veiled = float(np.linalg.norm((d_obs - dark_bgr) - (l_obs - light_bgr)))
            if min(dimmed, veiled) > tol:
                gain[i] = float(np.clip(a_light, 0.3, 3.0))
                continue
            a = float((l_obs - d_obs) @ span) / span2
        else:
            a = float(d_obs.mean()) / max(float(dark_bgr.mean()), 1.0)
        a = float(np.clip(a, 0.3, 3.0))
        gain[i] = a
        offset[i] = np.clip(d_obs - a * dark_bgr, -max_offset, max_offset)
    lg = np.ones(len(s.light))
    lo = np.zeros((len(s.light), 3))
    acc_g = np.zeros(len(s.light))
    acc_o = np.zeros((len(s.light), 3))
    cnt = np.zeros(len(s.light))
    for i, nb in enumerate(s.light_neighbours):
        for j in nb:
            acc_g[j] += gain[i]
            acc_o[j] += offset[i]
            cnt[j] += 1
    has = cnt > 0
    lg[has] = acc_g[has] / cnt[has]
    lo[has] = acc_o[has] / cnt[has, None]
    return LocalLight(gain, offset, lg, lo)
