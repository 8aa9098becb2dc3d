"""Fault injection on the simulated table: the real world's trouble, on demand and seeded.

`FaultGame` plays one game of the robot against the simulated person (`app.simtable`) with the
flawless "oracle" camera, and injects the faults it is given at chosen robot moves:

camera (modelled on the oracle stream; see each class):
- `camera_lost`: reads raise `CameraUnavailable` for a while (cable pulled, driver crash);
- `camera_frozen`: the same frame comes back again and again until the camera is restarted;
- `lighting`: sudden lighting change: the board is unreadable (every square unknown, no hand)
  for 3-12 s while exposure and colours settle;
- `bump`: the camera or board was knocked: discs shift up to 3 mm and the board is unreadable
  until it is found again (`relocate`);
- `lean`: a spectator leans over the board for 20-90 s (a real hand pose: the oracle hides the
  squares under the arm and palm);
gantry (the GRBL emulator's own faults, on its pseudo-terminal):
- `disconnect`: the USB link dies mid-move (the emulator loses power, the pty vanishes) and the
  port comes back after some attempts (or when the person plugs it in);
- `alarm`: GRBL hard-limit alarm mid-move; `grbl_error`: a line garbled on the wire, answered
  `error:20`; `missed_steps`: the carriage slips 8-25 mm (GRBL cannot know: the camera sees it);
  `drop`: the carried piece falls off the magnet; `homing_fail`: `$H` fails (ALARM:9) at start;
- `power_cut`: the Pi and GRBL lose power at once (before the robot moves, mid-move, or while
  the journal line is being written - a torn line); the game is resumed from the journal on the
  same physical board, which the loop checks and repairs first.

A simulated person (`SimHelper`) answers the loop's requests (put these squares right, plug the
cable in, clear the carriage, fix the light).  After every handled fault, and at the end, the
magnet is checked on both sides: the emulator's magnet and the gpiozero mock pin.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.commands.robot import SimGantry
from app.fault_camera import FaultyCamera, FaultyStream, oracle_locator
from app.game_loop import GameLoop, RobotArm, TableError
from app.journal import Journal, JournalHeader, encode_record, load_journal
from app.recovery import FaultReport, PersonRequest, RecoveryOptions
from app.simtable import OracleStream, SimHuman, SimOptions, SimulatedTable
from game.board import Board, Color
from game.engine.engine import Engine
from game.referee import Policy
from robot.config import RobotConfig
from robot.errors import GantryDisconnected
from robot.grbl import Grbl
from sim.grbl import Faults, PtyGrbl
from sim.opponent import HandPose

CAMERA_FAULTS = ("camera_lost", "camera_frozen", "lighting", "bump", "lean")
# with the rendered camera: lighting and bump are modelled on the oracle stream only
RENDERED_KINDS = ("camera_lost", "camera_frozen", "lean") + (
    "disconnect", "alarm", "grbl_error", "missed_steps", "drop", "homing_fail", "power_cut")
GANTRY_FAULTS = ("disconnect", "alarm", "grbl_error", "missed_steps", "drop", "homing_fail")
FAULT_KINDS = CAMERA_FAULTS + GANTRY_FAULTS + ("power_cut",)
OUTCOME_RANK = {"auto": 0, "person": 1, "failed": 2}
# what the loop reports each injected fault as (`app.recovery.FaultReport.kind`)
DETECTED_AS: dict[str, tuple[str, ...]] = {
    "camera_lost": ("camera_lost",), "camera_frozen": ("camera_frozen",),
    "lighting": ("board_unreadable",), "bump": ("board_unreadable",), "lean": ("lean",),
    "disconnect": ("gantry_lost",), "alarm": ("gantry_alarm",),
    "grbl_error": ("gantry_error", "gantry_alarm"), "missed_steps": ("board_mismatch",),
    "drop": ("board_mismatch",), "homing_fail": ("homing_failed",),
    "power_cut": ("power_cut",),
}


class PowerCut(BaseException):  # noqa: N818 - not an error: the process dies here
    """The power went: raised through the loop like the process dying (nothing catches it)."""


# -- the person who helps -------------------------------------------------------------------------
class SimHelper:
    """Answers the loop's requests the way a person at the table would."""

    def __init__(self, game: FaultGame) -> None:
        self.g = game
        self.served: list[str] = []

    def __call__(self, request: PersonRequest) -> None:
        g = self.g
        self.served.append(request.kind)
        if request.kind == "camera":
            g.camera.outage_reads = 0
        elif request.kind == "gantry_plug":
            g.port_absent = 0
        elif request.kind == "homing":
            g.gantry.emulator.faults.homing_failures = 0
        elif request.kind == "unreadable":
            g.stream.dark_frames = 0
            g.stream.bumped = False
        elif request.kind == "board":
            self._fix_board(request)
        request.served = True

    def _fix_board(self, request: PersonRequest) -> None:
        sim = self.g.sim
        world = sim.world
        table = sim.table
        s = world.spec.square_mm
        side = world.spec.grid * s
        with sim.gantry.emulator.lock:
            for fix in request.fixes:
                cx, cy = table.centre_of(fix.square)
                table.hand_pose = HandPose(cx, cy, 45.0, sim.human.color)
                table.snap()
                for d in [d for d in world.discs
                          if abs(d.x_mm - cx) < s / 2 and abs(d.y_mm - cy) < s / 2]:
                    world.discs.remove(d)
                if fix.want is not None:
                    world.add_disc(fix.want.color, cx, cy, 0)
                    if fix.want.is_king:
                        world.add_disc(fix.want.color, cx, cy, 1)
                table.snap()
            # anything lying on the board or its frame, or between it and the robot's tray,
            # off a square and off a tray slot, is picked up too (the person sees it)
            spots = [table.centre_of(sq) for sq in range(len(table.geo.coords))]
            spots += list(self.g.cfg.tray.capture_slots)
            frame = world.spec.border_mm
            for d in list(world.discs):
                near = (-frame <= d.x_mm <= side + frame + 40.0
                        and -frame <= d.y_mm <= side + frame)
                if near and min(math.hypot(d.x_mm - x, d.y_mm - y) for x, y in spots) > 5.0:
                    world.discs.remove(d)
            table.hand_pose = None
            table.snap()
        table.wait(0.6)


