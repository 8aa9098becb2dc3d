"""End to end on the simulated table (issue 7): a full game against the robot with planted
irregularities is played and recorded correctly, and a kill -9 at any moment loses no move
(`damas play --resume`).  The flawless "oracle" camera keeps these fast; the rendered camera
and the vision pipeline are exercised by `damas demo` and `bench/demo.py`."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import events
from app.cli import main
from app.journal import JournalError, load_journal
from game.board import Board
from game.pdn import read_game

DAMAS = [sys.executable, "-m", "app.cli"]
ROOT = Path(__file__).resolve().parents[2]


def test_demo_game_with_planted_irregularities(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["demo", "--games", "2", "--seed", "5", "--camera", "oracle", "--quiet",
                 "--irregularities", "0.35", "--max-plies", "50", "--movetime", "0.05",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    last = text.strip().splitlines()[-1]
    m = re.fullmatch(r"games 2 moves (\d+) irregularities (\d+) mismatches (\d+)", last)
    assert m, last
    assert int(m[3]) == 0
    # every rule the simulated person broke was called, and nothing else
    planted = sum(int(x) for x in re.findall(r"\((\d+) planted\)", text))
    found = [int(x) for x in re.findall(r", (\d+) irregularities \(", text)]
    assert planted > 0 and sum(found) == planted == int(m[2])
    # the PDN of each game replays under the rules to its recorded length, past an irregular
    # move the robot let go (after asking twice for the position back): the PDN keeps it as
    # played, with its comment and the position it left (the engine's timing decides whether
    # a game gets there: a fresh-clone run on 2026-12-07 did, and the PDN could not be read on)
    pdns = sorted(out.glob("*.pdn"))
    assert len(pdns) == 2
    total = 0
    for p in pdns:
        _, moves = read_game(p.read_text()).replay()
        total += len(moves)
    assert total == int(m[1])
    # the journals say the same as the PDN
    for j in out.glob("*.jsonl"):
        loaded = load_journal(j)
        assert loaded.ended and loaded.moves


def test_an_irregularity_the_robot_lets_go_is_counted_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A person who breaks a rule at every turn: after the robot has asked twice to put a
    position back, it accepts it as it stands.  Accepting was counted as one more
    irregularity (the test above failed now and then, when the engine's timing led a game
    there).  The engine's timing decides the game, so a game that never gets there (one of a
    fresh-clone run on 2026-12-06, under load) says nothing: the next seed is played, up to
    four."""
    buses: list[events.EventBus] = []
    bus_class = events.EventBus
    monkeypatch.setattr(events, "EventBus",
                        lambda *a, **k: buses.append(bus_class(*a, **k)) or buses[-1])
    for seed in range(1, 5):
        assert main(["demo", "--games", "1", "--seed", str(seed), "--camera", "oracle",
                     "--irregularities", "1.0", "--max-plies", "20", "--movetime", "0.05",
                     "--out", str(tmp_path / f"demo-{seed}")]) == 0
        text = capsys.readouterr().out
        if "accepts the position as it stands" in text:
            break
    else:
        pytest.fail("no game of seeds 1-4 reached a position the robot accepts as it stands")
    m = re.search(r", (\d+) irregularities \((\d+) planted\)", text)
    assert m and int(m[2]) > 0
    assert int(m[1]) == int(m[2])
    # the move let go is in the PDN with the position it left, and the game replays past it
    (pdn,) = (tmp_path / f"demo-{seed}").glob("*.pdn")
    record = read_game(pdn.read_text())
    final, moves = record.replay()
    assert None in moves and len(moves) == len(record.plies)
    (journal,) = (tmp_path / f"demo-{seed}").glob("*.jsonl")
    fens = [r["fen"] for r in load_journal(journal).records if r["type"] == "move"]
    assert final.placement_equals(Board(fens[-1]))
    # the web page's PDN download is the same record, comments and positions included
    served = read_game(buses[-1].snapshot().pdn())
    assert [(p.text, p.comments) for p in served.plies] == [(p.text, p.comments)
                                                             for p in record.plies]
    assert served.result == record.result != "*"
    # and so is the journal's (the PDN `damas play` writes): each irregularity on the same
    # move, one asked back on the move before it
    kept = load_journal(journal).to_game_record()
    assert [(p.text, p.comments) for p in kept.plies] == [(p.text, p.comments)
                                                           for p in record.plies]
    assert kept.pre_comments == record.pre_comments


def _config(tmp_path: Path) -> Path:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'version = 1\n[game]\nlevel = 1\n[journal]\ndir = "{tmp_path / "games"}"\n')
    return cfg


def _moves_so_far(journal: Path) -> int:
    """Moves in a journal being written; -1 while it has no header line yet (the file is
    created a moment before its first line is written)."""
    try:
        return len(load_journal(journal).moves)
    except JournalError:
        return -1


# (The game of seed 11 runs 41 moves.  Killed after 30, it was over before the kill in a
# fresh-clone run of 2026-12-06, and the test skipped, checking nothing: too near the end.
# The latest kill is after 20, half the game.)
@pytest.mark.parametrize("kill_after_moves", [0, 3, 12, 20])
def test_kill_minus_nine_then_resume_loses_no_move(tmp_path: Path, kill_after_moves: int) -> None:
    cfg = _config(tmp_path)
    args = ["play", "--config", str(cfg), "--sim-camera", "oracle", "--seed", "11",
            "--max-plies", "80", "--movetime", "0.05", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(DAMAS + args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    # The kill is timed by the game's progress (a timed kill found the game already over on a
    # fast machine), plus a random moment within the next move.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = list((tmp_path / "games").glob("*.jsonl"))
        if found and _moves_so_far(found[0]) >= kill_after_moves:
            break
        time.sleep(0.01)
    time.sleep(random.Random(kill_after_moves).uniform(0, 0.05))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    journals = list((tmp_path / "games").glob("*.jsonl"))
    assert len(journals) == 1
    before = load_journal(journals[0])
    if before.ended:
        pytest.skip("the game ended before the kill")
    done = subprocess.run(DAMAS + args + ["--resume"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = load_journal(journals[0])
    assert after.ended
    assert after.moves[:len(before.moves)] == before.moves
    # the whole game, across the crash, is legal from the start
    record = after.to_game_record()
    _, moves = record.replay()
    assert len(moves) == len(after.moves)


def test_resume_without_a_journal_is_a_clear_error(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _config(tmp_path)
    (tmp_path / "games").mkdir()
    assert main(["play", "--config", str(cfg), "--resume"]) == 2
    assert "no unfinished game journal" in capsys.readouterr().err
