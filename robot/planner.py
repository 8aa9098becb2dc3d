"""Plan the robot's move on the physical board: which disc goes where, along which path.

A draughts move becomes a list of steps: carry the moving piece from its square to its final
square (captured pieces are still standing, as RULES.md s.1 requires: they are removed only
after the move is complete), then carry each captured piece to a tray slot (nearest free slot
first, removals ordered to minimise travel), then crown a man that ended on the far row.

Under-board carriages slide discs, so every carry is routed round the other discs
(`robot.routing`); when no clear route exists, the discs in the way are moved aside and put
back afterwards.  Overhead carriages lift discs above the others, so their carries are straight
lines; they crown by stacking a spare disc from the tray.  A crown cannot be stacked from below:
an under-board plan asks the person for it (an `AskCrown` step) or, with `crown = "tray-king"`,
swaps the man for a ready-made king piece from the tray.

Everything is deterministic: the same position, move and configuration give the same plan.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from functools import lru_cache

from game.board import BaseBoard, Board, Color, Move, Piece
from robot.config import RobotConfig
from robot.errors import PlanError
from robot.routing import Point, Rect, Router, path_clearance, segment_distance

SLOT_ROUTE_TRIES = 4  # free slots tried, nearest first, before giving up on a removal


@dataclass(frozen=True)
class Carry:
    """One stack of discs carried from `path[0]` to `path[-1]` with the magnet on."""

    path: tuple[Point, ...]
    discs: int  # discs in the carried stack (2 for a king)
    drop_onto: int  # discs already at the drop point (1 when stacking a crown)
    purpose: str  # move, capture, aside, back, crown, unmake
    label: str

    @property
    def length_mm(self) -> float:
        return sum(math.dist(a, b) for a, b in zip(self.path, self.path[1:], strict=False))


@dataclass(frozen=True)
class AskCrown:
    """Wait for the person to stack a crown on the robot's man (RULES.md s.1, promotion)."""

    square: str
    at: Point
    color: Color


Step = Carry | AskCrown


@dataclass(frozen=True)
class TrayState:
    """Discs standing at each tray position, so successive moves fill the tray correctly."""

    captures: tuple[int, ...]
    spare_white: tuple[int, ...]
    spare_black: tuple[int, ...]

    @classmethod
    def initial(cls, config: RobotConfig) -> TrayState:
        """Empty capture slots; spares full (one disc each overhead, a 2-disc king piece each
        for an under-board carriage with crown = "tray-king", none otherwise)."""
        t = config.tray
        if config.is_overhead:
            per = 1
        else:
            per = 2 if config.crown == "tray-king" else 0
        return cls((0,) * len(t.capture_slots), (per,) * len(t.spare_white),
                   (per,) * len(t.spare_black))


@dataclass(frozen=True)
class Plan:
    move_name: str
    steps: tuple[Step, ...]
    start_mm: Point
    end_mm: Point  # where the magnet is left (the park position for an overhead carriage)
    min_clearance_mm: float  # smallest rim-to-rim gap of any carried disc (inf if none)
    tray_after: TrayState
    board_after: BaseBoard
    lower_bound_mm: float  # straight line for every disc that must move (to the nearest slot)
    config: RobotConfig

    @property
    def carries(self) -> list[Carry]:
        return [s for s in self.steps if isinstance(s, Carry)]

    @property
    def carried_mm(self) -> float:
        return sum(c.length_mm for c in self.carries)


def square_centre_mm(board: BaseBoard, sq: int, square_mm: float) -> Point:
    f, r = board.geometry.coords[sq]
    return ((f + 0.5) * square_mm, (r + 0.5) * square_mm)


