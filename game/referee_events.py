"""What the referee reports: events, the policy for irregular moves, and the scorer's record.

An event is one thing a referee or opponent would call: a move, or one irregularity of RULES.md
s.1 ("Touching and completing a move", "Irregularities"), with the squares involved.  Events
carry internal squares; `as_json` names them in the variant's notation (`c3` or `22`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from game.board import BaseBoard, Board, Color
from game.errors import GameError
from game.pdn import GameRecord, Ply, board_after, new_record, position_comment
from game.variants import Variant


class EventType(StrEnum):
    MOVE = "move"
    TOUCH_MOVE = "touch_move"
    MANDATORY_CAPTURE = "mandatory_capture"
    MAJORITY = "majority"
    REMOVAL = "removal"
    ILLEGAL = "illegal"
    UNREADABLE = "unreadable"


class Policy(StrEnum):
    """What happens after an irregularity (RULES.md: the opponent decides).

    INSIST: the position must be put back (the referee lists the squares) and the move replayed.
    ACCEPT: play on from the position as it stands; the irregularity is recorded as a comment.
    RECORD: two people play; like ACCEPT, every irregularity is recorded and shown.
    """

    INSIST = "insist"
    ACCEPT = "accept"
    RECORD = "record"


@dataclass(frozen=True)
class RefereeEvent:
    type: EventType
    frame: int
    time_s: float
    move: str  # the move in PDN ('c3-d4', 'c3xe5'), '' when no move is involved
    squares: tuple[int, ...]  # internal squares
    detail: str = ""
    # False for reports that are not irregularities (an unannounced adjustment, a touched piece
    # that could not have moved): shown and recorded, but they do not make the move irregular.
    penalised: bool = True

    def as_json(self, board: BaseBoard) -> dict[str, object]:
        """The JSON-lines form of `damas replay --events`."""
        return {"frame": self.frame, "type": self.type.value, "move": self.move,
                "squares": [board.square_name(s) for s in self.squares], "detail": self.detail}


@dataclass
class RecordedMove:
    """One move as a scorer writes it: legal or not, with the referee's comments."""

    text: str
    color: Color
    legal: bool
    comments: list[str] = field(default_factory=list)
    fen_after: str = ""
    frame: int = -1


def comment_text(event: RefereeEvent) -> str:
    """The PDN comment for an irregularity (braces are not allowed inside a comment)."""
    label = event.type.value.replace("_", "-")
    text = f"{label}: {event.detail}" if event.detail else label
    return text.replace("{", "(").replace("}", ")")


def game_record(variant: Variant, start_fen: str | None, moves: list[RecordedMove],
                pre_comments: list[str] | None = None, **tags: str) -> GameRecord:
    """The scorer's record as a PDN game: every move that changed the position, legal or not,
    with the referee's comments at that move (`pre_comments` before the first).  After a move
    the rules cannot replay to the position that stood (an irregular move let stand), that
    position (a `position_comment`), so that the record replays past it."""
    rec = new_record(variant, start_fen, **tags)
    rec.pre_comments.extend(pre_comments or [])
    board = Board(start_fen, variant)
    for m in moves:
        comments = list(m.comments)
        try:
            board, needed = board_after(board, m.text, m.fen_after)
        except GameError:  # (no position recorded, and the rules cannot play it)
            needed = False
        if needed:
            comments.append(position_comment(m.fen_after))
        rec.plies.append(Ply(m.text, comments))
    return rec
