import json

import pytest

from calibration.camera import CameraIntrinsics
from calibration.colour import ColourModel
from calibration.store import (
    BoardCalibration,
    Calibration,
    CalibrationError,
    load_calibration,
    save_calibration,
)


def test_round_trip(tmp_path):
    cal = Calibration(camera=CameraIntrinsics(1280, 720, 1000, 1000, 640, 360, (0.1, 0, 0, 0, 0)),
                      board=BoardCalibration(8, ((1, 2), (3, 4), (5, 6), (7, 8)), 1280, 720),
                      colours=ColourModel(dark_square_lab=(50.0, 130.0, 140.0)),
                      gantry={"steps_per_mm": 80})
    path = tmp_path / "cal.json"
    save_calibration(cal, path)
    assert load_calibration(path) == cal


def test_a_board_saved_before_the_lens_term_reads_with_none(tmp_path):
    """Files written before boards kept the lens term their grid showed still load."""
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"version": 1, "board": {
        "grid": 8, "corners_px": [[1, 2], [3, 4], [5, 6], [7, 8]], "image_width_px": 1280,
        "image_height_px": 720}}))
    assert load_calibration(path).board.lens_k == 0.0
    board = BoardCalibration(8, ((1, 2), (3, 4), (5, 6), (7, 8)), 1280, 720, lens_k=-0.07)
    save_calibration(Calibration(board=board), path)
    assert json.loads(path.read_text())["board"]["lens_k"] == -0.07
    assert load_calibration(path).board == board


def test_unknown_key_names_file_and_field(tmp_path):
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"version": 1, "camera": {
        "width_px": 640, "height_px": 480, "fx_px": 500, "fy_px": 500, "cx_px": 320,
        "cy_px": 240, "fxx": 3}}))
    with pytest.raises(CalibrationError) as e:
        load_calibration(path)
    assert "cal.json" in str(e.value) and "fxx" in str(e.value) and "camera" in str(e.value)


def test_unknown_top_level_key_and_future_version(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"version": 1, "boardd": {}}))
    with pytest.raises(CalibrationError, match="boardd"):
        load_calibration(path)
    path.write_text(json.dumps({"version": 99}))
    with pytest.raises(CalibrationError, match="version"):
        load_calibration(path)


def test_saving_into_a_missing_folder_names_it(tmp_path):
    path = tmp_path / "no_such_folder" / "calibration.json"
    with pytest.raises(FileNotFoundError, match="cannot save the calibration.*no folder"):
        save_calibration(Calibration(), path)
    assert not path.parent.exists()


@pytest.mark.parametrize("field, value, words", [
    ("square_mm", 0, "square_mm must be above 0"),
    ("disc_height_mm", -7, "disc_height_mm must be above 0"),
    ("disc_diameter_mm", 45.0, "less than square_mm"),
    ("lens_k", 1.5, "lens_k must lie between -1 and 1"),
])
def test_a_board_of_impossible_sizes_is_refused_naming_the_field(tmp_path, field, value, words):
    """The discs' size sets how the king stage reads the pieces (vision.pipeline): a size
    nothing can have is a damaged or mistyped file, said as such."""
    board = {"grid": 8, "corners_px": [[1, 2], [3, 4], [5, 6], [7, 8]], "image_width_px": 1280,
             "image_height_px": 720, field: value}
    path = tmp_path / "cal.json"
    path.write_text(json.dumps({"version": 1, "board": board}))
    with pytest.raises(CalibrationError, match=words) as e:
        load_calibration(path)
    assert "cal.json" in str(e.value) and "board" in str(e.value)
