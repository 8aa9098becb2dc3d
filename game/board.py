"""Boards in the spirit of python-chess.

`BaseBoard` is a placement only (what a camera sees: which piece stands on which square).
`Board` adds the side to move, the move stack, legal moves, `push`/`pop`, the draw counters
and the outcome.  Squares are internal indices (see `game.geometry`); names in the variant's
own notation come from `Board.square_name` / `Board.parse_square`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from game.errors import AmbiguousMoveError, IllegalMoveError, InvalidPositionError
from game.geometry import Geometry, geometry
from game.movegen import MoveGenerator, RawMove, apply_raw, generator_for
from game.notation import Notation, notation_for
from game.variants import BRAZILIAN, EndingRule, Variant, find_variant


class Color(StrEnum):
    WHITE = "white"  # the light pieces
    BLACK = "black"  # the dark pieces

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def letter(self) -> str:
        return "W" if self is Color.WHITE else "B"


WHITE = Color.WHITE
BLACK = Color.BLACK


class Piece(StrEnum):
    WHITE_MAN = "white_man"
    WHITE_KING = "white_king"
    BLACK_MAN = "black_man"
    BLACK_KING = "black_king"

    @property
    def color(self) -> Color:
        return WHITE if self in (Piece.WHITE_MAN, Piece.WHITE_KING) else BLACK

    @property
    def is_king(self) -> bool:
        return self in (Piece.WHITE_KING, Piece.BLACK_KING)

    @property
    def symbol(self) -> str:
        """'w', 'W', 'b', 'B' (upper case for kings)."""
        s = "w" if self.color is WHITE else "b"
        return s.upper() if self.is_king else s

    @classmethod
    def of(cls, color: Color, king: bool = False) -> Piece:
        if color is WHITE:
            return cls.WHITE_KING if king else cls.WHITE_MAN
        return cls.BLACK_KING if king else cls.BLACK_MAN

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        table = {"w": cls.WHITE_MAN, "W": cls.WHITE_KING, "b": cls.BLACK_MAN, "B": cls.BLACK_KING}
        try:
            return table[symbol]
        except KeyError:
            raise ValueError(f"unknown piece symbol {symbol!r} (expected w, W, b or B)") from None


@dataclass(frozen=True, eq=False)
class Move:
    """A move: the full path of the moving piece and the squares it captured, in jump order.

    Two captures with the same ends and the same captured pieces are the same move (they leave
    the same position), so equality ignores the path between the ends.
    """

    path: tuple[int, ...]
    captured: tuple[int, ...] = ()
    promotes: bool = False

    @property
    def from_square(self) -> int:
        return self.path[0]

    @property
    def to_square(self) -> int:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    @property
    def key(self) -> tuple[int, int, frozenset[int]]:
        return (self.path[0], self.path[-1], frozenset(self.captured))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def _variant(variant: Variant | str | None) -> Variant:
    if variant is None:
        return BRAZILIAN
    return find_variant(variant) if isinstance(variant, str) else variant


class BaseBoard:
    """Pieces on squares, nothing else: the kind of board a camera observes."""

    def __init__(self, variant: Variant | str | None = None) -> None:
        self.variant: Variant = _variant(variant)
        self.geometry: Geometry = geometry(self.variant.width, self.variant.height)
        self.notation: Notation = notation_for(self.variant)
        self.white = 0
        self.black = 0
        self.kings = 0

    @classmethod
    def empty(cls, variant: Variant | str | None = None) -> BaseBoard:
        return BaseBoard(variant)

    @classmethod
    def starting(cls, variant: Variant | str | None = None) -> BaseBoard:
        b = BaseBoard(variant)
        b.white, b.black = _starting_masks(b.variant)
        return b

    @classmethod
    def from_placement(cls, placement: dict[int, Piece],
                       variant: Variant | str | None = None) -> BaseBoard:
        b = BaseBoard(variant)
        for sq, piece in placement.items():
            b.set_piece_at(sq, piece)
        return b

    # -- squares ------------------------------------------------------------------------------
    def square_name(self, sq: int) -> str:
        return self.notation.name(sq)

    def parse_square(self, text: str) -> int:
        return self.notation.parse(text)

    @property
    def squares(self) -> range:
        return range(self.geometry.squares)

    # -- pieces -------------------------------------------------------------------------------
    def piece_at(self, sq: int) -> Piece | None:
        m = self.geometry.mask_of[sq]
        if self.white & m:
            return Piece.WHITE_KING if self.kings & m else Piece.WHITE_MAN
        if self.black & m:
            return Piece.BLACK_KING if self.kings & m else Piece.BLACK_MAN
        return None

    def set_piece_at(self, sq: int, piece: Piece | None) -> None:
        m = self.geometry.mask_of[sq]
        self.white &= ~m
        self.black &= ~m
        self.kings &= ~m
        if piece is None:
            return
        if piece.color is WHITE:
            self.white |= m
        else:
            self.black |= m
        if piece.is_king:
            self.kings |= m

    def remove_piece_at(self, sq: int) -> Piece | None:
        piece = self.piece_at(sq)
        self.set_piece_at(sq, None)
        return piece

    def piece_map(self) -> dict[int, Piece]:
        out: dict[int, Piece] = {}
        for sq in self.geometry.squares_of(self.white | self.black):
            p = self.piece_at(sq)
            assert p is not None
            out[sq] = p
        return out

    def placement(self) -> BaseBoard:
        """A copy of just the placement (for comparing with what the camera saw)."""
        b = BaseBoard(self.variant)
        b.white, b.black, b.kings = self.white, self.black, self.kings
        return b

    def placement_equals(self, other: BaseBoard) -> bool:
        return (self.white, self.black, self.kings) == (other.white, other.black, other.kings)

    def differences(self, other: BaseBoard) -> list[int]:
        """Squares whose piece differs between the two placements, in increasing order."""
        w = self.white ^ other.white
        b = self.black ^ other.black
        k = self.kings ^ other.kings
        return self.geometry.squares_of(w | b | k)

    def count(self, color: Color, king: bool | None = None) -> int:
        own = self.white if color is WHITE else self.black
        if king is True:
            own &= self.kings
        elif king is False:
            own &= ~self.kings
        return own.bit_count()

    def validate(self) -> None:
        """Raise `InvalidPositionError` naming the problem if this cannot be a game position."""
        v = self.variant
        if self.white & self.black:
            sq = self.geometry.squares_of(self.white & self.black)[0]
            raise InvalidPositionError(f"square {self.square_name(sq)} holds both colours")
        for color, own in ((WHITE, self.white), (BLACK, self.black)):
            n = own.bit_count()
            if n > v.men_per_side:
                raise InvalidPositionError(
                    f"{color.value} has {n} pieces; at most {v.men_per_side} in {v.name}")
        crown_w = self.geometry.rank_masks[-1]
        crown_b = self.geometry.rank_masks[0]
        for color, men, row in ((WHITE, self.white & ~self.kings, crown_w),
                                (BLACK, self.black & ~self.kings, crown_b)):
            bad = men & row
            if bad:
                sq = self.geometry.squares_of(bad)[0]
                raise InvalidPositionError(
                    f"{color.value} man on {self.square_name(sq)}, its crowning row: "
                    f"it should be a king")

    def board_fen(self, turn: Color = WHITE) -> str:
        from game.fen import board_to_fen

        return board_to_fen(self, turn)

    def __str__(self) -> str:
        g = self.geometry
        rows = []
        for rank in range(g.height - 1, -1, -1):
            cells = []
            for file in range(g.width):
                sq = g.square_at(file, rank)
                if sq is None:
                    cells.append(" ")
                else:
                    p = self.piece_at(sq)
                    cells.append(p.symbol if p else ".")
            rows.append(" ".join(cells))
        return "\n".join(rows)


def _starting_masks(v: Variant) -> tuple[int, int]:
    g = geometry(v.width, v.height)
    w = b = 0
    for rank in range(v.rows_of_men):
        w |= g.rank_masks[rank]
        b |= g.rank_masks[v.height - 1 - rank]
    return w, b


@dataclass(frozen=True)
class Outcome:
    winner: Color | None  # None: a draw
    reason: str  # "no_pieces", "no_moves", "threefold", "kings_only", "ending", "no_progress"

    @property
    def result(self) -> str:
        """PDN result in points, as draughts PDN writes it: 2-0, 1-1, 0-2."""
        if self.winner is None:
            return "1-1"
        return "2-0" if self.winner is WHITE else "0-2"


@dataclass(frozen=True)
class _State:
    white: int
    black: int
    kings: int
    turn: Color
    quiet_plies: int
    ending_plies: int
    ending: EndingRule | None


class Board(BaseBoard):
    """A game position: placement, side to move, move stack and draw counters."""

    def __init__(self, fen: str | None = None, variant: Variant | str | None = None) -> None:
        super().__init__(variant)
        self.gen: MoveGenerator = generator_for(self.variant)
        self.turn: Color = WHITE if self.variant.first == "W" else BLACK
        self.move_stack: list[Move] = []
        self._states: list[_State] = []
        self.quiet_plies = 0  # plies with no capture and no man move
        self.ending: EndingRule | None = None
        self.ending_plies = 0
        self._history: Counter[tuple[int, int, int, Color]] = Counter()
        if fen is None:
            self.white, self.black = _starting_masks(self.variant)
        else:
            from game.fen import parse_fen

            parse_fen(fen, self)
        self._reset_ending()
        self._history[self._key()] += 1

    @classmethod
    def from_fen(cls, fen: str, variant: Variant | str | None = None) -> Board:
        return cls(fen, variant)

    @classmethod
    def from_base(cls, base: BaseBoard, turn: Color) -> Board:
        b = cls(None, base.variant)
        b.white, b.black, b.kings, b.turn = base.white, base.black, base.kings, turn
        b._history.clear()
        b._reset_ending()
        b._history[b._key()] += 1
        return b

    def copy(self, stack: bool = True) -> Board:
        b = Board.__new__(Board)
        b.__dict__.update(self.__dict__)
        b._history = Counter(self._history)
        b.move_stack = list(self.move_stack) if stack else []
        b._states = list(self._states) if stack else []
        return b

    def fen(self) -> str:
        return self.board_fen(self.turn)

    def _key(self) -> tuple[int, int, int, Color]:
        return (self.white, self.black, self.kings, self.turn)

    # -- moves --------------------------------------------------------------------------------
    def _wtm(self) -> bool:
        return self.turn is WHITE

    def raw_moves(self) -> list[RawMove]:
        return self.gen.generate(self.white, self.black, self.kings, self._wtm())

    def move_from_raw(self, raw: RawMove) -> Move:
        g = self.geometry
        frm, to, _cap, promo, path, order = raw
        if path is None:
            path = (g.square_of_mask(frm), g.square_of_mask(to))
        return Move(tuple(path), tuple(order or ()), bool(promo))

    @property
    def legal_moves(self) -> list[Move]:
        return [self.move_from_raw(r) for r in self.raw_moves()]

    def has_capture(self) -> bool:
        return self.gen.has_capture(self.white, self.black, self.kings, self._wtm())

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves

    def push(self, move: Move) -> None:
        """Play `move`, which must be legal (else `IllegalMoveError` naming it)."""
        for raw in self.raw_moves():
            if self.move_from_raw(raw) == move:
                self._push_raw(raw, self.move_from_raw(raw))
                return
        raise IllegalMoveError(
            f"{self.move_name(move, legal=[])} is not legal in {self.fen()}")

    def _push_raw(self, raw: RawMove, move: Move) -> None:
        self._states.append(_State(self.white, self.black, self.kings, self.turn,
                                   self.quiet_plies, self.ending_plies, self.ending))
        was_king = bool(self.kings & raw[0])
        self.white, self.black, self.kings = apply_raw(
            self.white, self.black, self.kings, self._wtm(), raw)
        self.turn = self.turn.other
        self.move_stack.append(move)
        if move.captured or not was_king:
            self.quiet_plies = 0
        else:
            self.quiet_plies += 1
        before = self.ending
        self._reset_ending()
        if self.ending is not None and self.ending == before and not move.captured:
            self.ending_plies = self._states[-1].ending_plies + 1
        self._history[self._key()] += 1

    def pop(self) -> Move:
        """Take back the last move."""
        if not self.move_stack:
            raise IndexError("pop from an empty move stack")
        self._history[self._key()] -= 1
        if not self._history[self._key()]:
            del self._history[self._key()]
        s = self._states.pop()
        self.white, self.black, self.kings, self.turn = s.white, s.black, s.kings, s.turn
        self.quiet_plies, self.ending_plies, self.ending = (
            s.quiet_plies, s.ending_plies, s.ending)
        return self.move_stack.pop()

    def peek(self) -> Move | None:
        return self.move_stack[-1] if self.move_stack else None

    # -- names --------------------------------------------------------------------------------
    def move_name(self, move: Move, legal: list[Move] | None = None) -> str:
        """The move in the variant's PDN notation, with intermediate squares only when another
        legal move has the same ends (pass `legal=[]` to skip the check)."""
        names = [self.square_name(s) for s in move.path]
        if not move.captured:
            return f"{names[0]}-{names[-1]}"
        sep = self.variant.capture_separator
        if legal is None:
            legal = self.legal_moves
        ambiguous = any(m.from_square == move.from_square and m.to_square == move.to_square
                        and m != move for m in legal)
        if ambiguous:
            return sep.join(names)
        return f"{names[0]}{sep}{names[-1]}"

    def parse_move(self, text: str) -> Move:
        """A legal move from PDN text ('c3-d4', 'c3xe5', 'c3xe5xg3', '22x13', 'c3:e5')."""
        t = text.strip().rstrip("!?*+#")
        parts = [p for p in t.replace("x", "-").replace("X", "-").replace(":", "-").split("-")]
        if len(parts) < 2 or any(not p for p in parts):
            raise IllegalMoveError(f"{text!r} is not a move (expected e.g. 'c3-d4' or 'c3xe5')")
        squares = [self.parse_square(p) for p in parts]
        is_capture = any(c in t for c in "xX:")
        matches = []
        for m in self.legal_moves:
            if m.from_square != squares[0] or m.to_square != squares[-1]:
                continue
            if is_capture and not m.captured and len(squares) == 2:
                continue
            if len(squares) > 2 and not _is_subsequence(squares[1:-1], m.path[1:-1]):
                continue
            matches.append(m)
        if not matches:
            raise IllegalMoveError(f"{text!r} is not a legal move in {self.fen()}")
        if len(matches) > 1:
            options = ", ".join(self.move_name(m) for m in matches)
            raise AmbiguousMoveError(f"{text!r} could be any of: {options}")
        return matches[0]

    def push_pdn(self, text: str) -> Move:
        move = self.parse_move(text)
        self.push(move)
        return move

    # -- end of game --------------------------------------------------------------------------
    def _reset_ending(self) -> None:
        w = (self.count(WHITE, True), self.count(WHITE, False))
        b = (self.count(BLACK, True), self.count(BLACK, False))
        found = None
        for rule in self.variant.endings:
            a, c = rule.sides
            if (a, c) in ((w, b), (b, w)):
                found = rule
                break
        if found != self.ending:
            self.ending = found
            self.ending_plies = 0

    def is_repetition(self, count: int = 3) -> bool:
        return self._history[self._key()] >= count

    def outcome(self, claim_draw: bool = False) -> Outcome | None:
        """The result if the game is over (draw by repetition only when `claim_draw`)."""
        v = self.variant
        mover = self.turn
        own = self.white if mover is WHITE else self.black
        if not own:
            winner = mover if v.giveaway else mover.other
            return Outcome(winner, "no_pieces")
        if not self.raw_moves():
            winner = mover if v.giveaway else mover.other
            return Outcome(winner, "no_moves")
        if self.ending is not None and self.ending_plies >= 2 * self.ending.moves:
            return Outcome(None, "ending")
        limit = v.kings_only_moves or v.no_progress_moves
        if limit is not None and self.quiet_plies >= 2 * limit:
            return Outcome(None, "kings_only" if v.kings_only_moves else "no_progress")
        if claim_draw and self.is_repetition(3):
            return Outcome(None, "threefold")
        return None

    def is_game_over(self, claim_draw: bool = False) -> bool:
        return self.outcome(claim_draw) is not None


def _is_subsequence(needle: list[int], hay: tuple[int, ...]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)
