"""The rules of draughts, pure Python with no I/O: boards, variants, notation, PDN, perft,
and (in subpackages) the engine and the referee.  Imports none of the other packages.
"""

from game.board import BLACK, WHITE, BaseBoard, Board, Color, Move, Outcome, Piece
from game.errors import (
    AmbiguousMoveError,
    FenError,
    GameError,
    IllegalMoveError,
    InvalidPositionError,
    InvalidSquareError,
    PdnError,
    UnknownVariantError,
)
from game.variants import VARIANTS, Variant, find_variant

__all__ = [
    "BLACK", "WHITE", "BaseBoard", "Board", "Color", "Move", "Outcome", "Piece",
    "AmbiguousMoveError", "FenError", "GameError", "IllegalMoveError", "InvalidPositionError",
    "InvalidSquareError", "PdnError", "UnknownVariantError", "VARIANTS", "Variant",
    "find_variant",
]
