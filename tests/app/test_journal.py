"""The game journal survives crashes: every fully written record is read back, nothing else.

Two kinds of crash: a killed process (SIGKILL at random moments of a writing subprocess) and a
power cut mid-write (the file cut at every byte offset, or its tail filled with zeros).  The
expected records are counted from the file's own bytes (complete lines), not from the reader.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.journal import Journal, JournalError, JournalHeader, load_journal, parse_journal
from game.board import Board
from game.pdn import read_game, write_game

ROOT = Path(__file__).resolve().parents[2]
GAME = ["c3-d4", "f6-e5", "d4xf6", "g7xe5", "b2-c3"]  # legal Brazilian opening (RULES.md)


def play(journal: Journal, moves: list[str]) -> list[str]:
    board = Board()
    fens = []
    for text in moves:
        board.push_pdn(text)
        fens.append(board.fen())
        journal.record_move(text, board.fen(), by="human")
    return fens


def test_round_trip_header_moves_end(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    header = JournalHeader(white="Ana", black="Robot", robot_colour="black", level=3)
    with Journal.create(path, header) as j:
        play(j, GAME[:2])
        j.record_irregularity("wrong_square", "White put the man on e4 instead of d4",
                              ["e4"])
        j.record_decision("Put back and played d4", choice="insist")
        play_rest = Board()
        for t in GAME[:2]:
            play_rest.push_pdn(t)
        for t in GAME[2:]:
            play_rest.push_pdn(t)
            j.record_move(t, play_rest.fen())
        j.record_end("1-1", "agreed")
    loaded = load_journal(path)
    assert loaded.header.white == "Ana" and loaded.header.level == 3
    assert loaded.header.started.endswith("Z")
    assert loaded.moves == GAME
    assert loaded.ended and loaded.result == "1-1" and loaded.torn_bytes == 0
    # to PDN and back through the game module's reader, which replays the moves by the rules
    pdn = write_game(loaded.to_game_record())
    again = read_game(pdn)
    board, _ = again.replay()
    assert board.fen() == "B:Wa1,c1,e1,g1,d2,f2,h2,a3,c3,e3,g3:Be5,b6,d6,h6,a7,c7,e7,b8,d8,f8,h8"
    assert again.tags["White"] == "Ana" and again.result == "1-1"
    assert again.plies[1].comments == ["White put the man on e4 instead of d4",
                                       "Put back and played d4"]


def test_takeback_removes_moves(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with Journal.create(path, JournalHeader()) as j:
        play(j, GAME[:3])
        j.record_takeback(2)
    loaded = load_journal(path)
    assert loaded.moves == GAME[:1] and not loaded.ended
    assert [p.text for p in loaded.to_game_record().plies] == GAME[:1]


# White's man jumps c3-e5 over nobody and the robot lets it stand (worked by hand, RULES.md:
# a man moves one square); black then takes it f6xd4 and white takes back e3xc5.
AFTER_C3_E5 = ("B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,e3,g3,e5:"
               "Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8")
AFTER_E3_C5 = "B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,g3,c5:Bb6,d6,h6,a7,c7,e7,g7,b8,d8,f8,h8"


def test_pdn_of_a_game_with_a_move_let_stand_replays_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with Journal.create(path, JournalHeader()) as j:
        j.record_irregularity("illegal", "illegal: a man moves one square", ["c3", "e5"])
        j.record_move("c3-e5", AFTER_C3_E5)
        j.record_move("f6xd4", "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,e3,g3:"
                               "Bd4,b6,d6,h6,a7,c7,e7,g7,b8,d8,f8,h8")
        j.record_move("e3xc5", AFTER_E3_C5)
    record = load_journal(path).to_game_record()
    pdn = write_game(record)
    assert "[%fen " + AFTER_C3_E5 + "]" in pdn
    assert pdn.count("[%fen") == 1  # the legal moves need no position
    board, moves = read_game(pdn).replay()
    assert board.fen() == AFTER_E3_C5 and moves[0] is None and None not in moves[1:]


def test_takeback_of_a_move_let_stand_takes_its_position_back(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with Journal.create(path, JournalHeader()) as j:
        j.record_move("c3-e5", AFTER_C3_E5)
        j.record_takeback(1)
        play(j, GAME[:2])
    record = load_journal(path).to_game_record()
    assert "[%fen" not in write_game(record)
    assert [p.text for p in record.plies] == GAME[:2]
    assert record.replay()[0].fen() == ("W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,e3,g3,d4:"
                                        "Be5,b6,d6,h6,a7,c7,e7,g7,b8,d8,f8,h8")


def test_create_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    Journal.create(path, JournalHeader()).close()
    with pytest.raises(JournalError, match="exists already"):
        Journal.create(path, JournalHeader())


def _journal_bytes(tmp_path: Path, texts: list[str]) -> bytes:
    path = tmp_path / "full.jsonl"
    if path.exists():
        path.unlink()
    with Journal.create(path, JournalHeader(white="Zoë ✓")) as j:
        for i, text in enumerate(texts):
            if i % 3 == 2:
                j.record_irregularity("note", text)
            else:
                j.record_move(text, "W:Wa1:Bh8")
    return path.read_bytes()


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(min_size=0, max_size=12), min_size=1, max_size=6))
def test_truncation_at_every_byte_keeps_exactly_the_complete_lines(tmp_path: Path,
                                                                    texts: list[str]) -> None:
    full = _journal_bytes(tmp_path, texts)
    complete = load_journal(tmp_path / "full.jsonl").records
    for offset in range(len(full) + 1):
        prefix = full[:offset]
        lines = prefix.count(b"\n")  # complete lines in the prefix (header first)
        if lines == 0:
            with pytest.raises(JournalError, match="no intact header"):
                parse_journal(prefix)
            continue
        loaded = parse_journal(prefix)
        assert loaded.records == complete[:lines - 1], offset
        assert loaded.good_bytes == prefix.rfind(b"\n") + 1
        # the same cut followed by zeros (blocks allocated but never written)
        assert parse_journal(prefix + b"\0" * 37).records == complete[:lines - 1], offset


def test_truncated_files_on_disk(tmp_path: Path) -> None:
    full = _journal_bytes(tmp_path, ["a", "b", "c"])
    ends = [i + 1 for i, byte in enumerate(full) if byte == ord("\n")]
    cut = tmp_path / "cut.jsonl"
    for offset in range(ends[0], len(full) + 1, 7):
        cut.write_bytes(full[:offset])
        complete_lines = sum(1 for e in ends if e <= offset)
        assert len(load_journal(cut).records) == complete_lines - 1


def test_damage_before_the_last_line_is_an_error(tmp_path: Path) -> None:
    full = bytearray(_journal_bytes(tmp_path, ["a", "b", "c", "d"]))
    second_line = full.index(b"\n") + 5
    full[second_line] ^= 0x01  # a flipped bit inside record 1
    path = tmp_path / "bad.jsonl"
    path.write_bytes(bytes(full))
    with pytest.raises(JournalError, match="line 2 is damaged"):
        load_journal(path)


def test_resume_cuts_the_torn_tail_then_appends(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with Journal.create(path, JournalHeader()) as j:
        play(j, GAME[:3])
    data = path.read_bytes()
    path.write_bytes(data[:-10])  # the third move's line is torn
    j, loaded = Journal.resume(path)
    assert loaded.moves == GAME[:2] and loaded.torn_bytes > 0
    with j:
        board = Board()
        for t in GAME[:2]:
            board.push_pdn(t)
        board.push_pdn(GAME[2])
        j.record_move(GAME[2], board.fen())
        j.record_end("*", "adjourned")
    again = load_journal(path)
    assert again.moves == GAME[:3] and again.torn_bytes == 0 and again.ended
    with pytest.raises(JournalError, match="has ended"):
        Journal.resume(path)


WRITER = """
import sys
from app.journal import Journal, JournalHeader
j = Journal.create(sys.argv[1], JournalHeader())
for i in range(100000):
    j.record_move(f"m{i}", "W:Wa1:Bh8")
    print(i + 1, flush=True)
"""


def test_sigkill_at_random_moments_keeps_every_acknowledged_record(tmp_path: Path) -> None:
    rng = random.Random(7)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for run in range(4):
        path = tmp_path / f"kill{run}.jsonl"
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], env=env,
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        acknowledged = 0
        want = rng.randint(1, 40)
        while acknowledged < want:
            line = proc.stdout.readline()
            assert line, "writer stopped early"
            acknowledged = int(line)
        time.sleep(rng.uniform(0, 0.02))  # kill at an arbitrary point of a later write
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
        proc.stdout.close()
        loaded = load_journal(path)
        n = len(loaded.moves)
        assert n >= acknowledged
        assert loaded.moves == [f"m{i}" for i in range(n)]
        assert loaded.good_bytes + loaded.torn_bytes == path.stat().st_size
