"""The lattice model: a homography plus one radial lens term, recovered from its own points."""

import cv2
import numpy as np

from vision.grid_fit import LensCentre, distort, fit_lattice, robust_fit, undistort

LENS = LensCentre.of_image(1280, 720)


def _points(k: float, noise_px: float = 0.0, seed: int = 0):
    # A board seen at an angle: lattice corners 0..8 through a known homography, then the lens.
    src = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float64)
    dst = np.array([[380, 620], [950, 600], [860, 180], [450, 190]], np.float64)
    hom = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    uv = np.array([(i, j) for i in range(9) for j in range(9)], np.float64)
    ph = np.column_stack([uv, np.ones(len(uv))]) @ hom.T
    px = distort(ph[:, :2] / ph[:, 2:], k, LENS)
    rng = np.random.default_rng(seed)
    return uv, px + rng.normal(0, noise_px, px.shape)


def test_undistort_inverts_distort():
    p = np.array([[10.0, 20.0], [640.0, 360.0], [1270.0, 700.0]])
    for k in (-0.2, 0.0, 0.2):
        assert np.allclose(undistort(distort(p, k, LENS), k, LENS), p, atol=1e-3)


def test_barrel_distortion_recovered():
    uv, px = _points(-0.15)
    model, res = fit_lattice(uv, px, LENS)
    assert abs(model.k + 0.15) < 0.01
    assert res.max() < 0.05


def test_without_the_lens_term_the_outer_corners_drift():
    # The reason for the term: a plain homography misplaces the board's corners.
    uv, px = _points(-0.2)
    plain, _ = fit_lattice(uv, px, LENS, with_distortion=False)
    full, _ = fit_lattice(uv, px, LENS)
    corners = np.array([0, 8, 72, 80])
    assert np.max(np.linalg.norm(plain.to_image(uv[corners]) - px[corners], axis=1)) > 2.0
    assert np.max(np.linalg.norm(full.to_image(uv[corners]) - px[corners], axis=1)) < 0.1


def test_robust_fit_ignores_a_wrongly_placed_point():
    uv, px = _points(-0.05, noise_px=0.3)
    px[40] += (25.0, -18.0)
    model, keep = robust_fit(uv, px, LENS)
    assert not keep[40] and keep.sum() >= 75
    assert np.linalg.norm(model.to_image(uv[40:41])[0] - (px[40] - (25.0, -18.0))) < 1.5


def _corner_view(k: float, seed: int):
    # The part of the board an arm leaves: a 6x5 block of corners at one side.
    uv, px = _points(k, noise_px=0.6, seed=seed)
    part = (uv[:, 0] <= 5) & (uv[:, 1] <= 4)
    return uv[part], px[part]


def test_a_part_of_a_flat_grid_gets_no_lens_term():
    # Noise on a sixth of the board lets a radial term shave a percent off the residual, and
    # that term bends the far corners: without distortion in the points, none is kept.
    ks = [robust_fit(*_corner_view(0.0, seed), LENS)[0].k for seed in range(20)]
    assert sum(k == 0.0 for k in ks) >= 18


def test_a_part_of_a_bent_grid_keeps_its_lens_term():
    ks = np.array([robust_fit(*_corner_view(-0.15, seed), LENS)[0].k for seed in range(10)])
    assert np.all(np.abs(ks + 0.15) < 0.06)
