"""Put the physical board back to the game's position after a fault, with the gantry.

After missed steps, a piece dropped on the way, or a capture removal cut short by an alarm, the
discs are not where the game says.  The camera reports where the disc stacks really are (board
frame, mm, colour, one disc or two); `plan_repair` matches them to the squares of the expected
placement and plans the carries that close the gap, routed round the other discs exactly as a
normal move (`robot.planner`'s carries and router):

- a stack on its square (within `centre_tolerance_mm`) with the right piece stays;
- a stack off its square, or on a square where the game wants something else, is carried to the
  nearest square that misses a piece of its kind, or to a free tray slot if none does;
- a square that misses a piece no stack on the table can supply (a king where there is only a
  man, a piece that fell off the table) is left to the person: `Repair.person` names it.

Everything is deterministic: the same sightings give the same plan.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from game.board import BaseBoard, Color, Piece
from robot.config import RobotConfig
from robot.errors import PlanError
from robot.planner import AskCrown, Plan, TrayState, _Planner, _tray_state, square_centre_mm

Point = tuple[float, float]
CENTRE_TOLERANCE_MM = 5.0  # the vision's "displaced" threshold: closer counts as on the square


@dataclass(frozen=True)
class SeenStack:
    """One stack of discs the camera found on the table (board frame, mm)."""

    x_mm: float
    y_mm: float
    color: Color
    discs: int = 1  # 2: a king (a crowned stack)

    @property
    def at(self) -> Point:
        return (self.x_mm, self.y_mm)

    @property
    def piece(self) -> Piece:
        return Piece.of(self.color, king=self.discs >= 2)


@dataclass(frozen=True)
class Fix:
    """A square only the person can put right: `want` is what must stand there (None: empty)."""

    square: int
    want: Piece | None
    reason: str


@dataclass(frozen=True)
class Repair:
    plan: Plan | None  # the robot's carries (None: nothing for the robot to carry)
    person: tuple[Fix, ...]  # what is left for the person
    moved: int  # stacks the plan carries

    @property
    def complete(self) -> bool:
        return not self.person


def plan_repair(expected: BaseBoard, seen: Sequence[SeenStack], config: RobotConfig,
                tray: TrayState | None = None, start_mm: Point | None = None,
                centre_tolerance_mm: float = CENTRE_TOLERANCE_MM) -> Repair:
    """The carries that turn the sighted stacks into `expected` (see the module docstring).

    Stacks outside the robot's surface (board, its frame and the capture tray) are left alone:
    they are the person's captured pieces or spares, and only obstacles here."""
    cfg = config.for_grid(expected.variant.width)
    if tray is None:
        tray = TrayState.initial(cfg)
    assert cfg.motion.park_mm is not None
    start = start_mm if start_mm is not None else cfg.motion.park_mm
    s = cfg.board.square_mm
    side = cfg.board.grid * s
    frame = cfg.board.border_mm
    slots = cfg.tray.capture_slots
    spares = cfg.tray.spare_white + cfg.tray.spare_black
    # (the planner only reads the placement and square names of the board it is given)
    empty_tray = TrayState((0,) * len(slots), (0,) * len(cfg.tray.spare_white),
                           (0,) * len(cfg.tray.spare_black))
    pl = _Planner(expected, cfg, empty_tray, start)  # type: ignore[arg-type]
    centres = {sq: square_centre_mm(expected, sq, s) for sq in expected.squares}
    anchors = list(centres.values()) + list(slots) + list(spares)
    # A stack within the tolerance of a square centre or a tray spot is taken to stand on it
    # (so the planner's table model knows that spot is taken).
    seen = [_snap(st, anchors, centre_tolerance_mm) for st in seen]
    pl.stacks.clear()
    for st in seen:
        pl._put(st.at, st.discs)
    correct: set[int] = set()
    movable: list[SeenStack] = []  # stacks the robot must carry somewhere
    for st in sorted(seen, key=lambda t: (t.x_mm, t.y_mm, t.discs)):
        sq = _square_at(centres, st.at, centre_tolerance_mm)
        if sq is not None:
            if expected.piece_at(sq) is st.piece and sq not in correct:
                correct.add(sq)
            else:
                movable.append(st)
            continue
        if any(math.dist(st.at, p) <= centre_tolerance_mm for p in slots + spares):
            continue  # in the tray: where it belongs
        on_board_area = -frame <= st.x_mm <= side + frame and -frame <= st.y_mm <= side + frame
        in_tray_area = _in_tray_area(st.at, slots, cfg.board.disc_diameter_mm + 6.0)
        if on_board_area or in_tray_area:
            movable.append(st)
    missing = [sq for sq, p in sorted(expected.piece_map().items()) if sq not in correct]

    # Match each missing square with the nearest movable stack of exactly that piece.
    assignments: list[tuple[SeenStack, int | None]] = []
    person: list[Fix] = []
    free = list(movable)
    crowns: set[int] = set()
    for sq in missing:
        want = expected.piece_at(sq)
        assert want is not None
        cands = [st for st in free if st.piece is want]
        if not cands and want.is_king:
            # a promotion cut short: bring the man and ask for the crown, as the move would
            cands = [st for st in free if st.piece is Piece.of(want.color, king=False)]
            if cands:
                crowns.add(sq)
        if not cands:
            person.append(Fix(sq, want, "no such piece on the table for the robot to bring"))
            continue
        best = min(cands, key=lambda st: (math.dist(st.at, centres[sq]), st.at))
        free.remove(best)
        assignments.append((best, sq))
    for st in free:
        assignments.append((st, None))  # to the tray

    moved = _execute_assignments(pl, expected, assignments, centres, person, crowns)
    if not pl.steps:
        return Repair(None, tuple(person), 0)
    plan = Plan("repair", tuple(pl.steps), start, pl.pos, pl.min_gap, _tray_state(pl, cfg),
                expected, 0.0, cfg)
    return Repair(plan, tuple(sorted(person, key=lambda f: f.square)), moved)


