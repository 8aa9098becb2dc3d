"""Which irregularities a finished move carries (RULES.md s.1, "Irregularities").

Given the position, the reading of the move (`referee_match.Reading`) and what was seen while
it was made (pieces touched, still boards on the way), list the events: a non-capture while a
capture was due, too few pieces captured or a chain stopped short, any other illegal step,
touching one piece and playing another (or adjusting without announcing), and every fault in the
removal of pieces.  Each event names its squares.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.board import Board, Color, Move
from game.referee_events import EventType, RefereeEvent
from game.referee_match import Kind, Reading, View


@dataclass(frozen=True)
class Context:
    """What the referee knows about the move beyond the position and its reading."""

    frame: int
    time_s: float
    text: str  # the move in PDN
    legal: list[Move]  # the legal moves of the position
    forced: bool  # the move is closed before its removal was complete
    touched: dict[int, str]  # square -> "lifted" or "displaced", during the move
    must_play: frozenset[int]  # INSIST after touch-move: the move had to start here
    stable_views: list[View]  # still boards seen since the position was accepted


def _color_at(board: Board, sq: int) -> Color | None:
    p = board.piece_at(sq)
    return p.color if p else None


def faults_of(board: Board, r: Reading, c: Context) -> list[RefereeEvent]:
    """The irregularities that the finished move `r` from `board` carries, as events."""
    name = board.square_name
    text, legal = c.text, c.legal
    out: list[RefereeEvent] = []

    def add(kind: EventType, squares: tuple[int, ...], detail: str,
            penalised: bool = True) -> None:
        out.append(RefereeEvent(kind, c.frame, c.time_s, text, squares, detail,
                                penalised))

    ends = (r.path[0], r.path[-1])
    if r.kind is Kind.IGNORED_CAPTURE:
        due = ", ".join(board.move_name(m, legal) for m in legal)
        add(EventType.MANDATORY_CAPTURE, ends,
            f"{text} is not a capture, but a capture was due ({due})")
    elif r.kind in (Kind.FEWER, Kind.STOPPED_SHORT):
        add(EventType.MAJORITY, ends + r.captured, r.detail)
    elif r.kind in (Kind.ILLEGAL, Kind.OUT_OF_TURN):
        add(EventType.ILLEGAL, ends, r.detail)
    # Touching: the mover's other pieces lifted or displaced during the move.
    if r.color is board.turn:
        touched = sorted(s for s in c.touched
                         if s != r.path[0] and s not in r.removed_own
                         and s not in r.captured and s not in r.removed_extra)
        mine = [s for s in touched if _color_at(board, s) is r.color]
        theirs = [s for s in touched if _color_at(board, s) is r.color.other]
        if mine:
            movable = [s for s in mine if any(m.from_square == s for m in legal)]
            parts = ", ".join(
                f"{name(s)} ({c.touched[s]}, "
                f"{'could legally move' if s in movable else 'could not legally move'})"
                for s in mine)
            if movable:
                add(EventType.TOUCH_MOVE, tuple(mine),
                    f"touched {parts}, then played {text}")
            else:
                add(EventType.TOUCH_MOVE, tuple(mine),
                    f"touched {parts}, then played {text}; none of them could move: "
                    f"no penalty", penalised=False)
        elif c.must_play and r.path[0] not in c.must_play:
            squares = tuple(sorted(c.must_play))
            names = ", ".join(name(s) for s in squares)
            add(EventType.TOUCH_MOVE, squares,
                f"the touched piece on {names} had to be played, not {text}")
        if theirs:
            names = ", ".join(name(s) for s in theirs)
            add(EventType.TOUCH_MOVE, tuple(theirs),
                f"adjusted without announcing: opponent's piece(s) {names}",
                penalised=False)
    # Removal of pieces.
    if r.removed_extra:
        sq = tuple(sorted(r.removed_extra))
        add(EventType.REMOVAL, sq, "removed piece(s) that were not captured: "
            + ", ".join(name(s) for s in sq))
    if r.removed_own:
        sq = tuple(sorted(r.removed_own))
        add(EventType.REMOVAL, sq, "removed own piece(s): " + ", ".join(name(s) for s in sq))
    early = _removed_early(board, r, c.stable_views)
    if early:
        add(EventType.REMOVAL, early, "removed " + ", ".join(name(s) for s in early)
            + " before the capture was complete")
    if c.forced and (r.left or r.unseen):
        left = tuple(s for s in r.captured if s in r.left or s in r.unseen)
        if r.removed:
            done = ", ".join(name(s) for s in r.captured if s in r.removed)
            add(EventType.REMOVAL, left, f"removal interrupted: removed {done}, left "
                + ", ".join(name(s) for s in left))
        else:
            add(EventType.REMOVAL, left, "captured piece(s) not removed: "
                + ", ".join(name(s) for s in left))
    return out

def _removed_early(board: Board, r: Reading, stable_views: list[View]) -> tuple[int, ...]:
    """Captured pieces seen gone on a still board while the capturing piece had not moved."""
    if not r.captured or r.path[0] == r.path[-1]:
        return ()
    g = board.geometry
    frm = g.mask_of[r.path[0]]
    early: set[int] = set()
    for v in stable_views[:-1]:
        if not (v.side(r.color) & frm):
            continue
        for sq in r.captured:
            m = g.mask_of[sq]
            if v.known & m and not (v.white | v.black) & m:
                early.add(sq)
    return tuple(s for s in r.captured if s in early)
