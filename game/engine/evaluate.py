"""Static evaluation on bitboards, in centipawns (a man = 100) for the side to move.

Why table lookups: the bitboard layout packs two ranks into `width + 1` bits, so every
piece-square sum (advancement, centre, back rank, edges, the kings' main diagonal) is the sum of
one table lookup per pair of ranks.  With `int.bit_count` for material and men's mobility, a
whole evaluation is a few dozen C-level operations, which is what keeps the search fast in pure
Python.

Known drawn endings (RULES.md s.1: 2K v 2K, 2K v 1K, 2K v 1K+1M, 1K v 1K, 1K v 1K+1M, in
whichever variant lists them) evaluate as 0: the search cannot win them inside their move
limit except by an immediate tactic, which it finds by searching, not by evaluating.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from game.geometry import Geometry, geometry
from game.variants import Variant

EvalFn = Callable[[int, int, int, bool], int]


@dataclass(frozen=True)
class EvalWeights:
    """Tunable weights (centipawns).  `advance[r]` is the bonus of a man on its own
    rank r of an 8x8 board (other boards scale the rank to 0..6)."""

    man: int = 100
    king: int = 310  # a flying king is worth about three men (RULES.md s.1 "king ≈ 3 men")
    short_king: int = 160  # a king that moves one square (English, Italian)
    advance: tuple[int, ...] = (0, 2, 5, 9, 13, 19, 30)
    back_rank: int = 8  # men still guarding their own crowning row keep enemy men out
    centre: int = 5
    edge: int = -4
    king_main_diagonal: int = 14  # the long diagonal a1-h8 decides king endings
    king_centre: int = 4
    mobility: int = 2  # per forward move available to men
    lone_king_off_diagonal: int = 150  # 3K v 1K: the lone king off the long diagonal loses


DEFAULT_WEIGHTS = EvalWeights()


def chunk_tables(geo: Geometry, value_of: Callable[[int], int]) -> tuple[list[int], ...]:
    """Per pair of ranks, a table mapping the chunk's bits to the sum of `value_of(square)`."""
    width_bits = geo.width + 1
    pairs = (geo.height + 1) // 2
    tables = []
    for chunk in range(pairs):
        base = chunk * width_bits
        bit_values = [0] * width_bits
        for sq in range(geo.squares):
            bit = geo.bit_of[sq]
            if base <= bit < base + width_bits:
                bit_values[bit - base] = value_of(sq)
        table = [0] * (1 << width_bits)
        for idx in range(1, 1 << width_bits):
            low = idx & -idx
            table[idx] = table[idx ^ low] + bit_values[low.bit_length() - 1]
        tables.append(table)
    return tuple(tables)


def make_evaluator(variant: Variant, weights: EvalWeights = DEFAULT_WEIGHTS) -> EvalFn:
    """The evaluation function of `variant`: ``f(white, black, kings, white_to_move) -> cp``.

    Boards of 10x10 and larger use their own evaluator (`evaluate_large`)."""
    if variant.width >= 10 and weights is DEFAULT_WEIGHTS:
        from game.engine.evaluate_large import make_large_evaluator
        return make_large_evaluator(variant)
    geo = geometry(variant.width, variant.height)
    w_, h_ = geo.width, geo.height
    wt = weights
    king_value = wt.king if variant.flying_kings else wt.short_king

    def man_value(sq: int, white: bool) -> int:
        f, r = geo.coords[sq]
        if not white:
            f, r = w_ - 1 - f, h_ - 1 - r
        if r == h_ - 1:
            return 0  # a man never stands on its crowning row
        v = wt.advance[r * 6 // (h_ - 2)]
        if r == 0:
            v += wt.back_rank
        if 2 <= f <= w_ - 3 and 2 <= r <= h_ - 3:
            v += wt.centre
        if f in (0, w_ - 1):
            v += wt.edge
        return v

    def king_value_at(sq: int) -> int:
        f, r = geo.coords[sq]
        v = 0
        if f == r:
            v += wt.king_main_diagonal
        if 2 <= f <= w_ - 3 and 2 <= r <= h_ - 3:
            v += wt.king_centre
        if f in (0, w_ - 1) or r in (0, h_ - 1):
            v += wt.edge
        return v

    twm = chunk_tables(geo, lambda s: man_value(s, True))
    tbm = chunk_tables(geo, lambda s: man_value(s, False))
    tk = chunk_tables(geo, king_value_at)
    shifts = tuple(i * (geo.width + 1) for i in range(len(twm)))
    cmask = (1 << (geo.width + 1)) - 1
    wm_parts = tuple(zip(shifts, twm, tbm, strict=True))
    k_parts = tuple(zip(shifts, tk, strict=True))
    board_mask = geo.board_mask
    ul, ur, dr, dl = geo.shifts
    s_up1, s_up2, s_dn1, s_dn2 = ul, ur, -dr, -dl
    main_diag = 0
    for sq, (f, r) in enumerate(geo.coords):
        if f == r:
            main_diag |= geo.mask_of[sq]
    man, giveaway = wt.man, variant.giveaway
    mob = wt.mobility
    lone_bonus = wt.lone_king_off_diagonal
    drawn: set[tuple[int, int, int, int]] = set()
    for rule in variant.endings:
        if rule.moves <= 5:
            (ka, ma), (kb, mb) = rule.sides
            drawn.add((ka, ma, kb, mb))
            drawn.add((kb, mb, ka, ma))

    def evaluate(w: int, b: int, k: int, wtm: bool) -> int:
        wm = w & ~k
        bm = b & ~k
        nwm = wm.bit_count()
        nbm = bm.bit_count()
        if k:
            wk = w & k
            bk = b & k
            nwk = wk.bit_count()
            nbk = bk.bit_count()
            if nwm + nbm <= 1 and nwk + nwm + nbk + nbm <= 4:
                if (nwk, nwm, nbk, nbm) in drawn:
                    return 0
                if nwm + nbm == 0 and (nwk == 1 or nbk == 1):
                    # 3K v 1K (or more v 1K): won only with the lone king off the long diagonal
                    s = (nwk - nbk) * king_value
                    lone = bk if nbk == 1 else wk
                    strong = wk if nbk == 1 else bk
                    bonus = 20 * (strong & main_diag).bit_count()
                    if not lone & main_diag:
                        bonus += lone_bonus
                    s = s // 3 + (bonus if nbk == 1 else -bonus)
                    return s if wtm else -s
            s = man * (nwm - nbm) + king_value * (nwk - nbk)
            for sh, t in k_parts:
                s += t[(wk >> sh) & cmask] - t[(bk >> sh) & cmask]
        else:
            s = man * (nwm - nbm)
        for sh, tw, tb in wm_parts:
            s += tw[(wm >> sh) & cmask] - tb[(bm >> sh) & cmask]
        empty = board_mask & ~(w | b)
        s += mob * (((wm << s_up1) & empty).bit_count() + ((wm << s_up2) & empty).bit_count()
                    - ((bm >> s_dn1) & empty).bit_count() - ((bm >> s_dn2) & empty).bit_count())
        if giveaway:
            s = -s
        return s if wtm else -s

    return evaluate
