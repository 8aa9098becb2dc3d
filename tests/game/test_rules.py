"""Hand-worked positions for every rule of RULES.md (s.1 Brazilian, s.2 other variants).

Each case is the position as FEN and the exact set of legal moves, worked out by hand from the
rules text; the comment beside each says the reasoning.  Numeric squares were numbered by hand
from RULES.md s.3 (e.g. English: b8=1 ... g1=32; Italian: h8=1 ... a1=32 on the turned board;
Portuguese/Spanish: a1=1 ... h8=32).
"""

from __future__ import annotations

import pytest

from game.board import Board

CASES = [
    # --- Brazilian movement -------------------------------------------------------------
    ("men move one square diagonally forward", "brazilian", "W:Wc3:Bh8", {"c3-b4", "c3-d4"}),
    ("black men move down the board", "brazilian", "B:Wa1:Bd6", {"d6-c5", "d6-e5"}),
    ("flying king moves any distance, stops before a piece", "brazilian", "W:WKa1:Bh8",
     {"a1-b2", "a1-c3", "a1-d4", "a1-e5", "a1-f6", "a1-g7"}),
    ("king cannot jump two adjacent pieces", "brazilian", "W:WKa1:Bc3,d4", {"a1-b2"}),
    # --- captures -----------------------------------------------------------------------
    ("capture is mandatory; only the piece that can capture moves", "brazilian",
     "W:Wc3,g3:Bd4", {"c3xe5"}),
    ("men capture backwards", "brazilian", "W:Wd4:Bc3", {"d4xb2"}),
    ("king captures at a distance and may land on any empty square beyond", "brazilian",
     "W:WKa1:Bd4", {"a1xe5", "a1xf6", "a1xg7", "a1xh8"}),
    # a1xc3 may land d4..h8; only from f6 can the chain go on (f6xe7 to d8): must land there
    ("king must land where the chain continues", "brazilian", "W:WKa1:Bc3,e7", {"a1xd8"}),
    # c3xd4 e5xd6 c7xb6 a5 takes 3; e5xf6 g7 only 2: majority
    ("majority rule", "brazilian", "W:Wc3:Bd4,f6,d6,b6", {"c3xa5"}),
    ("equal counts: free choice", "brazilian", "W:Wc3:Bb4,d4", {"c3xa5", "c3xe5"}),
    # man b4 taking a man (c5) vs king g3 taking a king (f4): kings and men count equally
    ("kings and men count equally for the majority", "brazilian", "W:Wb4,Kh2:Bc5,Kf4",
     {"b4xd6", "h2xe5", "h2xd6", "h2xc7", "h2xb8"}),
    # a1xc3, e5, e7, c7 then the line a5-e1 is blocked by the still-standing c3, so d2 stays
    ("jumped pieces stay on the board and block until the move ends", "brazilian",
     "W:WKa1:Bc3,e5,e7,c7,d2", {"a1xb6", "a1xa5"}),
    # around the diamond either way: same start, end and captured pieces = one move
    ("same ends and same captured pieces count once", "brazilian",
     "W:Wc3:Bb4,d4,b6,d6", {"c3xc3"}),
    # h4xg3 then either e3 (via f2, d4) or d2 (via e1, c3) before g7: same ends, two moves
    ("same ends, different captured pieces: intermediate squares shown", "brazilian",
     "W:WKh4:Bd2,e3,g3,g7", {"h4xf2xd4xh8", "h4xe1xc3xh8"}),
    # b6xc7 lands d8 (crowning row) and must go on: d8xe7 f6, ends a man (tested below too)
    ("a man passing the far row mid-capture goes on as a man", "brazilian",
     "W:Wb6:Bc7,e7,h2", {"b6xf6"}),
    # --- variants -----------------------------------------------------------------------
    ("first-capture-forward option: no backward start", "brazilian+forward-start",
     "W:Wd4:Bc3,h8", {"d4-c5", "d4-e5"}),
    ("first-capture-forward option: may continue backwards", "brazilian+forward-start",
     "W:Wc3:Bd4,f4", {"c3xg3"}),
    # Russian: crowned on d8 at once, continues as a flying king over e7 to f6, g5 or h4
    ("russian: promoted mid-capture, continues as a king", "russian",
     "W:Wb6:Bc7,e7,h2", {"b6:f6", "b6:g5", "b6:h4"}),
    # Russian free choice: c3xd4 e5 then f6 g7 (2) or c3xb4 a5 (1); the chain must be finished
    ("russian: free choice among captures", "russian", "W:Wc3:Bd4,f6,b4",
     {"c3:g7", "c3:a5"}),
    # English: men do not capture backwards (d4 cannot take c3); d4=18 moves to 14 or 15
    ("english: men do not capture backwards", "english", "W:W18:B22,1", {"18-14", "18-15"}),
    # English: b6(9)xc7(6) lands d8(2), crowned, the move ends (e7 stays)
    ("english: crowning ends the move", "english", "W:W9:B6,7,25", {"9x2"}),
    # English free choice: c3(22)x d4 e5 x f6 g7(8) or c3x b4 a5(13)
    ("english: free choice, no majority", "english", "W:W22:B18,11,17", {"22x8", "22x13"}),
    ("english: kings move one square", "english", "W:WK18:B1",
     {"18-14", "18-15", "18-22", "18-23"}),
    # Italian (h8=1 .. a1=32): a man (c3=23) may not capture the king on d4 (19)
    ("italian: men may not capture kings", "italian", "W:W23:BK19,1", {"23-20"}),
    # Italian: man c3(23) x d4 and king g3(21) x f4 both take one: the king must capture
    ("italian: capture with the king first", "italian", "W:W23,K21:B19,18,1", {"21x14"}),
    # Italian: king takes 1 king or 1 man: must take the king (b4=20 is a king)
    ("italian: most kings", "italian", "W:WK22:BK19,18,1", {"22x15"}),
    # Portuguese (a1=1 .. h8=32): c3(10) takes a man (b4=13) or a king (d4=14): quality
    ("portuguese: quality rule", "portuguese", "W:W10:B13,K14,32", {"10x19"}),
    ("spanish: quality rule", "spanish", "W:W10:B13,K14,32", {"10x19"}),
    ("spanish+free: free choice among equal counts", "spanish+free", "W:W10:B13,K14,32",
     {"10x17", "10x19"}),
    # International: men capture backwards on 10x10 (28 takes 33 landing 39; W on 28 = d7...)
    # International (b10=1 .. a1=46): d4(32) x c5(27) lands b6(21), then x c7(17) to d8(12);
    # 32x28 to f6(23) takes only one: majority
    ("international: majority over a backward-capable chain", "international",
     "W:W32:B27,28,17", {"32x12"}),
    ("international: flying king on the long diagonal", "international", "W:WK46:B5",
     {"46-41", "46-37", "46-32", "46-28", "46-23", "46-19", "46-14", "46-10"}),
]


