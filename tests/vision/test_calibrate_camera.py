"""`damas calibrate camera` on chessboards rendered through a known camera: the intrinsics it
saves are those the images were made with (the ground truth is the renderer's own K)."""

import json

import cv2
import numpy as np
import pytest

from app.cli import main

FX, FY, CX, CY = 820.0, 815.0, 330.0, 235.0
SIZE = (640, 480)
PATTERN = (9, 6)  # inner corners
SQUARE_MM = 25.0


def _chessboard_view(rvec: tuple[float, float, float], tvec: tuple[float, float, float],
                     ) -> np.ndarray:
    """A 10x7-square chessboard (white margin) seen by the camera K from pose (rvec, tvec)."""
    px_per_mm = 4.0
    cols, rows = PATTERN[0] + 1, PATTERN[1] + 1
    margin = SQUARE_MM
    w_mm, h_mm = cols * SQUARE_MM + 2 * margin, rows * SQUARE_MM + 2 * margin
    tex = np.full((int(h_mm * px_per_mm), int(w_mm * px_per_mm)), 255, np.uint8)
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                x0 = int((margin + c * SQUARE_MM) * px_per_mm)
                y0 = int((margin + r * SQUARE_MM) * px_per_mm)
                s = int(SQUARE_MM * px_per_mm)
                tex[y0:y0 + s, x0:x0 + s] = 0
    k = np.array([[FX, 0, CX], [0, FY, CY], [0, 0, 1]])
    rot, _ = cv2.Rodrigues(np.array(rvec, np.float64))
    # Texture pixel (u, v) -> board mm (u / px_per_mm - margin - SQUARE_MM, ...), the first
    # inner corner at the origin; then onto the image through K [r1 r2 t].
    to_mm = np.array([[1 / px_per_mm, 0, -margin - SQUARE_MM],
                      [0, 1 / px_per_mm, -margin - SQUARE_MM], [0, 0, 1]])
    h = k @ np.column_stack([rot[:, 0], rot[:, 1], np.array(tvec, np.float64)]) @ to_mm
    img = cv2.warpPerspective(tex, h, SIZE, flags=cv2.INTER_AREA, borderValue=160)
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)


POSES = [((0.3, 0.0, 0.0), (-100, -60, 420)), ((-0.3, 0.1, 0.05), (-110, -70, 450)),
         ((0.0, 0.35, 0.0), (-90, -65, 430)), ((0.1, -0.35, -0.1), (-100, -55, 440)),
         ((0.25, 0.25, 0.2), (-95, -75, 460))]


@pytest.fixture
def photos(tmp_path):
    folder = tmp_path / "chessboard"
    folder.mkdir()
    for i, (rvec, tvec) in enumerate(POSES):
        cv2.imwrite(str(folder / f"view{i}.png"), _chessboard_view(rvec, tvec))
    return folder


