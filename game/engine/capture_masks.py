"""Capture generation for the search: the moves as masks only, without their paths.

Why a second generator: inside the tree the search needs only where a capture starts and ends,
what it takes and whether it crowns; `game.movegen` also records each sequence's squares (for
people and PDN), which costs a list and two tuples per jump.  This one follows the jumps with
whole-bitboard shifts, so on 10x10 the search runs faster.  It covers the rules of the flying-
king, majority, men-capture-backwards family (Brazilian, international, giveaway); other
variants keep `game.movegen`.  `tests/engine/test_capture_masks.py` checks it against
`game.movegen` move for move.
"""

from __future__ import annotations

from collections.abc import Callable

from game.geometry import geometry
from game.movegen import RawMove
from game.variants import CaptureChoice, ChainPromotion, Variant

CaptureFn = Callable[[int, int, int, bool], list[RawMove]]


def supports(variant: Variant) -> bool:
    """Whether `mask_captures` implements this variant's capture rules."""
    return (variant.flying_kings and variant.men_capture_backward
            and variant.men_start_capture_backward and variant.men_capture_kings
            and variant.capture_choice is CaptureChoice.MAJORITY
            and variant.chain_promotion is ChainPromotion.STAYS_MAN)


def mask_captures(variant: Variant) -> CaptureFn:
    """``f(white, black, kings, white_to_move)`` -> the legal captures as raw moves whose path
    and captured-order fields are None (the same moves, in content, as `game.movegen`)."""
    if not supports(variant):
        raise ValueError(f"{variant.name}: capture rules not covered by mask_captures")
    geo = geometry(variant.width, variant.height)
    board_mask = geo.board_mask
    ul, ur, dr, dl = geo.shifts
    up = (ul, ur)  # left shifts
    down = (-dr, -dl)  # right shifts
    white_promo = geo.rank_masks[-1]
    black_promo = geo.rank_masks[0]

    def man_jumps(pos: int, capm: int, opp: int, empty: int,
                  out: list[tuple[int, int]]) -> bool:
        found = False
        for sh in up:
            v = (pos << sh) & opp
            if v and not v & capm:
                land = (v << sh) & empty
                if land:
                    found = True
                    nc = capm | v
                    if not man_jumps(land, nc, opp, empty, out):
                        out.append((land, nc))
        for sh in down:
            v = (pos >> sh) & opp
            if v and not v & capm:
                land = (v >> sh) & empty
                if land:
                    found = True
                    nc = capm | v
                    if not man_jumps(land, nc, opp, empty, out):
                        out.append((land, nc))
        return found

    def king_jumps(pos: int, capm: int, opp: int, empty: int,
                   out: list[tuple[int, int]]) -> bool:
        found = False
        for sh in up:
            t = pos << sh
            while t & empty:
                t <<= sh
            if t & opp and not t & capm:
                land = (t << sh) & empty
                if land:
                    found = True
                    nc = capm | t
                    ends = []
                    goes_on = False
                    while land:
                        if king_jumps(land, nc, opp, empty, out):
                            goes_on = True
                        elif not goes_on:
                            ends.append(land)
                        land = (land << sh) & empty
                    if not goes_on:
                        for e in ends:
                            out.append((e, nc))
        for sh in down:
            t = pos >> sh
            while t & empty:
                t >>= sh
            if t & opp and not t & capm:
                land = (t >> sh) & empty
                if land:
                    found = True
                    nc = capm | t
                    ends = []
                    goes_on = False
                    while land:
                        if king_jumps(land, nc, opp, empty, out):
                            goes_on = True
                        elif not goes_on:
                            ends.append(land)
                        land = (land >> sh) & empty
                    if not goes_on:
                        for e in ends:
                            out.append((e, nc))
        return found

    def captures(white: int, black: int, kings: int, wtm: bool) -> list[RawMove]:
        own, opp = (white, black) if wtm else (black, white)
        free = board_mask & ~(white | black)
        men = own & ~kings
        ready = 0
        for sh in up:
            ready |= men & (((free >> sh) & opp) >> sh)
        for sh in down:
            ready |= men & (((free << sh) & opp) << sh)
        ready |= own & kings
        promo_row = white_promo if wtm else black_promo
        moves: list[RawMove] = []
        best = 0
        while ready:
            m = ready & -ready
            ready ^= m
            found: list[tuple[int, int]] = []
            if m & kings:
                king_jumps(m, 0, opp, free | m, found)
                promo = 0
                for to, cap in found:
                    n = cap.bit_count()
                    if n >= best:
                        if n > best:
                            best = n
                            moves = []
                        moves.append((m, to, cap, promo, None, None))
            else:
                man_jumps(m, 0, opp, free | m, found)
                for to, cap in found:
                    n = cap.bit_count()
                    if n >= best:
                        if n > best:
                            best = n
                            moves = []
                        moves.append((m, to, cap, to & promo_row, None, None))
        if len(moves) > 1:
            seen: set[tuple[int, int, int]] = set()
            unique: list[RawMove] = []
            for mv in moves:
                key = (mv[0], mv[1], mv[2])
                if key not in seen:
                    seen.add(key)
                    unique.append(mv)
            return unique
        return moves

    return captures
