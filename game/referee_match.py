"""Which move explains a still board?  The rules applied to one stable observation.

Given the last accepted position and what the camera now sees (colours only, on the squares it
can read), `explain` lists every *reading*: a piece of one colour went from one square to
another, by a legal move or by an irregular one (a non-capture while a capture was due, a
capture of fewer pieces than the majority rule asks, a chain stopped short, a move out of turn,
any other illegal step), and which captured pieces are still on the board, which were removed,
and which pieces were removed without cause.  `game.referee` chooses among the readings and
keeps time; this module only knows the rules.

Kings are compared by colour only: a crown is put on by the opponent after the move (RULES.md
s.1, Promotion) and a stacked disc is the hardest thing for a camera to see, so the rules, not
the picture, say when a man becomes a king.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from game.board import BLACK, WHITE, Board, Color, Move, Piece
from game.geometry import Geometry
from game.movegen import generator_for
from game.variants import ChainPromotion

LIFT_MARGIN_S = 0.3  # see `choose`


class Kind(StrEnum):
    """How a reading's movement stands under the rules."""

    LEGAL = "legal"
    IGNORED_CAPTURE = "ignored_capture"  # a legal-looking non-capture while a capture was due
    FEWER = "fewer"  # a complete capture taking fewer pieces than the rules require
    STOPPED_SHORT = "stopped_short"  # a chain capture released before its end
    OUT_OF_TURN = "out_of_turn"  # the side not to move moved (two moves in a row, or moved
    # the opponent's piece)
    ILLEGAL = "illegal"  # any other irregular step


@dataclass(frozen=True)
class Reading:
    """One way the observation can be explained: a movement and the state of the removals."""

    color: Color  # colour of the piece that moved
    path: tuple[int, ...]  # start, intermediate landings, end
    captured: tuple[int, ...]  # squares jumped, in jump order
    promotes: bool
    kind: Kind
    removed: frozenset[int]  # captured pieces seen gone
    left: frozenset[int]  # captured pieces still seen on the board
    unseen: frozenset[int]  # captured squares that cannot be read now
    removed_extra: frozenset[int]  # pieces of the other colour removed though not captured
    removed_own: frozenset[int]  # pieces of the mover's colour removed
    move: Move | None = None  # the legal move, for LEGAL (and OUT_OF_TURN when legal for them)
    detail: str = ""  # why an ILLEGAL/OUT_OF_TURN step is irregular

    @property
    def from_square(self) -> int:
        return self.path[0]

    @property
    def to_square(self) -> int:
        return self.path[-1]

    @property
    def removal_done(self) -> bool:
        """All captured pieces seen removed."""
        return not self.left and not self.unseen

    @property
    def key(self) -> tuple[int, int, frozenset[int]]:
        return (self.path[0], self.path[-1], frozenset(self.captured))

    def fault_count(self) -> int:
        """Irregularities other than unfinished removal (which may still be in progress)."""
        n = 0 if self.kind is Kind.LEGAL else 1
        return n + bool(self.removed_extra) + bool(self.removed_own)


@dataclass(frozen=True)
class View:
    """The colours seen, as bitboards, on the squares that can be read."""

    known: int
    white: int
    black: int

    def side(self, color: Color) -> int:
        return self.white if color is WHITE else self.black


def sides(board: Board, color: Color) -> tuple[int, int]:
    """(own, opponent) bitboards of `color` in `board`."""
    return (board.white, board.black) if color is WHITE else (board.black, board.white)


def changes(board: Board, view: View) -> int:
    """Squares (bitboard) whose colour differs between the position and the view."""
    k = view.known
    return ((board.white ^ view.white) | (board.black ^ view.black)) & k


def explain(board: Board, view: View) -> list[Reading]:
    """Every reading of `view` as one piece's movement from `board` (for either colour)."""
    out = _explain_side(board, view, board.turn)
    out += _explain_side(board, view, board.turn.other)
    return out


