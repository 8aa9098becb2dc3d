"""The configuration file: defaults, the example file, and errors that name file, field and fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import CONFIG_VERSION, Config, ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "table.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults_run_the_simulated_table() -> None:
    c = load_config(None)
    assert c == Config()
    assert (c.camera.source, c.gantry.port, c.gpio.pin_factory) == ("sim", "sim", "mock")
    assert (c.web.host, c.web.port) == ("127.0.0.1", 8080)
    assert (c.game.variant, c.game.policy, c.game.mode) == ("brazilian", "insist", "play")


def test_example_pi_file_loads_with_its_values() -> None:
    path = ROOT / "examples" / "pi.toml"
    c = load_config(path)
    assert c.camera.kind == "picamera2" and c.camera.resolution == (2304, 1296)
    assert c.gantry.port.startswith("/dev/serial/by-id/")
    assert c.gpio.pins() == {"button_move_done": 5, "button_ajeito": 6, "led_ready": 22,
                             "led_thinking": 23, "led_alert": 24, "buzzer": 25}
    assert c.robot.magnet.pin == 17 and c.robot.magnet.kind == "gpio"
    assert c.web.host == "0.0.0.0"
    # relative paths are relative to the file's folder
    assert c.journal.dir == path.parent / "games"
    assert c.calibration.file == path.parent / "calibration.json"


def test_partial_file_keeps_other_defaults(tmp_path: Path) -> None:
    p = write(tmp_path, 'version = 1\n[game]\nlevel = 7\n[camera]\nsource = "opencv:2"\n'
                        'resolution = [640, 480]\n[web]\nport = 9000\n')
    c = load_config(p)
    assert c.game.level == 7 and c.game.variant == "brazilian"
    assert c.camera.opencv_device == 2 and c.camera.resolution == (640, 480)
    assert c.camera.fps == 10.0
    assert c.web.port == 9000 and c.web.host == "127.0.0.1"
    assert c.source == p


def test_opencv_device_path_and_folder_source(tmp_path: Path) -> None:
    c = load_config(write(tmp_path, 'version = 1\n[camera]\nsource = "opencv:/dev/video4"\n'))
    assert c.camera.opencv_device == "/dev/video4"
    c = load_config(write(tmp_path, 'version = 1\n[camera]\nsource = "folder:shots"\n'))
    assert c.camera.kind == "folder" and c.camera.argument == str(tmp_path / "shots")


@pytest.mark.parametrize("body, field, expected", [
    ('[game]\nlevle = 3\n', "game.levle", "unknown key"),
    ('[gmae]\nlevel = 3\n', "gmae", "unknown section"),
    ('[game]\nlevel = "3"\n', "game.level", "expected a whole number"),
    ('[game]\nlevel = 11\n', "game.level", "1..10"),
    ('[game]\nvariant = "brasilian"\n', "game.variant", "expected one of brazilian"),
    ('[game]\nrobot_colour = "red"\n', "game.robot_colour", "expected one of white, black"),
    ('[game]\npolicy = "ignore"\n', "game.policy", "expected one of insist, accept"),
    ('[game]\nmode = "blitz"\n', "game.mode", "play, record, exhibition, teaching"),
    ('[camera]\nsource = "usb:0"\n', "camera.source", "expected one of picamera2"),
    ('[camera]\nsource = "opencv:"\n', "camera.source", "device index or path"),
    ('[camera]\nresolution = [640]\n', "camera.resolution", "expected a list of 2 values"),
    ('[camera]\nresolution = [640, 0]\n', "camera.resolution", "positive whole numbers"),
    ('[camera]\nfps = true\n', "camera.fps", "expected a number"),
    ('[gantry]\nport = 3\n', "gantry.port", "expected a string"),
    ('[gpio]\nbuzzer = 40\n', "gpio.buzzer", "BCM pin number 0..27"),
    ('[gpio]\nled_ready = 17\n', "gpio.led_ready", "already used by robot.magnet.pin"),
    ('[gpio]\nled_ready = 5\nbuzzer = 5\n', "gpio.buzzer", "already used by gpio.led_ready"),
    ('[gpio]\npin_factory = "wiringpi"\n', "gpio.pin_factory", "expected one of mock"),
    ('[web]\nport = 70000\n', "web.port", "1..65535"),
    ('[web]\nflipped = "yes"\n', "web.flipped", "expected true or false"),
    ('[web]\n', None, None),
    ('[journal]\ndir = 5\n', "journal.dir", "expected a path"),
    ('game = 3\n', "game", "expected a table"),
    ('[robot]\ncarriage = "flying"\n', "robot.carriage", "expected one of under-board"),
    ('[robot.magnet]\npni = 4\n', "robot.magnet.pni", "unknown key"),
])
def test_errors_name_file_field_and_expectation(tmp_path: Path, body: str, field: str | None,
                                                expected: str | None) -> None:
    p = write(tmp_path, "version = 1\n" + body)
    if field is None:
        load_config(p)  # an empty section is fine
        return
    with pytest.raises(ConfigError) as info:
        load_config(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}: ")
    assert f" {field}:" in msg or f": {field}" in msg
    assert expected in msg


def test_version_missing_old_and_new(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"version: missing; add `version = 1`"):
        load_config(write(tmp_path, "[game]\nlevel = 3\n"))
    with pytest.raises(ConfigError, match=r"version: 0 is an old configuration layout.*"
                                          r"set `version = 1`"):
        load_config(write(tmp_path, "version = 0\n"))
    with pytest.raises(ConfigError, match=r"version: 2 is newer than this program"):
        load_config(write(tmp_path, f"version = {CONFIG_VERSION + 1}\n"))
    with pytest.raises(ConfigError, match=r"version: expected a whole number"):
        load_config(write(tmp_path, 'version = "1"\n'))


def test_bad_toml_and_missing_file_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"table.toml: not valid TOML"):
        load_config(write(tmp_path, "version = 1\n[game\n"))
    with pytest.raises(ConfigError, match=r"nothere.toml: cannot read"):
        load_config(tmp_path / "nothere.toml")
    assert issubclass(ConfigError, ValueError)  # the CLI turns it into one line, exit 2


def test_config_is_frozen() -> None:
    c = load_config(None)
    with pytest.raises(AttributeError):
        c.game.level = 9  # type: ignore[misc]
