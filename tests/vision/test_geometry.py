"""Geometry properties: pose from corners against a camera built independently of it."""

import math

import cv2
import numpy as np
import pytest

from calibration.camera import CameraIntrinsics, estimate_focal_px
from vision.geometry import pose_from_corners


def _camera(tilt_deg: float, f: float = 900.0):
    t = math.radians(tilt_deg)
    # Camera looking at the board centre (4, 4) from the a1 side, 12 squares away.
    centre = np.array([4.0, 4.0 - 12 * math.sin(t), 12 * math.cos(t)])
    z = np.array([4.0, 4.0, 0.0]) - centre
    z /= np.linalg.norm(z)
    y = np.array([0.0, -1.0, 0.0]) - np.dot([0.0, -1.0, 0.0], z) * z
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    r = np.stack([x, y, z])
    t_vec = -r @ centre
    k = np.array([[f, 0, 640], [0, f, 360], [0, 0, 1.0]])
    return r, t_vec, k, centre


def _project(pts, r, t, k):
    cam = pts @ r.T + t
    uv = cam[:, :2] / cam[:, 2:]
    return uv * [k[0, 0], k[1, 1]] + [k[0, 2], k[1, 2]]


@pytest.mark.parametrize("tilt", [20.0, 35.0, 50.0])
def test_focal_length_recovered_from_the_board(tilt):
    r, t, k, _ = _camera(tilt)
    plane = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], float)
    img = _project(np.column_stack([plane, np.zeros(4)]), r, t, k)
    hom, _ = cv2.findHomography(plane, img)
    assert estimate_focal_px(hom, 640, 360) == pytest.approx(900.0, rel=0.02)


@pytest.mark.parametrize("tilt", [25.0, 45.0])
def test_pose_projects_piece_tops_like_the_true_camera(tilt):
    r, t, k, centre = _camera(tilt)
    corners = _project(np.array([[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 0]], float), r, t, k)
    pose = pose_from_corners(corners, 8, (1280, 720),
                             CameraIntrinsics(1280, 720, 900, 900, 640, 360))
    tops = np.array([[2.5, 1.5, 0.35], [6.5, 7.5, 0.175]])
    assert np.allclose(pose.project(tops), _project(tops, r, t, k), atol=0.05)
    assert np.allclose(pose.camera_centre(), centre, atol=1e-3)
    assert pose.tilt_deg() == pytest.approx(tilt, abs=0.1)


def test_mirrored_corner_order_still_puts_the_camera_above():
    r, t, k, centre = _camera(30.0)
    # The same board labelled the other way round (corners running clockwise in the image).
    corners = _project(np.array([[0, 0, 0], [0, 8, 0], [8, 8, 0], [8, 0, 0]], float), r, t, k)
    pose = pose_from_corners(corners, 8, (1280, 720),
                             CameraIntrinsics(1280, 720, 900, 900, 640, 360))
    assert pose.up == -1.0
    assert pose.camera_centre()[2] == pytest.approx(centre[2], rel=1e-3)


@pytest.mark.parametrize("shift", [(300.0, -150.0), (-250.0, 200.0)])
def test_without_intrinsics_an_off_centre_photo_keeps_its_corners(shift):
    """A photo cropped off its centre: its principal point is not the image's, and no camera
    centred there puts the board where it is.  The pose found without intrinsics must still
    put the grid's corners, and so every square, where they are (before, a camera centred on
    the image missed them by a tenth of a square or more)."""
    r, t, k, _ = _camera(35.0)
    k = k.copy()
    k[0, 2] += shift[0]
    k[1, 2] += shift[1]
    board = np.array([[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 0]], float)
    corners = _project(board, r, t, k)
    pose = pose_from_corners(corners, 8, (1280, 720))
    square_px = np.linalg.norm(corners[1] - corners[0]) / 8
    assert pose.reprojection_error_px() < 0.01 * square_px
    # Every square's centre, not only the corners the pose was fitted to.
    centres = np.array([[f + 0.5, r_ + 0.5, 0.0] for f in range(8) for r_ in range(8)])
    assert np.abs(pose.project(centres) - _project(centres, r, t, k)).max() < 0.02 * square_px
    assert pose.focal_estimated


def test_without_intrinsics_a_centred_photo_keeps_its_centred_camera():
    """Where a camera centred on the image fits, the principal point stays there."""
    r, t, k, _ = _camera(35.0)
    corners = _project(np.array([[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 0]], float), r, t, k)
    pose = pose_from_corners(corners, 8, (1280, 720))
    assert (pose.intrinsics.cx_px, pose.intrinsics.cy_px) == (640.0, 360.0)
    assert pose.intrinsics.fx_px == pytest.approx(900.0, rel=0.02)


@pytest.mark.parametrize("shift", [(0.0, 0.0), (250.0, -120.0)])
def test_without_intrinsics_a_wide_lens_bends_every_square_as_it_bent_the_grid(shift):
    """A wide lens not calibrated (barrel distortion about the image's centre, as the board's
    lattice measures it: each point pulled in by k times its squared distance in half the
    image's longer side).  Given that term, the pose puts every square's centre where the
    lens does; a pinhole alone (before) missed the squares near the edges by a tenth of a
    square here, more through wider lenses, and the men there read as empty."""
    r, t, k, _ = _camera(35.0)
    k = k.copy()
    k[0, 2] += shift[0]
    k[1, 2] += shift[1]
    lens_k, centre, unit = -0.09, np.array([640.0, 360.0]), 640.0

    def bent(px):
        q = (px - centre) / unit
        return centre + q * (1 + lens_k * np.sum(q * q, axis=1, keepdims=True)) * unit

    board = np.array([[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 0]], float)
    corners = bent(_project(board, r, t, k))
    square_px = np.linalg.norm(corners[1] - corners[0]) / 8
    centres = np.array([[f + 0.5, r_ + 0.5, h] for f in range(8) for r_ in range(8)
                        for h in (0.0, 0.35)])
    truth = bent(_project(centres, r, t, k))
    pose = pose_from_corners(corners, 8, (1280, 720), lens_k=lens_k)
    assert np.abs(pose.project(centres) - truth).max() < 0.03 * square_px
    assert pose.reprojection_error_px() < 0.01 * square_px
    pinhole = pose_from_corners(corners, 8, (1280, 720))
    assert np.abs(pinhole.project(centres) - truth).max() > 0.08 * square_px
    assert not pose.lens_calibrated


def test_calibrated_intrinsics_keep_their_own_lens():
    """With intrinsics the lattice's lens term is not used: their own lens model is."""
    r, t, k, _ = _camera(30.0)
    corners = _project(np.array([[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 0]], float), r, t, k)
    camera = CameraIntrinsics(1280, 720, 900, 900, 640, 360)
    pose = pose_from_corners(corners, 8, (1280, 720), camera, lens_k=-0.1)
    assert pose.lens_k == 0.0 and pose.lens_calibrated
    tops = np.array([[0.5, 0.5, 0.175], [7.5, 7.5, 0.35]])
    assert np.allclose(pose.project(tops), _project(tops, r, t, k), atol=0.05)
