"""Find the playing grid without markers or clicks.

The squares of a draughts board form a checker pattern; OpenCV's sector-based chessboard
detector finds its inner corners to sub-pixel precision when enough of the pattern is bare (an
empty board, or one lightly populated).  The outer grid corners follow from the homography of
the inner lattice.  Which outer corner is a1 is fixed by the dark corner squares (a1 and the
opposite corner are dark) and by the camera standing on White's side (a1 is the dark corner
nearer the bottom of the image).  A crowded board may not be found: then calibrate once on the
empty board (`damas calibrate board`) or pass `--corners`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.errors import BoardNotFound


@dataclass(frozen=True)
class FoundBoard:
    corners_px: np.ndarray  # 4x2 a1, h1, h8, a8
    confidence: float


def find_board(image_bgr: np.ndarray, grid: int, cfg: VisionConfig) -> FoundBoard:
    h, w = image_bgr.shape[:2]
    scale = min(1.0, cfg.locate_max_side_px / max(h, w))
    small = cv2.resize(image_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    inner = grid - 1
    ok, pts = cv2.findChessboardCornersSB(
        gray, (inner, inner), flags=cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY)
    if not ok or pts is None:
        raise BoardNotFound("no board found (the square pattern is not visible enough); "
                            "give --corners or a calibration file")
    pts = pts.reshape(inner, inner, 2) / scale
    lattice = np.array([(i + 1, j + 1) for j in range(inner) for i in range(inner)], np.float64)
    hom, _ = cv2.findHomography(lattice, pts.reshape(-1, 2))
    outer = np.array([[0, 0], [grid, 0], [grid, grid], [0, grid]], np.float64)
    corners = cv2.perspectiveTransform(outer.reshape(-1, 1, 2), hom).reshape(4, 2)
    corners = _orient(image_bgr, corners, grid)
    return FoundBoard(corners, 0.9)


def _square_lightness(gray: np.ndarray, corners: np.ndarray, grid: int, f: int, r: int) -> float:
    plane = np.array([[0, 0], [grid, 0], [grid, grid], [0, grid]], np.float64)
    hom, _ = cv2.findHomography(plane, corners)
    g = np.linspace(0.2, 0.8, 4)
    pts = np.array([(f + a, r + b) for a in g for b in g], np.float64)
    px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), hom).reshape(-1, 2)
    x = np.clip(px[:, 0].astype(int), 0, gray.shape[1] - 1)
    y = np.clip(px[:, 1].astype(int), 0, gray.shape[0] - 1)
    return float(np.median(gray[y, x]))


def _orient(image_bgr: np.ndarray, corners: np.ndarray, grid: int) -> np.ndarray:
    """Rotate the corner list so that corner 0 is a1: a dark corner, lowest in the image."""
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    best = None
    for shift in range(4):
        c = np.roll(corners, -shift, axis=0)
        for order in (c, c[[0, 3, 2, 1]]):
            # Dark squares: (f + r) even.  Compare the mean of dark and light squares.
            dark = np.mean([_square_lightness(gray, order, grid, f, r)
                            for f in range(0, grid, 3) for r in range(0, grid, 3)
                            if (f + r) % 2 == 0])
            light = np.mean([_square_lightness(gray, order, grid, f, r)
                             for f in range(0, grid, 3) for r in range(1, grid, 3)
                             if (f + r) % 2 == 1])
            # a1 -> h1 runs left to right, as seen from White's side: counter-clockwise in
            # image coordinates (y down) means a positive signed area here.
            area = _signed_area(order)
            score = (light - dark) + (1000 if area < 0 else 0) + 0.01 * order[0][1]
            if best is None or score > best[0]:
                best = (score, order)
    assert best is not None
    return best[1]


def _signed_area(c: np.ndarray) -> float:
    x, y = c[:, 0], c[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
