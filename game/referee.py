"""The referee: moves and irregularities from observations of the board, under the rules.

The referee is fed two kinds of observation by `vision.stream` (it knows nothing of images):

- `see(obs)` for every frame, hand or not: which of the pieces were lifted (their square seen
  empty for `touch_frames` frames in a row: a hand may hold a piece still, off the board, and a
  single misread frame is not a lift) or pushed off-centre (`displaced`).  A touched piece is
  what the touch-move rule (RULES.md s.1) is about, and only the frames *during* the move show
  it.
- `read(obs)` for a *stable* frame (the view has been still, no hand over the board): the
  position is compared with the last accepted one and explained by a move (`referee_match`).

Captured pieces are removed by hand after the move, so a stable board may show the capturing
piece on its square with captured pieces still there: that is not yet a move, the referee waits
until the removal is complete (or until the next player moves, or `removal_timeout_s` of
stillness, when the removal is called incomplete).  A board that fits no move, or several
equally, is reported as `unreadable` with the squares that disagree, and the referee waits.

Before that, the rules get one try at what the camera cannot tell: a square whose picture
changed while its reading did not (`displaced`: glare read as the piece that left, a dark piece
on a dark square read empty), or that stays occluded on a still board, is read the other way
when that alone gives the one move the rules accept through it.  The move then carries a note
about the camera, and the square is taken so while it reads so (like a square that read a
piece no move put there, see `_without_phantoms`).

What follows an irregularity depends on the policy (`referee_events.Policy`): under INSIST the
move is not accepted and `restore` lists what to put back; under ACCEPT and RECORD the game goes
on from the position as it stands and the scorer's record gets a comment.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from game.board import Board, Color, Move, Piece
from game.observation import Observation
from game.pdn import GameRecord
from game.referee_events import (
    EventType,
    Policy,
    RecordedMove,
    RefereeEvent,
    comment_text,
    game_record,
)
from game.referee_faults import Context, faults_of
from game.referee_match import (
    Accept,
    Kind,
    Reading,
    View,
    Wait,
    as_it_stands,
    changes,
    choose,
    explain,
)

__all__ = ["Referee", "RefereeConfig", "RefereeEvent", "EventType", "Policy", "RecordedMove",
           "played_name"]


@dataclass(frozen=True)
class RefereeConfig:
    policy: Policy = Policy.INSIST
    # Squares whose classification is less certain than this are treated as unknown.
    min_confidence: float = 0.5
    # A capture whose removal is unfinished is called after this much stillness.
    removal_timeout_s: float = 6.0
    # Consecutive frames a piece must be seen lifted/displaced to count as touched (noise).
    touch_frames: int = 2


def played_name(board: Board, path: tuple[int, ...], captured: tuple[int, ...],
                legal: list[Move] | None = None) -> str:
    """PDN text of a movement from `board`, legal or not: 'c3-d4', 'c3xe5', 'c3xe5xc7' (the
    intermediate squares only when a legal move has the same ends)."""
    move = Move(path, captured)
    if legal is None:
        legal = board.legal_moves
    if move in legal:
        return board.move_name(move, legal)
    sep = board.variant.capture_separator if captured else "-"
    return f"{board.square_name(path[0])}{sep}{board.square_name(path[-1])}"


class Referee:
    """Watches one game: `see` every frame, `read` stable ones, collect `events` and `record`."""

    def __init__(self, board: Board, config: RefereeConfig | None = None) -> None:
        self.config = config or RefereeConfig()
        self.board = board.copy()
        self.start_fen = board.fen()
        self.start_turn: Color = board.turn
        self.events: list[RefereeEvent] = []
        # About the camera, not the game (squares misread from the start): shown, not events.
        self.notes: list[RefereeEvent] = []
        self._rereads = 0  # depth of `_reread`
        self.record: list[RecordedMove] = []
        # Irregularities put back before any move stood (INSIST): the record's first comments.
        self.pre_comments: list[str] = []
        # INSIST: square -> the piece (or None) it must hold again before play goes on.
        self.restore: dict[int, Piece | None] = {}
        # INSIST after touch-move: the move must start from one of these squares.
        self.must_play: frozenset[int] = frozenset()
        self._previous: list[Board] = []  # positions before each accepted move (take-backs)
        self._phantoms: dict[int, str] = {}  # square -> what it misreads as (colour, "empty")
        # Phantoms of pieces that left while still read there: the displaced set they came from.
        self._stayed_from: dict[int, frozenset[int]] = {}
        self._stuck_once = False
        self._hand_seen = False  # no hand yet: the board is as it was set up
        self._baseline_displaced: frozenset[int] = frozenset()
        self._new_turn(frozenset())

    # -- turn state -------------------------------------------------------------------------------
    def _new_turn(self, displaced: frozenset[int]) -> None:
        self._baseline_displaced = displaced
        self._touched: dict[int, tuple[str, float]] = {}
        self._hand_in_turn = False  # nobody can lift a piece before a hand came this turn
        # The man that just reached the far row: the opponent puts the crown on it (RULES.md
        # s.1, Promotion), which moves it on its square; that is not an adjustment.
        self._crowning: frozenset[int] = frozenset()
        self._last_present: dict[int, float] = {}
        self._runs: dict[tuple[int, str], int] = {}
        self._announced = False
        self._stable_views: list[View] = []
        self._pending: list[Reading] = []
        self._pending_since: float | None = None
        self._pending_view: View | None = None
        self._last_read: tuple[View, frozenset[int]] | None = None
        self._unreadable_reported: set[tuple[int, int, int]] = set()

    def announce_adjust(self) -> None:
        """The player said "ajeito": pieces touched until the next still board are adjusted."""
        self._announced = True
        self._touched.clear()
        self._runs.clear()

    def apply_move(self, move: Move) -> None:
        """A move made outside the camera's judgement (the robot's): play it and start afresh."""
        before = self.board.copy()
        name = self.board.move_name(move)
        self.board.push(move)
        self._previous.append(before)
        self.record.append(RecordedMove(name, before.turn, True, [], self.board.fen()))
        self._new_turn(self._baseline_displaced)

    # -- every frame ------------------------------------------------------------------------------
    def see(self, obs: Observation) -> None:
        """Note pieces lifted (square seen empty while a hand is about) or pushed off-centre."""
        board = self.board
        self._hand_seen = self._hand_seen or obs.hand
        self._hand_in_turn = self._hand_in_turn or obs.hand
        for sq, piece in board.piece_map().items():
            seen = obs.piece_at(sq)
            if (seen is not None and seen.color is piece.color
                    and obs.is_known(sq, self.config.min_confidence)):
                self._last_present[sq] = obs.time_s
        if self._announced:
            return
        marks: set[tuple[int, str]] = set()
        for sq, piece in board.piece_map().items():
            if not obs.is_known(sq, self.config.min_confidence) or sq in self._phantoms:
                continue
            seen = obs.piece_at(sq)
            if seen is None and self._hand_in_turn:
                marks.add((sq, "lifted"))
            elif (seen is not None and seen.color is piece.color and sq in obs.displaced
                  and sq not in self._baseline_displaced and sq not in self._crowning):
                marks.add((sq, "displaced"))
        for key in list(self._runs):
            if key not in marks:
                del self._runs[key]
        for key in marks:
            self._runs[key] = self._runs.get(key, 0) + 1
            if self._runs[key] >= self.config.touch_frames and key[0] not in self._touched:
                self._touched[key[0]] = (key[1], obs.time_s)

    # -- stable frames ----------------------------------------------------------------------------
    def observe(self, obs: Observation, stable: bool) -> list[RefereeEvent]:
        """`see` the frame and, if it is stable, `read` it."""
        self.see(obs)
        return self.read(obs) if stable else []

    def read(self, obs: Observation) -> list[RefereeEvent]:
        """Judge a still board; returns the events it caused (also appended to `events`)."""
        for sq in obs.displaced & self._phantoms.keys():
            # Its picture changed while it read the same: something really stands there now
            # (a piece put where glare read one), so its reading is trusted again.  (Not the
            # change that made it a phantom: a piece leaving, still read as there.)
            if self._stayed_from.get(sq) != obs.displaced:
                del self._phantoms[sq]
                self._stayed_from.pop(sq, None)
        view = self._without_phantoms(View(*obs.masks(self.config.min_confidence)))
        known = view.known
        if self._last_read == (view, obs.displaced) and not self._timeout_due(obs.time_s):
            return []
        self._last_read = (view, obs.displaced)
        out: list[RefereeEvent] = []
        if self.restore:
            if changes(self.board, view) == 0:
                self.restore = {}
                must = self.must_play
                self._new_turn(obs.displaced)
                self.must_play = must
            return out
        if changes(self.board, view) == 0:
            self._pending, self._pending_since = [], None
            if self._announced:
                self._announced = False
                self._baseline_displaced = obs.displaced
            return out
        self._stable_views.append(view)
        taken_back = self._taken_back(view)
        if taken_back is not None:
            return self._emit(self._take_back(taken_back, obs))
        readings = explain(self.board, view)
        verdict = choose(readings, self._lift_times())
        if self._rereads == 0 and not (
                isinstance(verdict, Accept) and verdict.reading.fault_count() == 0):
            landed = self._phantom_landed(obs)
            if landed is not None:
                # A move put a piece where the camera used to misread one: trust it again.
                del self._phantoms[landed]
                self._last_read = None
                return self._reread(obs)
        if (obs.displaced or obs.occluded) and self._rereads < 2 and not (
                isinstance(verdict, Accept) and verdict.reading.fault_count() == 0):
            # (Occluded squares on a still board are lasting misreadings, not a hand: the
            # stream waits hands out.  A square merely read with low confidence is waited for.)
            changed = self._find_changed(view, obs.displaced, obs.occluded,
                                         verdict.reading if isinstance(verdict, Accept)
                                         else None)
            if changed is not None:
                return self._set_changed(changed, obs)
        appeared = ((view.white & ~self.board.white) | (view.black & ~self.board.black)) & known
        g = self.board.geometry
        if not self.record and not self._previous and not self._stuck_once \
                and not self._hand_seen and not isinstance(verdict, Accept) \
                and view.known == g.mask(tuple(range(g.squares))):
            # The first still board, fully read before any hand came near, disagrees with the
            # start position and no move explains it (pieces missing, too: nobody removed
            # them): for a scorer given the start, the camera misreads these squares (glare, a
            # piece set it confuses).  Say so once, and judge without them while they read so.
            # This is a note about the camera, not an event of the game: nothing was played.
            self._stuck_once = True
            g = self.board.geometry
            diff = g.squares_of(changes(self.board, view))
            for sq in diff:
                m = g.mask_of[sq]
                self._phantoms[sq] = ("white" if view.white & m else
                                      "black" if view.black & m else "empty")
                self._touched.pop(sq, None)
            self._last_read = None
            first = self._unreadable(view, readings, obs)
            self.notes.append(RefereeEvent(
                EventType.UNREADABLE, obs.frame, obs.time_s, "", tuple(diff),
                "the first still board differs from the start position, ignored while it "
                "reads so: " + (first[0].detail.split("; ", 1)[-1] if first else "")))
            return self._reread(obs)
        if not appeared and not isinstance(verdict, Accept):
            verdict = Wait([])  # pieces only taken off: a removal may be under way
        if self._pending and len({r.key for r in self._pending}) == 1 and not (
                isinstance(verdict, Accept) and verdict.reading.fault_count() == 0):
            # A capture was waiting for its removal: the next player may have moved on from the
            # position as it stands.  Prefer that reading unless a direct one is cleaner.
            direct = (verdict.reading.fault_count() if isinstance(verdict, Accept)
                      else 1_000)
            trial = self._try_after_pending(view, obs, direct)
            if trial is not None:
                return self._emit(trial)
        if isinstance(verdict, Accept):
            return self._emit(self._finish(verdict.reading, obs, forced=False))
        if isinstance(verdict, Wait):
            self._pending = verdict.readings
            if self._pending_since is None or self._pending_view != view:
                self._pending_since = obs.time_s  # stillness counts from the latest change
                self._pending_view = view
            if self._timeout_due(obs.time_s):
                return self._emit(self._finish_pending(obs))
            return out
        phantom = self._find_phantom(view) if self._rereads < 2 else None
        if phantom is not None:
            sq, color = phantom
            self._phantoms[sq] = color
            self._last_read = None
            name = self.board.square_name(sq)
            if color.startswith("flip:"):
                detail = (f"{name} reads a {color[5:]} piece where only a move of the other "
                          f"colour fits; read as that colour while it reads so")
            else:
                detail = f"{name} reads a {color} piece that no move put there; ignored while " \
                         f"it reads so"
            if color.startswith("flip:"):
                # Pieces do not change colour: the rules resolve the reading (a clean legal
                # move), so this is a note on that move, not a board left unexplained.
                return self._noted(self._reread(obs), detail)
            event = RefereeEvent(EventType.UNREADABLE, obs.frame, obs.time_s, "", (sq,), detail)
            # (the square is then judged without its reading: see `_without_phantoms`)
            return self._emit([event]) + self._reread(obs)
        return self._emit(self._unreadable(view, readings, obs))

    def _set_changed(self, changed: tuple[int, str], obs: Observation) -> list[RefereeEvent]:
        """Judge `obs` again with the square `_find_changed` gave read the other way; the move
        carries a note about the camera (no event: the rules resolved it)."""
        sq, color = changed
        self._last_read = None
        unseen = self._phantoms.get(sq, "").startswith("land:") and color.startswith("stay:")
        self._phantoms[sq] = color
        self._stayed_from[sq] = obs.displaced
        m = self.board.geometry.mask_of[sq]
        if unseen:
            # The piece the camera never saw there has gone: the square reads empty, as it is.
            del self._phantoms[sq]
            self._stayed_from.pop(sq, None)
            note = f"{self.board.square_name(sq)}: the piece the camera did not see there left"
        elif color == "gone":
            note = f"{self.board.square_name(sq)} cannot be read; taken as empty (the move " \
                   f"left it) while it reads so"
        elif color.startswith("arrive:"):
            note = f"{self.board.square_name(sq)} cannot be read; taken as the {color[7:]} " \
                   f"piece the move brought there while it reads so"
        elif color.startswith("stay:"):
            # The still boards of this turn read it the same way: the piece had left.
            self._stable_views = [View(v.known, v.white & ~m, v.black & ~m)
                                  for v in self._stable_views]
            note = f"{self.board.square_name(sq)} still reads a {color[5:]} piece after it " \
                   f"was played away; taken as empty while it reads so"
        else:
            note = f"{self.board.square_name(sq)} reads empty though a {color[5:]} piece was " \
                   f"played there; taken as that piece while it reads so"
        return self._noted(self._reread(obs), note)

    def _reread(self, obs: Observation) -> list[RefereeEvent]:
        """Read `obs` again after setting a misread square aside (or trusting it again); each
        such decision is taken at most twice per still board, so it cannot go round."""
        self._rereads += 1
        try:
            return self.read(obs)
        finally:
            self._rereads -= 1

    def _noted(self, events: list[RefereeEvent], note: str) -> list[RefereeEvent]:
        """`events` with `note` added to the move's detail (here and in `self.events`)."""
        out = []
        for e in events:
            if e.type is EventType.MOVE:
                noted = replace(e, detail="; ".join(d for d in (e.detail, note) if d))
                at = max(i for i, old in enumerate(self.events) if old is e)
                self.events[at] = noted
                e = noted
            out.append(e)
        return out

    def _phantom_landed(self, obs: Observation) -> int | None:
        """The square set aside for reading a piece no move put there, if trusting its reading
        now gives a clean legal move (a piece of that colour has since landed there)."""
        raw = View(*obs.masks(self.config.min_confidence))
        for sq, color in self._phantoms.items():
            if color.removeprefix("stay:") not in ("white", "black"):
                continue  # (a piece the camera does not see cannot have landed where it reads)
            saved = self._phantoms
            self._phantoms = {s: c for s, c in saved.items() if s != sq}
            view = self._without_phantoms(raw)
            self._phantoms = saved
            verdict = choose(explain(self.board, view), self._lift_times())
            if isinstance(verdict, Accept) and verdict.reading.fault_count() == 0 \
                    and sq == verdict.reading.to_square:
                return sq
        return None

    def _without_phantoms(self, view: View) -> View:
        """Mask squares known to read a piece that is not there (glare...), while they do."""
        g = self.board.geometry
        known, white, black = view.known, view.white, view.black
        for sq, color in list(self._phantoms.items()):
            m = g.mask_of[sq]
            if color == "gone" or color.startswith("arrive:"):
                if known & m:
                    del self._phantoms[sq]  # read again: the reading is trusted
                else:
                    known |= m  # unreadable: empty (a move left it) or the piece that came
                    if color == "arrive:white":
                        white |= m
                    elif color == "arrive:black":
                        black |= m
                continue
            now = "white" if white & m else "black" if black & m else "empty"
            if not known & m:
                continue
            if color.startswith("flip:") and now == color[5:]:
                white, black = white ^ m, black ^ m  # the camera swaps this piece's colour
            elif color.startswith("stay:") and now == color[5:]:
                white, black = white & ~m, black & ~m  # the piece left: the square is empty
            elif color == "land:white" and now == "empty":
                white |= m  # a piece landed that the camera does not see
            elif color == "land:black" and now == "empty":
                black |= m
            elif now == color:
                known, white, black = known & ~m, white & ~m, black & ~m
            else:
                del self._phantoms[sq]
        return View(known, white, black)

    def _find_phantom(self, view: View) -> tuple[int, str] | None:
        """The one square whose piece, if it were a misreading, would leave a board that a move
        (or no move) explains."""
        board = self.board
        g = board.geometry
        appeared = ((view.white & ~board.white) | (view.black & ~board.black)) & view.known
        # A piece read in the other colour: a clean legal move if the colour is read wrong
        # (pieces do not change colour; the one that moved is where the camera sees a piece).
        flips = []
        for sq in g.squares_of(appeared):
            m = g.mask_of[sq]
            if not (view.white | view.black) & m:
                continue
            v = View(view.known, view.white ^ m, view.black ^ m)
            verdict = choose(explain(board, v), self._lift_times())
            if isinstance(verdict, Accept) and verdict.reading.fault_count() == 0:
                flips.append((sq, "white" if view.white & m else "black"))
        if len(flips) == 1:
            return (flips[0][0], "flip:" + flips[0][1])
        fits = []
        for sq in g.squares_of(appeared):
            m = g.mask_of[sq]
            v = View(view.known & ~m, view.white & ~m, view.black & ~m)
            verdict = choose(explain(board, v), self._lift_times())
            if changes(board, v) == 0 or isinstance(verdict, Accept) or (
                    isinstance(verdict, Wait) and verdict.readings):
                fits.append((sq, "white" if view.white & m else "black"))
        return fits[0] if len(fits) == 1 else None

    def _find_changed(self, view: View, displaced: frozenset[int],
                      lasting: frozenset[int] = frozenset(), direct: Reading | None = None,
                      ) -> tuple[int, str] | None:
        """The one square whose picture changed while its reading did not (`displaced`), or that
        cannot be read, whose reading, if it were wrong, would leave a clean legal move through
        it ("gone": unreadable, its piece left; "arrive:<colour>": unreadable, the mover's
        piece came, the move judged as usual).

        An unreadable square's piece is also taken as gone when that leaves a legal move from
        it with no more faults (a piece removed) than the `direct` reading, which calls the
        move itself irregular: a square the camera cannot read must not make a legal move
        look like an illegal step (c3-d4 with d2 taken off, c3 unreadable, is not d2-d4).

        A piece still read where it stood, when a clean legal move leaves that square (glare
        where the piece was): "stay:<colour>".  A square still read empty, when a clean legal
        move of the side to move ends there (a dark piece on a dark square): "land:<colour>".
        """
        board = self.board
        g = board.geometry
        stayed = []
        for sq in sorted(displaced):
            m = g.mask_of[sq]
            want = board.piece_at(sq)
            seen_white = bool(view.white & m)
            if (want is None or not view.known & m or not (view.white | view.black) & m
                    or seen_white != (want.color is Color.WHITE)):
                continue
            v = View(view.known, view.white & ~m, view.black & ~m)  # read as empty
            verdict = choose(explain(board, v), self._lift_times())
            if isinstance(verdict, Accept) and verdict.reading.fault_count() == 0 and (
                    sq == verdict.reading.from_square or sq in verdict.reading.captured):
                stayed.append((sq, "stay:" + ("white" if seen_white else "black")))
        # A piece arrived where the camera still reads empty, but the picture changed: read
        # as the mover's piece, the one move the rules accept ends there.
        mover = board.turn
        for sq in sorted(displaced):
            m = g.mask_of[sq]
            if (board.piece_at(sq) is not None or not view.known & m
                    or (view.white | view.black) & m):
                continue
            v = (View(view.known, view.white | m, view.black) if mover is Color.WHITE
                 else View(view.known, view.white, view.black | m))
            verdict = choose(explain(board, v), self._lift_times())
            # (Its irregularities, if any, are the rules' to call as if it had been seen.)
            if isinstance(verdict, Accept) and sq == verdict.reading.to_square:
                stayed.append((sq, "land:" + mover.value))
        # A square the camera cannot read on this still board (`lasting`: a lasting
        # misreading, glare washing it out) whose piece, if it had left, gives a clean legal
        # move from it.
        unknown = [sq for sq in g.squares_of(g.mask(tuple(range(g.squares))) & ~view.known)
                   if sq in lasting]
        if len(unknown) <= 2:
            for sq in unknown:
                m = g.mask_of[sq]
                if board.piece_at(sq) is None:
                    continue
                v = View(view.known | m, view.white & ~m, view.black & ~m)
                verdict = choose(explain(board, v), self._lift_times())
                if not isinstance(verdict, Accept) or not (
                        sq == verdict.reading.from_square or sq in verdict.reading.captured):
                    continue
                faults = verdict.reading.fault_count()
                if faults == 0 or (direct is not None and direct.kind is not Kind.LEGAL
                                   and verdict.reading.kind is Kind.LEGAL
                                   and faults <= direct.fault_count()):
                    stayed.append((sq, "gone"))
            # ... or, empty before, a piece of the side to move came to it: the move ends
            # there (its irregularities, if any, are the rules' to call as usual).
            for sq in unknown:
                m = g.mask_of[sq]
                if board.piece_at(sq) is not None:
                    continue
                v = (View(view.known | m, view.white | m, view.black) if mover is Color.WHITE
                     else View(view.known | m, view.white, view.black | m))
                verdict = choose(explain(board, v), self._lift_times())
                if isinstance(verdict, Accept) and sq == verdict.reading.to_square:
                    stayed.append((sq, "arrive:" + mover.value))
        return stayed[0] if len(stayed) == 1 else None

    def close(self, obs: Observation) -> list[RefereeEvent]:
        """The recording ends: a capture still waiting for its removal is closed as it stands."""
        if self._pending and not self.restore:
            return self._emit(self._finish_pending(obs))
        return []

    def game_record(self, **tags: str) -> GameRecord:
        """What happened, as a PDN game (see `referee_events.game_record`)."""
        start = None if self.start_fen == Board(None, self.board.variant).fen() else self.start_fen
        return game_record(self.board.variant, start, self.record, self.pre_comments, **tags)

    # -- deciding ---------------------------------------------------------------------------
    def _lift_times(self) -> dict[int, float]:
        """When each piece of the position was last seen on its square this turn."""
        return dict(self._last_present)

    def _timeout_due(self, time_s: float) -> bool:
        return (self._pending_since is not None
                and time_s - self._pending_since >= self.config.removal_timeout_s)

    def _finish_pending(self, obs: Observation) -> list[RefereeEvent]:
        """Stillness has lasted: close the waiting move as it stands, if one reading is best."""
        self._pending_since = None
        if not self._pending:
            return self._removed_without_move(obs)

        def score(r: Reading) -> tuple[int, int]:
            return (r.fault_count(), len(r.left) + len(r.unseen))

        best = min(self._pending, key=score)
        rivals = {r.key for r in self._pending if score(r) == score(best)}
        if len(rivals) > 1:
            known, white, black = obs.masks(self.config.min_confidence)
            return self._unreadable(View(known, white, black), self._pending, obs)
        return self._finish(best, obs, forced=True)

    def _removed_without_move(self, obs: Observation) -> list[RefereeEvent]:
        """Pieces taken off the board and no move made: removal without cause (RULES.md 7)."""
        view = self._without_phantoms(View(*obs.masks(self.config.min_confidence)))
        board = self.board
        gone = board.geometry.squares_of(changes(board, view))
        names = ", ".join(board.square_name(s) for s in gone)
        event = RefereeEvent(EventType.REMOVAL, obs.frame, obs.time_s, "", tuple(gone),
                             f"piece(s) removed without a move: {names}")
        if self.config.policy is Policy.INSIST:
            self.restore = {sq: board.piece_at(sq) for sq in gone}
            return [event]
        base = board.placement()
        for sq in gone:
            base.set_piece_at(sq, None)
        self._previous.append(board.copy())
        self.board = Board.from_base(base, board.turn)
        if self.record:
            self.record[-1].comments.append(comment_text(event))
        self._new_turn(obs.displaced)
        return [event]

    def _try_after_pending(self, view: View, obs: Observation, direct_faults: int
                           ) -> list[RefereeEvent] | None:
        best = min(self._pending, key=lambda r: (r.fault_count(), len(r.left)))
        saved = dict(self.__dict__)
        saved.update(board=self.board.copy(), record=list(self.record),
                     _previous=list(self._previous))
        since = self._pending_since if self._pending_since is not None else obs.time_s
        late = {s: v for s, v in self._touched.items() if v[1] >= since}
        self._touched = {s: v for s, v in self._touched.items() if v[1] < since}
        first = self._finish(best, obs, forced=True)
        if not self.restore:  # (INSIST: the position has to be put back first)
            verdict = choose(explain(self.board, view), self._lift_times())
            if isinstance(verdict, Accept) and (
                    best.fault_count() + 1 + verdict.reading.fault_count() <= direct_faults):
                self._touched = late
                return first + self._finish(verdict.reading, obs, forced=False)
            if isinstance(verdict, Wait) and verdict.readings and (
                    best.fault_count() + 1 + min(r.fault_count() for r in verdict.readings)
                    <= direct_faults):
                # The next player's capture is itself still being cleared: the first move is
                # over (the next move accepted the position), the second one is now waiting.
                self._touched = late
                self._pending, self._pending_since = verdict.readings, obs.time_s
                self._pending_view = view
                self._stable_views.append(view)
                return first
        self.__dict__.update(saved)
        return None

    def _taken_back(self, view: View) -> Board | None:
        if not self._previous:
            return None
        prev = self._previous[-1]
        if changes(prev, view) == 0:
            return prev
        return None

    def _take_back(self, prev: Board, obs: Observation) -> list[RefereeEvent]:
        last = self.record[-1] if self.record else None
        undone = last.text if last else "the last move"
        moved = self.board.differences(prev)
        text = _reverse_text(last.text if last else "", self.board)
        events = [
            RefereeEvent(EventType.MOVE, obs.frame, obs.time_s, text, tuple(moved),
                         f"move {undone} taken back"),
            RefereeEvent(EventType.ILLEGAL, obs.frame, obs.time_s, text, tuple(moved),
                         f"move {undone} taken back"),
        ]
        if self.config.policy is Policy.INSIST:
            self.restore = {sq: self.board.piece_at(sq) for sq in moved}
            return events[1:]
        mover = self.board.turn.other
        self.board = prev.copy()
        self._previous.pop()
        self.record.append(RecordedMove(text, mover, False, [comment_text(events[1])],
                                        self.board.fen(), obs.frame))
        self._new_turn(obs.displaced)
        return events

    def _finish(self, r: Reading, obs: Observation, forced: bool) -> list[RefereeEvent]:
        """Close the move `r`: report it and its irregularities, then follow the policy."""
        board = self.board
        legal = board.legal_moves
        text = played_name(board, r.path, r.captured, legal)
        faults = self._faults(r, obs, text, legal, forced)
        penalised = [e for e in faults if e.penalised]
        move_event = RefereeEvent(EventType.MOVE, obs.frame, obs.time_s, text,
                                  (r.path[0], r.path[-1]),
                                  "" if not penalised else "irregular move")
        if self.config.policy is Policy.INSIST and penalised:
            self.restore = {sq: board.piece_at(sq) for sq in _squares_to_restore(board, r)}
            touch = [e for e in penalised if e.type is EventType.TOUCH_MOVE]
            if touch:
                self.must_play = frozenset(s for s in touch[0].squares
                                           if any(m.from_square == s for m in legal))
            self._pending, self._pending_since = [], None
            return faults
        self._previous.append(board.copy())
        turn_after = board.turn.other if r.color is board.turn else board.turn
        if r.kind is Kind.LEGAL and r.move is not None and not _leftover(r, forced):
            board.push(r.move)
        else:
            self.board = as_it_stands(board, r, forced, turn_after)
        self.record.append(RecordedMove(text, r.color, not penalised,
                                        [comment_text(e) for e in faults], self.board.fen(),
                                        obs.frame))
        self.must_play = frozenset()
        self._new_turn(obs.displaced)
        if r.promotes:
            self._crowning = frozenset({r.path[-1]})
        return [move_event] + faults

    def _faults(self, r: Reading, obs: Observation, text: str, legal: list[Move],
                forced: bool) -> list[RefereeEvent]:
        return faults_of(self.board, r, Context(
            obs.frame, obs.time_s, text, legal, forced,
            {s: how for s, (how, _) in self._touched.items()}, self.must_play,
            self._stable_views))

    def _unreadable(self, view: View, readings: list[Reading], obs: Observation
                    ) -> list[RefereeEvent]:
        key = (view.known, view.white, view.black)
        if key in self._unreadable_reported:
            return []
        self._unreadable_reported.add(key)
        board = self.board
        g = board.geometry
        diff = g.squares_of(changes(board, view))
        parts = []
        for sq in diff:
            want = board.piece_at(sq)
            m = g.mask_of[sq]
            seen = "white" if view.white & m else "black" if view.black & m else "empty"
            parts.append(f"{board.square_name(sq)}: expected "
                         f"{want.value.replace('_', ' ') if want else 'empty'}, seen {seen}")
        keys = {r.key: r for r in readings}
        if len(keys) > 1:
            names = ", ".join(played_name(board, r.path, r.captured) for r in keys.values())
            why = f"several moves fit equally ({names})"
        else:
            why = "no move fits"
        return [RefereeEvent(EventType.UNREADABLE, obs.frame, obs.time_s, "", tuple(diff),
                             f"{why}; " + "; ".join(parts))]

    def _emit(self, events: list[RefereeEvent]) -> list[RefereeEvent]:
        self.events.extend(events)
        if self.restore:
            # (INSIST) Put back, so no move stood to carry them: a scorer notes what was tried
            # after the move before, as the game's journal does (app.journal), so the two
            # records of one game agree.
            notes = [comment_text(e) for e in events
                     if e.type not in (EventType.MOVE, EventType.UNREADABLE)]
            (self.record[-1].comments if self.record else self.pre_comments).extend(notes)
        return events


def _leftover(r: Reading, forced: bool) -> bool:
    return bool(r.removed_extra or r.removed_own or (forced and (r.left or r.unseen)))


def _squares_to_restore(board: Board, r: Reading) -> list[int]:
    sq = {r.path[0], r.path[-1]} | r.removed | r.removed_extra | r.removed_own
    return sorted(sq)


def _reverse_text(text: str, board: Board) -> str:
    for sep in ("x", ":", "-"):
        if sep in text:
            parts = text.split(sep)
            return f"{parts[-1]}-{parts[0]}"
    return text