@lru_cache(maxsize=16)
def router_for(config: RobotConfig) -> Router:
    """The lattice router for a (grid-resolved) configuration; built once per configuration."""
    b, t = config.board, config.tray
    side = b.grid * b.square_mm
    r = b.disc_diameter_mm / 2
    margin = max(0.0, b.border_mm - r)
    board_rect = Rect(-margin, -margin, side + margin, side + margin)
    rects = [board_rect]
    pitch = b.disc_diameter_mm + 6.0
    spares_used = config.is_overhead or config.crown == "tray-king"
    for group in (t.capture_slots, t.spare_white + t.spare_black if spares_used else ()):
        if not group:
            continue
        xs = [p[0] for p in group]
        ys = [p[1] for p in group]
        x0, x1 = min(xs) - pitch, max(xs) + pitch
        y0, y1 = min(ys) - pitch, max(ys) + pitch
        # Stretch the tray area towards the board so the two surfaces touch.
        x0, x1 = min(x0, board_rect.x1) if x0 > board_rect.x1 else x0, x1
        x1 = max(x1, board_rect.x0) if x1 < board_rect.x0 else x1
        y0 = min(y0, board_rect.y1) if y0 > board_rect.y1 else y0
        y1 = max(y1, board_rect.y0) if y1 < board_rect.y0 else y1
        rects.append(Rect(x0, y0, x1, y1))
    keep = b.disc_diameter_mm + b.min_clearance_mm
    extra = t.capture_slots + (t.spare_white + t.spare_black if spares_used else ())
    return Router(rects, b.square_mm / 2, keep, extra)


