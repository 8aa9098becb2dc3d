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
from vision.errors import BoardNotFound, BoardOutOfView


@dataclass(frozen=True)
class FoundBoard:
    corners_px: np.ndarray  # 4x2 a1, h1, h8, a8
    confidence: float


def _lattice(gray: np.ndarray, inner: int) -> np.ndarray | None:
    ok, pts = cv2.findChessboardCornersSB(
        gray, (inner, inner), flags=cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY)
    return pts.reshape(-1, 2) if ok and pts is not None else None


def _colour_masks(small: np.ndarray, max_masks: int = 6) -> list[np.ndarray]:
    """Binary images, one per dominant colour: in the one of the light squares, pieces (which
    stand on dark squares) vanish and the checker pattern is clean."""
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    data = lab.reshape(-1, 3)[::5].astype(np.float32)
    masks = []
    for k in (3, 4):
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
        _, _, centres = cv2.kmeans(data, k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
        d = np.linalg.norm(lab.reshape(-1, 1, 3).astype(np.float32) - centres[None], axis=2)
        nearest = np.argmin(d, axis=1).reshape(lab.shape[:2])
        for c in np.argsort(-centres[:, 0]):  # lightest first: light squares are light
            m = (nearest == c).astype(np.uint8) * 255
            masks.append(cv2.GaussianBlur(m, (3, 3), 0))
            if len(masks) >= max_masks:
                return masks
    return masks


def find_board(image_bgr: np.ndarray, grid: int, cfg: VisionConfig) -> FoundBoard:
    h, w = image_bgr.shape[:2]
    scale = min(1.0, cfg.locate_max_side_px / max(h, w))
    small = cv2.resize(image_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    inner = grid - 1
    pts = _lattice(gray, inner)
    confidence = 0.9
    if pts is None:
        for mask in _colour_masks(small):
            pts = _lattice(mask, inner)
            if pts is not None:
                confidence = 0.8
                break
    if pts is None:
        raise BoardNotFound("no board found (the square pattern is not visible enough); "
                            "give --corners or a calibration file")
    pts = pts / scale
    lattice = np.array([(i + 1, j + 1) for j in range(inner) for i in range(inner)], np.float64)
    hom, _ = cv2.findHomography(lattice, pts)
    outer = np.array([[0, 0], [grid, 0], [grid, grid], [0, grid]], np.float64)
    corners = cv2.perspectiveTransform(outer.reshape(-1, 1, 2), hom).reshape(4, 2)
    corners = _orient(image_bgr, corners, grid)
    if np.any(corners < 0) or np.any(corners[:, 0] > w - 1) or np.any(corners[:, 1] > h - 1):
        raise BoardOutOfView("board partly out of view: its outer corners fall outside the "
                             "image")
    return FoundBoard(corners, confidence)


def _square_lightness(gray: np.ndarray, corners: np.ndarray, grid: int, f: int, r: int) -> float:
    plane = np.array([[0, 0], [grid, 0], [grid, grid], [0, grid]], np.float64)
    hom, _ = cv2.findHomography(plane, corners)
    g = (0.1, 0.9)  # near the square's corners: pieces stand in the middle
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
            score = (1000 if area < 0 else 0) + (100 if light > dark else 0) + 0.01 * order[0][1]
            if best is None or score > best[0]:
                best = (score, order)
    assert best is not None
    return best[1]


def _signed_area(c: np.ndarray) -> float:
    x, y = c[:, 0], c[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