def _explain_side(board: Board, view: View, color: Color) -> list[Reading]:
    g = board.geometry
    own, opp = sides(board, color)
    seen_own = view.side(color)
    seen_opp = view.side(color.other)
    gone_own = own & view.known & ~seen_own
    new_own = seen_own & ~own
    gone_opp = opp & view.known & ~seen_opp
    new_opp = seen_opp & ~opp
    if new_opp or new_own.bit_count() != 1 or not gone_own:
        return []
    to = g.square_of_mask(new_own)
    out: list[Reading] = []
    for frm in g.squares_of(gone_own):
        removed_own = gone_own & ~g.mask_of[frm]
        for path, captured, promotes, kind, move, detail in _movements(board, color, frm, to):
            cap_mask = g.mask(captured)
            out.append(Reading(
                color=color, path=path, captured=captured, promotes=promotes, kind=kind,
                removed=frozenset(g.squares_of(cap_mask & gone_opp)),
                left=frozenset(g.squares_of(cap_mask & seen_opp)),
                unseen=frozenset(g.squares_of(cap_mask & ~view.known)),
                removed_extra=frozenset(g.squares_of(gone_opp & ~cap_mask)),
                removed_own=frozenset(g.squares_of(removed_own)),
                move=move, detail=detail))
    return out


_Movement = tuple[tuple[int, ...], tuple[int, ...], bool, Kind, Move | None, str]


def _movements(board: Board, color: Color, frm: int, to: int) -> list[_Movement]:
    """Every way the piece on `frm` can have reached `to`, best explanations first."""
    mover = board if color is board.turn else _flipped(board)
    legal = [m for m in mover.legal_moves if m.from_square == frm and m.to_square == to]
    if legal:
        kind = Kind.LEGAL if color is board.turn else Kind.OUT_OF_TURN
        detail = "" if kind is Kind.LEGAL else (
            f"{color.value} moved while {board.turn.value} was to move "
            f"(two moves in a row, or the opponent's piece moved)")
        return [(m.path, m.captured, m.promotes, kind, m, detail) for m in legal]
    out: list[_Movement] = []
    promotes = _reaches_far_row(board, color, frm, to)
    if color is not board.turn:
        out.append(((frm, to), (), promotes, Kind.OUT_OF_TURN, None,
                    f"a {color.value} piece moved {_step_text(board, frm, to)} while "
                    f"{board.turn.value} was to move, and not by a legal move"))
        return out
    # Captures that are not legal: fewer pieces than required, or a chain stopped short.
    required = mover.legal_moves
    best = max((len(m.captured) for m in required), default=0)
    due = ", ".join(mover.move_name(m, required) for m in required if m.captured)
    for path, order, can_go_on in capture_paths(board, color, frm):
        if path[-1] != to:
            continue
        if can_go_on:
            out.append((path, order, False, Kind.STOPPED_SHORT, None,
                        f"the chain stopped after {len(order)} capture(s) though it could "
                        f"continue from {board.square_name(to)} (required: {due})"))
        else:
            out.append((path, order, promotes, Kind.FEWER, None,
                        f"captured {len(order)} piece(s) where the rules require {best} "
                        f"({due})"))
    quiet = _quiet_targets(board, color, frm)
    if to in quiet and board.has_capture():
        out.append(((frm, to), (), promotes, Kind.IGNORED_CAPTURE, None,
                    "a non-capture was played while a capture was possible"))
    if not out:
        out.append(((frm, to), (), promotes, Kind.ILLEGAL, None, _why_illegal(board, frm, to)))
    return _dedupe(out)


def _dedupe(moves: list[_Movement]) -> list[_Movement]:
    seen: set[tuple[int, int, frozenset[int], Kind]] = set()
    out = []
    for mv in moves:
        k = (mv[0][0], mv[0][-1], frozenset(mv[1]), mv[3])
        if k not in seen:
            seen.add(k)
            out.append(mv)
    return out


