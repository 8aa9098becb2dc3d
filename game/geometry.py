"""Board geometry: playable squares, their bit positions, directions and names.

Squares are numbered 0..N-1 internally, rank by rank from White's side (rank 1 first), left to
right; square 0 is a1, which is always playable (dark) internally.  A board that is "turned"
(Italian, Spanish, Portuguese) is the mirror image of this one, and mirroring is a symmetry of
every rule, so only its *numbering* differs (see `square_number`).

Bitboards use a layout with one unused "ghost" bit after every two ranks
(bit = (file + rank * (width + 1)) / 2), so that every diagonal step is a constant shift:
+w/2 (up-left), +w/2+1 (up-right), -w/2 (down-right), -w/2-1 (down-left).  A step off the board
lands on a ghost bit or outside the mask, so one AND with the board mask checks the edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from game.errors import InvalidSquareError

FILES = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Geometry:
    width: int
    height: int
    # Per square (internal index).
    coords: tuple[tuple[int, int], ...]  # (file, rank), 0-based
    bit_of: tuple[int, ...]  # bit position of each square
    mask_of: tuple[int, ...]  # 1 << bit_of[sq]
    board_mask: int
    rank_masks: tuple[int, ...]  # squares of each rank (0-based)
    shifts: tuple[int, int, int, int]  # up-left, up-right, down-right, down-left (signed)
    # rays[sq][d] = the squares (as masks) from sq outward in direction d, nearest first.
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    square_at_bit: dict[int, int]  # bit position -> internal square

    @property
    def squares(self) -> int:
        return len(self.coords)

    def square_at(self, file: int, rank: int) -> int | None:
        """The internal square at (file, rank), or None if off-board or not playable."""
        if not (0 <= file < self.width and 0 <= rank < self.height) or (file + rank) % 2:
            return None
        return rank * (self.width // 2) + file // 2

    def algebraic(self, sq: int) -> str:
        file, rank = self.coords[sq]
        return f"{FILES[file]}{rank + 1}"

    def parse_algebraic(self, text: str) -> int:
        t = text.strip().lower()
        if len(t) < 2 or t[0] not in FILES or not t[1:].isdigit():
            raise InvalidSquareError(f"{text!r} is not a square name (expected e.g. 'c3')")
        sq = self.square_at(FILES.index(t[0]), int(t[1:]) - 1)
        if sq is None:
            raise InvalidSquareError(
                f"{text!r} is not a playable (dark) square of a {self.width}x{self.height} board")
        return sq

    def square_of_mask(self, mask: int) -> int:
        return self.square_at_bit[mask.bit_length() - 1]

    def squares_of(self, bb: int) -> list[int]:
        """The internal squares set in bitboard `bb`, in increasing order."""
        out = []
        sab = self.square_at_bit
        while bb:
            low = bb & -bb
            out.append(sab[low.bit_length() - 1])
            bb ^= low
        return out

    def mask(self, squares: list[int] | tuple[int, ...]) -> int:
        m = 0
        for sq in squares:
            m |= self.mask_of[sq]
        return m


@cache
def geometry(width: int, height: int) -> Geometry:
    if width % 2 or width < 4 or height < 4:
        raise ValueError(f"unsupported board {width}x{height}")
    half = width // 2
    coords = []
    for rank in range(height):
        for k in range(half):
            coords.append((2 * k + (rank % 2), rank))
    bits = tuple((f + r * (width + 1)) // 2 for f, r in coords)
    masks = tuple(1 << b for b in bits)
    board_mask = 0
    for m in masks:
        board_mask |= m
    rank_masks = []
    for rank in range(height):
        rm = 0
        for sq, (_, r) in enumerate(coords):
            if r == rank:
                rm |= masks[sq]
        rank_masks.append(rm)
    index = {(f, r): sq for sq, (f, r) in enumerate(coords)}
    deltas = ((-1, 1), (1, 1), (1, -1), (-1, -1))
    rays = []
    for f, r in coords:
        per_dir = []
        for df, dr in deltas:
            ray = []
            nf, nr = f + df, r + dr
            while (nf, nr) in index:
                ray.append(masks[index[(nf, nr)]])
                nf, nr = nf + df, nr + dr
            per_dir.append(tuple(ray))
        rays.append(tuple(per_dir))
    return Geometry(
        width=width,
        height=height,
        coords=tuple(coords),
        bit_of=bits,
        mask_of=masks,
        board_mask=board_mask,
        rank_masks=tuple(rank_masks),
        shifts=(half, half + 1, -half, -half - 1),
        rays=tuple(rays),
        square_at_bit={b: sq for sq, b in enumerate(bits)},
    )
