"""From a plan to machine operations, and how long they take.

`program(plan)` lists the operations in order: straight moves (board-frame XY, machine Z),
magnet on/off, lift up/down (servo), dwells and "wait for the crown".  The same list feeds the
G-code writer, the executor and the time estimate, so what is printed is what runs.

Timing follows GRBL's planner for a block that starts and ends at rest: the feed and the
acceleration are limited per axis (`$110..$112`, `$120..$122`), so a diagonal move may run
faster than a single axis allows; the speed profile is a trapezoid (or a triangle on short
moves).  GRBL also blends corners (junction deviation), so this estimate errs long.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from robot.config import RobotConfig
from robot.planner import AskCrown, Carry, Plan

Point = tuple[float, float]


@dataclass(frozen=True)
class Op:
    """One operation.  kind: move, magnet, lift, dwell, ask, note."""

    kind: str
    x_mm: float | None = None  # board frame (move)
    y_mm: float | None = None
    z_mm: float | None = None  # machine Z (move), None: unchanged
    on: bool = False  # magnet on / lift down
    seconds: float = 0.0  # dwell
    text: str = ""  # note, or the square of an ask
    carrying: bool = False  # move with the magnet on


def program(plan: Plan) -> list[Op]:
    cfg = plan.config
    ops: list[Op] = []
    settle = cfg.motion.magnet_settle_s
    lift = cfg.lift
    h = cfg.board.disc_height_mm
    overhead = cfg.is_overhead
    z_axis = overhead and lift.kind == "z-axis"
    if z_axis:
        ops.append(Op("move", z_mm=lift.z_up_mm))
    for step in plan.steps:
        if isinstance(step, AskCrown):
            ops.append(Op("ask", text=step.square, x_mm=step.at[0], y_mm=step.at[1]))
            continue
        assert isinstance(step, Carry)
        ops.append(Op("note", text=f"{step.purpose}: {step.label}"))
        x0, y0 = step.path[0]
        ops.append(Op("move", x_mm=x0, y_mm=y0))
        if z_axis:
            ops.append(Op("move", z_mm=lift.z_down_mm + (step.discs - 1) * h))
        elif overhead:
            ops.append(Op("lift", on=True))
        ops.append(Op("magnet", on=True))
        ops.append(Op("dwell", seconds=settle))
        if z_axis:
            ops.append(Op("move", z_mm=lift.z_up_mm, carrying=True))
        elif overhead:
            ops.append(Op("lift", on=False))
        for x, y in step.path[1:]:
            ops.append(Op("move", x_mm=x, y_mm=y, carrying=True))
        if z_axis:
            z = lift.z_down_mm + (step.drop_onto + step.discs - 1) * h
            ops.append(Op("move", z_mm=z, carrying=True))
        elif overhead:
            ops.append(Op("lift", on=True))
        ops.append(Op("magnet", on=False))
        ops.append(Op("dwell", seconds=settle))
        if z_axis:
            ops.append(Op("move", z_mm=lift.z_up_mm))
        elif overhead:
            ops.append(Op("lift", on=False))
    if overhead:
        ops.append(Op("move", x_mm=plan.end_mm[0], y_mm=plan.end_mm[1]))
    return ops


def block_time_s(delta_mm: tuple[float, float, float], feed_mm_min: float,
                 max_rate_mm_min: tuple[float, float, float],
                 accel_mm_s2: tuple[float, float, float]) -> float:
    """Rest-to-rest time of one straight block, with GRBL's per-axis limits."""
    length = math.sqrt(sum(d * d for d in delta_mm))
    if length < 1e-9:
        return 0.0
    rate = feed_mm_min
    accel = math.inf
    for d, vmax, amax in zip(delta_mm, max_rate_mm_min, accel_mm_s2, strict=False):
        u = abs(d) / length
        if u > 1e-12:
            rate = min(rate, vmax / u)
            accel = min(accel, amax / u)
    v = rate / 60.0
    d_acc = v * v / accel  # accelerating plus braking distance
    if d_acc >= length:
        return 2.0 * math.sqrt(length / accel)
    return 2.0 * v / accel + (length - d_acc) / v


@dataclass(frozen=True)
class Estimate:
    segments: int
    travel_mm: float
    seconds: float


def estimate(plan: Plan, ops: list[Op] | None = None) -> Estimate:
    """Segments (straight moves), travel (3-D path length of the magnet) and time."""
    cfg: RobotConfig = plan.config
    ops = program(plan) if ops is None else ops
    m = cfg.motion
    rates = (m.feed_mm_min, m.feed_mm_min, m.z_feed_mm_min)
    accels = (m.accel_mm_s2, m.accel_mm_s2, m.z_accel_mm_s2)
    g = cfg.gantry
    x, y = g.to_machine(*plan.start_mm)
    z = cfg.lift.z_up_mm if cfg.is_overhead and cfg.lift.kind == "z-axis" else 0.0
    segs, travel, secs = 0, 0.0, 0.0
    for op in ops:
        if op.kind == "move":
            nx, ny = (x, y) if op.x_mm is None else g.to_machine(op.x_mm, op.y_mm or 0.0)
            nz = z if op.z_mm is None else op.z_mm
            d = (nx - x, ny - y, nz - z)
            n = math.sqrt(sum(v * v for v in d))
            if n > 1e-6:
                segs += 1
                travel += n
                secs += block_time_s(d, m.feed_mm_min, rates, accels)
            x, y, z = nx, ny, nz
        elif op.kind == "dwell":
            secs += op.seconds
        elif op.kind == "lift":
            secs += cfg.lift.servo_settle_s
    return Estimate(segs, travel, secs)
