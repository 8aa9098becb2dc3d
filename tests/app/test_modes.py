"""Exhibition (the robot plays both sides) and teaching (hints, refusals explained)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from app.journal import load_journal
from app.teaching import explain, hint
from game.board import Board
from game.pdn import read_game
from game.referee import EventType, RefereeEvent


def test_hint_lists_the_legal_moves_at_the_start() -> None:
    text, squares = hint(Board())
    # the 7 opening moves of RULES.md's start position (perft(1) = 7)
    for move in ("c3-b4", "e3-d4", "g3-f4", "a3-b4", "c3-d4", "e3-f4", "g3-h4"):
        assert move in text
    board = Board()
    assert [board.square_name(s) for s in squares] == ["a3", "c3", "e3", "g3"]


def test_hint_says_a_capture_is_due_and_how_many_pieces() -> None:
    board = Board("W:Wc3,g1:Bd4,f6,d6,b6")  # c3xa5 takes three (hand-worked, majority rule)
    text, squares = hint(board)
    assert "You must capture (3 pieces): c3xa5" in text
    assert "Captura obrigatória (3 peças)" in text
    assert [board.square_name(s) for s in squares] == ["c3"]


def test_explain_gives_the_rule_in_both_languages() -> None:
    event = RefereeEvent(EventType.MANDATORY_CAPTURE, 3, 1.0, "e3-f4", (), "c3xe5 was due")
    text = explain(event)
    assert "A captura é obrigatória" in text and "Capturing is compulsory" in text
    assert "c3xe5 was due" in text


def test_exhibition_the_robot_plays_both_sides(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "ex.toml"
    cfg.write_text(f'version = 1\n[game]\nmode = "exhibition"\nlevel = 2\n'
                   f'[journal]\ndir = "{tmp_path / "games"}"\n')
    assert main(["play", "--config", str(cfg), "--sim-camera", "oracle", "--seed", "2",
                 "--max-plies", "24", "--movetime", "0.05", "--quiet"]) == 0
    (journal,) = (tmp_path / "games").glob("*.jsonl")
    loaded = load_journal(journal)
    movers = {r["by"] for r in loaded.records if r["type"] == "move"}
    assert movers == {"robot"} and len(loaded.moves) == 24 and loaded.ended
    loaded.to_game_record().replay()


def test_record_mode_in_play_points_to_record(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "rec.toml"
    cfg.write_text('version = 1\n[game]\nmode = "record"\n')
    assert main(["play", "--config", str(cfg)]) == 2
    assert "damas record" in capsys.readouterr().err


def test_record_journal_and_pdn_say_the_same(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`damas record` writes a journal and a PDN: read back, the journal gives the same game,
    each irregularity on the same move.  It gave some one move early (an irregularity was
    written before the move it is about), and a capture that also took the mover's own man
    replayed to another position (seed 1); in seed 2 one still board closes two moves, a
    capture left half-cleared and the next move, and the removal belongs to the first."""
    for seed in (1, 2):
        cfg = tmp_path / f"rec-{seed}.toml"
        cfg.write_text(f'version = 1\n[journal]\ndir = "{tmp_path / f"games-{seed}"}"\n')
        pdn = tmp_path / f"game-{seed}.pdn"
        assert main(["record", "--config", str(cfg), "--seed", str(seed), "--pdn",
                     str(pdn)]) == 0
        assert "!" in capsys.readouterr().out  # irregularities were called
        written = read_game(pdn.read_text())
        (journal,) = (tmp_path / f"games-{seed}").glob("*.jsonl")
        loaded = load_journal(journal)
        kept = loaded.to_game_record()
        assert [(p.text, p.comments) for p in kept.plies] == [(p.text, p.comments)
                                                               for p in written.plies]
        assert any(p.comments for p in written.plies)
        fens = [r["fen"] for r in loaded.records if r["type"] == "move"]
        assert written.replay()[0].placement_equals(Board(fens[-1]))
