"""What the game loop does after a fault: detect it, tell the person, recover, lose nothing.

The journal already holds every accepted move before the robot acts (`app.game_loop`), so a
fault never costs the game record; what this module restores is the *table*:

- Gantry (GRBL alarm or error, serial link lost, timeout, homing failure): the magnet is
  switched off first (and checked), the controller is stopped (feed hold, soft reset), the link
  reopened when it comes back, the machine unlocked (`$X`) or re-homed (`$H`) when it has limit
  switches; then the board is checked by camera and the move finished.
- Board not as the game says after the robot's move (missed steps, a piece dropped on the way, a
  capture removal cut short): where the camera can say where the discs are (`locate`), the
  robot carries them back (`robot.repair`); what it cannot do is asked of the person, naming the
  exact squares, and the loop waits until the camera sees the position right.
- Camera: no frames (unplugged, crashed), frozen frames (the same frame again and again), a
  board that cannot be read with no hand in view (sudden lighting change, camera or board
  moved: the board is found again and the position re-checked), and a person leaning over the
  board for a long time.

Every message is shown in Portuguese and English (`MESSAGES`), on the status line and as an
alert on the web page, and cleared when the fault is over.  `Recovery.reports` lists each fault
with how it ended: "auto" (recovered without help), "person" (after a request to the person)
or "failed" (the loop gave up with `TableError`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from game.board import BaseBoard, Piece
from game.observation import Observation
from robot.errors import (
    GantryAlarm,
    GantryCommandError,
    GantryDisconnected,
    GantryError,
    GantryTimeout,
    PlanError,
)
from robot.repair import Fix, SeenStack, plan_repair, tray_from_sightings

if TYPE_CHECKING:
    from app.game_loop import GameLoop

# key -> (Portuguese, English).  Placeholders are filled with str.format.
MESSAGES: dict[str, tuple[str, str]] = {
    "gantry_alarm": ("O robô parou: alarme do controlador ({detail}). A recuperar...",
                     "The robot stopped: controller alarm ({detail}). Recovering..."),
    "gantry_error": ("O controlador recusou uma ordem ({detail}). A recuperar...",
                     "The controller refused a command ({detail}). Recovering..."),
    "gantry_lost": ("Ligação ao robô perdida (cabo USB?). À espera que volte...",
                    "Lost the link to the robot (USB cable?). Waiting for it to come back..."),
    "gantry_timeout": ("O robô não responde. A reiniciar o controlador...",
                       "The robot does not answer. Restarting the controller..."),
    "gantry_plug": ("Por favor volte a ligar o cabo USB do robô.",
                    "Please plug the robot's USB cable back in."),
    "homing_failed": ("O robô não encontrou a posição de origem. A tentar de novo...",
                      "The robot could not find its home position. Trying again..."),
    "homing_help": ("O robô não encontra a origem: verifique que nada bloqueia o carro.",
                    "The robot cannot find home: check that nothing blocks the carriage."),
    "board_check": ("A verificar o tabuleiro com a câmara...",
                    "Checking the board with the camera..."),
    "board_repair": ("A peça não ficou no sítio ({names}). O robô vai corrigir.",
                     "A piece is not where it should be ({names}). The robot will fix it."),
    "board_fix": ("Por favor: {todo_pt}.", "Please: {todo_en}."),
    "board_ok": ("Tabuleiro correcto. O jogo continua.", "Board is right. The game goes on."),
    "camera_lost": ("A câmara não dá imagens. A tentar de novo...",
                    "The camera gives no pictures. Trying again..."),
    "camera_plug": ("Verifique o cabo da câmara.", "Please check the camera cable."),
    "camera_frozen": ("A imagem da câmara está parada. A reiniciar a câmara...",
                      "The camera picture is frozen. Restarting the camera..."),
    "board_unreadable": ("Não consigo ler o tabuleiro (luz mudou ou câmara mexeu). "
                         "A procurar o tabuleiro...",
                         "Cannot read the board (light changed or camera moved). "
                         "Finding the board again..."),
    "board_unreadable_help": ("Não vejo o tabuleiro: verifique a luz e que a câmara o vê todo.",
                              "I cannot see the board: check the light and that the camera "
                              "sees all of it."),
    "lean": ("Por favor afaste-se do tabuleiro: a câmara não o consegue ver.",
             "Please lean back: the camera cannot see the board."),
    "resumed": ("Jogo retomado do registo: a verificar o tabuleiro...",
                "Game resumed from the journal: checking the board..."),
}

PIECE_WORDS = {
    Piece.WHITE_MAN: ("uma pedra branca", "a white man"),
    Piece.WHITE_KING: ("uma dama branca", "a white king"),
    Piece.BLACK_MAN: ("uma pedra preta", "a black man"),
    Piece.BLACK_KING: ("uma dama preta", "a black king"),
}


def message(key: str, **values: str) -> str:
    """The two-language text of `key` ("PT / EN")."""
    pt, en = MESSAGES[key]
    return f"{pt.format(**values)} / {en.format(**values)}"


@dataclass(frozen=True)
class RecoveryOptions:
    """How hard the loop tries before it asks a person, and what the table can do.

    `locate()` returns the disc stacks the camera sees (board frame, mm) or None if this camera
    cannot say; `relocate()` finds the board again in the camera image (True when found);
    `restart_camera()` reopens the camera device.  `wait_for_person`: after asking, wait until
    the camera sees the board right (else only tell, and go on: the old behaviour)."""

    locate: Callable[[], Sequence[SeenStack] | None] | None = None
    relocate: Callable[[], bool] | None = None
    restart_camera: Callable[[], None] | None = None
    wait_for_person: bool = False
    home_at_start: bool = False
    read_timeout_s: float = 1.0  # what one failed camera read costs in a real loop
    camera_ask_after_s: float = 10.0
    camera_give_up_s: float = 600.0
    frozen_reads: int = 5  # the same frame this many times in a row: frozen
    unreadable_frames: int = 10  # unreadable board (no hand) this long: re-find it
    unreadable_ask_frames: int = 75
    lean_frames: int = 75  # a hand over the board this long: ask to lean back (15 s at 5 fps)
    still_frames: int = 60  # frames to wait for a still board when checking
    person_frames: int = 1500  # frames to wait for the person to put the board right
    repair_attempts: int = 2
    reconnect_attempts: int = 60
    reconnect_ask_after: int = 10
    reconnect_wait_s: float = 0.0  # pause between attempts (a real table: about 0.5 s)
    homing_attempts: int = 2
    on_fault: Callable[[str], None] | None = None  # called after every fault is handled
    on_request: Callable[[PersonRequest], None] | None = None  # a person was asked (buzzer)


@dataclass
class FaultReport:
    kind: str
    ply: int
    outcome: str = "auto"  # auto | person | failed
    detail: str = ""


@dataclass
class PersonRequest:
    """What the person is asked to do, for a simulated person to act on."""

    kind: str  # board | camera | gantry_plug | homing | unreadable
    fixes: tuple[Fix, ...] = ()
    served: bool = False


@dataclass
class _CameraState:
    last_frame: int | None = None
    same: int = 0
    unreadable: int = 0
    leaning: int = 0
    report_unreadable: FaultReport | None = None
    report_lean: FaultReport | None = None
    pose_check: bool = False


class Recovery:
    def __init__(self, loop: GameLoop, options: RecoveryOptions | None = None) -> None:
        self.loop = loop
        self.options = options or RecoveryOptions()
        self.reports: list[FaultReport] = []
        self.request: PersonRequest | None = None
        self.magnet_on_after_fault = 0
        self.cam = _CameraState()
        self._alert_n = 0

    # -- telling people ---------------------------------------------------------------------
    def _tell(self, key: str, severity: str = "warning", squares: Sequence[int] = (),
              **values: str) -> str:
        text = message(key, **values)
        self.loop._status(text)
        bus = self.loop.bus
        self._alert_n += 1
        alert_id = f"fault-{self._alert_n}"
        if bus is not None:
            bus.raise_alert(alert_id, text, severity, squares=tuple(squares))
        return alert_id

    def _ask(self, request: PersonRequest) -> None:
        self.request = request
        if self.options.on_request is not None:
            self.options.on_request(request)

    def _clear(self, alert_id: str | None) -> None:
        if alert_id is not None and self.loop.bus is not None:
            self.loop.bus.clear_alert(alert_id)

    def _report(self, kind: str, detail: str = "") -> FaultReport:
        r = FaultReport(kind, len(self.loop.moves), "auto", detail)
        self.reports.append(r)
        return r

    def _done(self, report: FaultReport) -> None:
        self._check_magnet()
        if self.options.on_fault is not None:
            self.options.on_fault(report.kind)

    def _check_magnet(self) -> None:
        arm = self.loop.arm
        if arm is None:
            return
        arm.magnet_off()
        if arm.magnet_is_on():
            self.magnet_on_after_fault += 1

    # -- the camera ---------------------------------------------------------------------------
    def read(self) -> tuple[Any, int, float]:
        """The next camera frame, riding out a camera that gives none or the same one."""
        opts = self.options
        failed = 0
        report: FaultReport | None = None
        alert: str | None = None
        asked = False
        while True:
            try:
                image, frame, t = self.loop.read_frame()
            except (OSError, TimeoutError) as e:
                failed += 1
                if report is None:
                    report = self._report("camera_lost", str(e))
                    alert = self._tell("camera_lost")
                waited_s = failed * opts.read_timeout_s
                if not asked and waited_s >= opts.camera_ask_after_s:
                    asked = True
                    report.outcome = "person"
                    self._clear(alert)
                    alert = self._tell("camera_plug", "error")
                    self._ask(PersonRequest("camera"))
                if waited_s >= opts.camera_give_up_s:
                    report.outcome = "failed"
                    from app.game_loop import TableError

                    raise TableError(message("camera_plug")) from None
                if failed % 3 == 0 and opts.restart_camera is not None:
                    opts.restart_camera()
                continue
            if report is not None:
                self._clear(alert)
                self.request = None
                self._done(report)
                self.cam.last_frame = None
            if self.cam.last_frame is not None and frame == self.cam.last_frame:
                self.cam.same += 1
                if self.cam.same == opts.frozen_reads:
                    r = self._report("camera_frozen")
                    a = self._tell("camera_frozen")
                    if opts.restart_camera is not None:
                        opts.restart_camera()
                    self._clear(a)
                    self._done(r)
                    self.cam.same = 0
                    self.cam.last_frame = None
                continue
            self.cam.same = 0
            self.cam.last_frame = frame
            return image, frame, t

    def watch(self, obs: Observation) -> None:
        """Per observation: a board unreadable with no hand in view, or a hand that stays."""
        opts = self.options
        c = self.cam
        n = len(obs.squares)
        unknown = len(obs.unknown_squares())
        if not obs.hand and unknown * 2 >= n:
            c.unreadable += 1
            if c.unreadable == opts.unreadable_frames:
                c.report_unreadable = self._report("board_unreadable")
                self._tell("board_unreadable")
                if opts.relocate is not None:
                    opts.relocate()
            elif c.unreadable == opts.unreadable_ask_frames and c.report_unreadable:
                c.report_unreadable.outcome = "person"
                self._tell("board_unreadable_help", "error")
                self._ask(PersonRequest("unreadable"))
            elif c.unreadable > opts.unreadable_frames and c.unreadable % 25 == 0 \
                    and opts.relocate is not None:
                opts.relocate()
        else:
            if c.report_unreadable is not None:
                c.pose_check = True  # found again: is the position still the game's?
                self.request = None
                self._done(c.report_unreadable)
                c.report_unreadable = None
            c.unreadable = 0
        if obs.hand and obs.occluded:
            c.leaning += 1
            if c.leaning == opts.lean_frames:
                c.report_lean = self._report("lean")
                self._tell("lean")
        else:
            if c.report_lean is not None:
                self.loop._status(message("board_check"))
                self._done(c.report_lean)
                c.report_lean = None
            c.leaning = 0

    def still_observation(self, frames: int | None = None) -> Observation | None:
        """Read frames until the board is still; None if it never is within `frames`."""
        loop = self.loop
        for _ in range(frames or self.options.still_frames):
            image, frame, t = self.read()
            loop.stats.frames += 1
            obs, stable = loop.stream.push(image, frame, t)
            self.watch(obs)
            if stable:
                return obs
        return None

    # -- the gantry ---------------------------------------------------------------------------
    def gantry_fault(self, error: BaseException) -> FaultReport:
        """After a GantryError: magnet off, stop, reconnect, unlock or re-home."""
        kind = _kind_of(error)
        report = self._report(kind, str(error))
        key = {"gantry_alarm": "gantry_alarm", "gantry_error": "gantry_error",
               "gantry_lost": "gantry_lost", "gantry_timeout": "gantry_timeout"}.get(
                   kind, "gantry_error")
        alert = self._tell(key, "error", detail=str(error)[:80])
        self._check_magnet()
        self.restore_controller(report)
        self._clear(alert)
        return report

    def restore_controller(self, report: FaultReport) -> None:
        """Bring the controller back to Idle with a known position."""
        from app.game_loop import TableError

        arm = self.loop.arm
        assert arm is not None
        opts = self.options
        attempts = 0
        homing_fails = 0
        asked: str | None = None
        while True:
            attempts += 1
            try:
                if not arm.link_ok():
                    arm.reconnect_link()
                arm.reset_and_unlock()
                if asked is not None:
                    self._clear(asked)
                    self.request = None
                return
            except GantryDisconnected:
                if attempts == 1 and report.kind != "gantry_lost":
                    report.kind = "gantry_lost"
                if attempts == opts.reconnect_ask_after:
                    report.outcome = "person"
                    asked = self._tell("gantry_plug", "error")
                    self._ask(PersonRequest("gantry_plug"))
                if attempts >= opts.reconnect_attempts:
                    report.outcome = "failed"
                    raise TableError(message("gantry_plug")) from None
                if opts.reconnect_wait_s:
                    time.sleep(opts.reconnect_wait_s)
            except GantryAlarm as e:
                if e.code != 9:
                    if attempts >= opts.reconnect_attempts:
                        report.outcome = "failed"
                        raise TableError(str(e)) from None
                    continue
                homing_fails += 1
                if report.kind not in ("homing_failed",):
                    self._tell("homing_failed", detail=str(e))
                if homing_fails == opts.homing_attempts:
                    report.outcome = "person"
                    asked = self._tell("homing_help", "error")
                    self._ask(PersonRequest("homing"))
                if homing_fails >= opts.homing_attempts + 5:
                    report.outcome = "failed"
                    raise TableError(message("homing_help")) from None
            except GantryError as e:
                if attempts >= opts.reconnect_attempts:
                    report.outcome = "failed"
                    raise TableError(f"the gantry cannot be restarted: {e}") from None

    def startup(self) -> None:
        """Before the first move: home the machine if it has switches (a failed homing is a
        fault like any other)."""
        arm = self.loop.arm
        if arm is None or not self.options.home_at_start:
            return
        try:
            arm.reset_and_unlock()
        except GantryError as e:
            report = self._report("homing_failed" if isinstance(e, GantryAlarm) and e.code == 9
                                  else _kind_of(e), str(e))
            alert = self._tell("homing_failed", "error", detail=str(e)[:80])
            self._check_magnet()
            self.restore_controller(report)
            self._clear(alert)
            self._done(report)

    # -- the board ------------------------------------------------------------------------------
    def check_board(self, report: FaultReport | None = None, why: str = "") -> str:
        """Compare the still board with the game; repair it with the robot or ask the person.

        Returns "ok" (nothing was wrong), "auto" (the robot put it right), "person" (the person
        did) or "told" (a mismatch only reported: `wait_for_person` is off)."""
        loop = self.loop
        expected = loop.referee.board
        loop.recovering = True
        try:
            return self._check_board(expected, report, why)
        finally:
            loop.recovering = False

    def _check_board(self, expected: BaseBoard, report: FaultReport | None, why: str) -> str:
        loop = self.loop
        opts = self.options
        obs = self._still_or_fail()
        seen = obs.placement()
        if loop.truth is not None and not seen.placement_equals(loop.truth()):
            loop.stats.mismatches += 1
            wrong = ", ".join(expected.square_name(s) for s in seen.differences(loop.truth()))
            loop.say(f"camera and table disagree on {wrong}")
        stacks = opts.locate() if opts.locate is not None else None
        if stacks is not None and loop.arm is not None:
            loop.arm.tray = tray_from_sightings(loop.arm.cfg, stacks)  # trust the eyes
        diff = seen.differences(expected)
        if not diff and not self._strays(expected, stacks):
            return "ok"
        names = ", ".join(expected.square_name(s) for s in diff) or "fora das casas / off squares"
        if report is None:
            report = self._report("board_mismatch", why or names)
        outcome = "auto"
        arm = loop.arm
        if stacks is not None and arm is not None:
            self._tell("board_repair", squares=diff, names=names)
            self._check_magnet()
            if arm.has_switches is not False:
                # missed steps are invisible to GRBL: re-home (with switches) so the carries
                # that put the board right start from a known position
                try:
                    arm.reset_and_unlock()
                except GantryError as e:
                    self.gantry_fault(e)
            for _ in range(opts.repair_attempts):
                if stacks is None:
                    break
                fixes = self._repair_once(expected, stacks)
                if fixes is None:
                    break
                obs = self._still_or_fail()
                stacks = opts.locate() if opts.locate is not None else None
                if not obs.placement().differences(expected) and \
                        not self._strays(expected, stacks):
                    loop._status(message("board_ok"))
                    self._done(report)
                    return outcome
                if fixes:
                    break
        if not opts.wait_for_person:
            loop._status(message("board_fix", **_todo(expected, obs.placement(), None)))
            self._done(report)
            return "told"
        report.outcome = outcome = "person"
        self._ask_person(expected, obs.placement(), stacks)
        loop._status(message("board_ok"))
        self._done(report)
        return outcome

    def _repair_once(self, expected: BaseBoard,
                     stacks: Sequence[SeenStack]) -> tuple[Fix, ...] | None:
        """Plan and run one repair; the person's part of it (None: nothing the robot can do)."""
        arm = self.loop.arm
        assert arm is not None
        tray = tray_from_sightings(arm.cfg, stacks)
        try:
            repair = plan_repair(expected, stacks, arm.cfg, tray, start_mm=arm.pos_mm)
        except PlanError:
            return None
        if repair.plan is None:
            return None
        try:
            arm.execute(repair.plan)
        except GantryError as e:
            self.gantry_fault(e)
        if self.loop.still is not None:
            self.loop.still()
        return repair.person

    def _strays(self, expected: BaseBoard, stacks: Sequence[SeenStack] | None) -> bool:
        """Discs on the robot's surface that stand neither on a square nor in the tray."""
        if stacks is None or self.loop.arm is None:
            return False
        repair = plan_repair(expected, stacks, self.loop.arm.cfg,
                             tray_from_sightings(self.loop.arm.cfg, stacks),
                             start_mm=self.loop.arm.pos_mm)
        return repair.plan is not None or bool(repair.person)

    def _ask_person(self, expected: BaseBoard, seen: BaseBoard,
                    stacks: Sequence[SeenStack] | None) -> None:
        from app.game_loop import TableError

        loop = self.loop
        wanted = {sq: Fix(sq, expected.piece_at(sq), "camera")
                  for sq in seen.differences(expected)}
        if stacks is not None and loop.arm is not None:
            rep = plan_repair(expected, stacks, loop.arm.cfg,
                              tray_from_sightings(loop.arm.cfg, stacks))
            for f in rep.person:
                wanted.setdefault(f.square, f)
            # a piece the robot could not take away: name the square it lies on (or nearest)
            s = loop.arm.cfg.board.square_mm
            for carry in rep.plan.carries if rep.plan is not None else []:
                x, y = carry.path[0]
                side = expected.variant.width * s
                if not (-s <= x <= side + s and -s <= y <= side + s):
                    continue
                sq = min(expected.squares, key=lambda q: (
                    (expected.geometry.coords[q][0] + 0.5) * s - x) ** 2 + (
                    (expected.geometry.coords[q][1] + 0.5) * s - y) ** 2)
                wanted.setdefault(sq, Fix(sq, expected.piece_at(sq), "stray piece near it"))
        fixes = tuple(wanted[sq] for sq in sorted(wanted))
        squares = [f.square for f in fixes]
        alert = self._tell("board_fix", "error", squares=squares, **_todo(expected, seen, fixes))
        self._ask(PersonRequest("board", fixes))
        for _ in range(self.options.person_frames // max(1, self.options.still_frames)):
            obs = self.still_observation()
            if obs is None:
                continue
            stacks = self.options.locate() if self.options.locate is not None else None
            if not obs.placement().differences(expected) and not self._strays(expected, stacks):
                self.request = None
                self._clear(alert)
                return
        raise TableError(message("board_fix", **_todo(expected, seen, fixes)))

    def _still_or_fail(self) -> Observation:
        from app.game_loop import TableError

        if self.loop.still is not None:
            self.loop.still()
        for _ in range(10):
            obs = self.still_observation()
            if obs is not None:
                return obs
        raise TableError("the camera never saw a still board after the robot's move")


def _kind_of(error: BaseException) -> str:
    if isinstance(error, GantryDisconnected):
        return "gantry_lost"
    if isinstance(error, GantryAlarm):
        return "homing_failed" if error.code == 9 else "gantry_alarm"
    if isinstance(error, GantryCommandError):
        return "gantry_error"
    if isinstance(error, GantryTimeout):
        return "gantry_timeout"
    return "gantry_error"


def _todo(expected: BaseBoard, seen: BaseBoard, fixes: Sequence[Fix] | None) -> dict[str, str]:
    """What to do, square by square ("put a white man on d4; take the piece off e5"), as the
    `todo_pt` and `todo_en` values of the "board_fix" message."""
    squares = [f.square for f in fixes] if fixes else seen.differences(expected)
    pt: list[str] = []
    en: list[str] = []
    for sq in sorted(set(squares)):
        name = expected.square_name(sq)
        want = expected.piece_at(sq)
        if want is None:
            pt.append(f"retire a peça de {name}")
            en.append(f"take the piece off {name}")
        else:
            pt.append(f"ponha {PIECE_WORDS[want][0]} em {name}")
            en.append(f"put {PIECE_WORDS[want][1]} on {name}")
    if not pt:
        pt, en = ["retire a peça fora das casas"], ["take away the piece lying off the squares"]
    return {"todo_pt": "; ".join(pt), "todo_en": "; ".join(en)}
