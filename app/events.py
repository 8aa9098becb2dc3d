"""The table's live state, shared between the game loop (publisher) and the web page (readers).

The game loop calls the `EventBus.set_*` / `publish_frame` methods from its own thread after
each thing that happens; the web server reads `snapshot()` / `frame()` from its event-loop
thread.  The bus is a *state store*, not a message queue: a reader only ever needs the latest
state, because every state carries the whole move list.  That is what lets a hall of slow
phones fall behind without slowing the publisher or missing a move: a slow reader skips
intermediate states ("drop to latest") and the next one it reads still lists every move.

Publishing is O(1) in the number of readers: it updates fields under a lock, bumps a sequence
number and calls the registered listeners (the web server registers one, which only wakes its
event loop).  The JSON, SVG and PDN of a state are built lazily, once per state, by the first
reader that asks.

Control actions (start, stop, take back, level, resolve an alert, "ajeito") go the other way:
the game loop registers a handler with `set_control_handler`; `ControlInbox` is a ready-made
handler that queues actions for a loop that polls.

Wiring sketch for a game loop::

    bus = EventBus()
    inbox = ControlInbox(); bus.set_control_handler(inbox)
    bus.new_game("brazilian", start_fen=None, white="Human", black="Robot", level=3)
    bus.set_position(board, moves=names, last_move=move)     # after every accepted move
    bus.set_thinking(score_cp=35, pv=["f6-e5", "c3-d4"], depth=7)
    bus.raise_alert("restore", "Put the piece back on d4", squares=(sq,))
    bus.publish_frame(jpeg_bytes)                            # camera view with grid drawn
    for action in inbox.drain(): ...
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from game.board import Board, Color, Move
from game.pdn import Ply, new_record, write_game
from game.svg import board_svg
from game.variants import find_variant

PHASES = ("waiting", "playing", "paused", "ended")
CONTROL_ACTIONS = ("start", "stop", "takeback", "level", "resolve", "ajeito")
SEVERITIES = ("info", "warning", "error")
MAX_ALERTS = 20  # the oldest go first: a page is not a log (the journal is)


class BusError(ValueError):
    """A publisher passed something the bus cannot show (unknown phase, bad alert)."""


class ControlRefused(Exception):
    """Raised by a control handler to refuse an action; the message goes back to the client."""


@dataclass(frozen=True)
class Alert:
    """An irregularity or a question waiting for a person (shown until cleared).

    `squares` are internal square indices to outline on the diagram; `choices` are the answers
    a person with the control token may send back with a "resolve" action.
    """

    alert_id: str
    text: str
    severity: str = "warning"
    squares: tuple[int, ...] = ()
    choices: tuple[str, ...] = ()
    raised_s: float = 0.0  # time.time() when raised
    until_move: bool = False  # cleared by the next `set_position` (e.g. "put it back")


@dataclass(frozen=True)
class ControlAction:
    """A request from the web page (or a button) to the game loop.

    kind: "start" | "stop" | "takeback" | "level" (with `level`) | "resolve" (with `alert_id`
    and optionally `choice`) | "ajeito" (the person is adjusting pieces: do not referee now).
    """

    kind: str
    level: int | None = None
    alert_id: str | None = None
    choice: str | None = None
    source: str = "web"


@dataclass(frozen=True)
class Clock:
    """Remaining times when `at_s` (time.time()) was taken; `running` is the side whose time
    runs (None: stopped), so a page can count down locally between updates."""

    white_s: float
    black_s: float
    running: Color | None
    at_s: float


@dataclass
class _State:
    phase: str = "waiting"
    status: str = "Waiting for a game"
    variant: str = "brazilian"
    start_fen: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    level: int | None = None
    fen: str | None = None
    moves: tuple[str, ...] = ()
    last_move: Move | None = None
    highlight: tuple[int, ...] = ()
    result: str = "*"
    score_cp: int | None = None
    mate_in: int | None = None
    depth: int | None = None
    pv: tuple[str, ...] = ()
    alerts: tuple[Alert, ...] = ()
    clock: Clock | None = None
    game_id: int = 0
    pdn: str | None = None  # the game loop's own PDN (with comments), if it gives one


@dataclass(frozen=True)
class Snapshot:
    """One immutable state; `seq` grows by one with every change."""

    seq: int
    state: _State  # a private copy, never mutated after the snapshot is made
    flipped: bool
    _cache: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def moves(self) -> tuple[str, ...]:
        return self.state.moves

    def board(self) -> Board:
        s = self.state
        return Board(s.fen, s.variant) if s.fen else Board(None, s.variant)

    def svg(self) -> str:
        if "svg" not in self._cache:
            board = self.board()
            squares = set(self.state.highlight)
            for alert in self.state.alerts:
                squares.update(alert.squares)
            self._cache["svg"] = board_svg(board, self.state.last_move, size_px=480,
                                           flipped=self.flipped,
                                           highlight=tuple(sorted(squares)))
        return self._cache["svg"]

    def pdn(self) -> str:
        """The game so far as PDN text (result "*" until the game ends)."""
        if self.state.pdn is not None:
            return self.state.pdn
        if "pdn" not in self._cache:
            s = self.state
            rec = new_record(s.variant, s.start_fen, **s.tags)
            rec.plies = [Ply(m) for m in s.moves]
            rec.result = s.result
            self._cache["pdn"] = write_game(rec)
        return self._cache["pdn"]

    def to_dict(self) -> dict[str, object]:
        s = self.state
        board = self.board()
        name = board.square_name
        first = find_variant(s.variant).first
        start_turn = Board(s.start_fen, s.variant).turn if s.start_fen else None
        second_first = start_turn is not None and start_turn.letter != first
        return {
            "type": "state", "seq": self.seq, "game_id": s.game_id, "phase": s.phase,
            "status": s.status, "variant": s.variant, "variant_title": board.variant.title,
            "tags": dict(s.tags), "level": s.level, "fen": board.fen(),
            "turn": board.turn.value, "moves": list(s.moves), "second_moves_first": second_first,
            "last_move": s.moves[-1] if s.moves and s.last_move is not None else None,
            "result": s.result,
            "thinking": {"score_cp": s.score_cp, "mate_in": s.mate_in, "depth": s.depth,
                         "pv": list(s.pv)},
            "alerts": [{"id": a.alert_id, "text": a.text, "severity": a.severity,
                        "squares": [name(q) for q in a.squares], "choices": list(a.choices),
                        "raised_s": a.raised_s} for a in s.alerts],
            "clock": None if s.clock is None else {
                "white_s": s.clock.white_s, "black_s": s.clock.black_s,
                "running": s.clock.running.value if s.clock.running else None,
                "at_s": s.clock.at_s},
            "svg": self.svg(),
        }

    def json(self) -> str:
        if "json" not in self._cache:
            self._cache["json"] = json.dumps(self.to_dict(), separators=(",", ":"))
        return self._cache["json"]


Listener = Callable[[], None]
ControlHandler = Callable[[ControlAction], None]


class EventBus:
    """Thread-safe store of the table's latest state (see the module docstring)."""

    def __init__(self, variant: str = "brazilian", flipped: bool = False) -> None:
        find_variant(variant)  # fail early on a bad name
        self._lock = threading.Lock()
        self._state = _State(variant=variant)
        self._seq = 0
        self._snapshot: Snapshot | None = None
        self._flipped = flipped
        self._listeners: list[Listener] = []
        self._frame: bytes | None = None
        self._frame_seq = 0
        self._frame_at_s = 0.0
        self._control: ControlHandler | None = None

    # -- readers ------------------------------------------------------------------------------
    @property
    def seq(self) -> int:
        return self._seq

    def snapshot(self) -> Snapshot:
        """The latest state (the same object until the next change, so its caches are shared)."""
        with self._lock:
            if self._snapshot is None or self._snapshot.seq != self._seq:
                s = self._state
                copy = _State(**{k: getattr(s, k) for k in s.__dataclass_fields__})
                copy.tags = dict(s.tags)
                self._snapshot = Snapshot(self._seq, copy, self._flipped)
            return self._snapshot

    def frame(self) -> tuple[int, bytes | None]:
        """(frame number, JPEG bytes or None before the first frame)."""
        with self._lock:
            return self._frame_seq, self._frame

    @property
    def frame_seq(self) -> int:
        return self._frame_seq

    def add_listener(self, listener: Listener) -> None:
        """Call `listener()` (from the publisher's thread) after every change; it must return
        at once (e.g. `loop.call_soon_threadsafe(...)`), as the publisher waits for it."""
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    # -- control actions (reader -> game loop) -------------------------------------------------
    def set_control_handler(self, handler: ControlHandler | None) -> None:
        """Register the game loop's handler (None: no game loop, actions are refused)."""
        self._control = handler

    def send_control(self, action: ControlAction) -> None:
        """Deliver `action` to the game loop; `ControlRefused` if nobody listens or it says no."""
        handler = self._control
        if handler is None:
            raise ControlRefused("no game is running on this table")
        handler(action)

    # -- publishers (game loop -> readers) -----------------------------------------------------
    def new_game(self, variant: str | None = None, start_fen: str | None = None,
                 level: int | None = None, status: str = "Game started",
                 **tags: str) -> None:
        """Start showing a new game (clears moves, thinking, alerts and the clock).
        `tags` become PDN tags (White, Black, Event, Site, Date...)."""
        v = find_variant(variant).name if variant else self._state.variant
        board = Board(start_fen, v)  # validates the FEN
        with self._lock:
            game_id = self._state.game_id + 1
            self._state = _State(phase="playing", status=status, variant=v,
                                 start_fen=start_fen, tags=dict(tags), level=level,
                                 fen=board.fen(), game_id=game_id)
        self._changed()

    def set_position(self, board: Board, moves: Sequence[str],
                     last_move: Move | None = None, highlight: Iterable[int] = ()) -> None:
        """The position after an accepted move (or a take-back): `moves` is the whole game so
        far in PDN, `last_move` is marked on the diagram.  Clears the engine's PV and the
        alerts raised with `until_move`."""
        fen = board.fen()
        with self._lock:
            s = self._state
            s.fen, s.moves, s.last_move = fen, tuple(moves), last_move
            s.highlight = tuple(highlight)
            s.alerts = tuple(a for a in s.alerts if not a.until_move)
            s.pv, s.depth = (), None  # the old PV started from the previous position
        self._changed()

    def set_thinking(self, score_cp: int | None = None, pv: Sequence[str] = (),
                     depth: int | None = None, mate_in: int | None = None) -> None:
        """The engine's current view: score in centipawns *from White's side* (positive =
        White better), `mate_in` plies to a won/lost end (signed like the score), the PV."""
        with self._lock:
            s = self._state
            s.score_cp, s.pv, s.depth, s.mate_in = score_cp, tuple(pv), depth, mate_in
        self._changed()

    def set_status(self, status: str, phase: str | None = None) -> None:
        """The one-line status ("Your move", "Robot is moving"...) and optionally the phase."""
        if phase is not None and phase not in PHASES:
            raise BusError(f"phase: expected one of {', '.join(PHASES)}, got {phase!r}")
        with self._lock:
            self._state.status = status
            if phase is not None:
                self._state.phase = phase
        self._changed()

    def set_pdn(self, pdn_text: str | None) -> None:
        """Serve this PDN text for the current game (e.g. `write_game(loaded.to_game_record())`
        from the journal, with the irregularities as comments) instead of the bare move list.
        Cleared by `new_game`."""
        with self._lock:
            self._state.pdn = pdn_text
        self._changed()

    def set_level(self, level: int | None) -> None:
        with self._lock:
            self._state.level = level
        self._changed()

    def end_game(self, result: str, status: str) -> None:
        """The game is over: `result` as PDN writes it ("2-0", "1-1", "0-2")."""
        with self._lock:
            self._state.result, self._state.status, self._state.phase = result, status, "ended"
        self._changed()

    def raise_alert(self, alert_id: str, text: str, severity: str = "warning",
                    squares: Iterable[int] = (), choices: Iterable[str] = (),
                    until_move: bool = False) -> None:
        """Show an alert (replacing one with the same id) until `clear_alert(alert_id)`, or,
        with `until_move`, until the next `set_position` (an irregularity put right)."""
        if severity not in SEVERITIES:
            raise BusError(f"severity: expected one of {', '.join(SEVERITIES)}, "
                           f"got {severity!r}")
        squares = tuple(squares)
        with self._lock:
            n = find_variant(self._state.variant).squares
        bad = [q for q in squares if not 0 <= q < n]
        if bad:
            raise BusError(f"alert squares: {bad} are not squares 0..{n - 1} of the board")
        alert = Alert(alert_id, text, severity, squares, tuple(choices), time.time(),
                      until_move)
        with self._lock:
            kept = tuple(a for a in self._state.alerts if a.alert_id != alert_id)
            self._state.alerts = (kept + (alert,))[-MAX_ALERTS:]
        self._changed()

    def clear_alert(self, alert_id: str) -> None:
        with self._lock:
            self._state.alerts = tuple(a for a in self._state.alerts if a.alert_id != alert_id)
        self._changed()

    def set_clock(self, white_s: float, black_s: float, running: Color | None) -> None:
        with self._lock:
            self._state.clock = Clock(white_s, black_s, running, time.time())
        self._changed()

    def publish_frame(self, jpeg: bytes) -> None:
        """The latest camera picture, already JPEG-encoded (with the detected grid drawn)."""
        if not jpeg.startswith(b"\xff\xd8"):
            raise BusError("publish_frame expects JPEG bytes (they start with FF D8)")
        with self._lock:
            self._frame, self._frame_seq, self._frame_at_s = jpeg, self._frame_seq + 1, \
                time.time()
        self._notify()

    # -- internals ------------------------------------------------------------------------------
    def _changed(self) -> None:
        with self._lock:
            self._seq += 1
        self._notify()

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()


class ControlInbox:
    """A control handler that queues actions for a game loop that polls between steps.

    `bus.set_control_handler(inbox)`; then `inbox.get(timeout_s)` or `inbox.drain()`.
    At most `max_pending` actions wait; more are refused (a person pressing a button twenty
    times while the robot moves should not queue twenty take-backs).
    """

    def __init__(self, max_pending: int = 8) -> None:
        self._queue: queue.Queue[ControlAction] = queue.Queue(max_pending)

    def __call__(self, action: ControlAction) -> None:
        try:
            self._queue.put_nowait(action)
        except queue.Full:
            raise ControlRefused("too many actions are waiting; try again shortly") from None

    def get(self, timeout_s: float | None = None) -> ControlAction | None:
        try:
            return self._queue.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def drain(self) -> list[ControlAction]:
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out
