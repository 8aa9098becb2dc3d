"""Test helper: the simulated table wired to the robot's real driver, magnet and executor.

A `World` with the position (and the tray's spare discs), a `GrblEmulator` whose carriage
starts at the plan's park position, the pyserial-level link (in-process, or the pty), the
magnet on gpiozero mock pins wired to the emulator, and a simulated person who stacks crowns.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from typing import Any

from game.board import BaseBoard, Board, Color, Move, Piece
from game.variants import find_variant
from robot.config import RobotConfig, config_from_dict
from robot.executor import ExecutionResult, Executor
from robot.grbl import Grbl
from robot.magnet import ServoLift, make_magnet
from robot.planner import Plan, TrayState, plan_move
from sim.gpio import mock_factory, wire_magnet, wire_servo_lift
from sim.grbl import Faults, GrblEmulator, Hand, PtyGrbl
from sim.grbl.link import EmulatorLink
from sim.world import TableSpec, World

CONFIGS: dict[str, RobotConfig] = {
    "under-board": RobotConfig(),
    "under-board-tray-king": config_from_dict({"crown": "tray-king",
                                               "magnet": {"kind": "gpio-pwm"}}),
    "overhead": config_from_dict({"carriage": "overhead-lift",
                                  "magnet": {"kind": "grbl-coolant"}}),
    "under-board-small-discs": config_from_dict({"board": {"disc_diameter_mm": 24.0,
                                                           "square_mm": 38.0}}),
    "overhead-servo": config_from_dict({"carriage": "overhead-lift",
                                        "lift": {"kind": "servo"},
                                        "magnet": {"kind": "grbl-spindle"}}),
}


@dataclass
class Run:
    board: Board
    move: Move
    plan: Plan
    world: World
    emulator: GrblEmulator
    grbl: Grbl
    magnet: Any
    result: ExecutionResult | None = None
    error: BaseException | None = None
    crowns_asked: list[str] = field(default_factory=list)
    factory: Any = None  # gpiozero MockFactory of the Pi's pins
    magnet_on_after_error: bool | None = None  # seen when the error reached the caller
    sim_magnet_on_after_error: bool | None = None

    @property
    def after(self) -> Board:
        b = self.board.copy(stack=False)
        b.push(self.move)
        return b


def table_spec(cfg: RobotConfig) -> TableSpec:
    """The simulated table built to the robot's configured sizes."""
    b = cfg.board
    return TableSpec(grid=b.grid, square_mm=b.square_mm, border_mm=b.border_mm,
                     disc_diameter_mm=b.disc_diameter_mm, disc_height_mm=b.disc_height_mm)


def populate_tray(world: World, cfg: RobotConfig) -> None:
    tray = TrayState.initial(cfg)
    for colour, slots, counts in ((Color.WHITE, cfg.tray.spare_white, tray.spare_white),
                                  (Color.BLACK, cfg.tray.spare_black, tray.spare_black)):
        for (x, y), n in zip(slots, counts, strict=True):
            for level in range(n):
                world.add_disc(colour, x, y, level)


def execute(board: Board, move: Move, cfg: RobotConfig, *, faults: Faults | None = None,
            use_pty: bool = False, settings: dict[int, float] | None = None,
            hand_mount: Any = None, realtime_factor: float | None = None) -> Run:
    plan = plan_move(board, move, cfg)
    pcfg = plan.config
    world = World.from_board(board, table_spec(pcfg))
    populate_tray(world, pcfg)
    servo = pcfg.is_overhead and pcfg.lift.kind == "servo"
    hand = Hand(carriage=pcfg.carriage, mount=hand_mount or pcfg.gantry,
                z_touch_mm=pcfg.lift.z_down_mm, lift_servo=servo)
    emu = GrblEmulator(world, hand, settings=settings, faults=faults,
                       realtime_factor=realtime_factor)
    mx, my = pcfg.gantry.to_machine(*plan.start_mm)
    z = pcfg.lift.z_up_mm if pcfg.is_overhead and not servo else 0.0
    emu.motion.set_position((mx, my, z))
    factory = mock_factory(pwm=pcfg.magnet.kind == "gpio-pwm" or servo)
    if pcfg.magnet.kind.startswith("gpio"):
        wire_magnet(factory, pcfg.magnet.pin, emu)
    lift = None
    if servo:
        wire_servo_lift(factory, pcfg.lift.servo_pin, emu)
        lift = ServoLift(pcfg.lift, factory)
    server = PtyGrbl(emu).start() if use_pty else None
    grbl = Grbl.open(server.path) if server else Grbl(EmulatorLink(emu), timeout_s=2.0,
                                                         motion_timeout_s=5.0)
    run = Run(board, move, plan, world, emu, grbl, None, factory=factory)

    def person_crowns(square: str) -> None:
        run.crowns_asked.append(square)
        f, r = board.geometry.coords[board.parse_square(square)]
        x, y = world.square_center_mm(f, r)
        with emu.lock:
            world.add_disc(board.turn, x, y, level=1)

    try:
        grbl.connect(banner_timeout_s=0.05)
        run.magnet = make_magnet(pcfg.magnet, grbl, factory)
        run.result = Executor(grbl, run.magnet, lift, wait_for_crown=person_crowns).run(plan)
    except Exception as e:  # noqa: BLE001 - the test inspects it
        run.error = e
        run.magnet_on_after_error = bool(run.magnet is not None and run.magnet.is_on)
        run.sim_magnet_on_after_error = emu.motion.magnet_on
    finally:
        if run.magnet is not None:
            run.magnet.close()
        if lift is not None:
            lift.close()
        grbl.close()
        if server:
            server.close()
    return run


def discs_at(world: World, p: tuple[float, float], tol_mm: float = 1.0) -> int:
    return sum(1 for d in world.discs if math.hypot(d.x_mm - p[0], d.y_mm - p[1]) <= tol_mm)


def random_position(rng: random.Random, variant: str = "brazilian") -> Board | None:
    """A random legal-looking position: men off their crowning rows, some kings."""
    v = find_variant(variant)
    base = BaseBoard.empty(v)
    squares = list(range(v.squares))
    rng.shuffle(squares)
    n_white, n_black = rng.randint(1, v.men_per_side), rng.randint(1, v.men_per_side)
    last = v.height - 1
    for colour, n in ((Color.WHITE, n_white), (Color.BLACK, n_black)):
        placed = 0
        while placed < n and squares:
            sq = squares.pop()
            rank = base.geometry.coords[sq][1]
            crown_row = last if colour is Color.WHITE else 0
            king = rank == crown_row or rng.random() < 0.2
            base.set_piece_at(sq, Piece.of(colour, king))
            placed += 1
    board = Board.from_base(base, rng.choice([Color.WHITE, Color.BLACK]))
    return board if board.legal_moves else None


def played_position(rng: random.Random, variant: str = "brazilian",
                    max_plies: int = 80) -> Board | None:
    board = Board(None, variant)
    for _ in range(rng.randint(0, max_plies)):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
    board = board.copy(stack=False)
    return board if board.legal_moves else None


def pick_move(rng: random.Random, board: Board) -> Move:
    """Any legal move, with a bias towards the interesting ones (long captures, crowning)."""
    moves = board.legal_moves
    special = [m for m in moves if m.promotes or len(m.captured) >= 2]
    if special and rng.random() < 0.6:
        return rng.choice(special)
    return rng.choice(moves)


def with_grid(cfg: RobotConfig, **board: Any) -> RobotConfig:
    return dataclasses.replace(cfg, board=dataclasses.replace(cfg.board, **board))
