"""Robot configuration files and the board-to-machine gantry mapping."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from calibration.gantry import GantryCalibration, corner_centres_mm, fit_gantry
from calibration.store import Calibration, load_calibration, save_calibration
from robot.config import RobotConfig, load_robot_config
from robot.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "robot.toml"
    p.write_text(text)
    return p


def test_defaults_need_no_file() -> None:
    cfg = load_robot_config(None).for_grid(8)
    assert cfg.carriage == "under-board" and cfg.motion.feed_mm_min == 6000.0
    assert len(cfg.tray.capture_slots) >= 12  # every piece of one side fits


def test_file_values_are_read(tmp_path: Path) -> None:
    p = write(tmp_path, """
[robot]
carriage = "overhead-lift"
[robot.board]
square_mm = 42
[robot.magnet]
kind = "grbl-coolant"
[robot.tray]
capture_slots = [[400, 10], [400, 50]]
[robot.gantry]
x0_mm = 12.5
""")
    cfg = load_robot_config(p)
    assert cfg.carriage == "overhead-lift" and cfg.board.square_mm == 42.0
    assert cfg.tray.capture_slots == ((400.0, 10.0), (400.0, 50.0))
    assert cfg.gantry.to_machine(0, 0) == (12.5, 0.0)


@pytest.mark.parametrize("text,field", [
    ('[robot]\nspeed = 3\n', "robot.speed"),
    ('[robot.board]\nsquare = 40\n', "robot.board.square"),
    ('[robot.gantry]\nbogus = 1\n', "bogus"),
])
def test_unknown_keys_name_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_robot_config(p)
    assert str(p) in str(err.value) and field in str(err.value)


@pytest.mark.parametrize("text,expected", [
    ('[robot]\ncarriage = "sideways"\n', "expected one of under-board, overhead-lift"),
    ('[robot.motion]\nfeed_mm_min = "fast"\n', "robot.motion.feed_mm_min: expected a number"),
    ('[robot.magnet]\npin = 1.5\n', "robot.magnet.pin: expected a whole number"),
    ('[robot.board]\ndisc_diameter_mm = 45\n', "disc_diameter_mm"),
])
def test_bad_values_are_explained(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        load_robot_config(write(tmp_path, text))


def rotated(deg: float, x0: float, y0: float, scale: float = 1.0) -> GantryCalibration:
    c, s = math.cos(math.radians(deg)) * scale, math.sin(math.radians(deg)) * scale
    return GantryCalibration(c, -s, s, c, x0, y0)


def test_fit_recovers_a_rotated_offset_board() -> None:
    true = rotated(1.5, 35.0, 12.5, 1.002)
    pts = {k: true.to_machine(*p) for k, p in corner_centres_mm(8, 40.0).items()}
    fit = fit_gantry(pts, 8, 40.0)
    for a, b in ((fit.xx, true.xx), (fit.xy, true.xy), (fit.yx, true.yx), (fit.yy, true.yy),
                 (fit.x0_mm, true.x0_mm), (fit.y0_mm, true.y0_mm)):
        assert a == pytest.approx(b, abs=1e-9)
    assert fit.residual_mm == pytest.approx(0.0, abs=1e-9)
    assert fit.to_board(*fit.to_machine(123.0, 45.0)) == pytest.approx((123.0, 45.0))


def test_residual_of_one_misjogged_corner() -> None:
    """Four corners of a square, one off by 1 mm: the affine fit absorbs all but the
    'twist' component (+,-,+,-)/2, so every corner is left 1/4 mm off."""
    pts = dict(corner_centres_mm(8, 40.0))
    x, y = pts["a1"]
    pts["a1"] = (x + 1.0, y)
    fit = fit_gantry(pts, 8, 40.0)
    assert fit.residual_mm == pytest.approx(0.25, abs=1e-9)


def test_gantry_dict_round_trip_and_store(tmp_path: Path) -> None:
    cal = rotated(-0.7, 5.0, -3.0)
    assert GantryCalibration.from_dict(cal.to_dict()) == cal
    with pytest.raises(ValueError, match="unknown field 'scale'"):
        GantryCalibration.from_dict({**cal.to_dict(), "scale": 1.0})
    with pytest.raises(ValueError, match="must be a number"):
        GantryCalibration.from_dict({"xx": "one"})
    path = tmp_path / "calibration.json"
    save_calibration(Calibration(gantry=cal.to_dict()), path)
    loaded = load_calibration(path)
    assert loaded.gantry is not None
    assert GantryCalibration.from_dict(loaded.gantry) == cal


def test_config_is_hashable_for_router_cache() -> None:
    assert hash(RobotConfig().for_grid(8)) == hash(RobotConfig().for_grid(8))


def test_busy_pin_is_a_clear_magnet_error() -> None:
    from gpiozero.pins.mock import MockFactory

    from robot.errors import MagnetError
    from robot.magnet import GpioMagnet

    factory = MockFactory()
    with GpioMagnet(17, factory) as first:
        first.on()
        with pytest.raises(MagnetError, match="cannot use magnet GPIO17"):
            GpioMagnet(17, factory)
    assert factory.pin(17).state == 0  # closing switched it off