@pytest.mark.parametrize("why,variant,fen,expected", CASES, ids=[c[0] for c in CASES])
def test_legal_moves(why: str, variant: str, fen: str, expected: set[str]) -> None:
    board = Board(fen, variant)
    legal = board.legal_moves
    names = [board.move_name(m, legal) for m in legal]
    assert len(names) == len(set(names)), f"duplicate moves {names}"
    assert set(names) == expected


def test_promotion_only_at_end_of_move_brazilian() -> None:
    board = Board("W:Wb6:Bc7,e7,h2", "brazilian")
    move = board.parse_move("b6xf6")
    assert move.captured == (board.parse_square("c7"), board.parse_square("e7"))
    assert not move.promotes
    board.push(move)
    assert board.piece_at(board.parse_square("f6")).value == "white_man"


def test_promotion_when_the_move_ends_on_the_far_row() -> None:
    board = Board("W:Wb6:Bc7,h2", "brazilian")
    board.push_pdn("b6xd8")
    assert board.piece_at(board.parse_square("d8")).value == "white_king"


def test_russian_mid_capture_promotion_makes_a_king() -> None:
    board = Board("W:Wb6:Bc7,e7,h2", "russian")
    board.push_pdn("b6:h4")
    assert board.piece_at(board.parse_square("h4")).value == "white_king"
    assert board.piece_at(board.parse_square("c7")) is None
    assert board.piece_at(board.parse_square("e7")) is None


def test_captured_pieces_listed_in_jump_order() -> None:
    board = Board("W:Wc3:Bd4,f6,d6,b6", "brazilian")
    (move,) = board.legal_moves
    names = [board.square_name(s) for s in move.captured]
    assert names == ["d4", "d6", "b6"]
    assert [board.square_name(s) for s in move.path] == ["c3", "e5", "c7", "a5"]


def test_json_squares_use_variant_notation() -> None:
    board = Board("W:W31-50:B1-20", "international")
    assert {board.move_name(m) for m in board.legal_moves} == {
        "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"}


def test_giveaway_losing_all_pieces_wins() -> None:
    board = Board("W:Wc3:Bd4,h8", "giveaway")
    board.push_pdn("c3xe5")
    # black to move with one piece: black must... white has one man left; play on
    assert board.outcome() is None
    empty_white = Board("W:W:Bd4", "giveaway")
    out = empty_white.outcome()
    assert out is not None and out.winner is not None and out.winner.value == "white"
    normal = Board("W:W:Bd4", "brazilian")
    out2 = normal.outcome()
    assert out2 is not None and out2.winner is not None and out2.winner.value == "black"


def test_blocked_side_loses() -> None:
    # white man a1 blocked by black b2 backed by c3: no move, no capture -> white loses
    board = Board("W:Wa1:Bb2,c3", "brazilian")
    out = board.outcome()
    assert out is not None and out.reason == "no_moves" and out.winner.value == "black"
