"""`damas perft` and `damas moves` exactly as issue 2 names them."""

from __future__ import annotations

import json
import re

import pytest

from app.cli import main


def test_perft_prints_one_line_per_depth(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--variant", "brazilian", "--depth", "4"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    pattern = re.compile(r"^depth (\d+) nodes (\d+) time_s (\d+\.\d+)$")
    parsed = [pattern.match(line) for line in lines]
    assert all(parsed), lines
    assert [(int(m[1]), int(m[2])) for m in parsed if m] == [(1, 7), (2, 49), (3, 302),
                                                            (4, 1469)]


def test_perft_from_fen(capsys: pytest.CaptureFixture[str]) -> None:
    # flying king a1 alone v h8: 6 moves (hand count)
    assert main(["perft", "--variant", "brazilian", "--depth", "1", "--fen", "W:WKa1:Bh8"]) == 0
    assert capsys.readouterr().out.startswith("depth 1 nodes 6 ")


def test_moves_plain_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "W:Wc3:Bd4,f6,d6,b6"
    assert main(["moves", "--variant", "brazilian", "--fen", fen]) == 0
    assert capsys.readouterr().out.split() == ["c3xa5"]
    assert main(["moves", "--variant", "brazilian", "--fen", fen, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"pdn": "c3xa5", "path": ["c3", "e5", "c7", "a5"], "captured": ["d4", "d6", "b6"]}]


def test_moves_json_numbers_for_numeric_variants(capsys: pytest.CaptureFixture[str]) -> None:
    # english: b6=9 takes c7=6 and lands on d8=2, crowning ends the move
    assert main(["moves", "--variant", "english", "--fen", "W:W9:B6,7,25", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"pdn": "9x2", "path": [9, 2],
                                                    "captured": [6]}]


@pytest.mark.parametrize("argv,fragment", [
    (["moves", "--fen", "W:Wa2:Bh8"], "'a2' is not a playable"),
    (["moves", "--variant", "chess", "--fen", "W:Wa1:Bh8"], "unknown variant 'chess'"),
    (["perft", "--variant", "brazilian", "--depth", "2", "--fen", "nonsense"], "W or B"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], fragment: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bad_depth_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["perft", "--depth", "zero"])
    assert info.value.code == 2
    assert "not a whole number" in capsys.readouterr().err
