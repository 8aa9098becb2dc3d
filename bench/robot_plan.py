"""Robot move timing on the simulated gantry, for 500 positions from random legal play.

For each position the robot plays one legal move (quiet, single capture or multiple capture);
the plan is executed by the real driver on the GRBL emulator (in-process link), whose virtual
clock gives the simulated execution time at the emulator's defaults, 6000 mm/min and
500 mm/s^2 on X and Y.  The world is checked against the position after the move.

Printed per kind: count, median and worst simulated time, and two travel ratios against the
lower bound (a straight line for every piece that must move: mover start->end, each captured
piece -> its nearest tray slot):
  ratio_carried = distance carried with the magnet on / lower bound
  ratio_total   = all gantry travel (including empty moves between pieces) / lower bound

Usage: .venv/bin/python bench/robot_plan.py [--positions 500] [--seed 1] [--config FILE]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.commands.robot import populate_tray  # noqa: E402
from game.board import Board  # noqa: E402
from robot.config import load_robot_config  # noqa: E402
from robot.executor import Executor  # noqa: E402
from robot.grbl import Grbl  # noqa: E402
from robot.magnet import make_magnet  # noqa: E402
from robot.motion import estimate  # noqa: E402
from robot.planner import plan_move  # noqa: E402
from sim.gpio import mock_factory, wire_magnet  # noqa: E402
from sim.grbl import GrblEmulator, Hand  # noqa: E402
from sim.grbl.link import EmulatorLink  # noqa: E402
from sim.world import TableSpec, World  # noqa: E402

QUOTA = {"quiet": 300, "single": 120, "multiple": 80}


def kind_of(move) -> str:  # type: ignore[no-untyped-def]
    n = len(move.captured)
    return "quiet" if n == 0 else "single" if n == 1 else "multiple"


def collect(n_total: int, seed: int) -> list[tuple[Board, object]]:
    rng = random.Random(seed)
    scale = n_total / sum(QUOTA.values())
    want = {k: max(1, round(v * scale)) for k, v in QUOTA.items()}
    got: dict[str, list] = {k: [] for k in QUOTA}
    while any(len(got[k]) < want[k] for k in QUOTA):
        board = Board()
        for _ in range(rng.randint(4, 90)):
            moves = board.legal_moves
            if not moves:
                break
            move = rng.choice(moves)
            k = kind_of(move)
            if len(got[k]) < want[k] and rng.random() < 0.25:
                got[k].append((board.copy(stack=False), move))
            board.push(move)
    return [case for k in QUOTA for case in got[k]]


def run_one(board: Board, move, cfg):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    plan = plan_move(board, move, cfg)
    plan_s = time.perf_counter() - t0
    pcfg = plan.config
    b = pcfg.board
    world = World.from_board(board, TableSpec(b.grid, b.square_mm, b.border_mm,
                                              b.disc_diameter_mm, b.disc_height_mm))
    populate_tray(world, pcfg)
    emu = GrblEmulator(world, Hand(carriage=pcfg.carriage, mount=pcfg.gantry,
                                   z_touch_mm=pcfg.lift.z_down_mm))
    z = pcfg.lift.z_up_mm if pcfg.is_overhead else 0.0
    emu.motion.set_position((*pcfg.gantry.to_machine(*plan.start_mm), z))
    factory = mock_factory(pwm=pcfg.magnet.kind == "gpio-pwm")
    if pcfg.magnet.kind.startswith("gpio"):
        wire_magnet(factory, pcfg.magnet.pin, emu)
    grbl = Grbl(EmulatorLink(emu), timeout_s=2.0, motion_timeout_s=5.0)
    grbl.connect(banner_timeout_s=0.0)
    t_start = emu.motion.now_s
    def person_crowns(square: str) -> None:  # the opponent materialises the crown
        x, y = world.square_center_mm(*board.geometry.coords[board.parse_square(square)])
        world.add_disc(board.turn, x, y, level=1)

    with make_magnet(pcfg.magnet, grbl, factory) as magnet:
        Executor(grbl, magnet, wait_for_crown=person_crowns).run(plan)
    sim_s = emu.motion.now_s - t_start
    after = board.copy(stack=False)
    after.push(move)
    ok = world.placement(after).placement_equals(after) and not emu.motion.collisions
    est = estimate(plan)
    lb = plan.lower_bound_mm
    return sim_s, plan.carried_mm / lb, est.travel_mm / lb, ok, plan_s, est.seconds, \
        plan.min_clearance_mm


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--positions", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--config", default=None)
    args = p.parse_args()
    cfg = load_robot_config(args.config)
    cases = collect(args.positions, args.seed)
    rows: dict[str, list] = {k: [] for k in QUOTA}
    t0 = time.perf_counter()
    for board, move in cases:
        rows[kind_of(move)].append(run_one(board, move, cfg))
    wall = time.perf_counter() - t0
    print(f"robot_plan: {len(cases)} positions, carriage {cfg.carriage}, "
          f"feed {cfg.motion.feed_mm_min:g} mm/min, accel {cfg.motion.accel_mm_s2:g} mm/s^2")
    every = [r for k in QUOTA for r in rows[k]]
    for k, rs in list(rows.items()) + [("all", every)]:
        if not rs:
            continue
        sim = [r[0] for r in rs]
        rc = [r[1] for r in rs]
        rt = [r[2] for r in rs]
        bad = sum(1 for r in rs if not r[3])
        est_err = max(abs(r[5] - r[0]) for r in rs)
        gap = min(r[6] for r in rs)
        print(f"{k:8s} n {len(rs):3d}  sim_s median {statistics.median(sim):.2f} "
              f"worst {max(sim):.2f}  ratio_carried median {statistics.median(rc):.3f} "
              f"worst {max(rc):.3f}  ratio_total median {statistics.median(rt):.3f} "
              f"worst {max(rt):.3f}  min_clearance_mm {gap:.1f}  wrong_boards {bad}  "
              f"max|est-sim|_s {est_err:.3f}")
    plan_ms = [r[4] * 1000 for r in every]
    print(f"planning ms median {statistics.median(plan_ms):.1f} worst {max(plan_ms):.1f}; "
          f"wall {wall:.1f} s")
    quiet = [r[0] for r in rows["quiet"]]
    ratio_ok = max(statistics.median([r[1] for r in every]), 0) <= 1.3
    print(f"target: median quiet move <= 4 s: "
          f"{'met' if statistics.median(quiet) <= 4.0 else 'NOT met'}; "
          f"median carried ratio <= 1.3: {'met' if ratio_ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