def _execute_assignments(pl: _Planner, expected: BaseBoard,
                         assignments: list[tuple[SeenStack, int | None]],
                         centres: dict[int, Point], person: list[Fix],
                         crowns: set[int]) -> int:
    """Carry in an order that never drops a disc onto another: a stack whose square is still
    taken waits until the stack there has left; a cycle is broken through a free tray slot."""
    diam = pl.cfg.board.disc_diameter_mm
    pending = [(st.at, sq, st) for st, sq in assignments]
    moved = 0

    def taken(p: Point, own: Point) -> bool:
        return any(math.dist(q, p) < diam and math.dist(q, own) > 1e-6
                   for q, _ in pl.stacks.values())

    while pending:
        progress = False
        for item in list(pending):
            at, sq, st = item
            if sq is not None and taken(centres[sq], at):
                continue
            pending.remove(item)
            progress = True
            label = (f"repair {expected.square_name(sq)}" if sq is not None
                     else "repair: stray piece")
            try:
                if sq is None:
                    pl.remove_to_tray(at, label)
                elif math.dist(at, centres[sq]) > 1e-6:
                    pl.carry(at, centres[sq], "back", label)
                if sq is not None and sq in crowns:
                    pl.steps.append(AskCrown(expected.square_name(sq), centres[sq], st.color))
                    pl._put(centres[sq], 1)  # the person stacks it
                moved += 1
            except PlanError as e:
                if sq is not None:
                    person.append(Fix(sq, expected.piece_at(sq), f"the robot cannot reach it "
                                                                 f"({e})"))
                else:
                    near = _nearest_square(centres, at)
                    person.append(Fix(near, expected.piece_at(near),
                                      "take away the piece lying near here"))
        if not progress:
            # Every remaining destination is held by another stack that must move: park one in
            # the tray first, then bring it back from there.
            at, sq, st = pending.pop(0)
            try:
                pl.remove_to_tray(at, "repair: make room")
                slot = pl.pos
                pending.append((slot, sq, st))
                moved += 1
            except PlanError as e:
                assert sq is not None
                person.append(Fix(sq, expected.piece_at(sq), f"no room to make ({e})"))
    return moved


def _snap(st: SeenStack, anchors: Sequence[Point], tol_mm: float) -> SeenStack:
    for p in anchors:
        if math.dist(p, st.at) <= tol_mm:
            return SeenStack(p[0], p[1], st.color, st.discs)
    return st


def _square_at(centres: dict[int, Point], p: Point, tol_mm: float) -> int | None:
    for sq, c in centres.items():
        if math.dist(c, p) <= tol_mm:
            return sq
    return None


def _nearest_square(centres: dict[int, Point], p: Point) -> int:
    return min(centres, key=lambda sq: (math.dist(centres[sq], p), sq))


def _in_tray_area(p: Point, slots: Sequence[Point], pitch_mm: float) -> bool:
    if not slots:
        return False
    xs = [q[0] for q in slots]
    ys = [q[1] for q in slots]
    return (min(xs) - pitch_mm <= p[0] <= max(xs) + pitch_mm
            and min(ys) - pitch_mm <= p[1] <= max(ys) + pitch_mm)


def tray_from_sightings(config: RobotConfig, seen: Sequence[SeenStack],
                        tol_mm: float = CENTRE_TOLERANCE_MM) -> TrayState:
    """The tray as the camera sees it (after a fault the planned tray state is not trusted)."""
    t = config.tray

    def count(p: Point) -> int:
        return sum(st.discs for st in seen if math.dist(st.at, p) <= tol_mm)

    return TrayState(tuple(count(p) for p in t.capture_slots),
                     tuple(count(p) for p in t.spare_white),
                     tuple(count(p) for p in t.spare_black))