class _Planner:
    def __init__(self, board: Board, config: RobotConfig, tray: TrayState, start: Point) -> None:
        self.board = board
        self.cfg = config
        self.tray = tray
        self.pos = start
        self.steps: list[Step] = []
        self.min_gap = math.inf
        self.router = router_for(config) if not config.is_overhead else None
        self.s = config.board.square_mm
        # Every disc stack on the table: position -> number of discs.
        self.stacks: dict[tuple[int, int], tuple[Point, int]] = {}
        for sq, piece in board.piece_map().items():
            self._put(square_centre_mm(board, sq, self.s), 2 if piece.is_king else 1)
        t = config.tray
        for slots, counts in ((t.capture_slots, tray.captures),
                              (t.spare_white, tray.spare_white),
                              (t.spare_black, tray.spare_black)):
            for p, n in zip(slots, counts, strict=False):
                if n:
                    self._put(p, n)

    # -- table model ------------------------------------------------------------------------
    @staticmethod
    def _k(p: Point) -> tuple[int, int]:
        return (round(p[0] * 10), round(p[1] * 10))

    def _put(self, p: Point, n: int) -> None:
        k = self._k(p)
        old = self.stacks.get(k, (p, 0))[1]
        self.stacks[k] = (p, old + n)

    def _take(self, p: Point) -> int:
        return self.stacks.pop(self._k(p))[1]

    def count_at(self, p: Point) -> int:
        return self.stacks.get(self._k(p), (p, 0))[1]

    def obstacles(self, *excluding: Point) -> list[Point]:
        ex = {self._k(p) for p in excluding}
        return [p for k, (p, _) in sorted(self.stacks.items()) if k not in ex]

    # -- carrying ---------------------------------------------------------------------------
    def carry(self, frm: Point, to: Point, purpose: str, label: str, depth: int = 0) -> None:
        if self.count_at(frm) == 0:
            raise PlanError(f"{label}: no disc at {frm}")
        stacking = purpose == "crown"
        if self.count_at(to) and not stacking:
            raise PlanError(f"{label}: destination {to} is occupied")
        if self.router is None:
            path = [frm, to]
        else:
            obs = self.obstacles(frm)
            found = self.router.route(frm, to, obs)
            if found is None:
                if depth >= 2:
                    raise PlanError(f"{label}: no clear route from {frm} to {to}")
                self._carry_with_blockers(frm, to, purpose, label, depth)
                return
            path = found
            self.min_gap = min(self.min_gap,
                               path_clearance(path, obs) - self.cfg.board.disc_diameter_mm)
        n = self._take(frm)
        drop_onto = self.count_at(to)
        self._put(to, n)
        self.steps.append(Carry(tuple(path), n, drop_onto, purpose, label))
        self.pos = to

    def _carry_with_blockers(self, frm: Point, to: Point, purpose: str, label: str,
                             depth: int) -> None:
        assert self.router is not None
        obs = self.obstacles(frm)
        found = self.router.route_through(frm, to, obs)
        if found is None:
            raise PlanError(f"{label}: no route from {frm} to {to} on the configured surface")
        raw, hit = found
        blockers = sorted((obs[i] for i in hit), key=lambda p: _along(raw, p))
        parked: list[tuple[Point, Point]] = []
        for b in blockers:
            spot = self._parking_spot(b, raw, frm)
            if spot is None:
                raise PlanError(f"{label}: no room to move the disc at {b} aside")
            self.carry(b, spot, "aside", self._name(b), depth + 1)
            parked.append((b, spot))
        self.carry(frm, to, purpose, label, depth + 1)
        for home, spot in reversed(parked):
            self.carry(spot, home, "back", self._name(home), depth + 1)

    def _parking_spot(self, b: Point, path: list[Point], mover: Point) -> Point | None:
        """A free lattice point near `b`, clear of the mover's path, reachable from `b`."""
        assert self.router is not None
        keep = self.router.keep_mm
        others = self.obstacles(b)
        cands = sorted((p for p in self.router._lattice.values()
                        if math.dist(p, b) <= 3.5 * self.s),
                       key=lambda p: (math.dist(p, b), p))
        for p in cands:
            if not self.router.point_clear(p, others):
                continue
            if any(segment_distance(p, a, c) < keep for a, c in zip(path, path[1:], strict=False)):
                continue
            if math.dist(p, mover) < keep:
                continue
            if self.router.route(b, p, others) is not None:
                return p
        return None

    def _name(self, p: Point) -> str:
        f, r = math.floor(p[0] / self.s), math.floor(p[1] / self.s)
        sq = self.board.geometry.square_at(f, r)
        return self.board.square_name(sq) if sq is not None else f"({p[0]:.0f},{p[1]:.0f})"

    # -- the tray ---------------------------------------------------------------------------
    def free_slots_by_distance(self, p: Point) -> list[int]:
        slots = self.cfg.tray.capture_slots
        free = [i for i, s in enumerate(slots) if self.count_at(s) == 0]
        return sorted(free, key=lambda i: (math.dist(slots[i], p), i))

    def remove_to_tray(self, p: Point, label: str) -> None:
        slots = self.cfg.tray.capture_slots
        free = self.free_slots_by_distance(p)
        if not free:
            raise PlanError(f"{label}: the tray is full ({len(slots)} slots)")
        last: PlanError | None = None
        for i in free[:SLOT_ROUTE_TRIES]:
            saved = (dict(self.stacks), list(self.steps), self.min_gap, self.pos)
            try:
                self.carry(p, slots[i], "capture", f"{label} -> tray {i + 1}")
                return
            except PlanError as e:
                self.stacks, self.steps, self.min_gap, self.pos = saved
                last = e
        assert last is not None
        raise last

    def removal_order(self, pieces: list[Point]) -> list[Point]:
        """Order captured pieces to minimise straight-line travel (exhaustive up to 6)."""
        if self.cfg.removal_order == "jump" or len(pieces) <= 1:
            return pieces
        slots = self.cfg.tray.capture_slots
        occupied = {i for i, s in enumerate(slots) if self.count_at(s)}

        def cost(order: tuple[Point, ...] | list[Point]) -> float:
            cur, used, total = self.pos, set(occupied), 0.0
            for p in order:
                free = [i for i in range(len(slots)) if i not in used]
                if not free:
                    return math.inf
                i = min(free, key=lambda j: (math.dist(slots[j], p), j))
                used.add(i)
                total += math.dist(cur, p) + math.dist(p, slots[i])
                cur = slots[i]
            return total

        if len(pieces) <= 6:
            def key(o: tuple[Point, ...]) -> tuple[float, tuple[Point, ...]]:
                return (cost(o), o)

            return list(min(itertools.permutations(pieces), key=key))
        order: list[Point] = []
        rest = list(pieces)
        cur = self.pos
        while rest:
            nxt = min(rest, key=lambda p: (math.dist(cur, p), p))
            order.append(nxt)
            rest.remove(nxt)
            cur = nxt
        return order


