"""Hand-built observation sequences for the referee tests (positions worked from RULES.md)."""

from __future__ import annotations

from game.board import BaseBoard, Board, Piece
from game.observation import Observation

VARIANT = "brazilian"


def place(white: str = "", black: str = "") -> BaseBoard:
    """A placement from square lists: place("c3 Kd4", "f6") (K marks a king)."""
    b = BaseBoard.empty(VARIANT)
    for text, king_piece, man_piece in ((white, Piece.WHITE_KING, Piece.WHITE_MAN),
                                        (black, Piece.BLACK_KING, Piece.BLACK_MAN)):
        for tok in text.split():
            king = tok.startswith("K")
            sq = b.parse_square(tok[1:] if king else tok)
            b.set_piece_at(sq, king_piece if king else man_piece)
    return b


def sq(name: str) -> int:
    return BaseBoard.empty(VARIANT).parse_square(name)


def sqs(names: str) -> tuple[int, ...]:
    return tuple(sq(n) for n in names.split())


def game(fen: str | None = None) -> Board:
    return Board(fen, VARIANT)


class Clock:
    """Frame numbers and times at 15 fps for a hand-built sequence."""

    def __init__(self) -> None:
        self.frame = 0

    def obs(self, board: BaseBoard, *, occluded: str = "", displaced: str = "",
            hand: bool = False) -> Observation:
        self.frame += 1
        return Observation.from_board(board, occluded=sqs(occluded) if occluded else (),
                                      displaced=sqs(displaced) if displaced else (), hand=hand,
                                      frame=self.frame, time_s=self.frame / 15)
