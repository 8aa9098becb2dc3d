"""Iterative-deepening principal-variation alpha-beta search on raw bitboards.

The search works on the move generator's raw interface (`generate`, `has_capture`,
`captures`; inside the tree the path-free captures of `capture_masks` where the rules allow)
and applies moves inline: no `Move` objects inside the tree.  Features: transposition table
keyed by Zobrist keys, hash move / killer / history ordering, late move reductions,
single-reply extension, verification pruning on 10x10 (`SearchOptions`), quiescence over
captures (in draughts a capture is forced, so a side that can capture may not "stand pat"),
and the variant's draw rules: repetition,
the king-only-moves counter and the material endings of RULES.md, each scored as a draw at the
exact ply it happens, as `Board.outcome` would.

Why a flat, long `_search`: in CPython each function call and attribute lookup costs as much
as several bitboard operations, so the hot path keeps everything in locals.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from game.engine.capture_masks import CaptureFn, mask_captures, supports
from game.engine.endgame import KingsTable, kings_table, table_applies
from game.engine.evaluate import EvalFn, make_evaluator
from game.engine.zobrist import zobrist_keys
from game.movegen import RawMove, apply_raw, generator_for
from game.variants import Variant

MATE = 100_000  # score of a won game at the root; a win in n plies scores MATE - n
INF = 1_000_000
MAX_PLY = 128
_EXACT, _LOWER, _UPPER = 0, 1, 2
_POLL_MASK = 255  # check the clock and the stop flag every 256 nodes


class SearchAborted(Exception):
    """Raised inside the tree when time, nodes or the stop flag run out (caught at the root)."""


@dataclass(frozen=True)
class Position:
    """What the search needs of a game: the bitboards, side to move and the draw counters.

    `history` holds the earlier positions (white, black, kings, white_to_move) since the last
    irreversible move, oldest first, for repetition detection.
    """

    white: int
    black: int
    kings: int
    white_to_move: bool
    quiet_plies: int = 0
    ending_plies: int = 0
    history: tuple[tuple[int, int, int, bool], ...] = ()


@dataclass
class SearchLimits:
    """When to stop.  Any combination; a search with none stops at depth `MAX_DEPTH`."""

    depth: int | None = None
    movetime_s: float | None = None
    nodes: int | None = None
    stop: Callable[[], bool] | None = None  # polled; True stops the search early


MAX_DEPTH = 64


@dataclass(frozen=True)
class SearchOptions:
    """Search features that can be switched off (to measure what each is worth).

    `verify_margin`: at a null-window node of depth 3 or more without a capture, a search of
    2/5 the depth against a beta raised by `verify_margin` centipawns per ply; if even that
    fails high, the node is cut.  Measured on 10x10 at equal nodes (3000 a move, 24 games):
    13/24 with it against without, and a quarter fewer nodes to depth 7.
    """

    verify_margin: int = 10  # centipawns per ply of depth; 0: no verification pruning


DEFAULT_OPTIONS = SearchOptions()
# 8x8: the Brazilian golpe suite (tests/engine/test_tactics.py) misses a combination at its
# fixed depth with verification pruning, and the 8x8 targets were met without it
SMALL_BOARD_OPTIONS = SearchOptions(verify_margin=0)


def default_options(variant: Variant) -> SearchOptions:
    return DEFAULT_OPTIONS if variant.width >= 10 else SMALL_BOARD_OPTIONS


@dataclass
class Iteration:
    """One completed iteration of the deepening loop (what `info` lines print)."""

    depth: int
    score: int
    nodes: int
    elapsed_s: float
    pv: list[RawMove]


@dataclass
class SearchResult:
    best: RawMove
    score: int
    depth: int
    nodes: int
    elapsed_s: float
    pv: list[RawMove]
    # Root moves whose scores are exact (within the requested margin of the best), best first.
    root_scores: list[tuple[RawMove, int]] = field(default_factory=list)
    iterations: list[Iteration] = field(default_factory=list)


def is_mate_score(score: int) -> bool:
    return abs(score) >= MATE - MAX_PLY * 2


class Searcher:
    """A reusable search for one variant (keeps its transposition table between searches)."""

    def __init__(self, variant: Variant, evaluate: EvalFn | None = None,
                 tt_max_entries: int = 1_000_000,
                 options: SearchOptions | None = None) -> None:
        self.variant = variant
        self.options = options or default_options(variant)
        self.gen = generator_for(variant)
        # inside the tree, captures without their paths where the rules allow (faster)
        self.captures: CaptureFn = (mask_captures(variant) if supports(variant)
                                    else self.gen.captures)
        self.evaluate: EvalFn = evaluate or make_evaluator(variant)
        self.zobrist = zobrist_keys(variant.width, variant.height)
        self.tt: dict[int, tuple[int, int, int, Any]] = {}
        self.tt_max_entries = tt_max_entries
        self.history: defaultdict[Any, int] = defaultdict(int)  # quiet raw move -> score
        # plies go past MAX_PLY by at most MAX_DEPTH (extensions stop at MAX_PLY)
        self.killers: list[list[Any]] = [[None, None] for _ in range(MAX_PLY + MAX_DEPTH + 8)]
        self.nodes = 0
        limit = variant.kings_only_moves or variant.no_progress_moves
        self.quiet_limit = 2 * limit if limit else 1 << 30
        self.ending_rules: dict[tuple[int, int, int, int], int] = {}
        self.ending_limits: list[int] = []
        for i, rule in enumerate(variant.endings):
            (ka, ma), (kb, mb) = rule.sides
            self.ending_rules[(ka, ma, kb, mb)] = i
            self.ending_rules[(kb, mb, ka, ma)] = i
            self.ending_limits.append(2 * rule.moves)
        self.ending_max_pieces = max((ka + ma + kb + mb for (ka, ma, kb, mb)
                                      in self.ending_rules), default=0)
        rng_keys = list(self.zobrist.white_man.values())
        self.counter_keys = tuple(rng_keys[i % len(rng_keys)] * 3 + i for i in range(512))
        self._deadline = 0.0
        self._node_limit = 0
        self._stop: Callable[[], bool] | None = None
        self._keys: list[int] = [0] * (MAX_PLY + 1024)
        self._base = 0
        self._max_ext_ply = MAX_PLY
        self._tables_apply = table_applies(variant)
        self._tables: KingsTable | None = None

    def _table_score(self, w: int, b: int, k: int, wtm: bool, ply: int, quiet: int,
                     eid: int | None, eplies: int) -> int | None:
        """Exact score of a kings v lone king position, or None if the tables do not apply.

        A win counts only if it fits in the plies left by the draw counters."""
        if self._tables is None:
            self._tables = kings_table(self.variant.name)
        if self.gen.has_capture(w, b, k, wtm):
            return None  # the tables know quiet positions; the search plays captures
        v = self._tables.probe(w, b, k, wtm)
        if v is None:
            return None
        left = self.quiet_limit - quiet
        if eid is not None:
            left = min(left, self.ending_limits[eid] - eplies)
        if v > 0:
            return MATE - ply - v if v <= left else 0
        if v < 0:
            return ply - v - MATE if -v <= left else 0
        if not self.gen.count(w, b, k, wtm):
            return MATE - ply if self.variant.giveaway else ply - MATE
        # no win for anyone: still prefer to keep one's kings (a draw kept with less to spare)
        own, opp = (w, b) if wtm else (b, w)
        return 5 * (own.bit_count() - opp.bit_count())

    # ---------------------------------------------------------------- helpers
    def ending_of(self, white: int, black: int, kings: int) -> int | None:
        if (white | black).bit_count() > self.ending_max_pieces:
            return None
        wk = (white & kings).bit_count()
        bk = (black & kings).bit_count()
        return self.ending_rules.get(
            (wk, white.bit_count() - wk, bk, black.bit_count() - bk))

    def _poll(self) -> None:
        if self._node_limit and self.nodes >= self._node_limit:
            raise SearchAborted
        if self._deadline and time.perf_counter() >= self._deadline:
            raise SearchAborted
        if self._stop is not None and self._stop():
            raise SearchAborted
        if len(self.tt) > self.tt_max_entries:
            self.tt.clear()

    def new_game(self) -> None:
        self.tt.clear()
        self.history.clear()

    # ---------------------------------------------------------------- quiescence
    def _qs(self, w: int, b: int, k: int, wtm: bool, alpha: int, beta: int) -> int:
        """Quiescence from a position whose side to move must capture (node already counted):
        every capture is searched; a child without a capture is evaluated."""
        best = -INF
        has_capture = self.gen.has_capture
        evaluate = self.evaluate
        qs = self._qs
        nwtm = not wtm
        for frm, to, cap, promo, _p, _o in self.captures(w, b, k, wtm):
            ft = frm ^ to
            if wtm:
                nw = w ^ ft
                nb = b & ~cap
            else:
                nb = b ^ ft
                nw = w & ~cap
            if k & frm:
                nk = (k & ~cap) ^ ft
            else:
                nk = k & ~cap
                if promo:
                    nk |= to
            self.nodes += 1
            if not self.nodes & _POLL_MASK:
                self._poll()
            if has_capture(nw, nb, nk, nwtm):
                s = -qs(nw, nb, nk, nwtm, -beta, -alpha)
            else:
                s = -evaluate(nw, nb, nk, nwtm)
            if s > best:
                best = s
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        break
        return best

    # ---------------------------------------------------------------- main search
    def _search(self, w: int, b: int, k: int, wtm: bool, depth: int, alpha: int, beta: int,
                ply: int, quiet: int, eid: int | None, eplies: int, key: int) -> int:
        self.nodes += 1
        if not self.nodes & _POLL_MASK:
            self._poll()
        gen = self.gen
        # ---- draw rules (RULES.md s.1), as Board.outcome applies them
        if quiet >= 4:
            if quiet >= self.quiet_limit or (
                    eid is not None and eplies >= self.ending_limits[eid]):
                return 0 if gen.count(w, b, k, wtm) else (
                    MATE - ply if self.variant.giveaway else ply - MATE)
            idx = self._base + ply
            keys = self._keys
            if key in keys[max(0, idx - quiet):idx - 3]:
                return 0  # repetition: a second occurrence is scored as the draw it leads to
        elif eid is not None and eplies >= self.ending_limits[eid]:
            return 0 if gen.count(w, b, k, wtm) else (
                MATE - ply if self.variant.giveaway else ply - MATE)
        if k and self._tables_apply and not (w | b) & ~k and (w | b).bit_count() <= 4:
            ts = self._table_score(w, b, k, wtm, ply, quiet, eid, eplies)
            if ts is not None:
                return ts
        if depth <= 0:
            if not gen.has_capture(w, b, k, wtm):
                return self.evaluate(w, b, k, wtm)
            return self._qs(w, b, k, wtm, alpha, beta)
        # ---- transposition table
        ttk = key
        if eid is not None:
            ttk ^= self.counter_keys[eplies] ^ self.counter_keys[300 + eid]
        if quiet and self.quiet_limit - quiet <= depth + 12:
            ttk ^= self.counter_keys[quiet + 100] >> 1
        tt = self.tt
        entry = tt.get(ttk)
        hmove = None
        if entry is not None:
            edepth, eflag, escore, hmove = entry
            if edepth >= depth:
                if escore > MATE - 2 * MAX_PLY:
                    escore -= ply
                elif escore < 2 * MAX_PLY - MATE:
                    escore += ply
                if eflag == _EXACT:
                    return escore
                if eflag == _LOWER:
                    if escore >= beta:
                        return escore
                elif escore <= alpha:
                    return escore
        if gen.has_capture(w, b, k, wtm):
            moves = self.captures(w, b, k, wtm)
        else:
            moves = gen.quiet_moves(w, b, k, wtm)
        n = len(moves)
        if not n:
            return MATE - ply if self.variant.giveaway else ply - MATE
        is_cap = moves[0][2] != 0
        if (depth >= 3 and not is_cap and beta - alpha == 1 and self.options.verify_margin
                and -MATE + 2 * MAX_PLY < beta < MATE - 2 * MAX_PLY):
            # a shallow search well above beta that still fails high: prune (draughts has no
            # null move, zugzwang is everywhere, so this stands in for null-move pruning)
            margin = self.options.verify_margin * depth
            vbeta = beta + margin
            v = self._search(w, b, k, wtm, depth * 2 // 5, vbeta - 1, vbeta, ply, quiet, eid,
                             eplies, key)
            if v >= vbeta:
                return v - margin
        killers = self.killers[ply]
        hist = self.history
        if n > 1:
            if not is_cap:
                moves.sort(key=hist.__getitem__, reverse=True)
                for km in (killers[1], killers[0]):
                    if km is not None:
                        for i in range(1, n):
                            m = moves[i]
                            if m[0] == km[0] and m[1] == km[1]:
                                moves.insert(0, moves.pop(i))
                                break
            if hmove is not None:
                for i in range(n):
                    m = moves[i]
                    if m[0] == hmove[0] and m[1] == hmove[1] and m[2] == hmove[2]:
                        if i:
                            moves.insert(0, moves.pop(i))
                        break
        # ---- children
        zob = self.zobrist
        if wtm:
            zm, zk, om, ok_ = zob.white_man, zob.white_king, zob.black_man, zob.black_king
        else:
            zm, zk, om, ok_ = zob.black_man, zob.black_king, zob.white_man, zob.white_king
        side = zob.black_to_move
        few = eid is not None or (w | b).bit_count() <= self.ending_max_pieces
        self._keys[self._base + ply] = key
        search = self._search
        new_depth = depth - 1
        if n == 1 and ply < self._max_ext_ply:
            new_depth = depth  # a forced reply costs no depth
        nwtm = not wtm
        leaf = new_depth <= 0 and not few
        has_capture = gen.has_capture
        evaluate = self.evaluate
        a0 = alpha
        best = -INF
        best_move = None
        for i in range(n):
            m = moves[i]
            frm, to, cap, promo = m[0], m[1], m[2], m[3]
            ft = frm ^ to
            if wtm:
                nw = w ^ ft
                nb = b & ~cap
            else:
                nb = b ^ ft
                nw = w & ~cap
            nkey = key ^ side
            if k & frm:
                nk = (k & ~cap) ^ ft
                nkey ^= zk[frm] ^ zk[to]
                nquiet = 0 if cap else quiet + 1
            else:
                nk = k & ~cap
                if promo:
                    nk |= to
                    nkey ^= zm[frm] ^ zk[to]
                else:
                    nkey ^= zm[frm] ^ zm[to]
                nquiet = 0
            if cap:
                c = cap
                while c:
                    low = c & -c
                    c ^= low
                    nkey ^= ok_[low] if k & low else om[low]
            if few or cap:
                neid = self.ending_of(nw, nb, nk)
                neplies = eplies + 1 if (neid is not None and neid == eid and not cap
                                         and not promo) else 0
            else:
                neid = None
                neplies = 0
            if leaf and nquiet < 4 and neid is None:
                # a leaf without draw-rule business: evaluate here, saving a call
                self.nodes += 1
                if not self.nodes & _POLL_MASK:
                    self._poll()
                if has_capture(nw, nb, nk, nwtm):
                    s = -self._qs(nw, nb, nk, nwtm, -beta, -alpha)
                else:
                    s = -evaluate(nw, nb, nk, nwtm)
            elif i == 0:
                s = -search(nw, nb, nk, nwtm, new_depth, -beta, -alpha, ply + 1, nquiet, neid,
                            neplies, nkey)
            else:
                r = 1 if (depth >= 3 and i >= 3 and not cap and not promo) else 0
                s = -search(nw, nb, nk, nwtm, new_depth - r, -alpha - 1, -alpha, ply + 1,
                            nquiet, neid, neplies, nkey)
                if s > alpha and (r or s < beta):
                    s = -search(nw, nb, nk, nwtm, new_depth, -beta, -alpha, ply + 1, nquiet,
                                neid, neplies, nkey)
            if s > best:
                best = s
                best_move = m
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        if not cap:
                            if killers[0] is None or killers[0][0] != frm or killers[0][1] != to:
                                killers[1] = killers[0]
                                killers[0] = m
                            hist[m] += depth * depth
                        break
        flag = _LOWER if best >= beta else (_EXACT if best > a0 else _UPPER)
        store = best
        if store > MATE - 2 * MAX_PLY:
            store += ply
        elif store < 2 * MAX_PLY - MATE:
            store -= ply
        tt[ttk] = (depth, flag, store, best_move)
        return best

    # ---------------------------------------------------------------- root
    def search(self, pos: Position, limits: SearchLimits, margin: int = 0,
               on_iteration: Callable[[Iteration], None] | None = None) -> SearchResult:
        """Search `pos` until a limit is reached; return the best move found.

        `margin`: also compute exact scores for every root move within `margin` centipawns of
        the best (used by the levels to choose among near-equal moves).  An interrupted
        iteration still counts if it already proved a better move than the previous one.
        """
        t0 = time.perf_counter()
        self.nodes = 0
        self._deadline = t0 + limits.movetime_s if limits.movetime_s else 0.0
        self._node_limit = limits.nodes or 0
        self._stop = limits.stop
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        for kl in self.killers:
            kl[0] = kl[1] = None
        for hk in list(self.history):
            self.history[hk] >>= 2
        w, b, k, wtm = pos.white, pos.black, pos.kings, pos.white_to_move
        moves = self.gen.generate(w, b, k, wtm)
        if not moves:
            raise ValueError("the position has no legal move")
        zob = self.zobrist
        key = zob.key(w, b, k, wtm)
        hist_keys = [zob.key(*h) for h in pos.history[-800:]]
        self._base = len(hist_keys)
        self._keys[:self._base] = hist_keys
        eid = self.ending_of(w, b, k)
        eplies = pos.ending_plies if eid is not None else 0
        iterations: list[Iteration] = []
        order = list(range(len(moves)))
        best_idx = 0
        best_score = 0
        exact: dict[int, int] = {}
        completed_depth = 0
        if len(moves) == 1:
            max_depth = 1  # a forced move needs no thought
        for depth in range(1, max_depth + 1):
            self._max_ext_ply = min(2 * depth + 4, MAX_PLY)
            try:
                cur_best, cur_score, cur_exact, new_order = self._root(
                    moves, order, depth, margin, w, b, k, wtm, pos.quiet_plies, eid, eplies,
                    key)
            except _PartialRoot as partial:
                if partial.best_idx is not None and partial.best_idx != best_idx:
                    best_idx, best_score = partial.best_idx, partial.score
                    exact = {best_idx: best_score}
                break
            best_idx, best_score, exact, order = cur_best, cur_score, cur_exact, new_order
            completed_depth = depth
            elapsed = time.perf_counter() - t0
            it = Iteration(depth, best_score, self.nodes, elapsed,
                           self._pv(moves[best_idx], w, b, k, wtm, depth))
            iterations.append(it)
            if on_iteration is not None:
                on_iteration(it)
            if is_mate_score(best_score) and depth > MATE - abs(best_score) + 2:
                break  # a proven result does not change with depth
        elapsed = time.perf_counter() - t0
        ranked = sorted(exact.items(), key=lambda kv: -kv[1])
        pv = iterations[-1].pv if iterations and iterations[-1].pv and \
            iterations[-1].pv[0] is moves[best_idx] else [moves[best_idx]]
        return SearchResult(
            best=moves[best_idx], score=best_score, depth=completed_depth, nodes=self.nodes,
            elapsed_s=elapsed, pv=pv, root_scores=[(moves[i], s) for i, s in ranked],
            iterations=iterations)

    def _root(self, moves: list[RawMove], order: list[int], depth: int, margin: int, w: int,
              b: int, k: int, wtm: bool, quiet: int, eid: int | None, eplies: int, key: int
              ) -> tuple[int, int, dict[int, int], list[int]]:
        zob = self.zobrist
        scores: dict[int, int] = {}
        exact: dict[int, int] = {}
        best_idx: int | None = None
        best = -INF
        beta = INF
        self._keys[self._base] = key
        for n, i in enumerate(order):
            m = moves[i]
            frm, cap = m[0], m[2]
            nw, nb, nk = apply_raw(w, b, k, wtm, m)
            nkey = zob.key(nw, nb, nk, not wtm)
            king_move = bool(k & frm)
            nquiet = quiet + 1 if king_move and not cap else 0
            neid = self.ending_of(nw, nb, nk)
            neplies = eplies + 1 if (neid is not None and neid == eid and not cap
                                     and not m[3]) else 0
            try:
                if n == 0:
                    s = -self._search(nw, nb, nk, not wtm, depth - 1, -beta, INF, 1, nquiet,
                                      neid, neplies, nkey)
                else:
                    floor = best - margin
                    s = -self._search(nw, nb, nk, not wtm, depth - 1, -floor - 1, -floor, 1,
                                      nquiet, neid, neplies, nkey)
                    if s > floor:
                        s = -self._search(nw, nb, nk, not wtm, depth - 1, -beta, -floor, 1,
                                          nquiet, neid, neplies, nkey)
            except SearchAborted:
                raise _PartialRoot(best_idx if n > 0 else None, best) from None
            scores[i] = s
            if s > best - margin or n == 0:
                exact[i] = s
            if s > best:
                best = s
                best_idx = i
        assert best_idx is not None
        exact = {i: s for i, s in exact.items() if s >= best - margin}
        new_order = sorted(order, key=lambda i: -scores[i])
        return best_idx, best, exact, new_order

    def _pv(self, first: RawMove, w: int, b: int, k: int, wtm: bool, depth: int
            ) -> list[RawMove]:
        """The principal variation: the best move, then hash moves while they are legal."""
        pv = [first]
        w, b, k = apply_raw(w, b, k, wtm, first)
        wtm = not wtm
        seen = set()
        for _ in range(depth + 8):
            key = self.zobrist.key(w, b, k, wtm)
            if key in seen:
                break
            seen.add(key)
            entry = self.tt.get(key)
            if entry is None or entry[3] is None:
                break
            hm = entry[3]
            legal = self.gen.generate(w, b, k, wtm)
            match = next((m for m in legal if m[0] == hm[0] and m[1] == hm[1]
                          and m[2] == hm[2]), None)
            if match is None:
                break
            pv.append(match)
            w, b, k = apply_raw(w, b, k, wtm, match)
            wtm = not wtm
        return pv


class _PartialRoot(Exception):
    def __init__(self, best_idx: int | None, score: int) -> None:
        super().__init__("search interrupted")
        self.best_idx = best_idx
        self.score = score
