"""Legal move generation on bitboards (plain Python ints).

A position is three bitboards (white, black, kings) and the side to move.  A *raw move* is the
tuple ``(from_mask, to_mask, captured_mask, promotes, path, captured)`` where `path` and
`captured` are tuples of internal squares (`None` for quiet moves, whose path is just the two
ends).  Raw moves are what the engine and perft use; `game.board.Move` wraps them for people.

Capture sequences are found by depth-first search with the captured pieces left on the board
(they block and cannot be jumped twice), then reduced: sequences with the same start, end and
set of captured pieces are one move (RULES.md s.3), and the variant's capture choice (majority,
quality, Italian precedence) keeps the obligatory ones.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from game.geometry import Geometry, geometry
from game.variants import CaptureChoice, ChainPromotion, Variant

RawMove = tuple[int, int, int, int, Any, Any]


class MoveGenerator:
    """Move generation for one variant; build once with `generator_for(variant)`."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        geo: Geometry = geometry(variant.width, variant.height)
        self.geo = geo
        self.board_mask = geo.board_mask
        ul, ur, dr, dl = geo.shifts
        self.up: tuple[int, ...] = (ul, ur)
        self.down: tuple[int, ...] = (-dr, -dl)  # positive amounts for right shifts
        self.white_promo = geo.rank_masks[-1]
        self.black_promo = geo.rank_masks[0]
        # rays as (square, mask) pairs, per square and direction (0 ul, 1 ur, 2 dr, 3 dl)
        self.rays: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
            tuple(tuple((geo.square_of_mask(m), m) for m in ray) for ray in per_dir)
            for per_dir in geo.rays
        )
        self.mask_of = geo.mask_of
        self.square_at_bit = geo.square_at_bit
        self.flying = variant.flying_kings
        self.men_back = variant.men_capture_backward
        self.men_start_back = variant.men_capture_backward and variant.men_start_capture_backward
        self.men_take_kings = variant.men_capture_kings
        self.chain_promo = variant.chain_promotion
        self.choice = variant.capture_choice
        white_dirs = (0, 1, 2, 3) if self.men_back else (0, 1)
        black_dirs = (0, 1, 2, 3) if self.men_back else (2, 3)
        self.white_jumps = self._jump_table(white_dirs)
        self.black_jumps = self._jump_table(black_dirs)
        self.white_first_jumps = self._jump_table(white_dirs if self.men_start_back else (0, 1))
        self.black_first_jumps = self._jump_table(black_dirs if self.men_start_back else (2, 3))

    # ------------------------------------------------------------------ captures
    def _jump_table(self, dirs: tuple[int, ...]
                    ) -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
        """Per square, the short jumps (victim mask, victim sq, landing mask, landing sq)."""
        table = []
        for per_dir in self.rays:
            jumps = []
            for d in dirs:
                ray = per_dir[d]
                if len(ray) >= 2:
                    jumps.append((ray[0][1], ray[0][0], ray[1][1], ray[1][0]))
            table.append(tuple(jumps))
        return tuple(table)

    def _man_dfs(self, sq: int, capm: int, opp: int, empty: int, kings: int, white: bool,
                 first: bool, path: list[int], order: list[int], out: list[Any]) -> bool:
        if white:
            table = self.white_first_jumps if first else self.white_jumps
            promo_mask = self.white_promo
        else:
            table = self.black_first_jumps if first else self.black_jumps
            promo_mask = self.black_promo
        victims = opp & ~capm
        if not self.men_take_kings:
            victims &= ~kings
        found = False
        for vm, vsq, lm, lsq in table[sq]:
            if not (vm & victims) or not (lm & empty):
                continue
            found = True
            ncap = capm | vm
            path.append(lsq)
            order.append(vsq)
            if lm & promo_mask and self.chain_promo is not ChainPromotion.STAYS_MAN:
                if self.chain_promo is ChainPromotion.ENDS_MOVE or not self._king_dfs(
                        lsq, ncap, opp, empty, kings, path, order, out, True):
                    out.append((lsq, ncap, True, tuple(path), tuple(order)))
            elif not self._man_dfs(lsq, ncap, opp, empty, kings, white, False, path, order, out):
                out.append((lsq, ncap, bool(lm & promo_mask), tuple(path), tuple(order)))
            path.pop()
            order.pop()
        return found

    def _king_dfs(self, sq: int, capm: int, opp: int, empty: int, kings: int, path: list[int],
                  order: list[int], out: list[Any], promo: bool) -> bool:
        rays = self.rays[sq]
        found = False
        flying = self.flying
        for d in (0, 1, 2, 3):
            ray = rays[d]
            n = len(ray)
            i = 0
            if flying:
                while i < n and ray[i][1] & empty:
                    i += 1
            if i >= n - 1:
                continue
            vsq, vm = ray[i]
            if not (vm & opp) or (vm & capm) or not (ray[i + 1][1] & empty):
                continue
            found = True
            ncap = capm | vm
            order.append(vsq)
            j = i + 1
            terminal: list[int] = []
            continued = False
            while j < n and ray[j][1] & empty:
                lsq = ray[j][0]
                path.append(lsq)
                if self._king_dfs(lsq, ncap, opp, empty, kings, path, order, out, promo):
                    continued = True
                else:
                    terminal.append(lsq)
                path.pop()
                if not flying:
                    break
                j += 1
            if not continued:
                for lsq in terminal:
                    path.append(lsq)
                    out.append((lsq, ncap, promo, tuple(path), tuple(order)))
                    path.pop()
            order.pop()
        return found

    def captures(self, white: int, black: int, kings: int, white_to_move: bool) -> list[RawMove]:
        """All legal capture moves (empty list if there is none)."""
        own, opp = (white, black) if white_to_move else (black, white)
        occ = white | black
        free = self.board_mask & ~occ
        men = own & ~kings
        victims = opp if self.men_take_kings else opp & ~kings
        # Men that have a first jump, found with shifts; kings are all searched.
        if white_to_move:
            up, down = self.up, (self.down if self.men_start_back else ())
        else:
            up, down = (self.up if self.men_start_back else ()), self.down
        ready = 0
        for sh in up:
            ready |= men & (((free >> sh) & victims) >> sh)
        for sh in down:
            ready |= men & (((free << sh) & victims) << sh)
        ready |= own & kings
        seqs: list[Any] = []
        sq_at = self.square_at_bit
        mask_of = self.mask_of
        while ready:
            m = ready & -ready
            ready ^= m
            sq = sq_at[m.bit_length() - 1]
            is_king = bool(m & kings)
            found: list[Any] = []
            if is_king:
                self._king_dfs(sq, 0, opp, free | m, kings, [sq], [], found, False)
            else:
                self._man_dfs(sq, 0, opp, free | m, kings, white_to_move, True, [sq], [], found)
            for to_sq, capm, promo, path, order in found:
                seqs.append((m, mask_of[to_sq], capm, promo and not is_king, path, order,
                             is_king))
        if not seqs:
            return []
        if len(seqs) == 1:
            s0 = seqs[0]
            return [(s0[0], s0[1], s0[2], s0[3], s0[4], s0[5])]
        return self._choose(seqs, kings)

    def _choose(self, seqs: list[Any], kings: int) -> list[RawMove]:
        choice = self.choice
        if choice is not CaptureChoice.FREE:
            best = max(len(s[5]) for s in seqs)
            seqs = [s for s in seqs if len(s[5]) == best]
            if choice is CaptureChoice.QUALITY:
                bk = max((s[2] & kings).bit_count() for s in seqs)
                seqs = [s for s in seqs if (s[2] & kings).bit_count() == bk]
            elif choice is CaptureChoice.ITALIAN:
                if any(s[6] for s in seqs):
                    seqs = [s for s in seqs if s[6]]
                bk = max((s[2] & kings).bit_count() for s in seqs)
                seqs = [s for s in seqs if (s[2] & kings).bit_count() == bk]
                mask_of = self.mask_of

                def first_kings(s: Any) -> tuple[int, ...]:
                    return tuple(i for i, v in enumerate(s[5]) if mask_of[v] & kings)

                earliest = min(first_kings(s) for s in seqs)
                seqs = [s for s in seqs if first_kings(s) == earliest]
        out: list[RawMove] = []
        seen: set[tuple[int, int, int]] = set()
        for s in seqs:
            key = (s[0], s[1], s[2])
            if key in seen:
                continue
            seen.add(key)
            out.append((s[0], s[1], s[2], s[3], s[4], s[5]))
        return out

    def has_capture(self, white: int, black: int, kings: int, white_to_move: bool) -> bool:
        """Fast bitboard test: does the side to move have any capture?"""
        own, opp = (white, black) if white_to_move else (black, white)
        empty = self.board_mask & ~(white | black)
        men = own & ~kings
        k = own & kings
        victims = opp if self.men_take_kings else opp & ~kings
        if white_to_move:
            up, down = self.up, (self.down if self.men_start_back else ())
        else:
            up, down = (self.up if self.men_start_back else ()), self.down
        for s in up:
            if (((men << s) & victims) << s) & empty:
                return True
        for s in down:
            if (((men >> s) & victims) >> s) & empty:
                return True
        if k:
            for s in self.up:
                f = k
                if self.flying:
                    cover = k
                    while f:
                        f = (f << s) & empty
                        cover |= f
                    f = cover
                if (((f << s) & opp) << s) & empty:
                    return True
            for s in self.down:
                f = k
                if self.flying:
                    cover = k
                    while f:
                        f = (f >> s) & empty
                        cover |= f
                    f = cover
                if (((f >> s) & opp) >> s) & empty:
                    return True
        return False

    # ------------------------------------------------------------------ quiet moves
    def quiet_moves(self, white: int, black: int, kings: int, white_to_move: bool
                    ) -> list[RawMove]:
        own = white if white_to_move else black
        empty = self.board_mask & ~(white | black)
        men = own & ~kings
        out: list[RawMove] = []
        if white_to_move:
            promo = self.white_promo
            for s in self.up:
                t = (men << s) & empty
                while t:
                    low = t & -t
                    t ^= low
                    out.append((low >> s, low, 0, low & promo, None, None))
        else:
            promo = self.black_promo
            for s in self.down:
                t = (men >> s) & empty
                while t:
                    low = t & -t
                    t ^= low
                    out.append((low << s, low, 0, low & promo, None, None))
        k = own & kings
        if k:
            flying = self.flying
            for s in self.up:
                kk = k
                while kk:
                    src = kk & -kk
                    kk ^= src
                    t = (src << s) & empty
                    while t:
                        out.append((src, t, 0, 0, None, None))
                        if not flying:
                            break
                        t = (t << s) & empty
            for s in self.down:
                kk = k
                while kk:
                    src = kk & -kk
                    kk ^= src
                    t = (src >> s) & empty
                    while t:
                        out.append((src, t, 0, 0, None, None))
                        if not flying:
                            break
                        t = (t >> s) & empty
        return out

    def count_quiet(self, white: int, black: int, kings: int, white_to_move: bool) -> int:
        own = white if white_to_move else black
        empty = self.board_mask & ~(white | black)
        men = own & ~kings
        n = 0
        if white_to_move:
            for s in self.up:
                n += ((men << s) & empty).bit_count()
        else:
            for s in self.down:
                n += ((men >> s) & empty).bit_count()
        k = own & kings
        if k:
            flying = self.flying
            for s in self.up:
                f = (k << s) & empty
                while f:
                    n += f.bit_count()
                    if not flying:
                        break
                    f = (f << s) & empty
            for s in self.down:
                f = (k >> s) & empty
                while f:
                    n += f.bit_count()
                    if not flying:
                        break
                    f = (f >> s) & empty
        return n

    # ------------------------------------------------------------------ together
    def generate(self, white: int, black: int, kings: int, white_to_move: bool
                 ) -> list[RawMove]:
        """All legal moves: the obligatory captures if any, else the quiet moves."""
        if self.has_capture(white, black, kings, white_to_move):
            return self.captures(white, black, kings, white_to_move)
        return self.quiet_moves(white, black, kings, white_to_move)

    def count(self, white: int, black: int, kings: int, white_to_move: bool) -> int:
        """Number of legal moves, without building them when there is no capture."""
        if self.has_capture(white, black, kings, white_to_move):
            return len(self.captures(white, black, kings, white_to_move))
        return self.count_quiet(white, black, kings, white_to_move)


def apply_raw(white: int, black: int, kings: int, white_to_move: bool, move: RawMove
              ) -> tuple[int, int, int]:
    """The bitboards after `move` (captured pieces removed, promotion applied)."""
    frm, to, cap, promo = move[0], move[1], move[2], move[3]
    ft = frm ^ to
    if white_to_move:
        white ^= ft
        black &= ~cap
    else:
        black ^= ft
        white &= ~cap
    if kings & frm:
        kings = (kings & ~cap) ^ ft
    else:
        kings &= ~cap
        if promo:
            kings |= to
    return white, black, kings


@cache
def generator_for(variant: Variant) -> MoveGenerator:
    return MoveGenerator(variant)
