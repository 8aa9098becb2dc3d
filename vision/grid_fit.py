"""A projective lattice with one radial lens term: the board's squares as the camera sees them.

Lattice coordinates (u, v) are in squares; integer points are grid corners and cell (i, j) spans
[i, i+1] x [j, j+1].  A plane seen by a pinhole camera maps to the image by a homography; real
lenses (and the rendered camera) add barrel or pincushion distortion, which over a whole board
moves the outer corners by several pixels, enough to matter when the corners are extrapolated
from the inner lattice.  So the model is  pixel = distort_k(H (u, v)),  with one radial
coefficient k about the image centre in units of half the image's longer side; k is found by a
1-D search, H by least squares for each k.  No intrinsics are needed; when they are known the
caller may undistort first and fit with k fixed at 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Radial coefficient search range (units of half the longer image side): covers phone and Pi
# camera lenses from strong barrel to mild pincushion.
K_RANGE = (-0.4, 0.25)


@dataclass(frozen=True)
class LensCentre:
    """Where radial distortion is centred and the radius unit, in pixels."""

    cx_px: float
    cy_px: float
    unit_px: float

    @classmethod
    def of_image(cls, width_px: int, height_px: int) -> LensCentre:
        return cls(width_px / 2, height_px / 2, max(width_px, height_px) / 2)


def distort(px: np.ndarray, k: float, lens: LensCentre) -> np.ndarray:
    if k == 0.0:
        return px
    c = np.array([lens.cx_px, lens.cy_px])
    q = (px - c) / lens.unit_px
    r2 = np.sum(q * q, axis=-1, keepdims=True)
    return c + q * (1 + k * r2) * lens.unit_px


def undistort(px: np.ndarray, k: float, lens: LensCentre, iterations: int = 6) -> np.ndarray:
    """Inverse of `distort`: Newton's method on the radius, r + k r^3 = r_distorted."""
    if k == 0.0:
        return px
    c = np.array([lens.cx_px, lens.cy_px])
    qd = (px - c) / lens.unit_px
    rd = np.linalg.norm(qd, axis=-1, keepdims=True)
    r = rd.copy()
    for _ in range(iterations):
        slope = 1 + 3 * k * r * r
        slope = np.where(np.abs(slope) < 1e-6, 1e-6, slope)
        r = r - (r + k * r ** 3 - rd) / slope
    ratio = np.where(rd > 1e-12, r / np.where(rd > 1e-12, rd, 1.0), 1.0)
    return c + qd * ratio * lens.unit_px


def _apply_h(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    ph = np.column_stack([p, np.ones(len(p))]) @ hom.T
    z = ph[:, 2:3]
    z = np.where(np.abs(z) < 1e-12, 1e-12, z)
    return ph[:, :2] / z


@dataclass(frozen=True)
class LatticeModel:
    hom: np.ndarray  # 3x3: lattice (u, v) -> undistorted pixel
    k: float
    lens: LensCentre

    def to_image(self, uv: np.ndarray) -> np.ndarray:
        return distort(_apply_h(self.hom, uv), self.k, self.lens)

    def to_lattice(self, px: np.ndarray) -> np.ndarray:
        """The lattice points at pixels px; NaN for all when the model is degenerate (fitted
        to points on one line: a sliver of a candidate square)."""
        und = undistort(np.asarray(px, np.float64).reshape(-1, 2), self.k, self.lens)
        try:
            inv = np.linalg.inv(self.hom)
        except np.linalg.LinAlgError:
            return np.full_like(und, np.nan)
        return _apply_h(inv, und)

    def scaled(self, factor: float) -> LatticeModel:
        """The same lattice in an image resized by `factor` (the lens term is scale-free)."""
        lens = LensCentre(self.lens.cx_px * factor, self.lens.cy_px * factor,
                          self.lens.unit_px * factor)
        return LatticeModel(np.diag([factor, factor, 1.0]) @ self.hom, self.k, lens)

    def cell_px(self, uv: np.ndarray) -> np.ndarray:
        """Local size of one square in pixels (geometric mean of the two sides) at `uv`."""
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        p0 = self.to_image(uv)
        du = self.to_image(uv + [1.0, 0.0]) - p0
        dv = self.to_image(uv + [0.0, 1.0]) - p0
        return np.sqrt(np.linalg.norm(du, axis=1) * np.linalg.norm(dv, axis=1))


def _normaliser(p: np.ndarray) -> np.ndarray:
    c = p.mean(axis=0)
    d = float(np.mean(np.linalg.norm(p - c, axis=1))) or 1.0
    s = np.sqrt(2) / d
    return np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1.0]])