def _flipped(board: Board) -> Board:
    b = board.copy(stack=False)
    b.turn = board.turn.other
    return b


def _reaches_far_row(board: Board, color: Color, frm: int, to: int) -> bool:
    g = board.geometry
    if board.kings & g.mask_of[frm]:
        return False
    far = g.height - 1 if color is WHITE else 0
    return g.coords[to][1] == far


def _quiet_targets(board: Board, color: Color, frm: int) -> set[int]:
    """Squares the piece on `frm` could reach by a non-capture if capturing were optional."""
    gen = generator_for(board.variant)
    g = board.geometry
    raw = gen.quiet_moves(board.white, board.black, board.kings, color is WHITE)
    m = g.mask_of[frm]
    return {g.square_of_mask(r[1]) for r in raw if r[0] == m}


def capture_paths(board: Board, color: Color, frm: int
                  ) -> list[tuple[tuple[int, ...], tuple[int, ...], bool]]:
    """Every capture sequence of the piece on `frm`, finished or not, ignoring the capture
    choice rule: (path, captured in order, whether it could continue capturing)."""
    v = board.variant
    g = board.geometry
    _own, opp = sides(board, color)
    empty = g.board_mask & ~(board.white | board.black) | g.mask_of[frm]
    is_king = bool(board.kings & g.mask_of[frm])
    out: list[tuple[tuple[int, ...], tuple[int, ...], bool]] = []
    far_rank = g.height - 1 if color is WHITE else 0
    forward = (0, 1) if color is WHITE else (2, 3)

    def jumps(sq: int, captured: int, king: bool, first: bool) -> list[tuple[int, int, bool]]:
        """(victim, landing, lands as king) for each single jump from `sq`."""
        found = []
        if king:
            dirs: tuple[int, ...] = (0, 1, 2, 3)
        elif v.men_capture_backward and (v.men_start_capture_backward or not first):
            dirs = (0, 1, 2, 3)
        else:
            dirs = forward
        for d in dirs:
            ray = g.rays[sq][d]
            i = 0
            if king and v.flying_kings:
                while i < len(ray) and ray[i] & empty:
                    i += 1
            if i + 1 >= len(ray):
                continue
            victim = ray[i]
            if not victim & opp or victim & captured:
                continue
            if not king and not v.men_capture_kings and victim & board.kings:
                continue
            j = i + 1
            while j < len(ray) and ray[j] & empty:
                land = g.square_of_mask(ray[j])
                found.append((g.square_of_mask(victim), land, king))
                if not (king and v.flying_kings):
                    break
                j += 1
        return found

    def walk(sq: int, captured: int, king: bool, path: tuple[int, ...],
             order: tuple[int, ...]) -> None:
        nexts = jumps(sq, captured, king, not order)
        if order:
            out.append((path, order, bool(nexts)))
        for victim, land, was_king in nexts:
            crowned = (not was_king and g.coords[land][1] == far_rank)
            if crowned and v.chain_promotion is ChainPromotion.ENDS_MOVE:
                out.append((path + (land,), order + (victim,), False))
                continue
            now_king = was_king or (crowned
                                    and v.chain_promotion is ChainPromotion.CONTINUES_AS_KING)
            walk(land, captured | g.mask_of[victim], now_king, path + (land,), order + (victim,))

    walk(frm, 0, is_king, (frm,), ())
    # One entry per (end, captured set, can continue): paths that differ only between the ends
    # leave the same position.
    seen: set[tuple[int, frozenset[int], bool]] = set()
    unique = []
    for path, order, more in out:
        k = (path[-1], frozenset(order), more)
        if k not in seen:
            seen.add(k)
            unique.append((path, order, more))
    return unique


def _step_text(board: Board, frm: int, to: int) -> str:
    return f"{board.square_name(frm)} to {board.square_name(to)}"


