"""The simulated gantry's motion and its magnet's effect on the discs of a `World`.

Motion is computed, never slept: each queued block runs a rest-to-rest trapezoid limited per
axis by GRBL's `$110..$112` (max rate) and `$120..$122` (acceleration), on a virtual clock.
Whoever owns the clock decides how fast it runs (the emulator: instantly, or at a real-time
factor for a demo).

The magnet holds the discs it grabbed (a whole stack) and they follow the carriage.  Every
carried move is checked against the other discs, so a route that knocks a piece, a magnet
switched on over nothing, or a piece dropped onto another are recorded as they would be seen
on the real table.  Faults (a dropped piece, missed steps) act on the physical carriage, which
GRBL itself cannot see: MPos stays the commanded position.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from calibration.gantry import GantryCalibration
from sim.world import Disc, World

Vec = tuple[float, float, float]


@dataclass
class Block:
    start: Vec
    end: Vec
    rate_mm_s: float  # cruise speed
    accel_mm_s2: float
    jog: bool = False
    elapsed_s: float = 0.0

    @property
    def length_mm(self) -> float:
        return math.dist(self.start, self.end)

    @property
    def duration_s(self) -> float:
        length, v, a = self.length_mm, self.rate_mm_s, self.accel_mm_s2
        if length <= 1e-9:
            return 0.0
        if v * v / a >= length:  # triangle: never reaches cruise speed
            return 2.0 * math.sqrt(length / a)
        return 2.0 * v / a + (length - v * v / a) / v

    def distance_at(self, t_s: float) -> float:
        """Distance covered after t_s in the block."""
        length, v, a = self.length_mm, self.rate_mm_s, self.accel_mm_s2
        total = self.duration_s
        t = min(max(t_s, 0.0), total)
        if length <= 1e-9:
            return 0.0
        vp = min(v, math.sqrt(a * length))  # peak speed
        ta = vp / a
        d_acc = 0.5 * a * ta * ta
        if t <= ta:
            return 0.5 * a * t * t
        cruise = total - 2 * ta
        if t <= ta + cruise:
            return d_acc + vp * (t - ta)
        tb = total - t
        return length - 0.5 * a * tb * tb

    def speed_at(self, t_s: float) -> float:
        total = self.duration_s
        vp = min(self.rate_mm_s, math.sqrt(self.accel_mm_s2 * self.length_mm))
        ta = vp / self.accel_mm_s2 if self.accel_mm_s2 else 0.0
        if t_s <= ta:
            return self.accel_mm_s2 * t_s
        if t_s >= total - ta:
            return max(0.0, self.accel_mm_s2 * (total - t_s))
        return vp

    def point_at(self, t_s: float) -> Vec:
        length = self.length_mm
        if length <= 1e-9:
            return self.end
        f = self.distance_at(t_s) / length
        return tuple(s + f * (e - s) for s, e in zip(self.start, self.end, strict=False))  # type: ignore


@dataclass(frozen=True)
class MagnetEvent:
    t_s: float
    on: bool
    x_mm: float  # board frame, physical position
    y_mm: float
    discs: int  # discs grabbed (on) or released (off)
    overlapping: int  # off: other discs under the released ones' footprint, not a stack


@dataclass(frozen=True)
class Collision:
    t_s: float
    disc_id: int  # the disc that was hit
    gap_mm: float  # rim-to-rim gap (negative: overlap)


@dataclass
class Hand:
    """Carriage geometry as built (the sim's truth, not the robot's configuration)."""

    carriage: str = "under-board"  # or "overhead-lift"
    mount: GantryCalibration = field(default_factory=GantryCalibration)  # board -> machine
    grab_radius_mm: float | None = None  # default: half a disc
    z_touch_mm: float = -30.0  # machine Z where the magnet touches the top of a single disc
    lift_servo: bool = False  # overhead: a servo (external) lowers the magnet, not Z


class Motion:
    """Blocks on a virtual clock, the carriage position, the magnet and the carried discs."""

    def __init__(self, world: World, hand: Hand | None = None) -> None:
        self.world = world
        self.hand = hand or Hand()
        self.now_s = 0.0
        self.pos: Vec = (0.0, 0.0, 0.0)  # commanded machine position (GRBL's MPos)
        self.slip: tuple[float, float] = (0.0, 0.0)  # physical minus commanded (missed steps)
        self.queue: deque[Block] = deque()
        self.held = False
        self.magnet_on = False
        self.lift_down = False  # servo lift
        self.carried: list[Disc] = []
        self.events: list[MagnetEvent] = []
        self.collisions: list[Collision] = []
        self.min_gap_mm = math.inf  # smallest rim gap seen while carrying
        self.blocks_done = 0
        self.carry_blocks = 0
        self.block_hooks: list = []  # callables(motion, block, carrying) at each block start

    # -- frames -----------------------------------------------------------------------------
    def board_xy(self) -> tuple[float, float]:
        x, y = self.pos[0] + self.slip[0], self.pos[1] + self.slip[1]
        return self.hand.mount.to_board(x, y)

    def tip_height_mm(self) -> float:
        """Height of the magnet's face above the playing surface (overhead carriage)."""
        h = self.world.spec.disc_height_mm
        if self.hand.lift_servo:
            return 0.0 if self.lift_down else 10 * h
        return h + (self.pos[2] - self.hand.z_touch_mm)

    @property
    def busy(self) -> bool:
        return bool(self.queue)

    # -- queue --------------------------------------------------------------------------------
    def add_block(self, target: Vec, rate_mm_s: float, accel_mm_s2: float,
                  jog: bool = False) -> None:
        start = self.queue[-1].end if self.queue else self.pos
        self.queue.append(Block(start, target, rate_mm_s, accel_mm_s2, jog))

    def advance(self, dt_s: float) -> None:
        """Run the queue for dt_s of virtual time."""
        t_end = self.now_s + dt_s
        while self.queue and not self.held and (self.now_s < t_end - 1e-12 or (
                self.queue[0].duration_s - self.queue[0].elapsed_s <= 1e-12)):
            b = self.queue[0]
            if b.elapsed_s == 0.0:
                self._start_block(b)
                if not self.queue or self.queue[0] is not b or self.held:
                    continue
            left = b.duration_s - b.elapsed_s
            step = min(left, t_end - self.now_s)
            before = b.point_at(b.elapsed_s)
            b.elapsed_s += step
            self.now_s += step
            self._move_to(before, b.point_at(b.elapsed_s))
            if b.elapsed_s >= b.duration_s - 1e-12:
                self.queue.popleft()
                self.blocks_done += 1
        if not self.queue or self.held:
            self.now_s = max(self.now_s, t_end)

    def run_until_idle(self) -> None:
        while self.queue and not self.held:
            b = self.queue[0]
            self.advance(b.duration_s - b.elapsed_s)

    def run_until_space(self, capacity: int) -> None:
        while len(self.queue) >= capacity and not self.held:
            b = self.queue[0]
            self.advance(b.duration_s - b.elapsed_s)

    def _start_block(self, b: Block) -> None:
        carrying = bool(self.carried)
        if carrying:
            self.carry_blocks += 1
        for hook in list(self.block_hooks):
            hook(self, b, carrying)

    def hold(self) -> None:
        """Feed hold: brake at full deceleration; the rest of the block waits for resume."""
        if not self.queue or self.held:
            self.held = True
            return
        b = self.queue[0]
        v = b.speed_at(b.elapsed_s)
        stop_s = v / b.accel_mm_s2 if b.accel_mm_s2 else 0.0
        d_now = b.distance_at(b.elapsed_s)
        d_stop = min(b.length_mm, d_now + v * v / (2 * b.accel_mm_s2))
        f = d_stop / b.length_mm if b.length_mm > 1e-9 else 1.0
        stop = tuple(s + f * (e - s) for s, e in zip(b.start, b.end, strict=False))
        before = b.point_at(b.elapsed_s)
        self.now_s += stop_s
        self._move_to(before, stop)  # type: ignore[arg-type]
        self.queue.popleft()
        if f < 1.0 - 1e-9:
            self.queue.appendleft(Block(stop, b.end, b.rate_mm_s, b.accel_mm_s2, b.jog))  # type: ignore[arg-type]
        self.held = True

    def resume(self) -> None:
        self.held = False

    def halt(self) -> None:
        """Sudden stop (alarm, reset): the queue is lost where the carriage stands."""
        if self.queue:
            b = self.queue[0]
            self.pos = b.point_at(b.elapsed_s)
        self.queue.clear()
        self.held = False

    def set_position(self, pos: Vec) -> None:
        self.pos = pos

    # -- the carriage and the discs -----------------------------------------------------------
    def _move_to(self, before: Vec, after: Vec) -> None:
        self.pos = after
        if not self.carried:
            return
        g = self.hand.mount
        a = g.to_board(before[0] + self.slip[0], before[1] + self.slip[1])
        b = g.to_board(after[0] + self.slip[0], after[1] + self.slip[1])
        dx, dy = b[0] - a[0], b[1] - a[1]
        self._check_sweep(a, b)
        for d in self.carried:
            d.x_mm += dx
            d.y_mm += dy

    def _check_sweep(self, a: tuple[float, float], b: tuple[float, float]) -> None:
        spec = self.world.spec
        diam = spec.disc_diameter_mm
        ids = {d.id for d in self.carried}
        base = self.carried[0]
        off = [(d.x_mm - base.x_mm, d.y_mm - base.y_mm) for d in self.carried]
        lifted_bottom = None
        if self.hand.carriage == "overhead-lift":
            lifted_bottom = self.tip_height_mm() - len(self.carried) * spec.disc_height_mm
        cx, cy = base.x_mm, base.y_mm
        for other in self.world.discs:
            if other.id in ids:
                continue
            if lifted_bottom is not None:
                top = (other.level + 1) * spec.disc_height_mm
                if lifted_bottom >= top - 0.5:
                    continue
            for ox, oy in off:
                p0 = (cx + ox, cy + oy)
                p1 = (p0[0] + b[0] - a[0], p0[1] + b[1] - a[1])
                gap = _seg_point(p0, p1, (other.x_mm, other.y_mm)) - diam
                if gap < self.min_gap_mm:
                    self.min_gap_mm = gap
                if gap < -0.01:
                    self.collisions.append(Collision(self.now_s, other.id, gap))

    def set_magnet(self, on: bool) -> None:
        if on == self.magnet_on:
            return
        self.magnet_on = on
        x, y = self.board_xy()
        if on:
            self.carried = self._grab(x, y)
            self.events.append(MagnetEvent(self.now_s, True, x, y, len(self.carried), 0))
        else:
            released = self.carried
            self.carried = []
            overlapping = self._settle(released)
            self.events.append(MagnetEvent(self.now_s, False, x, y, len(released), overlapping))

    def drop(self) -> None:
        """The piece falls off the magnet (fault); the magnet itself stays on."""
        released = self.carried
        self.carried = []
        self._settle(released)

    def _grab(self, x: float, y: float) -> list[Disc]:
        spec = self.world.spec
        r = self.hand.grab_radius_mm or spec.disc_diameter_mm / 2
        near = [d for d in self.world.discs if math.hypot(d.x_mm - x, d.y_mm - y) <= r]
        if not near:
            return []
        # One stack: the discs under the nearest one.
        first = min(near, key=lambda d: (math.hypot(d.x_mm - x, d.y_mm - y), d.id))
        stack = [d for d in near if math.hypot(d.x_mm - first.x_mm, d.y_mm - first.y_mm) < 1.0]
        if self.hand.carriage == "overhead-lift":
            top = (max(d.level for d in stack) + 1) * spec.disc_height_mm
            if abs(self.tip_height_mm() - top) > 2.0 and not self.hand.lift_servo:
                return []  # the magnet is not touching the stack
        return sorted(stack, key=lambda d: d.level)

    def _settle(self, released: list[Disc]) -> int:
        """Put released discs down (stacking on what is under them); count overlaps."""
        if not released:
            return 0
        diam = self.world.spec.disc_diameter_mm
        ids = {d.id for d in released}
        base = released[0]
        under = [d for d in self.world.discs if d.id not in ids
                 and math.hypot(d.x_mm - base.x_mm, d.y_mm - base.y_mm) < diam]
        stacked = [d for d in under if math.hypot(d.x_mm - base.x_mm, d.y_mm - base.y_mm) < 1.0]
        overlapping = len(under) - (len(stacked) if self.hand.carriage == "overhead-lift" else 0)
        level0 = (max(d.level for d in stacked) + 1) if stacked and \
            self.hand.carriage == "overhead-lift" else 0
        for i, d in enumerate(sorted(released, key=lambda d: d.level)):
            d.level = level0 + i
        return overlapping


def _seg_point(a: tuple[float, float], b: tuple[float, float], p: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    ll = dx * dx + dy * dy
    if ll <= 1e-12:
        return math.hypot(p[0] - a[0], p[1] - a[1])
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / ll))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)
