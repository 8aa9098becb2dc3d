"""The simulated human: a hand that reaches in, lifts, carries and puts down discs.

A `Table` owns a `sim.world.World` and records it at a fixed frame rate while hands act on it;
`Hand` is one player's hand (White sits at y < 0, Black beyond the far edge).  A carried disc is
out of the world (inside the hand, which hides it) until it is put down; a captured disc is put
in the player's tray, off the grid.  Every recorded `TableState` holds the discs and the hand
pose, so the renderer can draw it and `oracle_observation` can say what a perfect camera would
read from it (the squares under the hand and arm occluded, pieces off-centre displaced).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from game.board import BaseBoard, Color, Piece
from game.geometry import geometry
from game.observation import OCCLUDED, Observation, SquareView
from game.variants import Variant
from sim.world import Disc, World

HAND_SPEED_MM_S = 420.0
HAND_HEIGHT_MM = 45.0  # palm above the board while carrying
HAND_RADIUS_MM = 45.0  # squares under the palm (and fingers) are hidden from the camera
ARM_HALF_WIDTH_MM = 35.0
# A touched piece is drawn back this far and held this long: clear of the palm over its
# square, and for a few frames of a 5 fps camera (the frames with motion are hidden).
HESITATE_BACK_MM = 80.0
HESITATE_HOLD_S = 0.8
PLACE_SIGMA_MM = 1.0  # how carefully a piece is put down (clipped to PLACE_MAX_MM)
PLACE_MAX_MM = 2.5
DISPLACED_MM = 5.0  # a disc this far from its square's centre counts as displaced
NUDGE_MM = (7.0, 9.5)  # a nudge or a careless put-back


@dataclass(frozen=True)
class HandPose:
    x_mm: float
    y_mm: float
    height_mm: float
    player: Color
    carrying: int = 0  # discs in the hand

    def entry_mm(self, spec_extent_mm: float) -> tuple[float, float]:
        """Where the arm comes from: the player's edge of the table, in line with the hand."""
        return (self.x_mm, -250.0 if self.player is Color.WHITE else spec_extent_mm + 250.0)


@dataclass(frozen=True)
class TableState:
    """One frame of the simulated table."""

    frame: int
    time_s: float
    discs: tuple[Disc, ...]
    hand: HandPose | None
    announce_adjust: bool = False  # the player pressed "ajeito" at this frame


