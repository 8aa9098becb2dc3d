"""An exhaustive material solver, written apart from the engine, to verify tactics positions.

`material_value(board_bits, plies)` is the exact minimax value of the material balance
(man = 1, king = 3, from the point of view of the side to move at the root) after `plies`
full-width plies, followed by forced captures until the side to move has none (in draughts a
capture is compulsory, so nobody may stop in the middle of an exchange).  A side with no legal
move has lost: +-100.  Alpha-beta pruning changes nothing in the value, only the time.

It shares nothing with `game.engine`: no evaluation, no ordering, no transposition table, no
draw rules (tactics happen long before those apply).  It uses only the move generator, which
perft checks against published counts.
"""

from __future__ import annotations

from game.movegen import MoveGenerator, apply_raw

LOSS = 100
KING = 3
MAX_CAPTURE_PLIES = 24


def _material(white: int, black: int, kings: int, white_to_move: bool) -> int:
    w = (white & ~kings).bit_count() + KING * (white & kings).bit_count()
    b = (black & ~kings).bit_count() + KING * (black & kings).bit_count()
    return w - b if white_to_move else b - w


def material_value(gen: MoveGenerator, white: int, black: int, kings: int, wtm: bool,
                   plies: int, alpha: int = -1000, beta: int = 1000, extra: int = 0) -> int:
    """Exact value for the side to move (see module docstring)."""
    if plies <= 0:
        if extra >= MAX_CAPTURE_PLIES or not gen.has_capture(white, black, kings, wtm):
            return _material(white, black, kings, wtm)
        moves = gen.captures(white, black, kings, wtm)
        extra += 1
    else:
        moves = gen.generate(white, black, kings, wtm)
    if not moves:
        return -LOSS
    best = -1000
    for m in moves:
        w, b, k = apply_raw(white, black, kings, wtm, m)
        v = -material_value(gen, w, b, k, not wtm, plies - 1, -beta, -alpha, extra)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


def wins_at_least(gen: MoveGenerator, white: int, black: int, kings: int, wtm: bool,
                  plies: int, target: int) -> bool:
    """Is `material_value(...) >= target`?  (A null-window search: exact, and much faster.)"""
    return material_value(gen, white, black, kings, wtm, plies, target - 1, target) >= target


def winning_first_moves(gen: MoveGenerator, white: int, black: int, kings: int, wtm: bool,
                        plies: int, gain: int) -> list[tuple[int, int, int]]:
    """(from, to, captured) masks of the root moves that keep a material gain >= `gain`."""
    target = _material(white, black, kings, wtm) + gain
    out = []
    for m in gen.generate(white, black, kings, wtm):
        w, b, k = apply_raw(white, black, kings, wtm, m)
        # the mover keeps >= target  <=>  the opponent's value <= -target
        if material_value(gen, w, b, k, not wtm, plies - 1, -target, -target + 1) <= -target:
            out.append((m[0], m[1], m[2]))
    return out
