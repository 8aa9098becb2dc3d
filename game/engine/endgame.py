"""Kings against a lone king (3K, 2K or 1K v 1K): distance-to-win tables by retrograde analysis.

Why tables: the win of 3 kings v 1 on an 8x8 board with flying kings (possible while the lone
king cannot keep the long diagonal) takes up to a dozen precise moves, often sacrificing kings
so that the lone king must capture into a position where it is taken — far beyond what a
Python search sees, and the rules allow only 20 moves (RULES.md s.1).  So the engine knows the
shortest win instead of searching for it.  The tables cover every 8x8 variant whose kings fly
and whose aim is to capture (Brazilian, Russian, Spanish, Portuguese): king moves and king
captures are the same in all of them; only the move limits differ.

A value is the distance to win in plies: how many plies until the lone king is captured or
blocked, the strong side minimising, the lone side maximising.  When the lone king captures,
play goes on in the smaller ending (3K v 1K -> 2K v 1K -> 1K v 1K), which counts as won only if
its own win fits within its move limit counted from the capture (RULES.md: 2K v 1K and
1K v 1K are drawn after 5 moves; Russian: the 15 king-move rule).  Whether a 3K v 1K win fits
in the 20 moves that remain is for the caller to compare (`Searcher` does).

Construction: king moves are reversible, so the predecessors of a position are its own quiet
king moves made by the side that just moved.  Positions are settled in increasing distance
(bucket queue): the strong side's at its first winning move, the lone side's once all its moves
are known to lose (a countdown per position).  It takes a few seconds, so the tables for the
limits the variants use ship as data (`kings_data.py`, made by
`python -m game.engine.make_kings_data`; a test rebuilds and compares them).
"""

from __future__ import annotations

import base64
import zlib
from functools import cache
from itertools import combinations

from game.geometry import geometry
from game.movegen import MoveGenerator, generator_for
from game.variants import Variant, find_variant

_SQUARES = 32


class _Table:
    """One material class: `strong` kings v 1 king, both sides to move."""

    def __init__(self, strong: int) -> None:
        geo = geometry(8, 8)
        self.strong = strong
        self.combos = [sum(geo.mask_of[s] for s in c)
                       for c in combinations(range(_SQUARES), strong)]
        self.comb_index = {m: i for i, m in enumerate(self.combos)}
        self.dtw = bytearray(len(self.combos) * _SQUARES * 2)  # distance + 1; 0: no win
        self.sq_of = geo.square_of_mask

    def index(self, strong: int, lone: int, strong_to_move: bool) -> int:
        return (self.comb_index[strong] * _SQUARES + self.sq_of(lone)) * 2 + (
            0 if strong_to_move else 1)


class KingsTable:
    """Distance to win of every 1-3 kings v 1 king position of an 8x8 flying-king variant."""

    def __init__(self, tables: dict[int, _Table]) -> None:
        self.tables = tables

    def probe(self, white: int, black: int, kings: int, white_to_move: bool) -> int | None:
        """Plies to the end for the side to move: > 0 it wins in that many plies, < 0 it loses
        in that many, 0 no forced win for either side (or a blocked, lost position); None if
        the position is not kings v a lone king.

        Only quiet positions are meaningful: when the side to move can capture, let a search
        play the capture (the tables only know the strong side's wins)."""
        if (white | black) & ~kings:
            return None
        nw, nb = white.bit_count(), black.bit_count()
        if nb == 1 and 1 <= nw <= 3:
            v = self._probe(white, black, white_to_move)
            if v == 0 and nw == 1:  # one king each: either side may be the winner
                return self._probe(black, white, not white_to_move)
            return v
        if nw == 1 and 1 <= nb <= 3:
            return self._probe(black, white, not white_to_move)
        return None

    def _probe(self, strong: int, lone: int, strong_to_move: bool) -> int:
        """As `probe`, for the side to move, knowing which side has the kings."""
        t = self.tables[strong.bit_count()]
        v = t.dtw[t.index(strong, lone, strong_to_move)]
        if v == 0:
            return 0
        return v - 1 if strong_to_move else -(v - 1)


def table_applies(variant: Variant) -> bool:
    return (variant.width, variant.height) == (8, 8) and variant.flying_kings and \
        not variant.giveaway


def _small_ending_limit_plies(variant: Variant) -> int:
    """Plies allowed to win 2K v 1K or 1K v 1K, counted from the capture that made it."""
    limits = []
    for rule in variant.endings:
        sides = set(rule.sides)
        if sides <= {(2, 0), (1, 0)} and (1, 0) in sides:
            limits.append(2 * rule.moves)
    if variant.kings_only_moves:
        limits.append(2 * variant.kings_only_moves)
    return min(limits) if limits else 255


