"""FEN and PDN: round trips, both square notations, and clear errors for bad input."""

from __future__ import annotations

import pytest

from game.board import BaseBoard, Board
from game.errors import FenError, InvalidPositionError, PdnError
from game.pdn import (
    board_after,
    new_record,
    position_comment,
    read_game,
    read_games,
    write_game,
)


def test_start_fen_brazilian() -> None:
    assert Board().fen() == ("W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:"
                             "Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8")


def test_numbers_accepted_for_an_algebraic_variant() -> None:
    # 8x8 PDN numbering: 1 = b8 ... 5 = a7 ... 21 = a3, 22 = c3 (RULES.md s.3: numbers or names)
    assert Board("W:W21,22,K5:B1,2").fen() == "W:Wa3,c3,Ka7:Bb8,d8"


def test_ranges_and_international_start() -> None:
    b = Board("W:W31-50:B1-20", "international")
    assert b.count(b.turn) == 20
    assert b.placement_equals(BaseBoard.starting("international"))
    assert b.fen().startswith("W:W31,32,33")


def test_names_accepted_for_a_numeric_variant() -> None:
    # international 46 = a1, 5 = j10 (hand numbering, RULES.md s.3)
    assert Board("W:Wa1:Bj10", "international").fen() == "W:W46:B5"


@pytest.mark.parametrize("fen,fragment", [
    ("", "empty FEN"),
    ("X:Wa1:Bh8", "first field must be W or B"),
    ("W:Wa2:Bh8", "'a2' is not a playable (dark) square"),
    ("W:Wz9:Bh8", "z9"),
    ("W:Wa1,a1:Bh8", "a1 is listed twice"),
    ("W:Wa1:Ba1", "a1 is listed twice"),
    ("W:Wb8:Bh6", "white man on b8, its crowning row"),
    ("W:Wa1:Bc1", "black man on c1, its crowning row"),
    ("W:W33:B1", "out of range 1..32"),
    ("W:W5-1:B30", "runs backwards"),
    ("W:Qa1:Bh8", "must start with W or B"),
])
def test_fen_errors_say_what_and_where(fen: str, fragment: str) -> None:
    with pytest.raises(FenError) as info:
        Board(fen)
    assert fragment in str(info.value)


def test_too_many_pieces_is_an_error_naming_the_side() -> None:
    squares = ",".join(f"{f}{r}" for r in (1, 2, 3, 4) for f in "abcdefgh"
                       if (ord(f) - 97 + r - 1) % 2 == 0)[:-3]  # 13+ white men
    with pytest.raises(FenError, match="white has 1[3-6] pieces; at most 12"):
        Board(f"W:W{squares}:Bh8")


def test_validate_on_a_placement_from_a_camera() -> None:
    b = BaseBoard.starting("brazilian")
    b.set_piece_at(b.parse_square("d8"), b.remove_piece_at(b.parse_square("a1")))
    with pytest.raises(InvalidPositionError, match="white man on d8"):
        b.validate()


SAMPLE = """[Event "Club night"]
[White "Ana"]
[Black "Rui"]
[GameType "26,W,8,8,A0,0"]
[Result "*"]

{Brazilian opening} 1. c3-d4 f6-e5 2. d4xf6 {forced} g7xe5 (2... e7xg5) 3. b2-c3 $1 *
"""


def test_read_pdn_with_comments_variations_and_nags() -> None:
    rec = read_game(SAMPLE)
    assert rec.variant.name == "brazilian"
    assert [p.text for p in rec.plies] == ["c3-d4", "f6-e5", "d4xf6", "g7xe5", "b2-c3"]
    assert rec.pre_comments == ["Brazilian opening"]
    assert rec.plies[2].comments == ["forced"]
    board, moves = rec.replay()
    assert len(moves) == 5 and board.turn.value == "black"


def test_pdn_round_trip_keeps_moves_and_comments() -> None:
    rec = read_game(SAMPLE)
    again = read_game(write_game(rec))
    assert [p.text for p in again.plies] == [p.text for p in rec.plies]
    assert [p.comments for p in again.plies] == [p.comments for p in rec.plies]
    assert again.tags["White"] == "Ana"


