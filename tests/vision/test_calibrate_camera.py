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