def _dlt(uv: np.ndarray, px: np.ndarray) -> np.ndarray | None:
    """Normalised direct linear transform: fast enough to run inside the lens search."""
    ta, tb = _normaliser(uv), _normaliser(px)
    a = _apply_h(ta, uv)
    b = _apply_h(tb, px)
    n = len(a)
    m = np.zeros((2 * n, 9))
    m[0::2, 0:2], m[0::2, 2] = a, 1
    m[0::2, 6:8], m[0::2, 8] = -b[:, :1] * a, -b[:, 0]
    m[1::2, 3:5], m[1::2, 5] = a, 1
    m[1::2, 6:8], m[1::2, 8] = -b[:, 1:] * a, -b[:, 1]
    try:
        _, _, vt = np.linalg.svd(m, full_matrices=False)
    except np.linalg.LinAlgError:
        return None
    hom = np.linalg.inv(tb) @ vt[-1].reshape(3, 3) @ ta
    if not np.all(np.isfinite(hom)) or abs(hom[2, 2]) < 1e-12:
        return None
    return hom / hom[2, 2]


def _homography(uv: np.ndarray, px: np.ndarray, refine: bool = True) -> np.ndarray | None:
    if len(uv) < 4:
        return None
    if not refine:
        return _dlt(uv, px)
    hom, _ = cv2.findHomography(uv.astype(np.float64), px.astype(np.float64), 0)
    if hom is None or not np.all(np.isfinite(hom)):
        return None
    return hom


def fit_lattice(uv: np.ndarray, px: np.ndarray, lens: LensCentre, *,
                with_distortion: bool = True, k_fixed: float | None = None,
                radial_must_pay: bool = False,
                ) -> tuple[LatticeModel, np.ndarray] | None:
    """Least-squares lattice model through correspondences; returns it and the residuals (px).

    The radial term is searched only when the points spread over enough of the image to tell
    it from perspective (at least 12 points); a golden-section search on the RMS residual.
    With `radial_must_pay` it is kept only when it explains the points better than its cost
    of one parameter under the Bayesian information criterion: a grid seen on one side of an
    arm leaves the search a shallow valley, and the term it settles in bends the extrapolation
    to the far corners (one a third of a square off, where no term at all fitted the same
    points within 1 %).
    """
    uv = np.asarray(uv, np.float64).reshape(-1, 2)
    px = np.asarray(px, np.float64).reshape(-1, 2)

    def at(k: float, refine: bool = False) -> tuple[float, LatticeModel | None]:
        hom = _homography(uv, undistort(px, k, lens), refine)
        if hom is None:
            return float("inf"), None
        model = LatticeModel(hom, k, lens)
        res = np.linalg.norm(model.to_image(uv) - px, axis=1)
        return float(np.sqrt(np.mean(res ** 2))), model

    if k_fixed is not None or not with_distortion or len(uv) < 12:
        _, model = at(0.0 if k_fixed is None else k_fixed, True)
    else:
        lo, hi = K_RANGE
        g = (np.sqrt(5) - 1) / 2
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        fa, fb = at(a)[0], at(b)[0]
        for _ in range(18):
            if fa < fb:
                hi, b, fb = b, a, fa
                a = hi - g * (hi - lo)
                fa = at(a)[0]
            else:
                lo, a, fa = a, b, fb
                b = lo + g * (hi - lo)
                fb = at(b)[0]
        rms, model = at((lo + hi) / 2, True)
        if radial_must_pay:
            rms_flat, flat = at(0.0, True)
            m = 2 * len(uv)  # residual components
            if flat is not None and m * 2 * np.log(rms_flat / max(rms, 1e-9)) < np.log(m):
                model = flat
    if model is None:
        return None
    return model, np.linalg.norm(model.to_image(uv) - px, axis=1)


def robust_fit(uv: np.ndarray, px: np.ndarray, lens: LensCentre, *, with_distortion: bool = True,
               rounds: int = 3, floor_px: float = 1.0,
               ) -> tuple[LatticeModel, np.ndarray] | None:
    """`fit_lattice`, dropping points whose residual exceeds 3x the median (at least
    `floor_px`) and fitting again: one wrongly placed point must not bend the whole grid.
    The radial term must pay for itself (`fit_lattice`'s `radial_must_pay`): these fits are
    the last word on where the outer corners lie.  Returns the model and the mask of points
    kept."""
    keep = np.ones(len(uv), bool)
    fitted = None
    for _ in range(rounds):
        fitted = fit_lattice(uv[keep], px[keep], lens, with_distortion=with_distortion,
                             radial_must_pay=True)
        if fitted is None:
            return None
        model, _ = fitted
        res = np.linalg.norm(model.to_image(uv) - px, axis=1)
        limit = max(floor_px, 3.0 * float(np.median(res[keep])))
        new_keep = res <= limit
        if new_keep.sum() < 4 or np.array_equal(new_keep, keep):
            break
        keep = new_keep
    assert fitted is not None
    return fitted[0], keep