def test_intrinsics_from_a_folder_of_chessboard_photos(photos, tmp_path, capsys):
    out = tmp_path / "calibration.json"
    assert main(["calibrate", "camera", str(photos), "--output", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("chessboard found") == len(POSES)  # progress, one line per photo
    cam = json.loads(out.read_text())["camera"]
    assert cam["fx_px"] == pytest.approx(FX, rel=0.01)
    assert cam["fy_px"] == pytest.approx(FY, rel=0.01)
    assert cam["cx_px"] == pytest.approx(CX, abs=3)
    assert cam["cy_px"] == pytest.approx(CY, abs=3)
    # The views were made without distortion: five photos must not invent a strong one (a
    # free sixth-order term came out at -2.5, with k2 0.38, bending the image's edges).
    k1, k2, _, _, k3 = cam["dist"]
    assert abs(k1) < 0.05 and abs(k2) < 0.1 and k3 == 0.0


def test_photos_of_two_sizes_are_refused(photos, tmp_path, capsys):
    first = next(iter(sorted(photos.iterdir())))
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(first)), (320, 240)))
    assert main(["calibrate", "camera", str(photos), str(small), "--output",
                 str(tmp_path / "c.json")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert "320x240" in lines[-1] and not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("flag", [["--square-mm", "0"], ["--pattern", "1x6"]])
def test_a_meaningless_pattern_is_refused(photos, tmp_path, capsys, flag):
    assert main(["calibrate", "camera", str(photos), "--output", str(tmp_path / "c.json"),
                 *flag]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and flag[0] in lines[0]


# -- ChArUco boards ------------------------------------------------------------------------------
CHARUCO = (7, 5)  # squares
CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM = 30.0, 22.5
K1 = -0.2  # a wide lens, as a webcam's


def _charuco_texture() -> tuple[np.ndarray, float, float]:
    """(image, px per mm, margin in mm) of the board, drawn by OpenCV itself."""
    aruco = cv2.aruco
    board = aruco.CharucoBoard(CHARUCO, CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM,
                               aruco.getPredefinedDictionary(aruco.DICT_4X4_50))
    px_per_mm, margin_mm = 6.0, 10.0
    cols, rows = CHARUCO
    size = (int((cols * CHARUCO_SQUARE_MM + 2 * margin_mm) * px_per_mm),
            int((rows * CHARUCO_SQUARE_MM + 2 * margin_mm) * px_per_mm))
    tex = board.generateImage(size, marginSize=int(margin_mm * px_per_mm), borderBits=1)
    return tex, px_per_mm, margin_mm


def _lens_view(tex: np.ndarray, px_per_mm: float, margin_mm: float, rvec, tvec) -> np.ndarray:
    """The texture (its board's first square's corner at the board's origin) seen by the camera
    K with a radial lens term K1: each image pixel looks up, through the lens undone and the
    pose, the texture point it sees."""
    k = np.array([[FX, 0, CX], [0, FY, CY], [0, 0, 1]])
    dist = np.array([K1, 0.0, 0.0, 0.0, 0.0])
    w, h = SIZE
    pix = np.stack(np.meshgrid(np.arange(w), np.arange(h)), axis=-1).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(pix.astype(np.float64), k, dist).reshape(-1, 2)
    rot, _ = cv2.Rodrigues(np.array(rvec, np.float64))
    plane_to_ideal = np.column_stack([rot[:, 0], rot[:, 1], np.array(tvec, np.float64)])
    mm = np.linalg.solve(plane_to_ideal, np.column_stack([ideal, np.ones(len(ideal))]).T)
    mm = (mm[:2] / mm[2]).T
    tex_px = ((mm + margin_mm) * px_per_mm - 0.5).astype(np.float32).reshape(h, w, 2)
    img = cv2.remap(tex, tex_px[..., 0], tex_px[..., 1], cv2.INTER_AREA,
                    borderMode=cv2.BORDER_CONSTANT, borderValue=150)
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)


# Views of the 210 x 150 mm board; the last four show only part of it (8 to 12 of its 24
# corners), pushed into the image's four corners where the lens bends most (a chessboard must
# be seen whole).
CHARUCO_POSES = [((0.3, 0.0, 0.0), (-105, -75, 330)), ((-0.3, 0.1, 0.05), (-110, -70, 350)),
                 ((0.0, 0.35, 0.0), (-100, -80, 330)), ((0.1, -0.35, -0.1), (-100, -70, 340)),
                 ((0.2, 0.2, 0.3), (-30, -30, 290)), ((0.15, -0.25, 0.1), (-180, -40, 290)),
                 ((0.1, 0.1, 0.0), (-40, -130, 280)), ((-0.2, 0.15, -0.2), (-160, -110, 300))]


@pytest.fixture(scope="module")
def charuco_photos(tmp_path_factory):
    folder = tmp_path_factory.mktemp("charuco")
    tex, px_per_mm, margin_mm = _charuco_texture()
    for i, (rvec, tvec) in enumerate(CHARUCO_POSES):
        cv2.imwrite(str(folder / f"view{i}.png"), _lens_view(tex, px_per_mm, margin_mm, rvec,
                                                             tvec))
    return folder


def test_intrinsics_and_lens_from_charuco_photos_partly_in_view(charuco_photos, tmp_path,
                                                                 capsys):
    out = tmp_path / "calibration.json"
    assert main(["calibrate", "camera", str(charuco_photos), "--charuco", "7x5",
                 "--square-mm", "30", "--marker-mm", "22.5", "--output", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("ChArUco board found") == len(CHARUCO_POSES)
    # (The whole board has (7 - 1) x (5 - 1) = 24 inner corners; the last views see fewer.)
    counts = [int(line.split("(")[1].split()[0]) for line in err.splitlines()
              if "found" in line]
    assert max(counts) == 24 and min(counts) < 24
    cam = json.loads(out.read_text())["camera"]
    assert cam["fx_px"] == pytest.approx(FX, rel=0.01)
    assert cam["fy_px"] == pytest.approx(FY, rel=0.01)
    assert cam["cx_px"] == pytest.approx(CX, abs=3)
    assert cam["cy_px"] == pytest.approx(CY, abs=3)
    assert cam["dist"][0] == pytest.approx(K1, abs=0.03)


def test_a_charuco_board_in_the_layout_older_opencv_printed_is_found():
    from calibration.targets import Charuco, find_charuco

    cols, rows = CHARUCO
    board = Charuco(cols, rows + 1, CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM)  # (an even count)
    aruco = cv2.aruco
    even = aruco.CharucoBoard((cols, rows + 1), CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM,
                              aruco.getPredefinedDictionary(aruco.DICT_4X4_50))
    even.setLegacyPattern(True)
    tex = even.generateImage((cols * 120 + 80, (rows + 1) * 120 + 80), marginSize=40,
                             borderBits=1)
    found = find_charuco(tex, board)
    assert found is not None and len(found[0]) == (cols - 1) * rows


def test_the_printed_target_has_squares_of_the_size_asked_at_the_dpi_asked(tmp_path, capsys):
    from calibration.targets import Charuco, find_charuco

    out = tmp_path / "target.png"
    assert main(["calibrate", "target", str(out), "--charuco", "5x4", "--square-mm", "20",
                 "--dpi", "200"]) == 0
    said = capsys.readouterr().out
    assert "--charuco 5x4 --square-mm 20 --marker-mm 15" in said  # what to run next
    tex = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    obj, img = find_charuco(tex, Charuco(5, 4, 20.0, 15.0))
    assert len(obj) == 4 * 3
    # 20 mm at 200 dots per inch: 20 / 25.4 * 200 = 157.5 -> whole pixels either side.
    pitch = np.linalg.norm(np.diff(img.reshape(3, 4, 2), axis=1), axis=2)
    assert pitch.min() > 157.0 - 0.6 and pitch.max() < 158.0 + 0.6


def test_chessboard_photos_are_no_charuco_board(photos, tmp_path, capsys):
    assert main(["calibrate", "camera", str(photos), "--charuco", "7x5", "--output",
                 str(tmp_path / "c.json")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert "ChArUco board was found in 0 image(s)" in lines[-1] and "DICT_4X4_50" in lines[-1]
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("flags,named", [
    (["--charuco", "2x5"], "3x3"), (["--charuco", "7"], "--charuco"),
    (["--charuco", "7x5", "--square-mm", "30", "--marker-mm", "31"], "smaller"),
    (["--charuco", "7x5", "--dictionary", "DICT_9X9_1"], "DICT_4X4_50"),
    (["--charuco", "20x20", "--dictionary", "DICT_4X4_50"], "200 markers")])
def test_a_meaningless_charuco_board_is_refused(photos, tmp_path, capsys, flags, named):
    assert main(["calibrate", "camera", str(photos), "--output", str(tmp_path / "c.json"),
                 *flags]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and named in lines[0]


def test_a_photo_of_the_target_bent_is_named_as_the_one_the_others_disagree_with(
        charuco_photos, tmp_path, capsys):
    """A photo whose target was not flat (the paper bent: points up to 4 mm off the printed
    grid) no camera explains with the others: the calibration is still saved, with a warning
    naming that photo."""
    folder = tmp_path / "photos"
    folder.mkdir()
    for f in charuco_photos.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    tex, px_per_mm, margin_mm = _charuco_texture()
    h, w = tex.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    wave = 4.0 * px_per_mm * np.sin(2 * np.pi * yy / (60.0 * px_per_mm))
    bent = cv2.remap(tex, xx + wave.astype(np.float32), yy, cv2.INTER_LINEAR, borderValue=255)
    cv2.imwrite(str(folder / "zz_bent.png"),
                _lens_view(bent, px_per_mm, margin_mm, (0.2, -0.1, 0.0), (-105, -75, 300)))
    out = tmp_path / "c.json"
    assert main(["calibrate", "camera", str(folder), "--charuco", "7x5", "--square-mm", "30",
                 "--marker-mm", "22.5", "--output", str(out)]) == 0
    warning = [line for line in capsys.readouterr().err.splitlines()
               if line.startswith("warning")]
    assert len(warning) == 1 and "zz_bent.png" in warning[0]
    assert "view0.png" not in warning[0] and out.exists()


def test_a_target_seen_only_in_the_middle_of_the_image_is_noted(tmp_path, capsys):
    """Four photos with the board small in the middle of the view (600 mm away) measure the lens
    only there: said.  The fixture's eight, four of them pushed into the corners, are not."""
    folder = tmp_path / "middle"
    folder.mkdir()
    tex, px_per_mm, margin_mm = _charuco_texture()
    for i, (rvec, _) in enumerate(CHARUCO_POSES[:4]):
        cv2.imwrite(str(folder / f"far{i}.png"),
                    _lens_view(tex, px_per_mm, margin_mm, rvec, (-105, -75, 600)))
    assert main(["calibrate", "camera", str(folder), "--charuco", "7x5", "--square-mm", "30",
                 "--marker-mm", "22.5", "--output", str(tmp_path / "c.json")]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note")]
    assert len(notes) == 1 and "edges and corners" in notes[0]


def test_a_target_taken_into_the_corners_draws_no_note(charuco_photos, tmp_path, capsys):
    assert main(["calibrate", "camera", str(charuco_photos), "--charuco", "7x5", "--square-mm",
                 "30", "--marker-mm", "22.5", "--output", str(tmp_path / "c.json")]) == 0
    err = capsys.readouterr().err
    assert "note:" not in err and "warning:" not in err
