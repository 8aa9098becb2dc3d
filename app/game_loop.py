"""The game loop of the table: watch the human's move, referee it, reply, move the robot's
piece, and check with the camera that the board is what the game says.

It works on small interfaces so the same loop runs the real table and the simulated one:

- `read_frame()` gives the next camera image with its frame number and time;
- `observe(image)` is the vision pipeline (`vision.pipeline.BoardObserver.observe`);
- `RobotArm` plans a move (`robot.planner`) and executes it (`robot.executor`);
- `Journal` writes every accepted move to disk *before* the robot acts (crash-proof);
- `EventBus` feeds the web page; `say` prints the terminal status line.

Recording mode is the same loop with no robot: every move comes from the camera.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from game.board import BaseBoard, Board, Color, Move
from game.engine.engine import Engine
from game.engine.search import SearchLimits
from game.pdn import write_game
from game.referee import EventType, Policy, Referee, RefereeConfig, RefereeEvent
from game.referee_events import comment_text
from robot.config import RobotConfig
from robot.errors import GantryDisconnected, GantryError
from robot.executor import ExecutionResult, Executor
from robot.planner import Plan, TrayState, plan_move
from vision.stream import ObservationStream

Frame = tuple[np.ndarray, int, float]


class TableError(RuntimeError):
    """The table cannot go on without a person's help (the message says what to do)."""


class RobotArm:
    """The gantry as the loop sees it: plays a legal move on the physical board, keeping the
    tray and the carriage position between moves.

    For recovery (`app.recovery`) it can also stop and unlock or re-home the controller, and
    reopen a lost link with `reconnect()` (which returns a connected `Grbl`; on a real table it
    opens the configured port again, which fails with `GantryDisconnected` until the cable is
    back)."""

    def __init__(self, cfg: RobotConfig, grbl: Any, magnet: Any, lift: Any = None,
                 wait_for_crown: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None,
                 reconnect: Callable[[], Any] | None = None) -> None:
        self.cfg = cfg
        self.grbl = grbl
        self.magnet = magnet
        self.lift = lift
        self.wait_for_crown = wait_for_crown
        self.progress = progress
        self.reconnect = reconnect
        self.tray: TrayState | None = None
        self.pos_mm = cfg.motion.park_mm
        self.last_plan: Plan | None = None
        self.has_switches: bool | None = None  # GRBL's $22 (homing enabled), read when needed
        self._link_lost = False

    def play(self, board: Board, move: Move) -> ExecutionResult:
        plan = plan_move(board, move, self.cfg, self.tray, start_mm=self.pos_mm)
        return self.execute(plan)

    def execute(self, plan: Plan) -> ExecutionResult:
        """Run a plan (a move or a repair); on an error the tray and position are unknown
        until `app.recovery` has looked."""
        self.last_plan = plan
        try:
            result = Executor(self.grbl, self.magnet, self.lift,
                              wait_for_crown=self.wait_for_crown,
                              progress=self.progress).run(plan)
        except GantryDisconnected:
            self._link_lost = True
            self.tray = plan.tray_after  # conservative: every slot it meant to fill is taken
            raise
        except GantryError:
            self.tray = plan.tray_after
            raise
        self.tray = plan.tray_after
        self.pos_mm = plan.end_mm
        return result

    # -- recovery -------------------------------------------------------------------------
    def magnet_off(self) -> None:
        try:
            self.magnet.off()
        except Exception:  # noqa: BLE001 - off whatever else failed
            pass

    def magnet_is_on(self) -> bool:
        return bool(getattr(self.magnet, "is_on", False))

    def link_ok(self) -> bool:
        return not self._link_lost

    def reconnect_link(self) -> None:
        """Reopen the serial link (GantryDisconnected while the port is still gone)."""
        if self.reconnect is None:
            raise GantryDisconnected("the link to GRBL is lost and cannot be reopened here")
        try:
            self.grbl.close()
        except Exception:  # noqa: BLE001 - the old port is dead anyway
            pass
        self.grbl = self.reconnect()
        if hasattr(self.magnet, "grbl"):
            self.magnet.grbl = self.grbl  # a magnet on GRBL's output talks to the new link
        self._link_lost = False

    def reset_and_unlock(self) -> None:
        """Stop everything (soft reset), then `$H` if the machine has limit switches, else
        `$X`; finally read where the carriage is.  Raises GantryAlarm(9) if homing fails."""
        grbl = self.grbl
        try:
            grbl.soft_reset(timeout_s=2.0)
            st = grbl.status()
            if self.has_switches is None:
                if st.state.startswith("Alarm"):
                    grbl.unlock()
                self.has_switches = bool(grbl.settings().get(22, 0))
                st = grbl.status()
            if self.has_switches:
                grbl.home()  # after a fault the position may be lost: find it again
            elif st.state.startswith("Alarm"):
                grbl.unlock()
            st = grbl.wait_idle(timeout_s=30.0)
        except GantryDisconnected:
            self._link_lost = True
            raise
        self.pos_mm = self.cfg.gantry.to_board(st.mpos[0], st.mpos[1])


