"""Camera intrinsics and the camera's pose over the board.

Intrinsics come from `damas calibrate camera` (a printed chessboard seen several times) or, when
none exists, are estimated from the board itself (`estimate_focal_px`): a draughts board is a
plane of known squares, and one view of a plane fixes the focal length when the principal point
is taken at the image centre (Zhang's constraints), unless the view is nearly frontal, where the
focal length hardly matters for the pieces anyway.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CameraIntrinsics:
    """Pinhole intrinsics plus OpenCV distortion coefficients (k1, k2, p1, p2, k3)."""

    width_px: int
    height_px: int
    fx_px: float
    fy_px: float
    cx_px: float
    cy_px: float
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)
    rms_px: float | None = None  # reprojection error of the calibration that produced it

    @property
    def matrix(self) -> np.ndarray:
        return np.array([[self.fx_px, 0.0, self.cx_px], [0.0, self.fy_px, self.cy_px],
                         [0.0, 0.0, 1.0]])

    @property
    def dist_array(self) -> np.ndarray:
        return np.array(self.dist, dtype=np.float64)

    @classmethod
    def guess(cls, width_px: int, height_px: int, hfov_deg: float = 62.0) -> CameraIntrinsics:
        """A plausible camera (phone or Pi camera module) when nothing better is known."""
        f = (width_px / 2) / math.tan(math.radians(hfov_deg) / 2)
        return cls(width_px, height_px, f, f, width_px / 2, height_px / 2)

    def scaled_to(self, width_px: int, height_px: int) -> CameraIntrinsics:
        """The same camera at another resolution (same field of view)."""
        sx, sy = width_px / self.width_px, height_px / self.height_px
        return CameraIntrinsics(width_px, height_px, self.fx_px * sx, self.fy_px * sy,
                                self.cx_px * sx, self.cy_px * sy, self.dist, self.rms_px)


def same_shape(size_a: tuple[int, int], size_b: tuple[int, int], tolerance: float = 0.01) -> bool:
    """Do two image sizes (width, height) have one shape, so that one scales onto the other?
    (Another shape is another crop of the sensor.)"""
    (wa, ha), (wb, hb) = size_a, size_b
    return abs((wa / wb) / (ha / hb) - 1.0) <= tolerance


def estimate_focal_px(plane_to_image: np.ndarray, cx_px: float, cy_px: float) -> float | None:
    """Focal length (square pixels) from the homography of one plane, or None if ill-posed.

    With K = [[f,0,cx],[0,f,cy],[0,0,1]] and H = K [r1 r2 t] (up to scale), r1 and r2 are
    orthonormal: h1' w h2 = 0 and h1' w h1 = h2' w h2 with w = K^-T K^-1.  After moving the
    principal point to the origin both equations are linear in 1/f^2.
    """
    shift = np.array([[1.0, 0.0, -cx_px], [0.0, 1.0, -cy_px], [0.0, 0.0, 1.0]])
    h = shift @ plane_to_image
    h1, h2 = h[:, 0], h[:, 1]
    # Equation a * (1/f^2) + b = 0 for each constraint.
    rows = [
        (h1[0] * h2[0] + h1[1] * h2[1], h1[2] * h2[2]),
        (h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2, h1[2] ** 2 - h2[2] ** 2),
    ]
    a = np.array([r[0] for r in rows])
    b = np.array([r[1] for r in rows])
    denom = float(a @ a)
    if denom <= 0:
        return None
    inv_f2 = -float(a @ b) / denom
    if inv_f2 <= 0:
        return None
    f = 1.0 / math.sqrt(inv_f2)
    # A nearly frontal view makes the constraints degenerate (b ~ 0): refuse silly values.
    if not math.isfinite(f):
        return None
    return f


@dataclass(frozen=True)
class CameraPose:
    """Board-to-camera transform: x_cam = R x_board + t (board frame in square units or mm)."""

    rvec: tuple[float, float, float]
    tvec: tuple[float, float, float]

    @property
    def rotation(self) -> np.ndarray:
        import cv2

        r, _ = cv2.Rodrigues(np.array(self.rvec, dtype=np.float64))
        return r

    def tilt_deg(self) -> float:
        """Angle between the camera's optical axis and the board's normal."""
        r = self.rotation
        # Board normal (0,0,1) in camera coordinates is r[:, 2]; the optical axis is (0,0,1).
        return math.degrees(math.acos(min(1.0, abs(float(r[2, 2])))))