class Table:
    """A world and its recording: every hand action advances time by whole frames."""

    def __init__(self, world: World, variant: Variant, fps: float = 15.0) -> None:
        self.world = world
        self.variant = variant
        self.fps = fps
        self.frames: list[TableState] = []
        self.hand_pose: HandPose | None = None
        self.geo = geometry(variant.width, variant.height)
        self._announce = False
        self.tray_count = {Color.WHITE: 0, Color.BLACK: 0}

    @property
    def extent_mm(self) -> float:
        return self.world.spec.grid * self.world.spec.square_mm

    @property
    def time_s(self) -> float:
        return len(self.frames) / self.fps

    def snap(self) -> None:
        discs = tuple(replace(d) for d in self.world.discs)
        self.frames.append(TableState(len(self.frames), self.time_s, discs, self.hand_pose,
                                      self._announce))
        self._announce = False

    def wait(self, seconds: float) -> None:
        for _ in range(max(1, round(seconds * self.fps))):
            self.snap()

    def announce_adjust(self) -> None:
        self._announce = True

    def centre_of(self, sq: int) -> tuple[float, float]:
        return self.world.square_center_mm(*self.geo.coords[sq])

    def discs_on(self, sq: int) -> list[Disc]:
        x, y = self.centre_of(sq)
        r = self.world.spec.square_mm / 2
        return [d for d in self.world.discs
                if abs(d.x_mm - x) < r and abs(d.y_mm - y) < r]

    def tray_spot(self, color: Color) -> tuple[float, float]:
        """Next free spot in `color`'s tray of captured pieces (right of the board)."""
        n = self.tray_count[color]
        self.tray_count[color] += 1
        s = self.world.spec
        x = self.extent_mm + s.border_mm + 30.0 + 34.0 * (n % 3)
        y = (20.0 + 34.0 * (n // 3)) if color is Color.BLACK else self.extent_mm - 20.0 - 34.0 * (
            n // 3)
        return x, y

    def placement(self) -> BaseBoard:
        return self.world.placement(BaseBoard.empty(self.variant))


class Hand:
    """One player's hand.  Methods move it at a human pace, recording frames as they go."""

    def __init__(self, table: Table, player: Color, rng: random.Random) -> None:
        self.table = table
        self.player = player
        self.rng = rng
        self.held: list[Disc] = []
        self.x_mm = 0.0
        self.y_mm = 0.0

    # -- moving the hand ----------------------------------------------------------------------
    def _pose(self, height_mm: float = HAND_HEIGHT_MM) -> HandPose:
        return HandPose(self.x_mm, self.y_mm, height_mm, self.player, len(self.held))

    def enter(self, toward_x_mm: float) -> None:
        """The hand appears at the player's edge, in line with where it is going."""
        t = self.table
        self.x_mm = toward_x_mm
        self.y_mm = -60.0 if self.player is Color.WHITE else t.extent_mm + 60.0
        t.hand_pose = self._pose()
        t.snap()

    def travel(self, x_mm: float, y_mm: float, speed_mm_s: float = HAND_SPEED_MM_S) -> None:
        t = self.table
        if t.hand_pose is None:
            self.enter(x_mm)
        dist = math.hypot(x_mm - self.x_mm, y_mm - self.y_mm)
        steps = max(1, math.ceil(dist / speed_mm_s * t.fps))
        x0, y0 = self.x_mm, self.y_mm
        for i in range(1, steps + 1):
            f = i / steps
            self.x_mm = x0 + (x_mm - x0) * f
            self.y_mm = y0 + (y_mm - y0) * f
            t.hand_pose = self._pose()
            t.snap()

    def leave(self) -> None:
        """Back to the player's edge and out of view."""
        t = self.table
        edge = -60.0 if self.player is Color.WHITE else t.extent_mm + 60.0
        self.travel(self.x_mm, edge)
        t.hand_pose = None
        t.snap()

    def pause(self, seconds: float) -> None:
        self.table.wait(seconds)

    # -- acting on discs ------------------------------------------------------------------------
    def grab(self, sq: int) -> list[Disc]:
        """Lift the whole stack on `sq` (a king is two discs) into the hand."""
        t = self.table
        self.travel(*t.centre_of(sq))
        discs = t.discs_on(sq)
        if not discs:
            raise ValueError(f"no disc on {t.geo.algebraic(sq)} to grab")
        for d in discs:
            t.world.discs.remove(d)
        self.held.extend(sorted(discs, key=lambda d: d.level))
        t.hand_pose = self._pose()
        t.snap()
        t.snap()
        return discs

    def grab_from_tray(self, color: Color) -> None:
        """Take a spare disc of `color` (for a crown) from beside the board."""
        t = self.table
        x = t.extent_mm + t.world.spec.border_mm + 140.0
        y = t.extent_mm / 2
        self.travel(x, y)
        self.held.append(Disc(-1, color, x, y, 0))
        t.hand_pose = self._pose()
        t.snap()

    def put(self, sq: int, offset_mm: tuple[float, float] | None = None,
            on_top: bool = False) -> None:
        """Put the held discs down on `sq` (careful by default), or on top of its stack."""
        t = self.table
        cx, cy = t.centre_of(sq)
        if offset_mm is None:
            offset_mm = self.careful_offset()
        x, y = cx + offset_mm[0], cy + offset_mm[1]
        self.travel(x, y)
        base = len(t.discs_on(sq)) if on_top else 0
        if on_top and t.discs_on(sq):
            below = t.discs_on(sq)[0]
            x, y = below.x_mm, below.y_mm
        for i, d in enumerate(self.held):
            if d.id < 0:
                d = t.world.add_disc(d.color, x, y, base + i)
            else:
                d.x_mm, d.y_mm, d.level = x, y, base + i
                t.world.discs.append(d)
        self.held = []
        t.hand_pose = self._pose()
        t.snap()
        t.snap()

    def put_in_tray(self) -> None:
        t = self.table
        for d in self.held:
            x, y = t.tray_spot(d.color)
            self.travel(x, y)
            d.x_mm, d.y_mm, d.level = x, y, 0
            t.world.discs.append(d)
            t.snap()
        self.held = []
        t.hand_pose = self._pose()

    def hesitate(self, sq: int, back_mm: float = HESITATE_BACK_MM,
                 hold_s: float = HESITATE_HOLD_S) -> None:
        """Lift the stack on `sq`, draw it back towards the player by `back_mm` and hold it
        there `hold_s` seconds, undecided (a touched piece: its square is seen empty; the
        caller puts it back or plays it)."""
        t = self.table
        self.grab(sq)
        x, y = t.centre_of(sq)
        self.travel(x, y + (-back_mm if self.player is Color.WHITE else back_mm))
        t.wait(hold_s)

    def nudge(self, sq: int) -> None:
        """Push the disc(s) on `sq` a few mm off-centre without lifting them."""
        t = self.table
        cx, cy = t.centre_of(sq)
        self.travel(cx, cy)
        dist = self.rng.uniform(*NUDGE_MM)
        ang = self.rng.uniform(0, 2 * math.pi)
        for d in t.discs_on(sq):
            d.x_mm, d.y_mm = cx + dist * math.cos(ang), cy + dist * math.sin(ang)
        t.snap()
        t.snap()

    def careful_offset(self) -> tuple[float, float]:
        r = min(PLACE_MAX_MM, abs(self.rng.gauss(0, PLACE_SIGMA_MM)))
        a = self.rng.uniform(0, 2 * math.pi)
        return (r * math.cos(a), r * math.sin(a))

    def careless_offset(self) -> tuple[float, float]:
        r = self.rng.uniform(*NUDGE_MM)
        a = self.rng.uniform(0, 2 * math.pi)
        return (r * math.cos(a), r * math.sin(a))


# -- what a perfect camera would read ------
def hidden_squares(state: TableState, variant: Variant, extent_mm: float,
                   square_mm: float) -> frozenset[int]:
    """Squares under the palm or the arm (from the player's edge to the palm)."""
    hand = state.hand
    if hand is None:
        return frozenset()
    geo = geometry(variant.width, variant.height)
    ex, ey = hand.entry_mm(extent_mm)
    out = set()
    for sq, (f, r) in enumerate(geo.coords):
        cx, cy = (f + 0.5) * square_mm, (r + 0.5) * square_mm
        if math.hypot(cx - hand.x_mm, cy - hand.y_mm) <= HAND_RADIUS_MM + square_mm * 0.35:
            out.add(sq)
            continue
        if _segment_distance(cx, cy, ex, ey, hand.x_mm, hand.y_mm) <= (
                ARM_HALF_WIDTH_MM + square_mm * 0.35):
            out.add(sq)
    return frozenset(out)


def _segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    dx, dy = bx - ax, by - ay
    n = dx * dx + dy * dy
    u = 0.0 if n == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / n))
    return math.hypot(px - (ax + u * dx), py - (ay + u * dy))


