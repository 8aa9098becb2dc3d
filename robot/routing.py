"""Collision-free paths for a disc slid across the board from below.

A disc pushed by an under-board magnet cannot pass through other discs, so its centre must
keep `disc_diameter + min_clearance` from every other disc centre.  On a draughts board that
leaves the always-empty light squares, the empty dark squares and, when pieces are small
enough, the lines and corners between squares.  The router searches a lattice at half-square
spacing (square centres, edge midpoints, corners) restricted to the reachable surface (board,
frame, the strip to the tray), with A*; then it pulls the path straight wherever a direct
segment is clear, so routes are short and have few segments.

When no clear path exists, `route_through` finds the path that crosses the fewest discs, so
the planner can move those blockers aside first.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class Rect:
    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, p: Point, eps: float = 1e-6) -> bool:
        return (self.x0 - eps <= p[0] <= self.x1 + eps) and (self.y0 - eps <= p[1] <= self.y1 + eps)


def segment_distance(p: Point, a: Point, b: Point) -> float:
    """Distance from point p to the segment a-b."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    ll = dx * dx + dy * dy
    if ll <= 1e-12:
        return math.hypot(p[0] - ax, p[1] - ay)
    t = ((p[0] - ax) * dx + (p[1] - ay) * dy) / ll
    t = 0.0 if t < 0 else 1.0 if t > 1 else t
    return math.hypot(p[0] - (ax + t * dx), p[1] - (ay + t * dy))


def path_clearance(path: Sequence[Point], obstacles: Iterable[Point]) -> float:
    """Smallest centre distance between a polyline and the obstacle centres (inf if none)."""
    best = math.inf
    obs = list(obstacles)
    for a, b in zip(path, path[1:], strict=False):
        for o in obs:
            d = segment_distance(o, a, b)
            if d < best:
                best = d
    if len(path) == 1:
        for o in obs:
            best = min(best, math.dist(o, path[0]))
    return best


def _key(p: Point) -> tuple[int, int]:
    return (round(p[0] * 100), round(p[1] * 100))


