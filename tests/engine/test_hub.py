"""Hub protocol client: syntax, square numbering and a scripted external engine process.

Independent sources: the example lines of Scan's protocol.txt (Hub v2): the initial
international position is `Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww`, `32-28` is a
legal first move, a capture is written `28x19x23` (from, to, captured pieces), `info` carries
`pv="..."` in quotes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.cli import main
from app.engine_process import EngineProcess
from game.board import Board
from game.engine.hub import (
    HubClient,
    HubProtocolError,
    format_line,
    move_text,
    parse_line,
    parse_move,
    position_command,
    position_text,
)
from game.variants import find_variant

FAKE = Path(__file__).with_name("fake_hub_engine.py")


def test_parse_line_reads_quoted_values_and_flags() -> None:
    cmd, args = parse_line('info depth=21 score=-0.01 pv="32-28 17-22" ponder')
    assert cmd == "info"
    assert args == {"depth": "21", "score": "-0.01", "pv": "32-28 17-22", "ponder": ""}


def test_format_line_quotes_when_needed() -> None:
    assert format_line("set-param", name="variant", value="killer") == \
        "set-param name=variant value=killer"
    assert format_line("pos", moves="38-15 5-41") == 'pos moves="38-15 5-41"'
    assert format_line("level", move_time="1.5") == "level move-time=1.5"


def test_initial_international_position_text() -> None:
    board = Board(None, "international")
    assert position_text(board) == "W" + "b" * 20 + "e" * 10 + "w" * 20


def test_capture_text_lists_captured_pieces() -> None:
    # by hand: 32 jumps 27 landing on 21, then 17 landing on 12
    board = Board("W:W32:B27,17", "international")
    move = board.legal_moves[0]
    assert move_text(board, move) == "32x12x27x17"
    assert parse_move(board, "32x12x17x27") == move  # captured pieces in any order


def test_position_command_sends_the_king_moves_since_the_last_man_move() -> None:
    board = Board("W:WK50,31:BK1,20", "international")
    assert position_command(board) == f"pos pos={position_text(board)}"
    start = position_text(board)
    board.push_pdn("50-44")
    board.push_pdn("1-6")
    assert position_command(board) == f'pos pos={start} moves="50-44 1-6"'
    board.push_pdn("31-27")  # a man move: nothing before it matters for repetition
    assert position_command(board) == f"pos pos={position_text(board)}"


def test_parse_move_rejects_illegal_moves() -> None:
    board = Board(None, "international")
    assert board.move_name(parse_move(board, "32-28")) == "32-28"
    with pytest.raises(HubProtocolError):
        parse_move(board, "32-26")
    with pytest.raises(HubProtocolError):
        parse_move(board, "hello")


def _proc(tmp_path: Path, variants: str, *moves: str) -> tuple[EngineProcess, Path]:
    transcript = tmp_path / "transcript.txt"
    return EngineProcess([sys.executable, str(FAKE), str(transcript), variants, *moves]), \
        transcript


def test_client_plays_through_a_scripted_engine(tmp_path: Path) -> None:
    proc, transcript = _proc(tmp_path, "normal killer", "32-28")
    with proc:
        client = HubClient(proc, timeout_s=10)
        info = client.start(find_variant("international"))
        assert info.name == "FakeScan"
        result = client.best_move(Board(None, "international"), movetime_s=0.5)
        assert result.name == "32-28"
        assert result.infos[-1]["nodes"] == "4242"
    lines = transcript.read_text().splitlines()
    assert lines[0] == "hub"
    assert "init" in lines
    assert "set-param name=variant value=normal" not in lines  # already its value
    assert f"pos pos={position_text(Board(None, 'international'))}" in lines
    assert "level move-time=0.5" in lines
    assert "go think" in lines
    assert lines[-1] == "quit"


def test_client_selects_the_variant_when_not_default(tmp_path: Path) -> None:
    proc, transcript = _proc(tmp_path, "killer normal", "31-26")
    with proc:
        client = HubClient(proc, timeout_s=10)
        client.start(find_variant("international"))
        assert client.best_move(Board(None, "international"), depth=3).name == "31-26"
    lines = transcript.read_text().splitlines()
    assert "set-param name=variant value=normal" in lines
    assert lines.index("set-param name=variant value=normal") < lines.index("init")
    assert "level depth=3" in lines


def test_illegal_engine_move_is_an_error(tmp_path: Path) -> None:
    proc, _ = _proc(tmp_path, "normal", "32-26")
    with proc:
        client = HubClient(proc, timeout_s=10)
        client.start(find_variant("international"))
        with pytest.raises(HubProtocolError, match="not legal"):
            client.best_move(Board(None, "international"), movetime_s=0.1)


def test_unsupported_variant_is_refused(tmp_path: Path) -> None:
    proc, _ = _proc(tmp_path, "normal killer bt", "32-28")
    with proc, pytest.raises(HubProtocolError, match="cannot play brazilian"):
        HubClient(proc, timeout_s=10).start(find_variant("brazilian"))


def test_silent_engine_times_out(tmp_path: Path) -> None:
    with EngineProcess([sys.executable, "-c", "import time; time.sleep(30)"]) as proc, \
            pytest.raises(HubProtocolError, match="sent nothing"):
        HubClient(proc, timeout_s=0.3).start(find_variant("international"))


def test_bestmove_cli_with_engine_cmd(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    transcript = tmp_path / "t.txt"
    cmd = f"{sys.executable} {FAKE} {transcript} normal 33-29"
    code = main(["bestmove", "--variant", "international", "--fen", "W:W31-50:B1-20",
                 "--movetime", "0.2", "--engine-cmd", cmd])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    assert out[-1] == "bestmove 33-29"
    assert out[-2].startswith("info depth 3 score 0.12 nodes 4242 nps ")
