"""Perft from the initial position against published / independently computed counts
(issue 2; RULES.md s.3: distinct moves are counted once)."""

from __future__ import annotations

import pytest

from game.board import Board
from game.perft import perft

PUBLISHED = {
    "brazilian": [7, 49, 302, 1469, 7473, 37628, 187302, 907830],
    "russian": [7, 49, 302, 1469, 7482, 37986, 190146],
    "english": [7, 49, 302, 1469, 7361, 36768, 179740],
    "italian": [7, 49, 302, 1469, 7361, 36473, 177532],
    "international": [9, 81, 658, 4265, 27117],
}


@pytest.mark.parametrize("variant", sorted(PUBLISHED))
def test_perft_initial_position(variant: str) -> None:
    board = Board(variant=variant)
    wtm = board.turn.value == "white"
    counts = [perft(board.gen, board.white, board.black, board.kings, wtm, d)
              for d in range(1, len(PUBLISHED[variant]) + 1)]
    assert counts == PUBLISHED[variant]


def _slow_perft(board: Board, depth: int) -> int:
    """Perft through the public API (legal_moves, push, pop): the slow, obvious way."""
    if depth == 0:
        return 1
    n = 0
    for move in board.legal_moves:
        board.push(move)
        n += _slow_perft(board, depth - 1)
        board.pop()
    return n


@pytest.mark.parametrize("variant,depth", [("brazilian", 5), ("international", 3),
                                           ("english", 5), ("russian", 5)])
def test_public_api_agrees_with_published_counts(variant: str, depth: int) -> None:
    board = Board(variant=variant)
    before = board.fen()
    assert _slow_perft(board, depth) == PUBLISHED[variant][depth - 1]
    assert board.fen() == before and not board.move_stack
