"""Perft: count the leaf nodes of the legal move tree, the standard check of a move generator.

Counts distinct moves (RULES.md s.3).  Leaves are counted in bulk at depth 1 (the number of
legal moves, computed by popcount when there is no capture), as every fast perft does.
"""

from __future__ import annotations

from game.movegen import MoveGenerator


def perft(gen: MoveGenerator, white: int, black: int, kings: int, white_to_move: bool,
          depth: int) -> int:
    if depth <= 0:
        return 1
    if depth == 1:
        return gen.count(white, black, kings, white_to_move)
    total = 0
    nxt = not white_to_move
    has_capture = gen.has_capture
    count = gen.count
    for frm, to, cap, promo, _path, _order in gen.generate(white, black, kings, white_to_move):
        ft = frm ^ to
        if white_to_move:
            w = white ^ ft
            b = black & ~cap
        else:
            b = black ^ ft
            w = white & ~cap
        if kings & frm:
            k = (kings & ~cap) ^ ft
        else:
            k = kings & ~cap
            if promo:
                k |= to
        if depth == 2:
            if has_capture(w, b, k, nxt):
                total += len(gen.captures(w, b, k, nxt))
            else:
                total += gen.count_quiet(w, b, k, nxt)
        else:
            total += perft(gen, w, b, k, nxt, depth - 1)
    del count
    return total