def _along(path: list[Point], p: Point) -> float:
    """Arc length along `path` of the point closest to `p` (orders blockers along a route)."""
    best, best_s, s0 = math.inf, 0.0, 0.0
    for a, b in zip(path, path[1:], strict=False):
        d = segment_distance(p, a, b)
        if d < best:
            best, best_s = d, s0 + math.dist(a, p)
        s0 += math.dist(a, b)
    return best_s


def plan_move(board: Board, move: Move, config: RobotConfig, tray: TrayState | None = None,
              start_mm: Point | None = None) -> Plan:
    """The physical plan of `move` (legal in `board`) for the configured robot."""
    cfg = config.for_grid(board.variant.width)
    if tray is None:
        tray = TrayState.initial(cfg)
    assert cfg.motion.park_mm is not None
    start = start_mm if start_mm is not None else cfg.motion.park_mm
    name = board.move_name(move)
    after = board.copy(stack=False)
    after.push(move)
    s = cfg.board.square_mm
    pl = _Planner(board, cfg, tray, start)
    frm = square_centre_mm(board, move.from_square, s)
    to = square_centre_mm(board, move.to_square, s)
    piece = board.piece_at(move.from_square)
    assert piece is not None
    lower = math.dist(frm, to)
    if move.from_square != move.to_square:
        pl.carry(frm, to, "move", name)
    captured = [square_centre_mm(board, q, s) for q in move.captured]
    slots = cfg.tray.capture_slots
    for p in captured:
        lower += min((math.dist(p, q) for q in slots), default=0.0)
    for p in pl.removal_order(captured):
        pl.remove_to_tray(p, f"x{pl._name(p)}")
    if move.promotes:
        _crown(pl, board, move, piece, to)
        # A crown, a ready-made king or the man it replaces must move too.
        lower += sum(math.dist(c.path[0], c.path[-1]) for c in pl.steps
                     if isinstance(c, Carry) and c.purpose in ("crown", "king", "unmake"))
    end = pl.pos
    if cfg.is_overhead:
        end = cfg.motion.park_mm
    return Plan(name, tuple(pl.steps), start, end, pl.min_gap, _tray_state(pl, cfg),
                after.placement(), lower, cfg)


def _crown(pl: _Planner, board: Board, move: Move, piece: Piece, to: Point) -> None:
    cfg = pl.cfg
    color = piece.color
    spares = cfg.tray.spare_white if color is Color.WHITE else cfg.tray.spare_black
    sqname = board.square_name(move.to_square)
    stocked = sorted((i for i, p in enumerate(spares) if pl.count_at(p) > 0),
                     key=lambda i: (math.dist(spares[i], to), i))
    if cfg.is_overhead and stocked:
        pl.carry(spares[stocked[0]], to, "crown", f"crown {sqname}")
        return
    if not cfg.is_overhead and cfg.crown == "tray-king" and stocked:
        king = spares[stocked[0]]
        if pl.count_at(king) >= 2:
            pl.remove_to_tray(to, f"man {sqname}")
            last = pl.steps[-1]
            assert isinstance(last, Carry)
            pl.steps[-1] = replace(last, purpose="unmake")
            pl.carry(king, to, "king", f"king {sqname}")
            return
    pl.steps.append(AskCrown(sqname, to, color))
    pl._put(to, 1)  # the person stacks it


def _tray_state(pl: _Planner, cfg: RobotConfig) -> TrayState:
    t = cfg.tray
    return TrayState(tuple(pl.count_at(p) for p in t.capture_slots),
                     tuple(pl.count_at(p) for p in t.spare_white),
                     tuple(pl.count_at(p) for p in t.spare_black))
