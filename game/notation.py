"""Square names in each variant's own notation (RULES.md s.3, PDN 3.0 GameType).

Algebraic variants (A0) name squares a1..h8 (numbers are accepted on input, 1 = b8 .. 32 = g1
as in the 8x8 PDN tools); numeric ones (N<c>) number the playable squares
1..N starting in corner c as seen by the player who moves first (0 lower left, 1 lower right,
2 upper left, 3 upper right), row by row away from that corner.  A turned board (`invert`) is
the mirror image of the internal one.  Input accepts both names and numbers when unambiguous.
"""

from __future__ import annotations

from functools import cache

from game.errors import InvalidSquareError
from game.geometry import Geometry, geometry
from game.variants import Variant


class Notation:
    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.geometry: Geometry = geometry(variant.width, variant.height)
        self.numbers: tuple[int, ...] = _numbering(variant, self.geometry)
        self._square_of_number = {n: sq for sq, n in enumerate(self.numbers)}

    def name(self, sq: int) -> str:
        """The square as the variant writes it: 'c3' or '22'."""
        if self.variant.is_algebraic:
            return self.geometry.algebraic(sq)
        return str(self.numbers[sq])

    def json_square(self, sq: int) -> str | int:
        return self.geometry.algebraic(sq) if self.variant.is_algebraic else self.numbers[sq]

    def parse(self, text: str) -> int:
        """A square from its name ('c3') or number ('22'); errors say which form was expected."""
        t = text.strip()
        if t.isascii() and t.isdigit():  # ("²".isdigit() is True, but int() refuses it)
            n = int(t)
            sq = self._square_of_number.get(n)
            if sq is None:
                raise InvalidSquareError(
                    f"square number {n} is out of range 1..{len(self.numbers)} "
                    f"for {self.variant.name}")
            return sq
        return self.geometry.parse_algebraic(t)


def _numbering(variant: Variant, geo: Geometry) -> tuple[int, ...]:
    # Algebraic variants still accept numbers on input; they number like the common 8x8 PDN
    # tools do (square 1 at the top left, b8; white starts on 21-32), i.e. corner 2.
    corner = int(variant.notation[1:] or "0") if not variant.is_algebraic else 2
    w, h = geo.width, geo.height
    # Work in "physical" coordinates as seen from the first mover's side.
    order: list[tuple[int, int]] = []
    for row in range(h):
        cols = range(w) if corner in (0, 2) else range(w - 1, -1, -1)
        rank_phys = row if corner in (0, 1) else h - 1 - row
        for col in cols:
            order.append((col, rank_phys))
    numbers = [0] * geo.squares
    n = 0
    for col, rank in order:
        f, r = col, rank
        if variant.first == "B":  # seen from the dark side: rotate 180 degrees
            f, r = w - 1 - f, h - 1 - r
        if variant.invert:  # turned board: mirror into the internal (a1 playable) board
            f = w - 1 - f
        sq = geo.square_at(f, r)
        if sq is None:
            continue
        n += 1
        numbers[sq] = n
    return tuple(numbers)


@cache
def notation_for(variant: Variant) -> Notation:
    return Notation(variant)