@cache
def kings_table(variant_name: str = "brazilian") -> KingsTable:
    """The tables of an 8x8 flying-king variant: shipped data for the limits the variants
    use (`SHIPPED_LIMITS_PLIES`), else built (a few seconds, once)."""
    variant = find_variant(variant_name)
    if not table_applies(variant):
        raise ValueError(f"no kings v lone king table for {variant.name}")
    limit = _small_ending_limit_plies(variant)
    if limit in SHIPPED_LIMITS_PLIES:
        from game.engine.kings_data import TABLES

        return decode_tables(TABLES[limit])
    return build_tables(generator_for(variant), limit)


SHIPPED_LIMITS_PLIES = (10, 30)  # Brazilian, Spanish, Portuguese: 5 moves; Russian: 15 moves


def encode_tables(table: KingsTable) -> str:
    """The distance bytes of all three tables, zlib-compressed, as base64 text."""
    raw = b"".join(bytes(table.tables[s].dtw) for s in (1, 2, 3))
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def decode_tables(text: str) -> KingsTable:
    raw = zlib.decompress(base64.b64decode(text))
    tables: dict[int, _Table] = {}
    pos = 0
    for s in (1, 2, 3):
        t = _Table(s)
        n = len(t.dtw)
        t.dtw[:] = raw[pos:pos + n]
        pos += n
        tables[s] = t
    if pos != len(raw):
        raise ValueError("kings table data has the wrong size")
    return KingsTable(tables)


def build_tables(gen: MoveGenerator, small_limit_plies: int) -> KingsTable:
    tables: dict[int, _Table] = {}
    for strong in (1, 2, 3):
        t = _Table(strong)
        _solve(gen, t, tables.get(strong - 1), tables.get(strong - 2))
        if strong < 3:
            # a smaller ending is reached by a capture, which restarts its move limit
            dtw = t.dtw
            for i in range(len(dtw)):
                if dtw[i] - 1 > small_limit_plies:
                    dtw[i] = 0
        tables[strong] = t
    return KingsTable(tables)


def _solve(gen: MoveGenerator, t: _Table, less1: _Table | None, less2: _Table | None) -> None:
    masks = geometry(8, 8).mask_of
    quiet = gen.quiet_moves
    has_capture = gen.has_capture
    dtw = t.dtw
    index = t.index
    count = [0] * len(dtw)
    buckets: dict[int, list[tuple[int, int, bool]]] = {}

    def settle(strong: int, lone: int, stm: bool, value: int) -> None:
        dtw[index(strong, lone, stm)] = value
        buckets.setdefault(value, []).append((strong, lone, stm))

    for strong in t.combos:
        for lone in masks:
            if strong & lone:
                continue
            k = strong | lone
            if has_capture(strong, lone, k, True):
                settle(strong, lone, True, 2)  # any capture takes the lone king: 1 ply
            i = index(strong, lone, False)
            if has_capture(strong, lone, k, False):
                # the lone king must capture, into a smaller ending with the strong side to move
                count[i] = -1
                worst = 0
                for m in gen.captures(strong, lone, k, False):
                    s2 = strong & ~m[2]
                    l2 = lone ^ m[0] ^ m[1]
                    left = s2.bit_count()
                    lower = less1 if left == t.strong - 1 else less2
                    v = 0 if lower is None or left == 0 else \
                        lower.dtw[lower.index(s2, l2, True)]
                    if v == 0:
                        worst = 0
                        break
                    worst = max(worst, v)
                if worst:
                    settle(strong, lone, False, worst + 1)
                continue
            n = len(quiet(strong, lone, k, False))
            count[i] = n
            if n == 0:
                settle(strong, lone, False, 1)  # blocked: lost now
    level = 1
    while buckets:
        batch = buckets.pop(level, None)
        level += 1
        if batch is None:
            continue
        for strong, lone, stm in batch:
            d = dtw[index(strong, lone, stm)]
            k = strong | lone
            if stm:
                for frm, to, _c, _p, _pa, _o in quiet(strong, lone, k, False):
                    prev = lone ^ frm ^ to
                    j = index(strong, prev, False)
                    if count[j] <= 0 or dtw[j]:
                        continue
                    count[j] -= 1
                    if count[j] == 0:
                        settle(strong, prev, False, d + 1)
            else:
                for frm, to, _c, _p, _pa, _o in quiet(strong, lone, k, True):
                    prev = strong ^ frm ^ to
                    j = index(prev, lone, True)
                    if not dtw[j]:
                        settle(prev, lone, True, d + 1)
