"""Find Brazilian tactics positions ("golpes") by exhaustive search; print them as data lines.

Run: `python -m tests.engine.make_tactics SHALLOW DEEP [SEED] >> tactics_brazilian.txt`
(the data file holds `20 4` with the default seed, then `16 0 7`).

A position qualifies when White, to move, with no capture available and material within one
man of equality, wins at least two men (man = 1, king = 3) by force within `plies` plies plus
forced captures; has at most two winning first moves; a capture of two or more pieces by White
follows a Black reply to one of them; and a shallower look sees no gain at all: one ply for the
shallow set (7 plies), three plies for the deep set (9 plies).  The plies include two beyond
the end of the combination, so that the gain is not an artefact of the horizon.

Each line is `FEN | gain | plies | blind plies`; the test re-verifies every line with the same
solver.
"""

from __future__ import annotations

import random
import sys

from game.board import Board
from game.movegen import apply_raw
from tests.engine.bruteforce import _material, material_value, winning_first_moves

GAIN = 2


def _random_position(rng: random.Random) -> Board:
    board = Board("W:W:B", "brazilian")
    geo = board.geometry
    squares = list(range(geo.squares))
    rng.shuffle(squares)
    nw, nb = rng.randint(5, 9), rng.randint(5, 9)
    fen_w, fen_b = [], []
    for sq in squares:
        f, r = geo.coords[sq]
        name = geo.algebraic(sq)
        if len(fen_w) < nw and 0 <= r <= 5:
            fen_w.append(name)
        elif len(fen_b) < nb and 2 <= r <= 7:
            fen_b.append(name)
    return Board(f"W:W{','.join(fen_w)}:B{','.join(fen_b)}", "brazilian")


def _has_multi_capture_line(board: Board, first: tuple[int, int, int]) -> bool:
    gen = board.gen
    w, b, k = board.white, board.black, board.kings
    m = next(x for x in gen.generate(w, b, k, True) if (x[0], x[1], x[2]) == first)
    w, b, k = apply_raw(w, b, k, True, m)
    # Black replies (any), then does White have a multi-capture?
    for r in gen.generate(w, b, k, False):
        w2, b2, k2 = apply_raw(w, b, k, False, r)
        for c in gen.generate(w2, b2, k2, True):
            if c[2].bit_count() >= 2:
                return True
    return False


def main() -> None:
    shallow = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    deep = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261202
    find(shallow, 7, 1, random.Random(seed))
    find(deep, 9, 3, random.Random(seed + 1))


def find(wanted: int, plies: int, blind_plies: int, rng: random.Random) -> None:
    found = 0
    tried = 0
    while found < wanted:
        tried += 1
        board = _random_position(rng)
        gen = board.gen
        w, b, k = board.white, board.black, board.kings
        if gen.has_capture(w, b, k, True) or gen.has_capture(w, b, k, False):
            continue
        base = _material(w, b, k, True)
        if abs(base) > 1:
            continue  # near-equal material: winning a man is then the point of the position
        if material_value(gen, w, b, k, True, blind_plies) - base > 0:
            continue
        if material_value(gen, w, b, k, True, plies) - base < GAIN:
            continue
        wins = winning_first_moves(gen, w, b, k, True, plies, GAIN)
        if not wins or len(wins) > 2:
            continue
        if not any(_has_multi_capture_line(board, m) for m in wins):
            continue
        found += 1
        print(f"{board.fen()} | {GAIN} | {plies} | {blind_plies}", flush=True)
        print(f"# tried {tried}", file=sys.stderr)


if __name__ == "__main__":
    main()
