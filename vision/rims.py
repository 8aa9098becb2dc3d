"""A piece the colour of its square still has an outline: the rim of its top face.

Black men on a black-and-white board's black squares, red men on red squares: the colour
tests of vision.pieces see such a piece only where its wall or shadow happens to differ from
the bare square, often not at all.  What a camera still sees is the piece's outline, a circle
around the top face (the rim, the shaded wall beneath it, the shadow beside it), where a bare
square has none.  So each free square is looked at on the plane of a man's top face, on a grid
`RimConfig.step_sq` apart that `vision.sampling` lays once per pose, and a circle of the
pieces' radius is sought within `RimConfig.max_offset_sq` of the square's centre: how
strongly, on most angles around it (`RimConfig.quantile`), the brightness changes across the
circle (radially) more than along it (a straight edge, a shadow's, runs along a circle only
where it touches it) and more than a little inside and outside it (a glare spot's soft
fall-off changes everywhere alike).  The strength is in units of the gradient noise in the
middle of the squares looked at, so that dim, noisy or soft pictures are judged alike, and
must also be `RimConfig.min_change` outright (in a clean picture a JPEG's blocks are many
times its noise).  The grid's own lines, where the square meets its light neighbours, say
nothing (`SquareSamples.rim_line`).

A king's top face stands a disc higher, but its seam, where the crown sits on the base, is
the same circle at a man's height on the side facing the camera, and the base's wall and
shadow are around it: kings are found too, though not told from men by this test.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.config import VisionConfig


def rim_grid(size_sq: float, step_sq: float) -> np.ndarray:
    """(N,) offsets from a square's centre (squares) of the rim test's sampling grid."""
    half = int(round(size_sq / step_sq))
    return np.arange(-half, half + 1) * step_sq


def rim_patches(image_bgr: np.ndarray, maps: tuple[np.ndarray, np.ndarray],
                squares: np.ndarray) -> np.ndarray:
    """(K, N, N) float32 brightness (the channels' mean) of the rim grids of `squares` (K,),
    `maps` as `vision.sampling.SquareSamples.rim_maps`."""
    k = len(squares)
    n = maps[1].shape[1]
    m1 = maps[0][squares].reshape(k * n, n, 2)
    m2 = maps[1][squares].reshape(k * n, n)
    out = cv2.remap(image_bgr, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return (out.astype(np.float32) @ np.full(3, 1 / 3, np.float32)).reshape(k, n, n)


def _gradients(p: np.ndarray) -> np.ndarray:
    """(K, N, N) complex64: the brightness change per sample along x (real part) and y
    (imaginary part) of each patch (K, N, N), smoothed across (Sobel's 3 x 3, scaled to a
    sample's step)."""
    k, n, _ = p.shape
    flat = p.reshape(k * n, n)
    g = np.empty((k * n, n), np.complex64)
    g.real = cv2.Sobel(flat, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    g.imag = cv2.Sobel(flat, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    return g.reshape(k, n, n)


def _ring_strength(g: np.ndarray, step_sq: float, radii_sq: np.ndarray,
                   centres_sq: np.ndarray, band_sq: float, apart_sq: float,
                   quantile: float = 50.0, angles: int = 64) -> np.ndarray:
    """(K, H, C) the `quantile` over `angles` angles of the radial change across each circle
    (radius H, centre C (C, 2) from the square's centre; both may also be given per square,
    (K, H) and (K, C, 2)) beyond its tangential change and beyond the radial change
    `apart_sq` inside and outside it.  `g` (K, N, N) as `_gradients` gives it.

    (The radial direction at a circle's point at angle a is (cos a, sin a) wherever the circle
    stands: only the points move with the centre.)"""
    k, n, _ = g.shape
    mid = (n - 1) / 2
    a = np.linspace(0.0, 2 * np.pi, angles, endpoint=False)
    turn = np.exp(-1j * a).astype(np.complex64)  # (a change turned to radial, tangential)
    cs, sn = np.cos(a), np.sin(a)
    shared = centres_sq.ndim == 2 and radii_sq.ndim == 1
    flat = g.reshape(k, -1) if shared else g.reshape(-1)
    base = 0 if shared else (np.arange(k) * n * n)[:, None, None, None]
    cx, cy = centres_sq[..., 0, None], centres_sq[..., 1, None]

    def at(r: np.ndarray) -> np.ndarray:
        # (K, H, C, A) the change on circles of radius r, turned to (radial, tangential)
        x = mid + (cx[..., None, :, :] + r[..., None, None] * cs) / step_sq
        y = mid + (cy[..., None, :, :] + r[..., None, None] * sn) / step_sq
        i = np.clip(np.rint(y), 0, n - 1).astype(np.intp) * n \
            + np.clip(np.rint(x), 0, n - 1).astype(np.intp) + base
        return (flat[:, i] if shared else flat[i]) * turn

    z = at(radii_sq)
    radial, tangential = np.abs(z.real), np.abs(z.imag)
    for d in (-band_sq, band_sq):
        z = at(radii_sq + d)
        np.maximum(radial, np.abs(z.real), out=radial)
        np.maximum(tangential, np.abs(z.imag), out=tangential)
    beside = np.abs(at(radii_sq - apart_sq).real) + np.abs(at(radii_sq + apart_sq).real)
    excess = radial - np.maximum(tangential, 0.5 * beside)
    kth = int(round(quantile / 100 * (angles - 1)))
    return np.partition(excess, kth, axis=3)[..., kth]


def rim_strength(image_bgr: np.ndarray, maps: tuple[np.ndarray, np.ndarray],
                 rim_line: np.ndarray, squares: np.ndarray, radius_sq: float,
                 cfg: VisionConfig) -> np.ndarray:
    """(K,) how clearly each of `squares` shows a piece's rim, in units of the gradient noise
    in the middle of those squares (bare board or a top face; `maps` and `rim_line`, S x N x N,
    as `vision.sampling.SquareSamples` has them).  0 where not searched (the change around
    the middle hardly more than the noise) or where the best circle's change is less than
    `RimConfig.min_change` outright."""
    rc = cfg.rims
    out = np.zeros(len(squares))
    if len(squares) == 0:
        return out
    step = rc.step_sq
    g = _gradients(rim_patches(image_bgr, maps, squares))
    inner = int(round(rc.core_sq / step))
    mid = (rim_line.shape[1] - 1) // 2
    core = np.abs(g[:, mid - inner:mid + inner + 1, mid - inner:mid + inner + 1])
    noise = max(float(np.median(core)), rc.noise_floor)
    g[rim_line[squares]] = 0.0
    # (A bare square shows hardly more change around its middle than in it: not searched.)
    off = (np.arange(rim_line.shape[1]) - mid) * step
    r_sq = np.hypot(off[None, :], off[:, None])
    ring = (r_sq > rc.screen_sq[0]) & (r_sq < rc.screen_sq[1])
    busy = np.abs(g[:, ring]).mean(axis=1) >= rc.screen * noise
    if not busy.any():
        return out
    g, k = g[busy], int(busy.sum())
    radii = radius_sq * np.asarray(rc.radius_scales)
    reach = rc.max_offset_sq
    coarse = np.linspace(-reach, reach, rc.coarse_centres)
    cx, cy = np.meshgrid(coarse, coarse)
    centres = np.column_stack([cx.ravel(), cy.ravel()])
    s = _ring_strength(g, step, radii, centres, rc.band_sq, rc.apart_sq, rc.quantile,
                       rc.coarse_angles)  # (K, H, C)
    flat = s.reshape(k, -1)
    hi, ci = np.unravel_index(flat.argmax(axis=1), s.shape[1:])
    # Then finer, around each square's best centre, at its best radius.
    half = (coarse[1] - coarse[0]) / 2 if len(coarse) > 1 else 0.0
    fine = half * np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)])
    f = _ring_strength(g, step, radii[hi][:, None], centres[ci][:, None, :] + fine,
                       rc.band_sq, rc.apart_sq, rc.quantile, rc.angles)  # (K, 1, 9)
    change = f.reshape(k, -1).max(axis=1)
    out[busy] = np.where(change >= rc.min_change, change / noise, 0.0)
    return out
