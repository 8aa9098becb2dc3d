"""Endings: kings v a lone king (tables and play), drawn endings, simple won endings.

Independent sources: the rules (RULES.md s.1: 3K v 1K has 20 moves, 1K v 1K and 2K v 1K are
drawn after 5 moves; a game with no pieces or no move is lost), published theory of 3 kings v 1
in Russian/Brazilian draughts (Petrov's triangle: three kings holding the long diagonal catch a
lone king that is off it in at most 13 moves; a lone king on the long diagonal holds the draw),
and the Bellman equations of the game checked move by move with the move generator.
"""

from __future__ import annotations

import random

import pytest

from game.board import WHITE, Board
from game.engine import Engine, Searcher, SearchLimits, position_of
from game.engine.endgame import SHIPPED_LIMITS_PLIES, build_tables, kings_table
from game.geometry import geometry
from game.movegen import apply_raw, generator_for
from game.variants import find_variant

GEO = geometry(8, 8)
MAIN_DIAGONAL = sum(GEO.mask_of[s] for s, (f, r) in enumerate(GEO.coords) if f == r)


@pytest.mark.slow
def test_shipped_tables_equal_a_fresh_build() -> None:
    """A few seconds on a quiet machine; the sampled equations below run by default."""
    for name, limit in zip(("brazilian", "russian"), SHIPPED_LIMITS_PLIES, strict=True):
        shipped = kings_table(name)
        fresh = build_tables(generator_for(find_variant(name)), limit)
        for s in (1, 2, 3):
            assert shipped.tables[s].dtw == fresh.tables[s].dtw


def _expected(table, gen, strong: int, lone: int, strong_to_move: bool) -> int | None:  # type: ignore[no-untyped-def]
    """The value the Bellman equations give from the successors (None: not checkable here)."""
    k = strong | lone
    moves = gen.generate(strong, lone, k, strong_to_move)
    if strong_to_move:
        if moves[0][2]:
            return 1  # any capture takes the lone king
        best = None
        for m in moves:
            w, b, kk = apply_raw(strong, lone, k, True, m)
            v = table.probe(w, b, kk, False)
            if v is not None and v < 0:
                best = 1 - v if best is None else min(best, 1 - v)
            elif v == 0 and not gen.generate(w, b, kk, False):
                best = 1  # the lone king is blocked
        return best or 0
    if not moves or moves[0][2]:
        return None  # blocked, or a capture into the smaller ending (checked by limits)
    worst = 0
    for m in moves:
        w, b, kk = apply_raw(strong, lone, k, False, m)
        v = table.probe(w, b, kk, True)
        if not v or v <= 0:
            return 0
        worst = max(worst, v)
    return -(worst + 1)


def test_three_kings_table_satisfies_the_game_equations_on_a_sample() -> None:
    table = kings_table("brazilian")
    gen = generator_for(find_variant("brazilian"))
    rng = random.Random(7)
    checked = 0
    for _ in range(3000):
        squares = rng.sample(range(32), 4)
        strong = sum(GEO.mask_of[s] for s in squares[:3])
        lone = GEO.mask_of[squares[3]]
        for stm in (True, False):
            exp = _expected(table, gen, strong, lone, stm)
            if exp is None:
                continue
            assert table.probe(strong, lone, strong | lone, stm) == exp, \
                (GEO.squares_of(strong), GEO.squares_of(lone), stm)
            checked += 1
    assert checked > 4000


def test_three_kings_theory_long_diagonal() -> None:
    table = kings_table("brazilian")
    won = total = longest = 0
    for strong in table.tables[3].combos:
        if not strong & MAIN_DIAGONAL:
            continue
        for lone in GEO.mask_of:
            if strong & lone or lone & MAIN_DIAGONAL:
                continue
            v = table.probe(strong, lone, strong | lone, True)
            assert v is not None
            total += 1
            won += v > 0
            longest = max(longest, v)
    assert won / total > 0.98  # the exceptions: the lone king takes a king at once
    assert longest <= 26  # "not later than the 13th move"


