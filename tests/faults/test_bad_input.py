"""Bad input at the command line (issue 8): unknown variant, nonsense values, malformed files,
an image with no board.  Each is one clear line on stderr naming what was wrong, exit code 2,
never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import cv2

    d = tmp_path_factory.mktemp("bad")
    out = {}
    out["grey"] = d / "grey.png"
    cv2.imwrite(str(out["grey"]), np.full((480, 640, 3), 128, np.uint8))
    out["noise"] = d / "noise.png"
    cv2.imwrite(str(out["noise"]),
                np.random.default_rng(0).integers(0, 255, (480, 640, 3), dtype=np.uint8))
    out["text_png"] = d / "text.png"
    out["text_png"].write_bytes(b"not an image at all")
    ok, jpeg = cv2.imencode(".jpg", np.full((480, 640, 3), 90, np.uint8))
    out["cut_jpg"] = d / "cut.jpg"  # a copy interrupted half-way
    out["cut_jpg"].write_bytes(jpeg.tobytes()[:len(jpeg) // 2])
    out["empty_jpg"] = d / "empty.jpg"
    out["empty_jpg"].write_bytes(b"")
    out["old"] = d / "old.toml"
    out["old"].write_text("version = 0\n[game]\nlevel = 3\n")
    out["typo"] = d / "typo.toml"
    out["typo"].write_text('version = 1\n[game]\nvarient = "brazilian"\n')
    out["variant"] = d / "variant.toml"
    out["variant"].write_text('version = 1\n[game]\nvariant = "klingon"\n')
    out["bad_pdn"] = d / "bad.pdn"
    out["bad_pdn"].write_text('[Event "x"]\n1. c3-d4 } f6-g5 *\n')
    out["cal"] = d / "cal.json"
    out["cal"].write_text(json.dumps({"version": 1, "board": {
        "grid": 8, "corners_px": [[0, 0], [1, 0], [1, 1]], "image_width_px": 640,
        "image_height_px": 480}}))
    return out


CASES = [
    (["moves", "--variant", "klingon", "--fen", "W:W1:B2"], ["klingon"]),
    (["moves", "--fen", "W:Wz9:Bb6"], ["z9"]),
    (["perft", "--depth", "abc"], ["'abc' is not a whole number"]),
    (["demo", "--games", "0"], ["--games", "1..10000"]),
    (["demo", "--movetime", "-1"], ["--movetime"]),
    (["serve", "--port", "70000"], ["--port", "1..65535"]),
    (["detect", "{grey}"], ["no board found"]),
    (["detect", "{noise}"], ["no board found"]),
    (["detect", "{text_png}"], ["cannot read image", "text.png"]),
    (["detect", "{cut_jpg}"], ["cannot read image", "cut.jpg", "cut short"]),
    (["detect", "{empty_jpg}"], ["cannot read image", "empty.jpg", "empty"]),
    (["play", "--config", "{old}"], ["old.toml", "version", "old configuration layout"]),
    (["play", "--config", "{typo}"], ["typo.toml", "game.varient", "unknown key"]),
    (["play", "--config", "{variant}"], ["variant.toml", "game.variant", "klingon"]),
    (["detect", "{grey}", "--calibration", "{cal}"], ["cal.json", "corners_px"]),
]


@pytest.mark.parametrize("args,words", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_clear_line(files: dict[str, Path], args: list[str],
                                     words: list[str], capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    with pytest.raises(SystemExit) as e:
        code = main(argv)
        raise SystemExit(code)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for w in words:
        assert w in err, err


def test_malformed_pdn_file_names_line_and_column(files: dict[str, Path]) -> None:
    from game.errors import GameError
    from game.pdn import read_game

    with pytest.raises(GameError, match=r"line 2, column \d+: unexpected '\}'"):
        read_game(files["bad_pdn"].read_text())
