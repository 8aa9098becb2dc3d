"""The 10x10 evaluation: colour symmetry and the terms' directions, on hand-made positions."""

from __future__ import annotations

import random

from game.board import Board
from game.engine.evaluate import make_evaluator
from game.engine.match import random_opening
from game.geometry import geometry
from game.variants import find_variant

INTL = find_variant("international")


def _rotated(w: int, b: int, k: int) -> tuple[int, int, int]:
    """The position turned half-way with the colours swapped (the same game for the other
    side)."""
    geo = geometry(10, 10)
    index = {c: sq for sq, c in enumerate(geo.coords)}

    def turn(bb: int) -> int:
        out = 0
        for sq in geo.squares_of(bb):
            f, r = geo.coords[sq]
            out |= geo.mask_of[index[(9 - f, 9 - r)]]
        return out

    return turn(b), turn(w), turn(k)


def test_evaluation_is_colour_symmetric() -> None:
    evaluate = make_evaluator(INTL)
    rng = random.Random(5)
    for _ in range(40):
        board = Board(None, INTL)
        for m in random_opening(INTL, rng.randrange(10, 70), rng):
            board.push(m)
        w, b, k = board.white, board.black, board.kings
        rw, rb, rk = _rotated(w, b, k)
        for wtm in (True, False):
            assert evaluate(w, b, k, wtm) == evaluate(rw, rb, rk, not wtm)
            assert evaluate(w, b, k, wtm) == -evaluate(w, b, k, not wtm)


def test_a_runaway_man_counts_more_than_a_blocked_one() -> None:
    # White man on 11 (two moves from crowning); in the first position the black men stand
    # far away on the other wing, in the second one stands on 6, in its path.
    evaluate = make_evaluator(INTL)
    free = Board("W:W11,46,47:B5,15,25", INTL)
    blocked = Board("W:W11,46,47:B6,15,25", INTL)
    assert evaluate(free.white, free.black, free.kings, True) > \
        evaluate(blocked.white, blocked.black, blocked.kings, True) + 50


def test_a_king_is_worth_about_three_men() -> None:
    evaluate = make_evaluator(INTL)
    king = Board("W:WK28:B1,2,3", INTL)
    score = evaluate(king.white, king.black, king.kings, True)
    assert -60 < score < 60


def test_an_edge_counts_less_when_both_sides_have_a_king() -> None:
    # White is two men up (king and three men against king and one man): with a king on
    # each side such endings are mostly drawn, so the edge counts for clearly less than the
    # two men it is in material.
    evaluate = make_evaluator(INTL)
    board = Board("W:WK46,28,33,38:BK5,17", INTL)
    score = evaluate(board.white, board.black, board.kings, True)
    assert 0 < score < 150
