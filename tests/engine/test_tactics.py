"""Brazilian tactics ("golpes"): the engine finds the forced win of material at a modest depth.

The positions (tests/engine/tactics_brazilian.txt) were found by `make_tactics.py`, and each is
verified here again by exhaustive search (`bruteforce.py`, which shares nothing with the
engine): White to move wins at least one man by force within the stated plies plus forced
captures, a shallower look does not see it, and a multi-capture follows.  The engine's move must
be one of the first moves that keep that forced gain.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from game.board import Board
from game.engine import Searcher, SearchLimits, position_of
from game.movegen import apply_raw
from tests.engine.bruteforce import _material, material_value, winning_first_moves

DATA = Path(__file__).with_name("tactics_brazilian.txt")
ENGINE_DEPTH = 6


def _cases() -> list[tuple[str, int, int, int]]:
    out = []
    for line in DATA.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fen, gain, plies, blind = (p.strip() for p in line.split("|"))
            out.append((fen, int(gain), int(plies), int(blind)))
    return out


CASES = _cases()


def test_there_are_at_least_thirty_positions() -> None:
    assert len(CASES) >= 30
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize(("fen", "gain", "plies", "blind"), CASES, ids=[c[0] for c in CASES])
def test_golpe(fen: str, gain: int, plies: int, blind: int) -> None:
    board = Board(fen, "brazilian")
    gen = board.gen
    w, b, k = board.white, board.black, board.kings
    base = _material(w, b, k, True)
    # independent verification of the position
    assert not gen.has_capture(w, b, k, True)
    assert material_value(gen, w, b, k, True, plies) - base >= gain
    assert material_value(gen, w, b, k, True, blind) - base < gain
    wins = winning_first_moves(gen, w, b, k, True, plies, gain)
    assert wins
    multi = False
    for first in gen.generate(w, b, k, True):
        if (first[0], first[1], first[2]) not in wins:
            continue
        w1, b1, k1 = apply_raw(w, b, k, True, first)
        for reply in gen.generate(w1, b1, k1, False):
            w2, b2, k2 = apply_raw(w1, b1, k1, False, reply)
            multi |= any(m[2].bit_count() >= 2 for m in gen.generate(w2, b2, k2, True))
    assert multi
    # the engine finds a winning first move
    result = Searcher(board.variant).search(position_of(board), SearchLimits(depth=ENGINE_DEPTH))
    assert (result.best[0], result.best[1], result.best[2]) in wins, \
        f"engine played {board.move_name(board.move_from_raw(result.best))}"
    assert result.score >= 60  # it knows it wins material
