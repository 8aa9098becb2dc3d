"""The board in the camera: from four image corners to a 3D pose that projects any board point.

Board frame, in square units: origin at the outer corner of the playing grid at a1, u along
rank 1 (towards h1), v along the a-file (towards a8), height w above the playing surface, towards
the camera.  With intrinsics (calibrated, or estimated from the board's own homography) the pose
comes from solvePnP on the four grid corners; this is what lets the pipeline ask "where would the
top face of a piece one or two discs high appear?".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics, estimate_focal_px, same_shape
from vision.errors import CalibrationMismatch
from vision.grid_fit import LensCentre, distort, undistort

# Focal lengths outside this range (in image widths) are not believed when estimated.
_FOCAL_RANGE_WIDTHS = (0.45, 4.0)
# A pose from guessed or estimated intrinsics that puts the grid's corners farther than this
# (squares) from those given is not believed: the principal point is looked for instead.
# (Not below: a real photo's corners, refined, miss a centred camera by a few hundredths,
# lens distortion or clicks; a camera moved off-centre to fit them exactly tilted si3p-mat.jpg
# by 6 degrees more, and two of its men read as kings.)
_MAX_CORNER_MISS_SQ = 0.1
# What moving the principal point by an image's size costs, against missing a corner by a
# square: a miss of a few hundredths of a square (corners clicked or found a little off) is
# left, not explained by a camera far off-centre whose pieces lean the wrong way.
_CENTRE_COST = 0.1


@dataclass(frozen=True)
class BoardPose:
    grid: int
    corners_px: np.ndarray  # 4x2 image corners a1, h1, h8, a8 (as seen, i.e. distorted)
    intrinsics: CameraIntrinsics
    rvec: np.ndarray
    tvec: np.ndarray
    up: float  # +1 or -1: the sign of the board-frame height axis that points at the camera
    focal_estimated: bool
    # The intrinsics came from a camera calibration (not estimated or guessed from the board).
    lens_calibrated: bool = False
    # Without one, the radial lens term the board's own lattice showed (vision.grid_fit: about
    # the image's centre, in units of half its longer side), applied after the pinhole.
    lens_k: float = 0.0

    def project(self, points_uvw: np.ndarray) -> np.ndarray:
        """Board points (N x 3: u, v in squares, w = height in squares) -> image pixels (N x 2)."""
        pts = np.asarray(points_uvw, np.float64).reshape(-1, 3).copy()
        pts[:, 2] *= self.up
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.intrinsics.matrix,
                                  self.intrinsics.dist_array)
        px = px.reshape(-1, 2)
        if self.lens_k == 0.0:
            return px
        return distort(px, self.lens_k, LensCentre.of_image(self.intrinsics.width_px,
                                                            self.intrinsics.height_px))

    def camera_centre(self) -> np.ndarray:
        """Camera centre in the board frame (u, v, w) with w > 0."""
        r, _ = cv2.Rodrigues(self.rvec)
        c = -r.T @ self.tvec.reshape(3)
        return np.array([c[0], c[1], c[2] * self.up])

    def tilt_deg(self) -> float:
        r, _ = cv2.Rodrigues(self.rvec)
        return math.degrees(math.acos(min(1.0, abs(float(r[2, 2])))))

    def reprojection_error_px(self) -> float:
        n = self.grid
        obj = np.array([[0, 0, 0], [n, 0, 0], [n, n, 0], [0, n, 0]], np.float64)
        return float(np.max(np.linalg.norm(self.project(obj) - self.corners_px, axis=1)))


def grid_object_points(grid: int) -> np.ndarray:
    return np.array([[0, 0, 0], [grid, 0, 0], [grid, grid, 0], [0, grid, 0]], np.float64)


def pose_from_corners(corners_px: np.ndarray, grid: int, image_size: tuple[int, int],
                      intrinsics: CameraIntrinsics | None = None, lens_k: float = 0.0,
                      ) -> BoardPose:
    """Pose of the board from its four outer grid corners (a1, h1, h8, a8 order).

    Without intrinsics, the focal length is estimated from the board's homography (principal
    point at the image centre, no distortion); nearly frontal views fall back to a typical lens.
    Where no such camera puts the grid's corners where they are (a photo cropped off its
    centre, or one taken with a shifted lens), the principal point is moved as little as
    makes one do (`_off_centre_camera`).  Such a camera sees the grid through `lens_k`, the
    radial lens term the board's own lattice showed (vision.grid_fit), undone before and
    redone after the pinhole: through a wide lens not calibrated, the squares near the image's
    edges lie a tenth of a square and more from where a pinhole would put them, and the men
    there read as empty.  With intrinsics `lens_k` is not used (their own lens model is).
    """
    w, h = image_size
    given = np.asarray(corners_px, np.float64).reshape(4, 2)
    corners = given
    estimated = False
    calibrated = intrinsics is not None
    if calibrated:
        lens_k = 0.0
    elif lens_k != 0.0:
        corners = undistort(given, lens_k, LensCentre.of_image(w, h))
    if intrinsics is None:
        plane = np.array([[0, 0], [grid, 0], [grid, grid], [0, grid]], np.float64)
        hom, _ = cv2.findHomography(plane, corners)
        guess = CameraIntrinsics.guess(w, h)
        f = estimate_focal_px(hom, w / 2, h / 2) if hom is not None else None
        lo, hi = _FOCAL_RANGE_WIDTHS
        if f is not None and lo * w <= f <= hi * w:
            intrinsics = CameraIntrinsics(w, h, f, f, w / 2, h / 2)
            estimated = True
        else:
            intrinsics = guess
        miss_sq = _corner_miss_px(corners, grid, intrinsics) * grid / _side_px(corners)
        if miss_sq > _MAX_CORNER_MISS_SQ:
            shifted = _off_centre_camera(hom, corners, grid, w, h) if hom is not None else None
            if shifted is not None:
                intrinsics, estimated = shifted, True
    elif (intrinsics.width_px, intrinsics.height_px) != (w, h):
        if not same_shape((w, h), (intrinsics.width_px, intrinsics.height_px)):
            raise CalibrationMismatch(
                f"the camera was calibrated at {intrinsics.width_px}x{intrinsics.height_px} "
                f"and this image is {w}x{h}, another shape: calibrate the camera at this "
                f"resolution (damas calibrate camera)")
        intrinsics = intrinsics.scaled_to(w, h)
    obj = grid_object_points(grid)
    ok, rvec, tvec = cv2.solvePnP(obj, corners.reshape(4, 1, 2), intrinsics.matrix,
                                  intrinsics.dist_array, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise ValueError("could not compute the camera pose from the board corners")
    r, _ = cv2.Rodrigues(rvec)
    centre = -r.T @ tvec.reshape(3)
    up = 1.0 if centre[2] > 0 else -1.0
    return BoardPose(grid, given, intrinsics, rvec.reshape(3), tvec.reshape(3), up, estimated,
                     calibrated, lens_k)


def _side_px(corners: np.ndarray) -> float:
    """The grid's mean side in the image (px)."""
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))


