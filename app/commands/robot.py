"""`damas robot plan`, `damas robot execute` and `damas calibrate gantry`.

plan prints the G-code of the robot's move and a last line
`segments <n> travel_mm <x> est_s <t>`; execute runs it on a GRBL device (a path, a pyserial
URL, or `sim://` for the simulated table in this process) and ends with
`done travel_mm <x> elapsed_s <t>` (on `sim://`, elapsed is the simulated machine time).
calibrate gantry jogs the magnet over a1, h1, h8, a8 from the keyboard (a/d or left/right =
-X/+X, s/w or down/up = -Y/+Y, + and - change the step, Enter records the corner, x abandons;
piped input is read a line of keys at a time, an empty line recording), fits the
board-to-machine mapping and saves it in the calibration file.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path
from typing import Any

from calibration.gantry import CORNER_NAMES, GantryCalibration, fit_gantry
from game.board import Board, Color
from game.variants import find_variant
from robot.config import MAGNET_KINDS, RobotConfig, load_robot_config
from robot.errors import GantryError, MagnetError, RobotError
from robot.executor import Executor
from robot.gcode import to_gcode
from robot.grbl import Grbl
from robot.magnet import ServoLift, make_magnet
from robot.motion import estimate, program
from robot.planner import plan_move

JOG_STEPS_MM = (50.0, 10.0, 1.0, 0.1)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    robot = sub.add_parser("robot", help="plan and execute the robot's moves on the gantry")
    rsub = robot.add_subparsers(dest="robot_command", metavar="ACTION")
    rsub.required = True
    for name, func, text in (("plan", cmd_plan, "print the G-code of a move"),
                             ("execute", cmd_execute, "run a move on a GRBL gantry")):
        p = rsub.add_parser(name, help=text)
        p.add_argument("--variant", default="brazilian")
        p.add_argument("--fen", required=True)
        p.add_argument("--move", required=True, metavar="PDN")
        p.add_argument("--config", default=None, metavar="FILE", help="TOML with a [robot] table")
        p.add_argument("--calibration", default=None, metavar="FILE",
                       help="calibration file whose gantry section maps the board")
        if name == "execute":
            p.add_argument("--port", required=True,
                           help="GRBL device path, pyserial URL, or sim:// (simulated table)")
            p.add_argument("--magnet", choices=MAGNET_KINDS, default=None,
                           help="override the configured magnet (grbl-coolant needs no GPIO)")
            p.add_argument("--home", action="store_true", help="run $H if GRBL is locked")
            p.add_argument("--unlock", action="store_true", help="run $X if GRBL is locked")
            p.add_argument("--realtime", type=float, default=None, metavar="FACTOR",
                           help="sim:// only: machine time at FACTOR x wall clock")
        p.set_defaults(func=func)


def register_calibrate(calib_sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = calib_sub.add_parser("gantry", help="jog the magnet over the corners, fit the mapping")
    p.add_argument("--port", required=True, help="GRBL device path or pyserial URL")
    p.add_argument("--variant", default="brazilian", help="board size (8x8 or 10x10)")
    p.add_argument("--config", default=None, metavar="FILE")
    p.add_argument("--calibration", default="calibration.json", metavar="FILE",
                   help="calibration file to update (default: calibration.json)")
    p.add_argument("--home", action="store_true")
    p.add_argument("--unlock", action="store_true")
    p.add_argument("--feed", type=float, default=1000.0, metavar="MM_MIN")
    p.set_defaults(func=cmd_calibrate_gantry)


# -- shared -----------------------------------------------------------------------------------
def _config(args: argparse.Namespace) -> RobotConfig:
    cfg = load_robot_config(args.config)
    if getattr(args, "magnet", None):
        cfg = dataclasses.replace(cfg, magnet=dataclasses.replace(cfg.magnet, kind=args.magnet))
    if getattr(args, "calibration", None) and Path(args.calibration).exists():
        from calibration.store import load_calibration

        cal = load_calibration(args.calibration)
        if cal.gantry is not None:
            cfg = dataclasses.replace(cfg, gantry=GantryCalibration.from_dict(cal.gantry))
    return cfg


def _plan(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    variant = find_variant(args.variant)
    board = Board(args.fen, variant)
    move = board.parse_move(args.move)
    cfg = _config(args)
    return board, move, plan_move(board, move, cfg)


def cmd_plan(args: argparse.Namespace) -> int:
    try:
        board, move, plan = _plan(args)
    except RobotError as e:
        raise ValueError(str(e)) from None
    ops = program(plan)
    est = estimate(plan, ops)
    cfg = plan.config
    gap = plan.min_clearance_mm
    print(f"(damas robot plan {plan.move_name}: {cfg.carriage}, magnet {cfg.magnet.kind}, "
          f"min clearance {'none' if math.isinf(gap) else f'{gap:.1f} mm'})")
    for line in to_gcode(cfg, ops):
        print(line)
    print(f"segments {est.segments} travel_mm {est.travel_mm:.1f} est_s {est.seconds:.2f}")
    return 0


# -- execute ----------------------------------------------------------------------------------
def cmd_execute(args: argparse.Namespace) -> int:
    try:
        board, move, plan = _plan(args)
    except RobotError as e:
        raise ValueError(str(e)) from None
    cfg = plan.config
    if args.port.startswith("sim://"):
        return _execute_sim(args, board, move, plan)
    if args.realtime is not None:
        raise ValueError("--realtime applies to --port sim:// only")
    grbl = Grbl.open(args.port)
    try:
        banner = grbl.connect(home=args.home, unlock=args.unlock)
        print(f"connected: {banner}", flush=True)
        magnet = make_magnet(cfg.magnet, grbl)
        lift = ServoLift(cfg.lift) if cfg.is_overhead and cfg.lift.kind == "servo" else None
        try:
            res = Executor(grbl, magnet, lift, wait_for_crown=_ask_person,
                           progress=_progress).run(plan)
        finally:
            magnet.close()
            if lift is not None:
                lift.close()
    except GantryError as e:
        raise OSError(f"gantry: {e}") from None
    except MagnetError as e:
        raise OSError(str(e)) from None
    finally:
        grbl.close()
    print(f"done travel_mm {res.travel_mm:.1f} elapsed_s {res.elapsed_s:.2f}")
    return 0


def _progress(text: str) -> None:
    print(text, flush=True)


def _ask_person(square: str) -> None:
    print(f"please stack a crown on {square} and press Enter", file=sys.stderr, flush=True)
    sys.stdin.readline()


class SimGantry:
    """The simulated gantry for a world: GRBL emulator on a pty, the carriage at the plan's
    start, GPIO magnet / servo lift on gpiozero mock pins wired to it.  A context manager;
    `grbl`, `magnet` and `lift` are the same objects the real table uses."""

    def __init__(self, world: Any, cfg: RobotConfig, start_mm: tuple[float, float],
                 realtime_factor: float | None = None, faults: Any = None) -> None:
        from sim.gpio import mock_factory, wire_magnet, wire_servo_lift
        from sim.grbl import GrblEmulator, Hand, PtyGrbl

        servo = cfg.is_overhead and cfg.lift.kind == "servo"
        hand = Hand(carriage=cfg.carriage, mount=cfg.gantry, z_touch_mm=cfg.lift.z_down_mm,
                    lift_servo=servo)
        self.emulator = GrblEmulator(world, hand, realtime_factor=realtime_factor,
                                     faults=faults)
        mx, my = cfg.gantry.to_machine(*start_mm)
        z = cfg.lift.z_up_mm if cfg.is_overhead and not servo else 0.0
        self.emulator.motion.set_position((mx, my, z))
        self.factory = mock_factory(pwm=cfg.magnet.kind == "gpio-pwm" or servo)
        if cfg.magnet.kind.startswith("gpio"):
            wire_magnet(self.factory, cfg.magnet.pin, self.emulator)
        if servo:
            wire_servo_lift(self.factory, cfg.lift.servo_pin, self.emulator)
        self.cfg = cfg
        self.server = PtyGrbl(self.emulator)
        self.grbl: Grbl | None = None
        self.magnet: Any = None
        self.lift: Any = None

    def __enter__(self) -> SimGantry:
        self.server.start()
        self.grbl = Grbl.open(self.server.path)
        self.grbl.connect(banner_timeout_s=0.05)
        self.magnet = make_magnet(self.cfg.magnet, self.grbl, self.factory)
        if self.emulator.motion.hand.lift_servo:
            self.lift = ServoLift(self.cfg.lift, self.factory)
        return self

    def __exit__(self, *exc: object) -> None:
        for device in (self.magnet, self.lift):
            if device is not None:
                device.close()
        if self.grbl is not None:
            self.grbl.close()
        self.server.close()


def _execute_sim(args: argparse.Namespace, board: Board, move: Any, plan: Any) -> int:
    """Run on the simulated table: a world with the position, the emulator on a pty, the real
    driver and magnet code, and a simulated person who stacks crowns when asked."""
    from sim.world import TableSpec, World

    cfg = plan.config
    b = cfg.board
    world = World.from_board(board, TableSpec(b.grid, b.square_mm, b.border_mm,
                                              b.disc_diameter_mm, b.disc_height_mm))
    populate_tray(world, cfg)
    gantry = SimGantry(world, cfg, plan.start_mm, realtime_factor=args.realtime)
    emu = gantry.emulator

    def crown_by_person(square: str) -> None:
        f, r = board.geometry.coords[board.parse_square(square)]
        with emu.lock:
            x, y = world.square_center_mm(f, r)
            world.add_disc(board.turn, x, y, level=1)
        print(f"simulated person stacked a crown on {square}", flush=True)

    t0 = emu.motion.now_s
    try:
        with gantry:
            assert gantry.grbl is not None
            print(f"connected: {gantry.grbl.banner} (simulated, {gantry.server.path})",
                  flush=True)
            res = Executor(gantry.grbl, gantry.magnet, gantry.lift,
                           wait_for_crown=crown_by_person, progress=_progress).run(plan)
    except GantryError as e:
        raise OSError(f"gantry: {e}") from None
    elapsed = emu.motion.now_s - t0
    after = board.copy(stack=False)
    after.push(move)
    ok = world.placement(after).placement_equals(after)
    print(f"simulated board {'matches' if ok else 'DIFFERS FROM'} {after.fen()}")
    print(f"done travel_mm {res.travel_mm:.1f} elapsed_s {elapsed:.2f}")
    return 0 if ok else 1


def populate_tray(world: Any, cfg: RobotConfig) -> None:
    """Spare discs where the configuration expects them (a ready-made king piece is two)."""
    from robot.planner import TrayState

    tray = TrayState.initial(cfg)
    for colour, slots, counts in ((Color.WHITE, cfg.tray.spare_white, tray.spare_white),
                                  (Color.BLACK, cfg.tray.spare_black, tray.spare_black)):
        for (x, y), n in zip(slots, counts, strict=True):
            for level in range(n):
                world.add_disc(colour, x, y, level)


# -- calibrate gantry -------------------------------------------------------------------------
def cmd_calibrate_gantry(args: argparse.Namespace) -> int:
    from calibration.store import Calibration, load_calibration, save_calibration

    cfg = load_robot_config(args.config)
    variant = find_variant(args.variant)
    grid = cfg.board.grid or variant.width
    grbl = Grbl.open(args.port)
    try:
        banner = grbl.connect(home=args.home, unlock=args.unlock)
        print(f"connected: {banner}", flush=True)
        print("keys: a/d = -X/+X, s/w = -Y/+Y, + / - = bigger/smaller step, "
              "empty line = record, x = abandon", flush=True)
        points = {}
        keys = _key_source()
        names = _corner_labels(grid)
        for key, label in zip(CORNER_NAMES, names, strict=True):
            points[key] = _jog_to_corner(grbl, label, args.feed, keys)
    except GantryError as e:
        raise OSError(f"gantry: {e}") from None
    finally:
        grbl.close()
    fit = fit_gantry(points, grid, cfg.board.square_mm)
    path = Path(args.calibration)
    cal = load_calibration(path) if path.exists() else Calibration()
    save_calibration(dataclasses.replace(cal, gantry=fit.to_dict()), path)
    print(f"saved gantry calibration to {path}")
    print(f"residual_mm {fit.residual_mm:.3f}")
    return 0


def _corner_labels(grid: int) -> tuple[str, str, str, str]:
    last = "abcdefghijklmnopqrstuvwxyz"[grid - 1]
    return ("a1", f"{last}1", f"{last}{grid}", f"a{grid}")


def _key_source() -> Any:
    """Lines of keys: from a terminal, each key press at once (arrows work too, Enter is the
    empty line); from a pipe or a file, line by line (how tests and scripts drive it)."""
    if not sys.stdin.isatty():
        return sys.stdin.readline
    import termios
    import tty

    arrows = {"A": "w", "B": "s", "C": "d", "D": "a"}

    def read_key() -> str:
        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)
            ch = sys.stdin.read(1)
            if ch == "\x1b" and sys.stdin.read(1) == "[":
                ch = arrows.get(sys.stdin.read(1), "?")
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
        if ch in ("\r", "\n"):
            return "\n"
        return ch + "\n" if ch else ""

    return read_key


def _jog_to_corner(grbl: Grbl, label: str, feed: float,
                   read_line: Any = None) -> tuple[float, float]:
    step_i = 1
    print(f"jog the magnet over the centre of {label} (step {JOG_STEPS_MM[step_i]:g} mm)",
          flush=True)
    while True:
        line = (read_line or sys.stdin.readline)()
        if not line:
            raise ValueError(f"input ended before {label} was recorded")
        keys = line.strip()
        if not keys:
            st = grbl.wait_idle(sync=False, timeout_s=60.0)
            x, y, _ = st.mpos
            print(f"{label} at X{x:.3f} Y{y:.3f}", flush=True)
            return (x, y)
        for k in keys:
            step = JOG_STEPS_MM[step_i]
            if k == "x":
                raise ValueError("gantry calibration abandoned")
            if k == "+":
                step_i = max(0, step_i - 1)
            elif k == "-":
                step_i = min(len(JOG_STEPS_MM) - 1, step_i + 1)
            elif k in "adws":
                dx = {"a": -step, "d": step}.get(k, 0.0)
                dy = {"s": -step, "w": step}.get(k, 0.0)
                grbl.jog(dx, dy, feed_mm_min=feed)
                grbl.wait_idle(sync=False, timeout_s=60.0)
            else:
                print(f"unknown key {k!r}", file=sys.stderr)
        time.sleep(0)
        st = grbl.status()
        print(f"at X{st.mpos[0]:.3f} Y{st.mpos[1]:.3f} step {JOG_STEPS_MM[step_i]:g} mm",
              flush=True)