def _why_illegal(board: Board, frm: int, to: int) -> str:
    g: Geometry = board.geometry
    (f0, r0), (f1, r1) = g.coords[frm], g.coords[to]
    df, dr = f1 - f0, r1 - r0
    step = _step_text(board, frm, to)
    king = bool(board.kings & g.mask_of[frm])
    color = WHITE if board.white & g.mask_of[frm] else BLACK
    if abs(df) != abs(dr):
        return f"the piece moved {step}, not along a diagonal"
    n = abs(dr)
    between = [g.square_at(f0 + (df // n) * k, r0 + (dr // n) * k) for k in range(1, n)]
    occupied = [s for s in between
                if s is not None and (board.white | board.black) & g.mask_of[s]]
    if king:
        if occupied:
            names = ", ".join(board.square_name(s) for s in occupied)
            return f"the king moved {step} over occupied square(s) {names}"
        if not board.variant.flying_kings and n > 1:
            return f"the king moved {n} squares ({step}); kings move one square in this variant"
        return f"the king moved {step}, which is not a legal move here"
    forward = dr > 0 if color is WHITE else dr < 0
    if not forward:
        return f"a man moved backward ({step})"
    if n > 1:
        return f"a man moved {n} squares ({step})"
    return f"the man moved {step}, which is not a legal move here"


# -- choosing among readings --------------------------------------------------------------


# -- choosing among readings --------------------------------------------------------------
@dataclass(frozen=True)
class Accept:
    reading: Reading


@dataclass(frozen=True)
class Wait:
    readings: list[Reading]


@dataclass(frozen=True)
class Unclear:
    readings: list[Reading]


def choose(readings: list[Reading], lifted: dict[int, float] | None = None
           ) -> Accept | Wait | Unclear:
    """Accept the best complete reading, wait while a capture's removal may be under way.

    Two readings that differ only in which of the mover's pieces moved and which was removed
    (d8-e7 with f8 taken off, or f8-e7 with d8 taken off) look the same when still; the piece
    that left its square first is the one that moved (pieces are removed after the move,
    RULES.md s.1).  `lifted` says when each piece was last seen on its square.
    """
    if not readings:
        return Unclear([])
    complete = [r for r in readings if r.removal_done]
    pending = [r for r in readings if not r.removal_done]
    best_faults = min((r.fault_count() for r in complete), default=None)
    if pending and (best_faults is None
                    or min(r.fault_count() for r in pending) <= best_faults):
        return Wait(pending)
    assert best_faults is not None
    best = [r for r in complete if r.fault_count() == best_faults]
    # A reading that explains the removed pieces as captured beats one that calls them removed
    # without cause; after that, legal beats out-of-turn beats illegal.
    if len({r.key for r in best}) == 1:
        return Accept(best[0])
    if lifted:
        # The piece that moved left its square before the other was taken off; believe it
        # only with a clear margin, or say the board is unclear.
        starts = {r.path[0] for r in best}
        if len(starts) == len({r.key for r in best}) and starts <= set(lifted):
            order = sorted(starts, key=lambda s: lifted[s])
            if lifted[order[1]] - lifted[order[0]] >= LIFT_MARGIN_S:
                return Accept(next(r for r in best if r.path[0] == order[0]))
    return Unclear(best)


def as_it_stands(board: Board, r: Reading, forced: bool, turn: Color) -> Board:
    """The position after an irregular move: what is on the board now, by the rules' reading."""
    base = board.placement()
    piece = base.piece_at(r.path[0])
    assert piece is not None
    base.set_piece_at(r.path[0], None)
    for sq in r.removed | r.removed_extra | r.removed_own:
        base.set_piece_at(sq, None)
    if not forced:
        for sq in r.unseen:
            base.set_piece_at(sq, None)
    if r.promotes and not piece.is_king:
        piece = Piece.of(piece.color, king=True)
    base.set_piece_at(r.path[-1], piece)
    return Board.from_base(base, turn)