def nearest_order(corners_px: np.ndarray, targets_px: np.ndarray) -> np.ndarray:
    """Of the eight orders that go round a grid's four corners (4, 2) and keep its square
    pattern (four turns, each either way round), the one whose corners lie nearest
    `targets_px` (4, 2), corner by corner."""
    c = np.asarray(corners_px, np.float64)
    orders = [np.roll(c, k, axis=0) for k in range(4)]
    orders += [o[::-1] for o in orders]
    return min(orders, key=lambda o: float(np.linalg.norm(o - targets_px, axis=1).sum()))


# A photo cropped to the board's grid puts its outer corners on the image's edge, a rounding
# past the last pixel's centre (a pixel or two; si3p-mat.jpg and fhgr-board-v2.jpg so cropped
# were refused as partly out of view, and read whole with a pixel more kept).  A corner this
# far past it (px, or this share of the grid's side, whichever is more) is on the edge: a
# sliver of an edge square cut off, which the reading survives.
EDGE_SLACK_PX = 1.0
EDGE_SLACK_SHARE = 0.005


def outside_image(corners_px: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """(4,) bool: which of the grid's outer corners lie outside the image (w, h), past its
    outermost pixels' centres by more than the slack above."""
    w, h = image_size
    c = np.asarray(corners_px, np.float64).reshape(4, 2)
    slack = max(EDGE_SLACK_PX, EDGE_SLACK_SHARE * _side_px(c))
    return (c[:, 0] < -slack) | (c[:, 0] > w - 1 + slack) | \
        (c[:, 1] < -slack) | (c[:, 1] > h - 1 + slack)


def _corner_miss_px(corners: np.ndarray, grid: int, intrinsics: CameraIntrinsics) -> float:
    """How far (px, the worst corner) the pose solved with `intrinsics` puts the grid's
    corners from `corners`."""
    obj = grid_object_points(grid)
    ok, rvec, tvec = cv2.solvePnP(obj, corners.reshape(4, 1, 2), intrinsics.matrix,
                                  intrinsics.dist_array, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return math.inf
    px, _ = cv2.projectPoints(obj, rvec, tvec, intrinsics.matrix, intrinsics.dist_array)
    return float(np.max(np.linalg.norm(px.reshape(-1, 2) - corners, axis=1)))


def _off_centre_camera(hom: np.ndarray, corners: np.ndarray, grid: int, w: int, h: int,
                       levels: int = 4, steps: int = 9) -> CameraIntrinsics | None:
    """A pinhole camera (square pixels, no distortion) that sees the board's grid where
    `corners` are, its principal point as near the image's centre as allows.

    Four corners fix a plane's homography (8 numbers); a pose and a focal length are 7: with
    the principal point at the centre, the corners of a cropped photo, or of a keystoned one,
    are missed by a tenth of a square or more, and every sample lands off its place.  With the
    principal point free as well, the cameras that fit form a curve: searched on a grid of
    principal points, narrowed `levels` times around the best, each scored by its miss
    (squares) and its distance from the centre (`_CENTRE_COST`)."""
    lo, hi = _FOCAL_RANGE_WIDTHS
    side = _side_px(corners)
    best: tuple[float, CameraIntrinsics] | None = None
    cx0, cy0, span = w / 2, h / 2, 0.5
    for _ in range(levels):
        centre_x, centre_y = cx0, cy0
        for dx in np.linspace(-span, span, steps):
            for dy in np.linspace(-span, span, steps):
                cx, cy = centre_x + dx * w, centre_y + dy * h
                f = estimate_focal_px(hom, cx, cy)
                if f is None or not lo * w <= f <= hi * w:
                    continue
                camera = CameraIntrinsics(w, h, f, f, cx, cy)
                miss_sq = _corner_miss_px(corners, grid, camera) * grid / side
                score = miss_sq + _CENTRE_COST * math.hypot((cx - w / 2) / w, (cy - h / 2) / h)
                if best is None or score < best[0]:
                    best = (score, camera)
                    cx0, cy0 = cx, cy
        span /= 4
    return None if best is None else best[1]


def square_centre(file: int, rank: int) -> tuple[float, float]:
    return file + 0.5, rank + 0.5


def segment_dist2(qx: np.ndarray, qy: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                  ) -> np.ndarray:
    """Squared distance from points (qx, qy) to the segments from 0 to (vx, vy), all
    broadcasting.  (Coordinates apart: numpy reduces a length-2 axis slowly.)"""
    vv = np.maximum(vx * vx + vy * vy, 1e-12)
    s = np.clip((qx * vx + qy * vy) / vv, 0.0, 1.0)
    dx = qx - s * vx
    dy = qy - s * vy
    return dx * dx + dy * dy
