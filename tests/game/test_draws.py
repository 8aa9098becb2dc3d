"""Draw rules of RULES.md s.1 (Brazilian), each from a hand-built position and move list.

Moves are counted per side, so "20 moves" is 40 plies and "5 moves" is 10 plies.
"""

from __future__ import annotations

from game.board import Board

# 1K v 1K, kings on diagonals that never meet: a1<->b2 and h2<->g1.
SHUFFLE_1V1 = ["a1-b2", "h2-g1", "b2-a1", "g1-h2"]


def test_threefold_repetition_is_claimable_and_one_king_each_is_drawn_after_5_moves() -> None:
    board = Board("W:WKa1:BKh2")
    for ply in range(8):
        board.push_pdn(SHUFFLE_1V1[ply % 4])
        assert board.outcome() is None
    # the start position has now occurred three times with white to move
    assert board.is_repetition(3)
    out = board.outcome(claim_draw=True)
    assert out is not None and out.winner is None and out.reason == "threefold"
    board.push_pdn("a1-b2")
    assert board.outcome() is None
    board.push_pdn("h2-g1")  # 10th ply: 5 moves each in the 1K v 1K ending
    out = board.outcome()
    assert out is not None and out.winner is None and out.reason == "ending"
    assert out.result == "1-1"


# 3 white kings (c1, e1, g1) v 2 black kings (b8, d8): not one of the listed endings; the
# shuffles g1<->h2 and b8<->a7 never create a capture (checked below).
SHUFFLE_3V2 = ["g1-h2", "b8-a7", "h2-g1", "a7-b8"]


def test_twenty_king_only_moves_each_is_a_draw() -> None:
    board = Board("W:WKc1,Ke1,Kg1:BKb8,Kd8")
    for ply in range(39):
        assert not board.has_capture()
        board.push_pdn(SHUFFLE_3V2[ply % 4])
        assert board.outcome() is None, f"over after {ply + 1} plies"
    board.push_pdn(SHUFFLE_3V2[39 % 4])
    out = board.outcome()
    assert out is not None and out.winner is None and out.reason == "kings_only"


def test_a_man_move_resets_the_king_only_count() -> None:
    board = Board("W:WKc1,Ke1,Kg1,a3:BKb8,Kd8")
    for ply in range(38):
        board.push_pdn(SHUFFLE_3V2[ply % 4])
    assert board.quiet_plies == 38
    board.push_pdn("a3-b4")  # a man moves: progress
    assert board.quiet_plies == 0
    board.push_pdn("a7-b8")
    for ply in range(30):
        board.push_pdn(["h2-g1", "b8-a7", "g1-h2", "a7-b8"][ply % 4])
    assert board.outcome() is None  # 31 king-only plies since the man moved
    board.pop()
    board.pop()
    assert board.quiet_plies == 29


def test_three_kings_v_one_has_twenty_moves() -> None:
    # c1, e1 stay; g1<->h2 and b8<->a7 shuffle (edge to edge: never a capture)
    board = Board("W:WKc1,Ke1,Kg1:BKb8")
    moves = ["g1-h2", "b8-a7", "h2-g1", "a7-b8"]
    for ply in range(39):
        assert not board.has_capture()
        board.push_pdn(moves[ply % 4])
        assert board.outcome() is None
    board.push_pdn(moves[39 % 4])
    out = board.outcome()
    assert out is not None and out.winner is None and out.reason == "ending"


def test_two_kings_v_one_is_drawn_after_five_moves() -> None:
    board = Board("W:WKc1,Kg1:BKb8")
    moves = ["g1-h2", "b8-a7", "h2-g1", "a7-b8"]
    for ply in range(9):
        board.push_pdn(moves[ply % 4])
        assert board.outcome() is None
    board.push_pdn(moves[9 % 4])
    out = board.outcome()
    assert out is not None and out.reason == "ending"