def test_pdn_black_to_move_start_numbers_with_ellipsis() -> None:
    rec = new_record("brazilian", fen="B:Wc3:Bf6,h8")
    board = rec.start_board()
    rec.add_move(board, board.parse_move("f6-e5"))
    text = write_game(rec)
    assert "1... f6-e5" in text
    assert read_game(text).replay()[0].turn.value == "white"


def test_pdn_several_games_and_variants() -> None:
    text = SAMPLE + "\n" + '[GameType "20"]\n1. 32-28 19-23 2. 28x19 14x23 1-1\n'
    games = read_games(text)
    assert [g.variant.name for g in games] == ["brazilian", "international"]
    assert games[1].result == "1-1"
    games[1].replay()


@pytest.mark.parametrize("text,fragment", [
    ("1. c3-d4 f6-e5 2. d4xd5 *", "line 1, column 19: move 2 'd4xd5'"),
    ("1. c3-d4 {never closed", "unterminated comment"),
    ('[Event "x]\n1. c3-d4 *', "unterminated value"),
    ('[GameType "99"]\n1. c3-d4 *', "GameType '99' is not supported"),
    ("1. c3-d4 hello *", "'hello' is not a move"),
    ('[FEN "W:Wa2"]\n*', "FEN tag"),
])
def test_pdn_errors_name_line_and_column(text: str, fragment: str) -> None:
    with pytest.raises(PdnError) as info:
        read_game(text).replay()
    assert fragment in str(info.value)


# White's man jumps c3-e5 over nobody (RULES.md: a man moves one square): the opponent let it
# stand, so the board after it is the start position with that man on e5 (worked by hand).
AFTER_C3_E5 = ("B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,e3,g3,e5:"
               "Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8")


def test_pdn_replays_past_an_irregular_move_with_its_position() -> None:
    text = (f"1. c3-e5 {{illegal: a man moves one square}} {{{position_comment(AFTER_C3_E5)}}} "
            "f6xd4 2. e3xc5 *")
    rec = read_game(text)
    board, moves = rec.replay()
    # black takes e5 from f6 (landing on d4), white takes d4 back from e3 (landing on c5)
    assert moves[0] is None and moves[1] is not None and moves[2] is not None
    assert board.fen() == ("B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,g3,c5:"
                           "Bb6,d6,h6,a7,c7,e7,g7,b8,d8,f8,h8")
    # the position survives writing and reading again
    assert read_game(write_game(rec)).replay()[0].fen() == board.fen()


def test_pdn_irregular_move_without_a_position_is_still_an_error() -> None:
    with pytest.raises(PdnError, match="move 1 'c3-e5'"):
        read_game("1. c3-e5 {illegal: a man moves one square} f6xd4 *").replay()


def test_pdn_position_comment_that_is_no_position_is_named() -> None:
    with pytest.raises(PdnError, match="position comment"):
        read_game(f"1. c3-e5 {{{position_comment('W:Wa2')}}} *").replay()


def test_pdn_a_legal_move_that_left_another_position_replays_to_it() -> None:
    # c3xe5 takes d4 (RULES.md: a man captures by jumping); the player also took his own g1
    # off, and the opponent let it stand: after it, White e5 only, Black h8 to move.
    text = f"[FEN \"W:Wc3,g1:Bd4,h8\"]\n1. c3xe5 {{{position_comment('B:We5:Bh8')}}} h8-g7 *"
    board, moves = read_game(text).replay()
    assert moves[0] is not None  # the rules play the capture; the comment says what stood
    assert board.fen() == "W:We5:Bg7"


def test_board_after_says_when_a_position_is_needed() -> None:
    start = Board("W:Wc3,g1:Bd4,h8")
    after, needed = board_after(start, "c3xe5", "B:We5,g1:Bh8")  # as the rules play it
    assert not needed and after.fen() == Board("B:We5,g1:Bh8").fen()
    after, needed = board_after(start, "c3xe5", "B:We5:Bh8")  # g1 gone too
    assert needed and after.fen() == "B:We5:Bh8"
    after, needed = board_after(start, "g1-e3", "B:Wc3,e3:Bd4,h8")  # not a move at all
    assert needed and after.fen() == Board("B:Wc3,e3:Bd4,h8").fen()
    assert start.fen() == Board("W:Wc3,g1:Bd4,h8").fen()  # the board given is left as it was
