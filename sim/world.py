"""The physical world of the simulated table: where every disc stands, in millimetres.

This is the shared ground truth of the simulated table.  The GRBL emulator (`sim.grbl`) moves
discs in it as the magnet drags or lifts them; the rendered camera (`sim.render`) draws it; the
simulated opponent moves discs with its "hand".  A king is two discs of one colour stacked
(`level` 0 and 1 at the same spot).

Frame: board coordinates in mm, origin at the outer corner of the playing grid next to square
a1, x along rank 1 towards h1, y along the a-file towards a8, z up from the playing surface.
Tray slots and anything off the grid have coordinates outside [0, grid * square_mm].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from game.board import BaseBoard, Color, Piece
from game.geometry import geometry


@dataclass(frozen=True)
class TableSpec:
    """Physical sizes of the board and pieces (defaults: a common 40 mm-square club board)."""

    grid: int = 8
    square_mm: float = 40.0
    border_mm: float = 20.0  # frame around the playing grid
    disc_diameter_mm: float = 30.0
    disc_height_mm: float = 7.0


@dataclass
class Disc:
    """One physical piece.  `level` 1 means it sits on top of another disc (a crown)."""

    id: int
    color: Color
    x_mm: float
    y_mm: float
    level: int = 0


@dataclass
class World:
    spec: TableSpec = field(default_factory=TableSpec)
    discs: list[Disc] = field(default_factory=list)
    _next_id: int = 0

    # -- geometry ---------------------------------------------------------------------------
    def square_center_mm(self, file: int, rank: int) -> tuple[float, float]:
        s = self.spec.square_mm
        return ((file + 0.5) * s, (rank + 0.5) * s)

    def square_of_point(self, x_mm: float, y_mm: float) -> tuple[int, int] | None:
        """(file, rank) of the square containing the point, or None off the grid."""
        s, n = self.spec.square_mm, self.spec.grid
        f, r = math.floor(x_mm / s), math.floor(y_mm / s)
        if 0 <= f < n and 0 <= r < n:
            return f, r
        return None

    # -- building ---------------------------------------------------------------------------
    def add_disc(self, color: Color, x_mm: float, y_mm: float, level: int = 0) -> Disc:
        disc = Disc(self._next_id, color, x_mm, y_mm, level)
        self._next_id += 1
        self.discs.append(disc)
        return disc

    @classmethod
    def from_board(cls, board: BaseBoard, spec: TableSpec | None = None) -> World:
        """Discs centred on the squares of `board`; a king is a stack of two."""
        world = cls(spec or TableSpec(grid=board.variant.width))
        geo = geometry(board.variant.width, board.variant.height)
        for sq, piece in sorted(board.piece_map().items()):
            x, y = world.square_center_mm(*geo.coords[sq])
            world.add_disc(piece.color, x, y, 0)
            if piece.is_king:
                world.add_disc(piece.color, x, y, 1)
        return world

    # -- reading ----------------------------------------------------------------------------
    def discs_on_grid(self) -> list[Disc]:
        return [d for d in self.discs if self.square_of_point(d.x_mm, d.y_mm) is not None]

    def placement(self, board: BaseBoard) -> BaseBoard:
        """What stands on the playable squares, as a placement-only board of `board`'s variant.

        A square holds the colour of its bottom disc; two or more discs make a king.  Discs
        off the grid (tray, hand) are ignored.
        """
        geo = geometry(board.variant.width, board.variant.height)
        stacks: dict[int, list[Disc]] = {}
        for d in self.discs_on_grid():
            fr = self.square_of_point(d.x_mm, d.y_mm)
            assert fr is not None
            sq = geo.square_at(*fr)
            if sq is None:
                continue
            stacks.setdefault(sq, []).append(d)
        out = BaseBoard.empty(board.variant)
        for sq, ds in stacks.items():
            bottom = min(ds, key=lambda d: d.level)
            out.set_piece_at(sq, Piece.of(bottom.color, king=len(ds) >= 2))
        return out

    def discs_at(self, x_mm: float, y_mm: float, radius_mm: float | None = None) -> list[Disc]:
        """Discs whose centre lies within `radius_mm` (default: half a disc) of the point."""
        r = self.spec.disc_diameter_mm / 2 if radius_mm is None else radius_mm
        return [d for d in self.discs if math.hypot(d.x_mm - x_mm, d.y_mm - y_mm) <= r]