class Router:
    """A* over a half-square lattice inside `surface` (a union of rectangles)."""

    def __init__(self, surface: Sequence[Rect], step_mm: float, keep_mm: float,
                 extra_nodes: Iterable[Point] = ()) -> None:
        self.surface = tuple(surface)
        self.step_mm = step_mm
        self.keep_mm = keep_mm  # minimum centre-to-centre distance to any other disc
        nodes: dict[tuple[int, int], Point] = {}
        for r in self.surface:
            i0, i1 = math.ceil(r.x0 / step_mm - 1e-9), math.floor(r.x1 / step_mm + 1e-9)
            j0, j1 = math.ceil(r.y0 / step_mm - 1e-9), math.floor(r.y1 / step_mm + 1e-9)
            for i in range(i0, i1 + 1):
                for j in range(j0, j1 + 1):
                    p = (i * step_mm, j * step_mm)
                    nodes[_key(p)] = p
        self._lattice = dict(nodes)
        for p in extra_nodes:
            nodes[_key(p)] = p
        self.nodes = nodes
        self._neigh: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for k, p in self._lattice.items():
            out = []
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    q = (p[0] + di * step_mm, p[1] + dj * step_mm)
                    qk = _key(q)
                    if (di or dj) and qk in self._lattice and self.on_surface(p, q):
                        out.append(qk)
            self._neigh[k] = out
        for p in extra_nodes:
            k = _key(p)
            self._neigh[k] = self._near(p, exclude=k)
            for q in self._neigh[k]:
                self._neigh.setdefault(q, []).append(k)

    def _near(self, p: Point, exclude: tuple[int, int] | None = None) -> list[tuple[int, int]]:
        """Nodes within 1.5 steps whose connecting segment lies on the surface."""
        s = self.step_mm
        out = []
        for k, q in self.nodes.items():
            if k == exclude:
                continue
            if abs(q[0] - p[0]) <= 1.5 * s + 1e-6 and abs(q[1] - p[1]) <= 1.5 * s + 1e-6:
                if math.dist(p, q) <= 1.5 * s + 1e-6 and self.on_surface(p, q):
                    out.append(k)
        return out

    # -- geometry -------------------------------------------------------------------------
    def point_on_surface(self, p: Point) -> bool:
        return any(r.contains(p) for r in self.surface)

    def on_surface(self, a: Point, b: Point) -> bool:
        n = max(1, math.ceil(math.dist(a, b) / 5.0))
        for i in range(n + 1):
            t = i / n
            if not self.point_on_surface((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))):
                return False
        return True

    def point_clear(self, p: Point, obstacles: Sequence[Point]) -> bool:
        k = self.keep_mm - 1e-6
        return all(math.hypot(p[0] - o[0], p[1] - o[1]) >= k for o in obstacles)

    def blockers_of(self, a: Point, b: Point, obstacles: Sequence[Point]) -> list[int]:
        """Indices of the obstacles closer than `keep_mm` to the segment a-b."""
        k = self.keep_mm - 1e-6
        reach = k + math.dist(a, b) / 2
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        out = []
        for i, o in enumerate(obstacles):
            if abs(o[0] - mx) > reach or abs(o[1] - my) > reach:
                continue
            if segment_distance(o, a, b) < k:
                out.append(i)
        return out

    def segment_clear(self, a: Point, b: Point, obstacles: Sequence[Point]) -> bool:
        return not self.blockers_of(a, b, obstacles) and self.on_surface(a, b)

    # -- search ---------------------------------------------------------------------------
    def route(self, start: Point, goal: Point, obstacles: Sequence[Point]) -> list[Point] | None:
        """A clear, straightened polyline from start to goal, or None."""
        if math.dist(start, goal) < 1e-6:
            return [start]
        if not self.point_clear(goal, obstacles):
            return None
        if self.segment_clear(start, goal, obstacles):
            return [start, goal]
        raw = self._search(start, goal, obstacles, penalty_mm=None)
        return None if raw is None else self.straighten(raw[0], obstacles)

    def route_through(self, start: Point, goal: Point,
                      obstacles: Sequence[Point]) -> tuple[list[Point], set[int]] | None:
        """The path that collides with the fewest discs, and the indices of those discs."""
        raw = self._search(start, goal, obstacles, penalty_mm=2000.0)
        if raw is None:
            return None
        return raw

    def straighten(self, path: list[Point], obstacles: Sequence[Point]) -> list[Point]:
        out = [path[0]]
        i = 0
        while i < len(path) - 1:
            j = len(path) - 1
            while j > i + 1 and not self.segment_clear(path[i], path[j], obstacles):
                j -= 1
            out.append(path[j])
            i = j
        return out

    def _search(self, start: Point, goal: Point, obstacles: Sequence[Point],
                penalty_mm: float | None) -> tuple[list[Point], set[int]] | None:
        nodes = dict(self.nodes)
        sk, gk = _key(start), _key(goal)
        nodes[sk], nodes[gk] = start, goal
        extra: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for k in (sk, gk):
            if k not in self.nodes:
                near = self._near(nodes[k])
                extra[k] = near
                for q in near:
                    extra.setdefault(q, list(self._neigh.get(q, []))).append(k)
        if sk not in self.nodes and gk not in self.nodes and math.dist(start, goal) <= \
                1.5 * self.step_mm and self.on_surface(start, goal):
            extra[sk].append(gk)

        def neighbours(k: tuple[int, int]) -> list[tuple[int, int]]:
            return extra.get(k) or self._neigh.get(k, [])

        node_ok: dict[tuple[int, int], bool] = {}

        def ok(k: tuple[int, int]) -> bool:
            v = node_ok.get(k)
            if v is None:
                v = k == sk or self.point_clear(nodes[k], obstacles)
                node_ok[k] = v
            return v

        g_cost = {sk: 0.0}
        parent: dict[tuple[int, int], tuple[int, int]] = {}
        heap = [(math.dist(start, goal), 0.0, sk)]
        closed: set[tuple[int, int]] = set()
        while heap:
            _, g, k = heapq.heappop(heap)
            if k in closed:
                continue
            closed.add(k)
            if k == gk:
                path_keys = [k]
                while path_keys[-1] != sk:
                    path_keys.append(parent[path_keys[-1]])
                path = [nodes[q] for q in reversed(path_keys)]
                hit: set[int] = set()
                if penalty_mm is not None:
                    for a, b in zip(path, path[1:], strict=False):
                        hit.update(self.blockers_of(a, b, obstacles))
                return path, hit
            p = nodes[k]
            for q in neighbours(k):
                if q in closed:
                    continue
                pq = nodes[q]
                cost = math.dist(p, pq)
                if penalty_mm is None:
                    if not ok(q) or self.blockers_of(p, pq, obstacles):
                        continue
                else:
                    cost += penalty_mm * len(self.blockers_of(p, pq, obstacles))
                ng = g + cost
                if ng < g_cost.get(q, math.inf) - 1e-9:
                    g_cost[q] = ng
                    parent[q] = k
                    heapq.heappush(heap, (ng + math.dist(pq, goal), ng, q))
        return None