# -- one game -------------------------------------------------------------------------------------
@dataclass
class Injection:
    kind: str
    at_robot_move: int  # the n-th robot move of the game (0-based) arms it
    fired: bool = False
    outcome: str = "undetected"
    first_report: int = -1  # index in FaultGame.reports when it fired
    detail: str = ""
    variant: str = ""  # force a variant: camera_lost "long"/"short", homing_fail "stuck",
    #                    power_cut "after_journal"/"mid_move"/"torn_write"


@dataclass
class GameOutcome:
    injections: list[Injection]
    reports: list[FaultReport]
    record_intact: bool
    magnet_left_on: int
    moves: int
    result: str
    aborted: str = ""
    resumed: int = 0
    problems: list[str] = field(default_factory=list)


class FaultGame:
    """One seeded game with faults injected (see the module docstring)."""

    def __init__(self, seed: int, out: Path, faults: list[Injection], *, level: int = 1,
                 movetime_s: float = 0.02, max_plies: int = 30, switches: bool = True,
                 cfg: RobotConfig | None = None, say: Callable[[str], None] | None = None,
                 bus: Any = None, render: bool = False) -> None:
        self.render = render  # the rendered camera and the real vision pipeline (slow)
        self.say = say or (lambda text: None)
        self.bus = bus
        self.seed = seed
        self.rng = random.Random(f"faults-{seed}")  # (not the schedule's stream: correlated)
        self.out = out
        self.injections = sorted(faults, key=lambda f: f.at_robot_move)
        self.level = level
        self.movetime_s = movetime_s
        self.max_plies = max_plies
        self.switches = switches
        self.board = Board()
        self.human = Color.WHITE if seed % 2 == 0 else Color.BLACK
        self.robot = self.human.other
        self.cfg = (cfg or RobotConfig()).for_grid(self.board.variant.width)
        self.sim = SimulatedTable(self.board, self.cfg, self.human, seed,
                                  SimOptions(render=render, width_px=640,
                                             irregularity_rate=0.05, human_level=1,
                                             human_movetime_s=0.01))
        self.camera = FaultyCamera(self.sim.read)
        self.stream = FaultyStream(OracleStream(self.sim.world, self.sim.variant))
        self.helper = SimHelper(self)
        self.reports: list[FaultReport] = []
        self.magnet_left_on = 0
        self.port_absent = 0
        self.robot_moves = 0
        self.servers: list[PtyGrbl] = []
        self.grbls: list[Grbl] = []
        self._cut: tuple[str, int] | None = None  # (point, carry block) of an armed power cut
        self.loop: GameLoop | None = None
        self._observer: Any = None  # the rendered camera's board observer, found once
        self.gantry: SimGantry = self._new_gantry(self.cfg.motion.park_mm)
        self.journal_path = Journal.new_path(out)

    # -- hardware -----------------------------------------------------------------------------
    def _new_gantry(self, start_mm: Any) -> SimGantry:
        gantry = SimGantry(self.sim.world, self.cfg, start_mm, faults=Faults())
        self.sim.gantry = gantry
        return gantry

    def _reconnect(self) -> Grbl:
        """The serial port as the operating system offers it again (absent for a while)."""
        if self.port_absent > 0:
            self.port_absent -= 1
            raise GantryDisconnected("GRBL port is not there (USB cable out)")
        emu = self.gantry.emulator
        emu.power_up()
        server = PtyGrbl(emu).start()
        self.servers.append(server)
        grbl = Grbl.open(server.path)
        self.grbls.append(grbl)
        grbl.connect(banner_timeout_s=0.3, unlock=True)
        return grbl

    def _magnet_check(self, _kind: str = "") -> None:
        emu = self.gantry.emulator
        pin = self.gantry.factory.pin(self.cfg.magnet.pin)
        if emu.motion.magnet_on or pin.state:
            self.magnet_left_on += 1

    # -- injection ------------------------------------------------------------------------------
    def _arm(self, inj: Injection) -> None:
        emu = self.gantry.emulator
        f = emu.faults
        m = emu.motion
        r = self.rng
        k = inj.kind
        inj.first_report = len(self.reports) + len(self.loop.recovery.reports if self.loop else [])
        if k == "camera_lost":
            long = r.random() < 0.10  # mostly USB glitches; sometimes a pulled cable
            long = {"long": True, "short": False}.get(inj.variant, long)
            self.camera.outage_reads = r.randint(12, 30) if long else r.randint(1, 8)
        elif k == "camera_frozen":
            self.camera.frozen_reads = r.randint(8, 60)
        elif k == "lighting":
            self.stream.dark_frames = r.randint(15, 60)
        elif k == "bump":
            with emu.lock:
                for d in self.sim.world.discs:
                    d.x_mm += r.uniform(-3.0, 3.0)
                    d.y_mm += r.uniform(-3.0, 3.0)
            self.stream.bumped = True
        elif k == "disconnect":
            f.disconnect_at_block = m.blocks_done + r.randint(1, 6)
            self.port_absent = r.randint(12, 20) if r.random() < 0.1 else r.randint(0, 5)
        elif k == "alarm":
            f.alarm_at_block = m.blocks_done + r.randint(1, 6)
            f.alarm_code = 1
        elif k == "grbl_error":
            self._garble_next_motion_line(r.randint(1, 6))
        elif k == "missed_steps":
            size = r.uniform(8.0, 25.0)
            self._slip_on_carry(r.randint(1, 3),
                                r.choice([(size, 0.0), (-size, 0.0), (0.0, size), (0.0, -size)]))
        elif k == "drop":
            f.drop_at_carry_block = m.carry_blocks + r.randint(1, 3)
        elif k == "homing_fail":
            f.homing_failures = 1 if r.random() < 0.7 else r.randint(2, 3)
            if inj.variant == "stuck":
                f.homing_failures = 3
        elif k == "power_cut":
            point = inj.variant or r.choice(["after_journal", "mid_move", "torn_write"])
            self._cut = (point, 0)
            if point == "mid_move":
                f.disconnect_at_block = m.blocks_done + r.randint(1, 5)
        inj.fired = k not in ("disconnect", "alarm", "missed_steps", "drop", "grbl_error",
                              "power_cut", "lean")
        inj.detail = k

    def _slip_on_carry(self, nth: int, slip_mm: tuple[float, float]) -> None:
        """The stepper skips at the start of the nth carrying block from now: the carriage
        (and the piece on it) ends up `slip_mm` from where GRBL thinks it is."""
        game = self
        motion = self.gantry.emulator.motion
        left = [nth]

        def hook(m: Any, block: Any, carrying: bool) -> None:
            if not carrying or left[0] <= 0:
                return
            left[0] -= 1
            if left[0] == 0:
                # the carried piece rides the carriage: both end up off by the slip
                x0, y0 = m.board_xy()
                m.slip = (m.slip[0] + slip_mm[0], m.slip[1] + slip_mm[1])
                x1, y1 = m.board_xy()
                for d in m.carried:
                    d.x_mm += x1 - x0
                    d.y_mm += y1 - y0
                game.gantry.emulator.faults.fired.append("missed_step")
                motion.block_hooks.remove(hook)

        motion.block_hooks.append(hook)

    def _garble_next_motion_line(self, nth: int) -> None:
        """Noise on the wire: the nth motion line sent from now arrives with a bad letter."""
        game = self

        class Garbling:
            def __init__(self, port: Any) -> None:
                self.port = port
                self.left = nth

            def write(self, data: bytes) -> Any:
                if self.left > 0 and data[:2] in (b"G0", b"G1"):
                    self.left -= 1
                    if self.left == 0:
                        data = b"Q" + data[1:]
                        game._fired("grbl_error")
                return self.port.write(data)

            def __getattr__(self, name: str) -> Any:
                return getattr(self.port, name)

        arm = self.loop.arm if self.loop else None
        if arm is not None:
            arm.grbl.port = Garbling(arm.grbl.port)

    def _fired(self, kind: str) -> None:
        for inj in self.injections:
            if inj.kind == kind and not inj.fired and inj.at_robot_move <= self.robot_moves:
                inj.fired = True
                return

    def _sync_fired(self, before: list[str]) -> None:
        names = {"disconnect": "disconnect", "alarm": "alarm", "missed_step": "missed_steps",
                 "drop": "drop", "homing": "homing_fail"}
        for name in self.gantry.emulator.faults.fired[len(before):]:
            self._fired(names.get(name, name))

    # -- the loop -------------------------------------------------------------------------------
    def _build_loop(self, board: Board, journal: Journal, moves: list[str]) -> GameLoop:
        game = self
        sim = self.sim
        gantry = self.gantry
        arm = RobotArm(self.cfg, gantry.grbl, gantry.magnet, gantry.lift,
                       wait_for_crown=lambda name: sim.crown(board.parse_square(name),
                                                             self.robot),
                       reconnect=self._reconnect)
        options = RecoveryOptions(
            locate=oracle_locator(sim.world, gantry.emulator.lock),
            relocate=None if self.render else self.stream.relocate,
            restart_camera=self.camera.restart,
            wait_for_person=True, home_at_start=self.switches,
            on_fault=self._magnet_check, on_request=self.helper)
        if self.render:
            from app.commands.table import _calibrated_observer

            if self._observer is None:  # the board is found once, as `damas calibrate board`
                self._observer = _calibrated_observer(sim, board, self.say)
            observe = self._observer.observe
        else:
            observe = lambda image: None  # noqa: E731 - the oracle stream reads the world
        loop = GameLoop(board, self.camera.read, observe, robot=self.robot,
                        engine=Engine(board, self.level, seed=self.seed + len(moves)), arm=arm,
                        policy=Policy.INSIST, movetime_s=self.movetime_s,
                        max_plies=self.max_plies, journal=journal, say=self.say, bus=self.bus,
                        truth=sim.truth, still=sim.record_still, crown=sim.crown,
                        stream=None if self.render else self.stream, recovery=options,
                        locator=self._observer)
        loop.moves = list(moves)
        play = arm.play

        def robot_move(b: Board, move: Any) -> Any:
            for inj in game.injections:
                if inj.at_robot_move == game.robot_moves and inj.detail == "":
                    game._arm(inj)
            game.robot_moves += 1
            fired_before = list(game.gantry.emulator.faults.fired)
            try:
                if game._cut is not None and game._cut[0] == "after_journal":
                    game._power_cut()
                return play(b, move)
            except GantryDisconnected:
                if game._cut is not None and game._cut[0] == "mid_move":
                    game._power_cut()
                raise
            finally:
                game._sync_fired(fired_before)

        arm.play = robot_move  # type: ignore[method-assign,assignment]
        self._wrap_journal(journal)
        sim.idle = self._idle
        return loop

    def _idle(self) -> None:
        """The simulated camera needs frames: the person plays (or a spectator leans over the
        board while the person thinks); during a recovery everyone waits."""
        loop = self.loop
        assert loop is not None
        if loop.recovering:
            self.sim.table.wait(0.4)
            return
        for inj in self.injections:
            if inj.kind == "lean" and inj.detail == "lean" and not inj.fired:
                inj.fired = True
                self._lean(self.rng.uniform(20.0, 90.0))
                return
        self.sim.human.act(loop.referee)

    def _lean(self, seconds: float) -> None:
        """A spectator leans over the board, an arm resting across it, for `seconds`."""
        table = self.sim.table
        s = self.sim.world.spec
        x = self.rng.uniform(1.0, s.grid - 1.0) * s.square_mm
        y = self.rng.uniform(2.0, s.grid - 2.0) * s.square_mm
        table.hand_pose = HandPose(x, y, 80.0, self.human)
        table.wait(seconds)
        table.hand_pose = None
        table.wait(0.6)

    def _wrap_journal(self, journal: Journal) -> None:
        game = self
        record_move = journal.record_move

        def record(move: str, fen_after: str, by: str = "human", comment: str | None = None
                   ) -> None:
            if by == "robot" and game._cut is not None and game._cut[0] == "torn_write":
                line = encode_record({"n": journal._n, "type": "move", "move": move,
                                      "fen": fen_after, "by": by})
                assert journal._fd is not None
                os.write(journal._fd, line[: max(1, len(line) // 2)])
                game._power_cut()
            record_move(move, fen_after, by=by, comment=comment)

        journal.record_move = record  # type: ignore[method-assign]

    def _power_cut(self) -> None:
        emu = self.gantry.emulator
        emu.set_external_magnet(False)  # the Pi's pins go dead: the MOSFET opens
        if not emu.disconnected:
            emu.disconnect()
        self._cut = None
        self._fired("power_cut")
        raise PowerCut()

    # -- playing --------------------------------------------------------------------------------
    def play(self) -> GameOutcome:
        header = JournalHeader(variant=self.board.variant.name, white="Person (simulated)"
                               if self.human is Color.WHITE else "Robot",
                               black="Robot" if self.human is Color.WHITE else
                               "Person (simulated)", robot_colour=self.robot.value,
                               level=self.level, mode="faults")
        journal = Journal.create(self.journal_path, header)
        board = self.board
        moves: list[str] = []
        resumed = 0
        aborted = ""
        result = "*"
        check = False
        while True:
            self.gantry.__enter__()
            if self.switches:  # limit switches fitted: $H finds home (set once connected)
                self.gantry.emulator.settings[22] = 1
            loop = self.loop = self._build_loop(board, journal, moves)
            if not resumed:
                for inj in self.injections:
                    if inj.kind == "homing_fail":  # every game starts by homing
                        self._arm(inj)
                        inj.fired = True
            try:
                res = loop.run(check_board=check)
                result = res.result
                self.reports.extend(loop.recovery.reports)
                break
            except PowerCut:
                self.reports.extend(loop.recovery.reports)
                resumed += 1
                self._after_power_cut(journal, loop)
                journal, loaded = Journal.resume(self.journal_path)
                board = _replay(loaded)
                moves = list(loaded.moves)
                check = True
            except TableError as e:
                self.reports.extend(loop.recovery.reports)
                aborted = str(e)
                break
            finally:
                self._magnet_check()
        journal.close()
        self._close()
        self._attribute()
        problems: list[str] = []
        intact = self._record_intact(problems, physical=not aborted)
        return GameOutcome(self.injections, self.reports, intact, self.magnet_left_on,
                           len(load_journal(self.journal_path).moves), result, aborted,
                           resumed, problems)

    def _after_power_cut(self, journal: Journal, loop: GameLoop) -> None:
        """The process died: its files close, the gantry is dead; the board stays as it is."""
        journal.close()
        emu = self.gantry.emulator
        physical = emu.motion.board_xy()
        self.reports.append(FaultReport("power_cut", len(loop.moves), "auto", "resume"))
        self._close()
        self.gantry = self._new_gantry(physical)
        self.sim.human = SimHuman(self.sim, self.human, self.seed * 31 + len(self.reports))
        self.sim.record_still()

    def _close(self) -> None:
        try:
            self.gantry.__exit__(None, None, None)
        except Exception:  # noqa: BLE001 - a dead gantry closes as well as it can
            pass
        for g in self.grbls:
            g.close()
        for s in self.servers:
            s.close()
        self.grbls, self.servers = [], []

    def _attribute(self) -> None:
        """Each fired injection takes the outcome of the first fault report of its own kind
        after it fired, together with the board check that followed at the same ply (a
        gantry fault's or a power cut's); no such report means it went undetected."""
        for inj in (i for i in self.injections if i.fired):
            kinds = DETECTED_AS[inj.kind]
            first = next((r for r in self.reports[max(inj.first_report, 0):]
                          if r.kind in kinds), None)
            if first is None:
                continue
            window = [first]
            if inj.kind in GANTRY_FAULTS + ("power_cut",):
                i = self.reports.index(first)
                window += [r for r in self.reports[i + 1:i + 3]
                           if r.kind == "board_mismatch" and r.ply == first.ply]
            inj.outcome = max((r.outcome for r in window), key=lambda o: OUTCOME_RANK[o])

    def _record_intact(self, problems: list[str], physical: bool = True) -> bool:
        """The journal replays under the rules, and its final position is what physically
        stands on the board (and what the loop's referee says)."""
        try:
            loaded = load_journal(self.journal_path)
            record = loaded.to_game_record()
            final, moves = record.replay()
        except ValueError as e:
            problems.append(f"journal does not replay: {e}")
            return False
        if len(moves) != len(loaded.moves):
            problems.append("journal moves and replay differ in length")
            return False
        truth = self.sim.truth()
        if physical and not final.placement_equals(truth):
            problems.append(f"journal position {final.fen()} is not the board on the table")
            return False
        if self.loop is not None and not final.placement_equals(self.loop.referee.board):
            problems.append("journal position is not the loop's position")
            return False
        return True


def _replay(loaded: Any) -> Board:
    h = loaded.header
    board = Board(h.start_fen, h.variant)
    for r in loaded.records:
        if r.get("type") == "move":
            try:
                board.push_pdn(r["move"])
            except ValueError:
                board = Board(r["fen"], h.variant)
    return board


def schedule(rng: random.Random, kinds: tuple[str, ...] = FAULT_KINDS, per_game: int = 2,
             robot_moves: int = 12) -> list[Injection]:
    """`per_game` faults of random kinds at random robot moves (a homing failure at the start).
    """
    out = []
    used: set[int] = set()
    for _ in range(per_game):
        kind = rng.choice(kinds)
        at = 0 if kind == "homing_fail" else rng.randrange(0, robot_moves)
        while at in used and kind != "homing_fail":
            at = rng.randrange(0, robot_moves)
        used.add(at)
        out.append(Injection(kind, at))
    return out

