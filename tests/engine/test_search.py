"""Search behaviour: draw rules, limits, stopping, levels, variants.

Expected values come from the rules (RULES.md) and hand-worked positions, not from the engine.
"""

from __future__ import annotations

import random
import time

import pytest

from game.board import WHITE, Board
from game.engine import (
    LEVELS,
    Engine,
    Position,
    Searcher,
    SearchLimits,
    position_of,
)
from game.engine.match import elo_estimate, random_opening
from game.variants import VARIANTS, find_variant

MIDDLEGAME = "W:Wa1,c1,e1,b2,d2,f2,c3,e3,g3,d4,h4:Bb6,d6,f6,h6,a7,c7,e7,g7,d8,f8,h8"


def test_plays_the_majority_capture() -> None:
    # by hand: c3xa5 (one man) is not allowed while c3xe5xg7 takes two (majority rule)
    board = Board("W:Wc3,h2:Bb4,d4,f6")
    result = Searcher(board.variant).search(position_of(board), SearchLimits(depth=3))
    move = board.move_from_raw(result.best)
    assert board.move_name(move) == "c3xg7"


def test_kings_only_move_limit_scores_a_draw() -> None:
    # White has two extra kings but 39 of the 40 allowed king-only plies are gone and no
    # capture exists (h8 and b8 stand on the edge): any move completes the 20 moves -> draw.
    board = Board("W:WKa1,Kc1,Ke1,Kg1:BKh8,Kb8")
    assert not board.has_capture()
    pos = position_of(board)
    late = Position(pos.white, pos.black, pos.kings, True, quiet_plies=39)
    assert Searcher(board.variant).search(late, SearchLimits(depth=4)).score == 0
    fresh = Searcher(board.variant).search(pos, SearchLimits(depth=4))
    assert fresh.score > 300


def test_material_ending_limit_scores_a_draw() -> None:
    # 2K v 1K + 1M is drawn after 5 moves: with 9 of 10 plies gone only a capture now counts
    board = Board("W:WKc1,Ke1:BKh8,a7")
    pos = position_of(board)
    late = Position(pos.white, pos.black, pos.kings, True, ending_plies=9)
    result = Searcher(board.variant).search(late, SearchLimits(depth=5))
    assert result.score == 0


def test_repetition_is_scored_as_a_draw() -> None:
    # White is two kings up (not a table ending: Black has men).  If the current position
    # already occurred four plies ago, reaching it again is a draw: the search returns 0.
    board = Board("W:WKa1,Kc1,Ke1:BKh8,b8")
    s = Searcher(board.variant)
    key = s.zobrist.key(board.white, board.black, board.kings, True)
    assert s.search(position_of(board), SearchLimits(depth=3)).score > 300
    s._keys[:4] = [key, 1, 2, 3]  # keys of the 4 earlier positions, the oldest equal to ours
    s._base = 4
    score = s._search(board.white, board.black, board.kings, True, 3, -10**6, 10**6, 0, 4,
                      None, 0, key)
    assert score == 0


def test_movetime_is_kept_within_ten_percent() -> None:
    board = Board(MIDDLEGAME)
    for budget in (1.0,):
        t0 = time.perf_counter()
        Searcher(board.variant).search(position_of(board), SearchLimits(movetime_s=budget))
        elapsed = time.perf_counter() - t0
        assert 0.9 * budget <= elapsed <= 1.1 * budget


def test_stop_flag_returns_the_best_move_so_far() -> None:
    board = Board(MIDDLEGAME)
    calls = {"n": 0}

    def stop() -> bool:
        calls["n"] += 1
        return calls["n"] > 20

    t0 = time.perf_counter()
    result = Searcher(board.variant).search(position_of(board), SearchLimits(stop=stop))
    assert time.perf_counter() - t0 < 5
    assert board.move_from_raw(result.best) in board.legal_moves
    assert result.depth >= 1


def test_node_limit_makes_a_search_reproducible() -> None:
    board = Board(MIDDLEGAME)
    a = Searcher(board.variant).search(position_of(board), SearchLimits(nodes=20_000))
    b = Searcher(board.variant).search(position_of(board), SearchLimits(nodes=20_000))
    assert a.best == b.best and a.nodes == b.nodes


