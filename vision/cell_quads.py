"""Candidate board squares: four-sided blobs in several binarisations of the image.

A bare square of a checker pattern is a convex quadrilateral brighter (light squares) or darker
(bare dark squares) than its neighbourhood.  Light squares are never occupied in draughts, so
even on a crowded board most of them stay whole; the lattice fit (`vision.grid_fit`) needs only
a part of them.  Several binarisations are used because no single one survives every light:
local-mean thresholds of the grey image at two scales and both polarities (shadows, glare,
gradients), and masks of the dominant colours (boards whose two colours are close in grey).
Touching corners of same-coloured squares are cut by a small erosion; the quad is grown back by
the same amount so its corners stay on the grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class QuadOptions:
    min_area_px: float = 60.0
    max_area_share: float = 1 / 20  # of the image area
    erode_px: int = 2
    min_solidity: float = 0.8  # blob area / quadrilateral area
    max_side_ratio: float = 3.0  # opposite sides of a square seen at 50 deg or less
    block_fracs: tuple[float, ...] = (1 / 10, 1 / 22)  # threshold windows (of the longer side)
    offset_grey: float = 3.0


@dataclass(frozen=True)
class Quads:
    corners: np.ndarray  # N x 4 x 2, convex order (clockwise in the image)
    centres: np.ndarray  # N x 2: intersection of the diagonals (the square's true centre)
    areas: np.ndarray  # N


def _diag_centre(q: np.ndarray) -> np.ndarray | None:
    p0, p1, p2, p3 = q
    d1, d2 = p2 - p0, p3 - p1
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9:
        return None
    t = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / den
    if not 0.05 < t < 0.95:
        return None
    return p0 + t * d1


def _quads_in(mask: np.ndarray, opt: QuadOptions, out: list[np.ndarray]) -> None:
    h, w = mask.shape
    max_area = opt.max_area_share * h * w
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        area = cv2.contourArea(c)
        if not opt.min_area_px <= area <= max_area:
            continue
        peri = cv2.arcLength(c, True)
        poly = cv2.approxPolyDP(c, 0.06 * peri, True)
        if len(poly) != 4 or not cv2.isContourConvex(poly):
            continue
        q = poly.reshape(4, 2).astype(np.float64)
        qa = abs(cv2.contourArea(q.astype(np.float32)))
        if qa <= 0 or area / qa < opt.min_solidity:
            continue
        sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        if min(sides) < 3 or max(sides[0] / sides[2], sides[2] / sides[0],
                                 sides[1] / sides[3], sides[3] / sides[1]) > opt.max_side_ratio:
            continue
        out.append(q)


def _grow(q: np.ndarray, by_px: float) -> np.ndarray:
    """Move each vertex outwards along its corner bisector so the edges shift by `by_px`."""
    grown = q.copy()
    for i in range(4):
        a, p, b = q[i - 1], q[i], q[(i + 1) % 4]
        u = (a - p) / max(1e-9, float(np.linalg.norm(a - p)))
        v = (b - p) / max(1e-9, float(np.linalg.norm(b - p)))
        bis = u + v
        n = float(np.linalg.norm(bis))
        if n < 1e-6:
            continue
        bis /= n
        sin_half = np.sqrt(max(1e-6, (1 - float(np.dot(u, v))) / 2))
        grown[i] = p - bis * by_px / sin_half
    return grown


def binarisations(image_bgr: np.ndarray, opt: QuadOptions) -> list[np.ndarray]:
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    side = max(grey.shape)
    masks = []
    for frac in opt.block_fracs:
        block = max(3, int(side * frac) | 1)  # (odd, and at least 3: adaptiveThreshold)
        for kind in (cv2.THRESH_BINARY, cv2.THRESH_BINARY_INV):
            c = -opt.offset_grey if kind == cv2.THRESH_BINARY else opt.offset_grey
            masks.append(cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, kind,
                                               block, c))
    masks.extend(_colour_masks(image_bgr))
    return masks


def _colour_masks(image_bgr: np.ndarray) -> list[np.ndarray]:
    """One mask per dominant colour (k-means in Lab on a subsample)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(image_bgr, (5, 5), 0), cv2.COLOR_BGR2LAB)
    data = lab.reshape(-1, 3)[::7].astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 1.0)
    cv2.setRNGSeed(1)
    _, _, centres = cv2.kmeans(data, 4, None, criteria, 1, cv2.KMEANS_PP_CENTERS)
    # Nearest centre through a table over Lab quantised to 8 levels a step: one lookup per
    # pixel instead of k distance images.
    q = np.arange(4, 256, 8, dtype=np.float32)
    grid = np.stack(np.meshgrid(q, q, q, indexing="ij"), axis=-1).reshape(-1, 3)
    table = np.argmin(((grid[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
    q_lab = (lab >> 3).astype(np.int32)
    nearest = table[(q_lab[..., 0] << 10) | (q_lab[..., 1] << 5) | q_lab[..., 2]]
    return [(nearest == c).astype(np.uint8) * 255 for c in range(len(centres))]


def find_quads(image_bgr: np.ndarray, opt: QuadOptions | None = None) -> Quads:
    opt = opt or QuadOptions()
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    found: list[np.ndarray] = []
    for mask in binarisations(image_bgr, opt):
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        mask = cv2.erode(mask, kernel, iterations=opt.erode_px)
        _quads_in(mask, opt, found)
    corners, centres, areas = [], [], []
    for q in found:
        q = _grow(q, opt.erode_px + 0.5)
        # Clockwise in the image (y down): positive shoelace sum.
        x, y = q[:, 0], q[:, 1]
        if float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) < 0:
            q = q[::-1].copy()
        c = _diag_centre(q)
        if c is None:
            continue
        corners.append(q)
        centres.append(c)
        areas.append(abs(cv2.contourArea(q.astype(np.float32))))
    if not corners:
        return Quads(np.zeros((0, 4, 2)), np.zeros((0, 2)), np.zeros(0))
    return Quads(np.array(corners), np.array(centres), np.array(areas))
