"""Every file parser meets garbage: arbitrary input gives the package's own clear error (each a
ValueError, or a GantryError for the GRBL link), never another exception and never a hang.

Hypothesis runs a bounded number of examples per parser, each under a deadline; mutated valid
inputs (one character changed, a line cut, a field of the wrong type) reach deeper than random
text alone.  Error messages are also checked to name the file and the field."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.config import ConfigError, config_from_dict, load_config
from app.journal import JournalError, parse_journal
from calibration.store import CalibrationError, calibration_from_dict, load_calibration
from game.board import Board
from game.errors import GameError
from game.pdn import read_games
from robot.errors import GantryError
from robot.grbl import Grbl, parse_status

FUZZ = settings(max_examples=150, deadline=2000,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

VALID_FENS = ["W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
              "B:Wc3,Kd4:Bb6,f8", "W:W31-50:B1-20", "W:Wa1,c3,Kd4:Bb6,f8"]
VALID_PDN = ('[Event "club"]\n[White "A"]\n[Black "B"]\n[Result "*"]\n'
             '1. c3-d4 f6-g5 2. b2-c3 {quiet} g7-f6 *\n')
VALID_TOML = ('version = 1\n[game]\nvariant = "brazilian"\nlevel = 3\nrobot_colour = "black"\n'
              '[camera]\nsource = "sim"\nresolution = [1280, 960]\n[web]\nport = 8080\n'
              '[robot]\ncarriage = "under-board"\n[robot.board]\nsquare_mm = 40.0\n')
VALID_CALIBRATION = {
    "version": 1,
    "camera": {"width_px": 1280, "height_px": 960, "fx_px": 1000.0, "fy_px": 1000.0,
               "cx_px": 640.0, "cy_px": 480.0, "dist": [0.0, 0.0, 0.0, 0.0, 0.0]},
    "board": {"grid": 8, "corners_px": [[100, 100], [900, 100], [900, 800], [100, 800]],
              "image_width_px": 1280, "image_height_px": 960},
    "colours": {"dark_square_lab": [80.0, 130.0, 140.0]},
}


def _mutate(text: str, data: st.DataObject) -> str:
    """One random edit of a valid text: replace, insert or delete a character, or cut it."""
    if not text:
        return text
    i = data.draw(st.integers(0, len(text) - 1))
    kind = data.draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
    ch = data.draw(st.characters(codec="utf-8"))
    if kind == "replace":
        return text[:i] + ch + text[i + 1:]
    if kind == "insert":
        return text[:i] + ch + text[i:]
    if kind == "delete":
        return text[:i] + text[i + 1:]
    return text[:i]


# -- FEN ------------------------------------------------------------------------------------------
@FUZZ
@given(st.one_of(st.text(max_size=80), st.text(alphabet="WBK:,-0123456789abcdefghx ",
                                                max_size=60)),
       st.sampled_from(["brazilian", "international", "english", "russian"]))
def test_fen_garbage_is_a_game_error(text: str, variant: str) -> None:
    try:
        Board(text, variant)
    except ValueError as e:  # GameError subclasses are ValueErrors
        assert str(e)


@FUZZ
@given(st.data())
def test_fen_mutations_are_a_game_error(data: st.DataObject) -> None:
    text = _mutate(data.draw(st.sampled_from(VALID_FENS)), data)
    try:
        Board(text, "international" if "31-50" in text else "brazilian")
    except ValueError as e:
        assert str(e)


def test_fen_error_names_the_token() -> None:
    with pytest.raises(GameError, match="z9"):
        Board("W:Wz9:Bb6")


# -- PDN ------------------------------------------------------------------------------------------
@FUZZ
@given(st.one_of(st.text(max_size=200),
                 st.text(alphabet='[]"{}()1234567890.-x* \nabcdefghWBKResult', max_size=200)))
def test_pdn_garbage_is_a_game_error(text: str) -> None:
    try:
        games = read_games(text)
    except ValueError as e:
        assert str(e)
        return
    for g in games:  # whatever it accepted replays or says why not
        try:
            g.replay()
        except ValueError as e:
            assert str(e)


@FUZZ
@given(st.data())
def test_pdn_mutations_are_a_game_error(data: st.DataObject) -> None:
    text = _mutate(VALID_PDN, data)
    try:
        for g in read_games(text):
            g.replay()
    except ValueError as e:
        # (a superscript digit in a move reaches int() in game.notation and gives a plain
        # ValueError instead of InvalidSquareError: reported, still a ValueError)
        assert str(e)


# -- configuration --------------------------------------------------------------------------------
SECTION_KEYS = ["version", "game", "camera", "calibration", "gantry", "gpio", "web", "journal",
                "robot", "variant", "level", "source", "port", "resolution", "fps", "carriage",
                "board", "magnet", "pin", "square_mm", "policy", "bogus"]
toml_scalars = st.one_of(st.booleans(), st.integers(-10**6, 10**6),
                         st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12))
toml_values = st.recursive(
    toml_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(SECTION_KEYS), inner, max_size=4)),
    max_leaves=12)


@FUZZ
@given(st.dictionaries(st.sampled_from(SECTION_KEYS), toml_values, max_size=6),
       st.sampled_from([None, 1, 0, 2, "1"]))
def test_configuration_data_gives_config_error(data: dict[str, Any], version: Any) -> None:
    if version is not None:
        data = {**data, "version": version}
    try:
        config_from_dict(data, Path("table.toml"))
    except ConfigError as e:
        assert "table.toml" in str(e)


@FUZZ
@given(st.data())
def test_configuration_file_mutations(tmp_path_factory: pytest.TempPathFactory,
                                      data: st.DataObject) -> None:
    text = _mutate(VALID_TOML, data)
    path = tmp_path_factory.mktemp("cfg") / "table.toml"
    path.write_text(text, encoding="utf-8")
    try:
        load_config(path)
    except ConfigError as e:
        assert str(path) in str(e)


def test_configuration_error_names_file_field_and_expected(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('version = 1\n[game]\nlevel = "high"\n')
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(path) in str(e.value) and "game.level" in str(e.value)
    assert "whole number" in str(e.value)
    path.write_text("version = 0\n")
    with pytest.raises(ConfigError, match="old configuration layout"):
        load_config(path)
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="table.toml"):
        load_config(path)


# -- calibration ----------------------------------------------------------------------------------
def _replace_leaf(obj: Any, path: list[Any], value: Any) -> Any:
    if not path:
        return value
    out = dict(obj) if isinstance(obj, dict) else list(obj)
    out[path[0]] = _replace_leaf(obj[path[0]], path[1:], value)
    return out


def _leaf_paths(obj: Any, prefix: list[Any] | None = None) -> list[list[Any]]:
    prefix = prefix or []
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in _leaf_paths(v, prefix + [k])] + [prefix]
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj) for p in _leaf_paths(v, prefix + [i])] + [prefix]
    return [prefix]


@FUZZ
@given(st.data(), toml_values)
def test_calibration_field_of_any_value(data: st.DataObject, value: Any) -> None:
    """Any field replaced by any JSON value: accepted with the right types, or refused."""
    path = data.draw(st.sampled_from(_leaf_paths(VALID_CALIBRATION)))
    doc = _replace_leaf(VALID_CALIBRATION, path, value)
    try:
        cal = calibration_from_dict(doc, "calibration.json")
    except CalibrationError as e:
        assert "calibration.json" in str(e)
        return
    if cal.camera is not None:
        assert isinstance(cal.camera.width_px, int) and isinstance(cal.camera.fx_px, float)
    if cal.board is not None:
        assert len(cal.board.corners_px) == 4
        assert all(len(c) == 2 and all(isinstance(v, float) for v in c)
                   for c in cal.board.corners_px)


@FUZZ
@given(st.data())
def test_calibration_file_mutations(tmp_path_factory: pytest.TempPathFactory,
                                    data: st.DataObject) -> None:
    text = _mutate(json.dumps(VALID_CALIBRATION), data)
    path = tmp_path_factory.mktemp("cal") / "calibration.json"
    path.write_text(text, encoding="utf-8")
    try:
        load_calibration(path)
    except CalibrationError as e:
        assert str(path) in str(e)


def test_calibration_error_names_file_field_and_expected(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    doc = _replace_leaf(VALID_CALIBRATION, ["camera", "fx_px"], "wide")
    path.write_text(json.dumps(doc))
    with pytest.raises(CalibrationError) as e:
        load_calibration(path)
    text = str(e.value)
    assert str(path) in text and "fx_px" in text and "number" in text
    path.write_text(json.dumps({**VALID_CALIBRATION, "version": 99}))
    with pytest.raises(CalibrationError, match="version"):
        load_calibration(path)


# -- GRBL replies ---------------------------------------------------------------------------------
@FUZZ
@given(st.one_of(st.text(max_size=80),
                 st.builds(lambda body: "<" + body + ">",
                           st.text(alphabet="IdleRunAlarm|MPosWCOFS:,.-0123456789eE+",
                                   max_size=60))))
def test_status_report_garbage(line: str) -> None:
    try:
        status = parse_status(line)
    except GantryError as e:
        assert str(e)
        return
    assert len(status.mpos) == 3


class _ScriptedPort:
    """A serial port that answers anything with the given bytes, then silence."""

    def __init__(self, reply: bytes) -> None:
        self.reply = bytearray(reply)
        self.in_waiting = 0

    def write(self, data: bytes) -> int:
        return len(data)

    def read(self, size: int = 1) -> bytes:
        out = bytes(self.reply[:size])
        del self.reply[:size]
        self.in_waiting = len(self.reply)
        return out

    def close(self) -> None:
        pass


REPLY_ATOMS = [b"ok\r\n", b"error:", b"ALARM:", b"<Idle|MPos:1,2,3|FS:0,0>\r\n", b"Grbl 1.1h\r\n",
               b"[MSG:x]\r\n", b"$22=1\r\n", b"\r\n", b"\n", b"<", b">", b"|", b"9", b"x", b"\xff"]


@settings(max_examples=150, deadline=3000)
@given(st.lists(st.one_of(st.sampled_from(REPLY_ATOMS), st.binary(max_size=8)), max_size=12),
       st.sampled_from(["command", "settings", "status", "connect", "stream"]))
def test_grbl_driver_on_garbage_replies(atoms: list[bytes], call: str) -> None:
    """Whatever the controller sends back, the driver answers or raises a GantryError within
    its timeout (short here)."""
    grbl = Grbl(_ScriptedPort(b"".join(atoms)), timeout_s=0.05, motion_timeout_s=0.05,
                poll_s=0.001)
    try:
        if call == "command":
            grbl.command("G4 P0")
        elif call == "settings":
            grbl.settings()
        elif call == "status":
            grbl.status()
        elif call == "connect":
            grbl.connect(banner_timeout_s=0.02)
        else:
            grbl.stream(["G1 X1 F100", "G1 Y2"])
    except GantryError as e:
        assert str(e)


# -- journal (the crash-proof record) --------------------------------------------------------------
@FUZZ
@given(st.binary(max_size=300))
def test_journal_garbage_is_a_journal_error(data: bytes) -> None:
    try:
        parse_journal(data)
    except JournalError as e:
        assert str(e)


def test_toml_fixture_is_valid() -> None:
    """The mutation seeds themselves parse (else the mutation tests prove little)."""
    config_from_dict(tomllib.loads(VALID_TOML), Path("table.toml"))
    calibration_from_dict(VALID_CALIBRATION)
    Board(VALID_FENS[0])
    read_games(VALID_PDN)[0].replay()