@pytest.mark.parametrize("fen", ["W:WKc1,Ke1,Kg1:BKa1", "B:WKc1,Ke1,Kg1:BKh8"])
def test_lone_king_on_the_long_diagonal_draws(fen: str) -> None:
    b = Board(fen)
    assert kings_table().probe(b.white, b.black, b.kings, b.turn is WHITE) == 0


def _play_out(fen: str, movetime_s: float = 0.05, max_plies: int = 120) -> Board:
    board = Board(fen)
    white = Engine(board, 10, seed=1)
    black = Engine(board, 10, seed=2)
    while board.outcome(claim_draw=True) is None and len(board.move_stack) < max_plies:
        engine = white if board.turn is WHITE else black
        board.push(engine.play(board, SearchLimits(movetime_s=movetime_s)).move)
    return board


@pytest.mark.parametrize("fen", ["W:WKd4,Kc1,Ke1:BKh2", "W:WKa1,Kc1,Ke1:BKf8",
                                 "B:WKd4,Kc1,Ke1:BKh2", "B:WKa1,Kd2,Kh6:BKb8"])
def test_three_kings_win_within_the_twenty_move_rule(fen: str) -> None:
    board = _play_out(fen)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is WHITE and outcome.reason in (
        "no_pieces", "no_moves")
    assert len(board.move_stack) <= 40


def test_three_kings_table_respects_the_moves_already_played() -> None:
    # Won in 19 plies from scratch (table); with 30 of the 40 plies gone, it is a draw.
    fen = "W:WKd4,Kc1,Ke1:BKh2"
    board = Board(fen)
    fresh = Searcher(board.variant).search(position_of(board), SearchLimits(depth=3))
    assert fresh.score > 90_000
    late = position_of(board)
    late = type(late)(late.white, late.black, late.kings, True, 0, 30, ())
    assert abs(Searcher(board.variant).search(late, SearchLimits(depth=3)).score) < 50


def test_lone_king_holds_the_draw_in_play() -> None:
    board = _play_out("B:WKc1,Ke1,Kg1:BKa1")
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None and outcome.winner is None


def test_one_king_in_the_long_corner_is_lost() -> None:
    # by hand: Ka1 can only move along a1-h8, in front of Kh8, which takes it
    board = Board("W:WKa1:BKh8")
    result = Searcher(board.variant).search(position_of(board), SearchLimits(depth=4))
    assert result.score == -(100_000 - 2)


@pytest.mark.parametrize("fen", ["W:WKc1:BKf8", "B:WKd4:BKb8"])
def test_one_king_against_one_king_is_a_draw(fen: str) -> None:
    board = Board(fen)
    result = Searcher(board.variant).search(position_of(board), SearchLimits(depth=8))
    assert abs(result.score) < 50
    final = _play_out(fen)
    outcome = final.outcome(claim_draw=True)
    assert outcome is not None and outcome.winner is None and outcome.reason == "ending"


def test_two_kings_against_one_do_not_lose_a_king() -> None:
    final = _play_out("W:WKc1,Kg1:BKa1")
    outcome = final.outcome(claim_draw=True)
    assert outcome is not None and outcome.winner is None


@pytest.mark.parametrize("fen", [
    "W:Wa5,c5,e5:Bh8",  # three men against one on its back rank: promote, then catch it
    "W:Wc3,e3,g3:Ba7",
    "B:Wb2,d2:Bf6,Kh8,e7",  # a king and two men against two men
])
def test_simple_won_endings_are_converted(fen: str) -> None:
    final = _play_out(fen, movetime_s=0.1, max_plies=160)
    outcome = final.outcome()
    strong = WHITE if fen.startswith("W") else WHITE.other
    assert outcome is not None and outcome.winner is strong, final.fen()