@pytest.mark.parametrize("number", sorted(LEVELS))
def test_every_level_plays_legal_moves(number: int) -> None:
    rng = random.Random(number)
    for _ in range(3):
        board = Board(None, "brazilian")
        for move in random_opening(board.variant, rng.randrange(0, 12), rng):
            board.push(move)
        if board.outcome() is not None:
            continue
        engine = Engine(board, number, seed=rng.randrange(1000))
        choice = engine.play(board, SearchLimits(movetime_s=0.05))
        assert choice.move in board.legal_moves
        assert choice.name == board.move_name(choice.move)


def test_a_seed_reproduces_and_no_seed_varies() -> None:
    board = Board(None, "brazilian")
    limits = SearchLimits(depth=2)
    seeded = {Engine(board, 2, seed=11).play(board, limits).name for _ in range(3)}
    assert len(seeded) == 1
    free = {Engine(board, 2).play(board, limits).name for _ in range(25)}
    assert len(free) >= 2


def test_level_one_misses_tactics_that_level_ten_finds() -> None:
    # a golpe from the tactics set: level 10 always wins material, level 1 often does not
    fen = "W:Wd2,c3,h4,c5,d6:Bf4,f6,h6,e7,f8,h8"
    board = Board(fen)
    strong = Engine(board, 10, seed=1).play(board, SearchLimits(depth=6))
    assert strong.result.score > 60
    weak_moves = {Engine(board, 1, seed=s).play(board, SearchLimits(depth=6)).name
                  for s in range(20)}
    assert len(weak_moves - {strong.name}) >= 1


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_variant_gets_a_legal_move(name: str) -> None:
    board = Board(None, find_variant(name))
    choice = Engine(board, 10, seed=1).play(board, SearchLimits(movetime_s=0.2))
    assert choice.move in board.legal_moves
    assert choice.result.depth >= 2


def test_giveaway_prefers_giving_pieces_away() -> None:
    # by hand: in giveaway, White wants to lose pieces; c3-d4 offers a man to e5
    board = Board("W:Wc3,h2:Be5,a7", "giveaway")
    choice = Engine(board, 10, seed=1).play(board, SearchLimits(depth=3))
    assert choice.result.score > 0


def test_turn_is_respected_for_black() -> None:
    board = Board("B:Wc3,e3:Bd4,h8")
    choice = Engine(board, 10, seed=1).play(board, SearchLimits(depth=3))
    assert choice.move in board.legal_moves
    assert board.turn is not WHITE


def test_elo_estimate_from_scores() -> None:
    elo, err = elo_estimate([1, 0, 0.5, 0.5])
    assert elo == pytest.approx(0.0)
    assert err > 0
    elo, _ = elo_estimate([1.0] * 3 + [0.0])  # 75%: +191 Elo (logistic formula)
    assert elo == pytest.approx(190.85, abs=0.1)


def test_clock_budget_shares_the_remaining_time() -> None:
    from game.engine import Clock, move_budget_s

    # 60 s left, 30 moves expected, 1 s increment: 2 s + 0.8 s
    assert move_budget_s(clock=Clock(60.0, 1.0)) == pytest.approx(2.8)
    # never more than a third of what is left
    assert move_budget_s(clock=Clock(3.0, 5.0)) == pytest.approx(1.0)
    assert move_budget_s(clock=Clock(60.0, 0.0, moves_to_go=10)) == pytest.approx(6.0)
    assert move_budget_s(movetime_s=2.0) == pytest.approx(1.9)
    assert move_budget_s() is None


def test_top_level_varies_its_openings_without_a_seed() -> None:
    def game() -> list[str]:
        board = Board(None, "brazilian")
        white, black = Engine(board, 10), Engine(board, 10)
        names = []
        for _ in range(8):
            engine = white if board.turn is WHITE else black
            choice = engine.play(board, SearchLimits(depth=3))
            names.append(choice.name)
            board.push(choice.move)
        return names

    assert len({tuple(game()) for _ in range(4)}) >= 2
