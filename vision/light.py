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

    def light_gain_of(self, idx: np.ndarray) -> np.ndarray:
        """Gains of the playable squares `idx`."""
        return self.gain[idx]

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
    tol = trust_share * float(np.sqrt(span2))
    # Neighbour matrix: playable square x light square (1 where they share an edge).
    nb = np.zeros((n, len(s.light)))
    for i, js in enumerate(s.light_neighbours):
        nb[i, list(js)] = 1.0
    count = nb.sum(axis=1)
    has_nb = count > 0
    l_obs = (nb @ probe_bgr) / np.maximum(count, 1.0)[:, None]
    d_obs = ref_bgr
    a_light = l_obs.mean(axis=1) / max(float(light_bgr.mean()), 1.0)
    a_fit = ((l_obs - d_obs) @ span) / span2
    a_plain = d_obs.mean(axis=1) / max(float(dark_bgr.mean()), 1.0)
    # Corner patches a big or leaning piece covers do not show the square: trust them only
    # when a dimming or a veil of added light, as seen on the light squares next to them,
    # explains them.
    dimmed = np.linalg.norm(d_obs - a_light[:, None] * dark_bgr, axis=1)
    veiled = np.linalg.norm((d_obs - dark_bgr) - (l_obs - light_bgr), axis=1)
    trusted = ~has_nb | (np.minimum(dimmed, veiled) <= tol)
    gain = np.where(has_nb, np.where(trusted, a_fit, a_light), a_plain)
    gain = np.clip(gain, 0.3, 3.0)
    offset = np.where(trusted[:, None], np.clip(d_obs - gain[:, None] * dark_bgr, -max_offset,
                                                max_offset), 0.0)
    lcount = nb.sum(axis=0)
    lg = np.where(lcount > 0, (nb.T @ gain) / np.maximum(lcount, 1.0), 1.0)
    lo = (nb.T @ offset) / np.maximum(lcount, 1.0)[:, None]
    return LocalLight(gain, offset, lg, lo)