@dataclass
class LoopStats:
    moves: int = 0
    irregularities: int = 0
    mismatches: int = 0  # the camera's board differed from the true board (simulation only)
    vision_s: float = 0.0
    engine_s: float = 0.0
    motion_s: float = 0.0
    frames: int = 0
    events: list[RefereeEvent] = field(default_factory=list)
    faults: list[Any] = field(default_factory=list)  # app.recovery.FaultReport, in order


@dataclass
class LoopResult:
    board: Board
    referee: Referee
    stats: LoopStats
    result: str  # PDN result ("2-0", "1-1", "0-2", "*")
    reason: str


class GameLoop:
    """Plays (or records) one game; see the module docstring."""

    def __init__(self, board: Board, read_frame: Callable[[], Frame],
                 observe: Callable[[np.ndarray], Any], *, robot: Color | None = None,
                 engine: Engine | None = None, arm: RobotArm | None = None,
                 policy: Policy = Policy.INSIST, movetime_s: float = 1.0,
                 max_plies: int = 200, journal: Any = None, bus: Any = None,
                 say: Callable[[str], None] = lambda text: None,
                 truth: Callable[[], BaseBoard] | None = None,
                 still: Callable[[], None] | None = None,
                 crown: Callable[[int, Color], None] | None = None,
                 stream: Any = None, max_frames_per_turn: int = 3000,
                 recovery: Any = None, exhibition: bool = False,
                 teaching: bool = False, locator: Any = None) -> None:
        self.board = board
        self.read_frame = read_frame
        self.robot = robot
        self.exhibition = exhibition  # the robot plays both sides (a fair stand, a class)
        self.teaching = teaching  # hints before the person's move, refusals explained
        self.engine = engine
        self.arm = arm
        self.movetime_s = movetime_s
        self.max_plies = max_plies
        self.journal = journal
        self.bus = bus
        self.say = say
        self.truth = truth
        self.still = still
        self.crown = crown
        self.max_frames = max_frames_per_turn
        self.stats = LoopStats()
        if robot is None:
            policy = Policy.RECORD
        self.referee = Referee(board, RefereeConfig(policy=policy))
        self._policy_config = self.referee.config
        self.max_insist = 2  # restore requests in one turn before the robot lets it go
        # Set when the robot lets an irregularity go: accepting it is no new irregularity.
        self._counted_already = False
        # (`locator`: the board observer behind `observe`, which tells the stream where the
        # squares are: it then sees a hand held still over them, and pieces pushed.)
        self.stream = stream or ObservationStream(self._timed(observe), board.variant,
                                                  locator=locator)
        self.moves: list[str] = []
        from app.recovery import Recovery

        self.recovering = False  # True while recovery reads the camera (a person must not play)
        self.recovery = Recovery(self, recovery)
        self.stats.faults = self.recovery.reports

    def _timed(self, observe: Callable[[np.ndarray], Any]) -> Callable[[np.ndarray], Any]:
        def run(image: np.ndarray) -> Any:
            t0 = time.perf_counter()
            try:
                return observe(image)
            finally:
                self.stats.vision_s += time.perf_counter() - t0
        return run

    # -- the game -------------------------------------------------------------------------
    def run(self, check_board: bool = False) -> LoopResult:
        """Play to the end.  `check_board`: first make sure the table is the position the game
        says (after `damas play --resume`, a power cut may have stopped the robot mid-move)."""
        self.recovery.startup()
        if check_board:
            self._status(self._message("resumed"))
            self.recovery.check_board(why="resumed")
        self._status("Game started: make your move" if self.robot is not self.board.turn
                     else "Game started: the robot moves first", "playing")
        while True:
            outcome = self.referee.board.outcome(claim_draw=True)
            if outcome is not None:
                return self._end(outcome.result, outcome.reason)
            if len(self.moves) >= self.max_plies:
                return self._end("1-1", f"drawn by agreement after {self.max_plies} plies")
            if self.exhibition or (self.robot is not None
                                   and self.referee.board.turn is self.robot):
                self._robot_turn()
            else:
                self._human_turn()

    def _end(self, result: str, reason: str) -> LoopResult:
        if self.journal is not None:
            self.journal.record_end(result, reason)
        if self.bus is not None:
            self.bus.end_game(result, f"Game over: {reason}")
            self._publish_record()
        self.say(f"game over {result} ({reason})")
        return LoopResult(self.referee.board, self.referee, self.stats, result, reason)

    @staticmethod
    def _message(key: str) -> str:
        from app.recovery import message

        return message(key)

    def _status(self, text: str, phase: str | None = None) -> None:
        self.say(text)
        if self.bus is not None:
            self.bus.set_status(text, phase)

    # -- the person's move ------------------------------------------------------------------
    def _human_turn(self) -> None:
        ref = self.referee
        before = len(ref.record)
        self._status(f"{ref.board.turn.value.capitalize()} to move", "playing")
        if self.teaching:
            from app.teaching import hint

            text, squares = hint(ref.board)
            self._status(text)
            if self.bus is not None:
                self.bus.set_position(ref.board, list(self.moves), ref.board.peek(),
                                      highlight=squares)
        insisted = 0
        self._counted_already = False
        for _ in range(self.max_frames):
            image, frame, t = self.recovery.read()
            self.stats.frames += 1
            obs, stable = self.stream.push(image, frame, t)
            self.recovery.watch(obs)
            if self.recovery.cam.pose_check and stable:
                # the board was found again after it could not be read: is it still the game's
                # position (nothing moved while the camera was blind)?  A move the person made
                # meanwhile is read by the referee as usual; only a foreign change is repaired.
                self.recovery.cam.pose_check = False
                if not obs.placement().differences(ref.board):
                    continue
            had_restore = bool(ref.restore)
            for event in ref.observe(obs, stable):
                self._on_event(event)
            if ref.restore and not had_restore:
                insisted += 1
                if insisted > self.max_insist:
                    self._let_it_go()
            if len(ref.record) > before and not ref.restore:
                ref.config = self._policy_config
                return
        raise TableError("no move could be read from the camera for a long time: check that "
                         "the board is in view and the position is the one shown")

    def _let_it_go(self) -> None:
        """The robot has insisted `max_insist` times on the same turn (a child at a fair, or a
        reading the camera keeps getting wrong): as the opponent it may accept the position as
        it stands (RULES.md: the opponent decides); the record keeps the irregularity."""
        from dataclasses import replace

        ref = self.referee
        ref.restore = {}
        ref.must_play = frozenset()
        ref.config = replace(ref.config, policy=Policy.ACCEPT)
        ref._last_read = None  # read the same still board again, now under ACCEPT
        self._counted_already = True
        self._status("O robô aceita a posição como está. / The robot accepts the position as "
                     "it stands.")

    def _on_event(self, event: RefereeEvent) -> None:
        ref = self.referee
        self.stats.events.append(event)
        if event.type is EventType.MOVE:
            self._accepted(event.move, by="human")
            return
        if event.type is EventType.UNREADABLE:
            self._status(f"Cannot read the move: {event.detail}")
            return
        if event.penalised:
            if self._counted_already:
                # the one let go: it was counted when the robot first asked to put it back
                self._counted_already = False
            else:
                self.stats.irregularities += 1
        names = [ref.board.square_name(s) for s in event.squares]
        text = f"{event.type.value.replace('_', ' ')}: {event.detail}"
        if self.journal is not None:
            # (worded as the referee's own record words it: the web page's PDN is that record)
            self.journal.record_irregularity(event.type.value, comment_text(event), names)
        shown = text
        if self.teaching:
            from app.teaching import explain

            shown = explain(event)
        if self.bus is not None:
            # until_move: the alert goes when play goes on, so alerts do not pile up
            self.bus.raise_alert(f"irr-{len(self.stats.events)}", shown, "warning",
                                 squares=event.squares, until_move=True)
        text = shown
        if ref.restore:
            squares = ", ".join(ref.board.square_name(s) for s in sorted(ref.restore))
            self._status(f"{text}. Please put back: {squares}", "playing")
        else:
            self._status(text)

    def _publish_record(self) -> None:
        """The web page's PDN download: the referee's record, as the demo writes it to its
        file (the irregularities as comments, the position after a move let stand), rather
        than the bare move list the bus has."""
        state = self.bus.snapshot().state
        record = self.referee.game_record(**state.tags)
        record.result = state.result
        self.bus.set_pdn(write_game(record))

    def _accepted(self, text: str, by: str, comment: str | None = None) -> None:
        ref = self.referee
        self.moves.append(text)
        self.stats.moves += 1
        if self.journal is not None:
            self.journal.record_move(text, ref.board.fen(), by=by, comment=comment)
        if self.bus is not None:
            self.bus.set_position(ref.board, list(self.moves), ref.board.peek())
            self._publish_record()
        self.say(f"{len(self.moves):3d}. {text}")
        last = ref.board.peek()
        if by == "human" and last is not None and last.promotes:
            # RULES.md: the opponent materialises the crown; a gantry under the board cannot
            # stack, so the person is asked (the simulated one just does it).
            sq = last.to_square
            self._status(f"Crown: please stack a second piece on {ref.board.square_name(sq)}")
            if self.crown is not None:
                mover = ref.board.turn.other
                self.crown(sq, mover)

    # -- the robot's move -------------------------------------------------------------------
    def _robot_turn(self) -> None:
        assert self.engine is not None
        ref = self.referee
        board = ref.board.copy()
        self._status("The robot is thinking", "playing")
        t0 = time.perf_counter()
        reply = self.engine.play(board, SearchLimits(movetime_s=self.movetime_s))
        self.stats.engine_s += time.perf_counter() - t0
        if self.bus is not None:
            score = reply.result.score
            white_score = score if board.turn is Color.WHITE else -score
            self.bus.set_thinking(white_score, reply.pv_names, reply.result.depth)
        ref.apply_move(reply.move)  # the game record first: journal before the robot acts
        self._accepted(reply.name, by="robot")
        report = None
        if self.arm is not None:
            self._status(f"The robot plays {reply.name}", "playing")
            t0 = time.perf_counter()
            try:
                self.arm.play(board, reply.move)
            except GantryError as e:
                # magnet off, stop, reconnect, unlock or re-home; the camera then says what is
                # left to do and the move is finished (or the person is asked)
                self.recovering = True
                try:
                    report = self.recovery.gantry_fault(e)
                finally:
                    self.recovering = False
            self.stats.motion_s += time.perf_counter() - t0
        self._verify(report)

    def _verify(self, report: Any = None) -> None:
        """After the robot's move: the camera must see the position the game says (if not,
        `app.recovery` repairs it or asks the person for the exact squares)."""
        outcome = self.recovery.check_board(report)
        if report is not None and outcome == "ok":
            self.recovery._done(report)  # (otherwise check_board has closed the report)