def displaced_squares(state: TableState, world: World, variant: Variant) -> frozenset[int]:
    geo = geometry(variant.width, variant.height)
    out = set()
    for d in state.discs:
        fr = world.square_of_point(d.x_mm, d.y_mm)
        if fr is None:
            continue
        sq = geo.square_at(*fr)
        if sq is None:
            continue
        cx, cy = world.square_center_mm(*fr)
        if math.hypot(d.x_mm - cx, d.y_mm - cy) > DISPLACED_MM:
            out.add(sq)
    return frozenset(out)


def placement_of(state: TableState, world: World, variant: Variant) -> BaseBoard:
    """The pieces on the playable squares in `state` (a stack of two or more is a king)."""
    snapshot = World(world.spec, list(state.discs))
    return snapshot.placement(BaseBoard.empty(variant))


def oracle_observation(state: TableState, world: World, variant: Variant) -> Observation:
    """What a flawless camera reads from `state`: ground truth, the hand's squares hidden."""
    spec = world.spec
    board = placement_of(state, world, variant)
    hidden = hidden_squares(state, variant, spec.grid * spec.square_mm, spec.square_mm)
    views: list[SquareView] = []
    for sq in board.squares:
        views.append(OCCLUDED if sq in hidden else board.piece_at(sq))
    displaced = displaced_squares(state, world, variant) - hidden
    return Observation(variant, tuple(views), frozenset(displaced), state.hand is not None,
                       (), state.frame, state.time_s)


def piece_at_state(state: TableState, world: World, variant: Variant, sq: int) -> Piece | None:
    return placement_of(state, world, variant).piece_at(sq)


# -- drawing the hand with the rendered camera ------
def scene_hand(pose: HandPose, scene: object, extent_mm: float) -> object:
    """`sim.scene.Hand` for `pose`: the arm enters the image where the player's edge of the
    table leaves the picture, in line with the hand."""
    import numpy as np

    from sim.render import camera_pose, project_points
    from sim.scene import Hand as SceneHand

    cam = scene.camera  # type: ignore[attr-defined]
    r, t, _ = camera_pose(scene)  # type: ignore[arg-type]
    w, h = cam.width_px, cam.height_px
    ex, ey = pose.entry_mm(extent_mm)
    step = -1.0 if pose.player is Color.WHITE else 1.0
    entry = None
    for i in range(1, 80):  # walk away from the hand towards the player until out of view
        y = pose.y_mm + step * 25.0 * i
        pt = np.array([[pose.x_mm + (ex - pose.x_mm) * 0.0, y, pose.height_mm]])
        depth = float((pt @ r.T + t)[0, 2])
        if depth <= 50.0:
            break
        px = project_points(pt, cam, r, t)[0]
        entry = (float(px[0]) / w, float(px[1]) / h)
        if not (-0.02 <= entry[0] <= 1.02 and -0.02 <= entry[1] <= 1.02):
            break
    if entry is None:
        entry = (0.5, 1.05 if pose.player is Color.WHITE else -0.05)
    entry = (min(1.05, max(-0.05, entry[0])), min(1.05, max(-0.05, entry[1])))
    skin = (120.0, 155.0, 205.0) if pose.player is Color.WHITE else (80.0, 110.0, 160.0)
    return SceneHand(entry, (pose.x_mm, pose.y_mm), pose.height_mm, 85.0, skin)
