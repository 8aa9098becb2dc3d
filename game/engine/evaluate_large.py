"""Static evaluation for 10x10 (international) draughts, in centipawns for the side to move.

Why a separate evaluator: on a 10x10 board the game is longer and more positional than on
8x8, and the terms that decide it differ (see the weights' comments).  The 8x8 evaluator
(`evaluate.py`) stays exactly as tuned for Brazilian rules.

Terms, each computed from bitboards with table lookups and `int.bit_count`:
- material (man 100, king about 3 men);
- advancement, weighted more as the board empties (an advanced man is a weakness to defend
  in the middlegame, a king in the making in the ending);
- the centre (the four squares 22, 23, 27, 28 and the two behind them on each side) and the
  edges;
- balance: men spread evenly over the left and right halves keep both wings defended;
- runaway men: a man that no enemy man can reach before it crowns, while the enemy has no
  king, is almost a king already (promotion races decide many 10x10 endings);
- the men's mobility and the kings' long diagonal, as on 8x8;
- an ending with kings on both sides counts half its material edge (mostly drawn).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from game.engine.evaluate import EvalFn, chunk_tables
from game.geometry import Geometry, geometry
from game.variants import Variant


@dataclass(frozen=True)
class LargeEvalWeights:
    man: int = 100
    king: int = 320
    # advancement per own rank 0..8, at the start (40 men) and with an empty board; the
    # evaluation interpolates on the number of men left
    advance_open: tuple[int, ...] = (0, 1, 2, 4, 6, 9, 13, 18, 24)
    advance_end: tuple[int, ...] = (0, 3, 7, 12, 18, 26, 36, 50, 66)
    back_rank: int = 6
    centre: int = 8  # the four central squares and the two behind them
    inner: int = 2  # files 2..7 and ranks 2..7
    edge: int = -4
    balance: int = 3  # per man of difference between left and right halves
    runaway: tuple[int, ...] = (0, 150, 120, 95, 70)  # by moves to crown (1..4)
    mobility: int = 2
    king_main_diagonal: int = 14
    king_centre: int = 4
    lone_king_off_diagonal: int = 150
    # with kings on both sides and at most this many men left, an advantage is worth half:
    # a king on each side makes most 10x10 endings drawn, so the side ahead keeps the other
    # from crowning rather than race it
    both_kings_few_men: int = 6


DEFAULT_LARGE_WEIGHTS = LargeEvalWeights()
PHASES = 10  # advancement weights are interpolated in tenths of the men gone


def _cone_masks(geo: Geometry, white: bool) -> tuple[int, ...]:
    """Per bit position, the squares from which an enemy man could stop a man of `white`
    standing there before it crowns: the squares ahead of it within one file more than the
    man itself can reach (the enemy moves towards it), and the two squares beside it."""
    out = [0] * (max(geo.bit_of) + 1)
    for sq, (f, r) in enumerate(geo.coords):
        cone = 0
        for sq2, (f2, r2) in enumerate(geo.coords):
            ahead = r2 - r if white else r - r2
            if ahead >= 0 and abs(f2 - f) <= ahead + 2 and sq2 != sq:
                cone |= geo.mask_of[sq2]
        out[geo.bit_of[sq]] = cone
    return tuple(out)


@cache  # the tables take a moment to build; the function is pure, so searchers share it
def make_large_evaluator(variant: Variant,
                         weights: LargeEvalWeights = DEFAULT_LARGE_WEIGHTS) -> EvalFn:
    """The evaluation of a 10x10 (or larger) variant: ``f(white, black, kings, wtm) -> cp``."""
    geo = geometry(variant.width, variant.height)
    w_, h_ = geo.width, geo.height
    wt = weights
    king_value = wt.king
    last = len(wt.advance_open) - 1

    def static_man(sq: int, white: bool) -> int:
        f, r = geo.coords[sq]
        if not white:
            f, r = w_ - 1 - f, h_ - 1 - r
        if r == h_ - 1:
            return 0
        v = wt.advance_open[min(r, last)]
        if r == 0:
            v += wt.back_rank
        if 2 <= f <= w_ - 3 and 2 <= r <= h_ - 3:
            v += wt.inner
        # the centre: ranks 4-5 (the middle two), files 3-6, and rank 3 files 4-5 behind it
        mid = h_ // 2
        if (r in (mid - 1, mid) and 3 <= f <= w_ - 4) or (r == mid - 2 and 4 <= f <= w_ - 5):
            v += wt.centre
        if f in (0, w_ - 1):
            v += wt.edge
        return v

    def end_man(sq: int, white: bool) -> int:
        f, r = geo.coords[sq]
        if not white:
            r = h_ - 1 - r
        if r == h_ - 1:
            return 0
        return wt.advance_end[min(r, last)] - wt.advance_open[min(r, last)]

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

    tk = chunk_tables(geo, king_value_at)
    shifts = tuple(i * (geo.width + 1) for i in range(len(tk)))
    cmask = (1 << (geo.width + 1)) - 1
    k_parts = tuple(zip(shifts, tk, strict=True))
    # the men's tables per phase (tenths of the men gone), so that one pass of lookups
    # gives the advancement interpolated between its opening and ending weights
    man_parts_by_phase = []
    for phase in range(PHASES + 1):
        tw = chunk_tables(geo, lambda s, p=phase: static_man(s, True)  # type: ignore[misc]
                          + end_man(s, True) * p // PHASES)
        tb = chunk_tables(geo, lambda s, p=phase: static_man(s, False)  # type: ignore[misc]
                          + end_man(s, False) * p // PHASES)
        man_parts_by_phase.append(tuple(zip(shifts, tw, tb, strict=True)))
    board_mask = geo.board_mask
    ul, ur, dr, dl = geo.shifts
    s_up1, s_up2, s_dn1, s_dn2 = ul, ur, -dr, -dl
    main_diag = 0
    left = 0
    for sq, (f, r) in enumerate(geo.coords):
        if f == r:
            main_diag |= geo.mask_of[sq]
        if f < w_ // 2:
            left |= geo.mask_of[sq]
    right = board_mask & ~left
    full_men = 2 * variant.men_per_side
    # men within 5 moves of crowning, per side, and the cones that must be empty
    runaway = wt.runaway
    reach = len(runaway) - 1
    w_near = 0
    b_near = 0
    for sq, (_f, r) in enumerate(geo.coords):
        if h_ - 1 - reach <= r < h_ - 1:
            w_near |= geo.mask_of[sq]
        if 0 < r <= reach:
            b_near |= geo.mask_of[sq]
    w_cone = _cone_masks(geo, True)
    b_cone = _cone_masks(geo, False)
    w_dist = [0] * len(w_cone)
    b_dist = [0] * len(b_cone)
    for sq, (_f, r) in enumerate(geo.coords):
        w_dist[geo.bit_of[sq]] = h_ - 1 - r
        b_dist[geo.bit_of[sq]] = r
    man = wt.man
    few_men = wt.both_kings_few_men
    mob = wt.mobility
    bal = wt.balance
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
        wk = w & k
        bk = b & k
        if k:
            nwk = wk.bit_count()
            nbk = bk.bit_count()
            if nwm + nbm <= 1 and nwk + nwm + nbk + nbm <= 4:
                if (nwk, nwm, nbk, nbm) in drawn:
                    return 0
                if nwm + nbm == 0 and (nwk == 1 or nbk == 1):
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
        for sh, t1, t2 in man_parts_by_phase[(full_men - nwm - nbm) * PHASES // full_men]:
            s += t1[(wm >> sh) & cmask] - t2[(bm >> sh) & cmask]
        empty = board_mask & ~(w | b)
        s += mob * (((wm << s_up1) & empty).bit_count() + ((wm << s_up2) & empty).bit_count()
                    - ((bm >> s_dn1) & empty).bit_count() - ((bm >> s_dn2) & empty).bit_count())
        s -= bal * (abs((wm & left).bit_count() - (wm & right).bit_count())
                    - abs((bm & left).bit_count() - (bm & right).bit_count()))
        if not bk:
            x = wm & w_near
            while x:
                low = x & -x
                x ^= low
                i = low.bit_length() - 1
                if not w_cone[i] & bm:
                    s += runaway[w_dist[i]]
        if not wk:
            x = bm & b_near
            while x:
                low = x & -x
                x ^= low
                i = low.bit_length() - 1
                if not b_cone[i] & wm:
                    s -= runaway[b_dist[i]]
        if wk and bk and nwm + nbm <= few_men:
            s = s // 2 if s >= 0 else -(-s // 2)  # kings on both sides: hard to win
        return s if wtm else -s

    return evaluate

