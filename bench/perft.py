"""Brazilian perft side by side: this project, py-draughts and pydraughts, in one run.

    python bench/perft.py [--depth 8] [--pydraughts-depth 5] [--repeat 1]

Each library counts the leaves of the same tree (initial Brazilian position) with its own
public API and the same algorithm (legal moves, push/pop, leaves counted in bulk at depth 1);
the peers run in their own virtualenvs (`bench/_peers.py`).  pydraughts is some hundreds of
times slower, so by default it runs a shallower depth (its leaf rate barely depends on depth);
`--pydraughts-depth 8` runs it in full (about 20 minutes here).
Prints one line per library and the ratios of leaf rates.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _peers import run_peer  # noqa: E402

from game.board import Board  # noqa: E402
from game.perft import perft  # noqa: E402

EXPECTED = {1: 7, 2: 49, 3: 302, 4: 1469, 5: 7473, 6: 37628, 7: 187302, 8: 907830}

# One perft for both peers; they differ in how the board is made and moves are listed.
PEER_PERFT = r"""
import json, sys, time
depth = int(sys.argv[1])
{setup}
def perft(b, d):
    moves = {moves}
    if d == 1:
        return len(moves)
    n = 0
    for m in moves:
        b.push(m)
        n += perft(b, d - 1)
        b.pop()
    return n
t = time.perf_counter()
n = perft(b, depth)
print(json.dumps({{"nodes": n, "time_s": time.perf_counter() - t}}))
"""
PY_DRAUGHTS = PEER_PERFT.format(setup="from draughts import BrazilianBoard\nb = BrazilianBoard()",
                                moves="b.legal_moves")
PYDRAUGHTS = PEER_PERFT.format(
    setup='from draughts import Board\nb = Board(variant="brazilian")', moves="b.legal_moves()")


def ours(depth: int) -> tuple[int, float]:
    b = Board(variant="brazilian")
    t = time.perf_counter()
    n = perft(b.gen, b.white, b.black, b.kings, True, depth)
    return n, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--pydraughts-depth", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1, help="best of N runs for each library")
    args = ap.parse_args()

    rows: dict[str, tuple[int, int, float]] = {}

    def best(fn, depth: int) -> tuple[int, float]:  # type: ignore[no-untyped-def]
        runs = [fn(depth) for _ in range(args.repeat)]
        return min(runs, key=lambda r: r[1])

    n, dt = best(ours, args.depth)
    rows["damas-robot"] = (args.depth, n, dt)
    for name, script, depth in (("py-draughts", PY_DRAUGHTS, args.depth),
                                ("pydraughts", PYDRAUGHTS, args.pydraughts_depth)):
        def peer(d: int, name: str = name, script: str = script) -> tuple[int, float]:
            r = json.loads(run_peer(name, script, str(d)))
            return int(r["nodes"]), float(r["time_s"])
        n, dt = best(peer, depth)
        rows[name] = (depth, n, dt)

    for name, (depth, n, dt) in rows.items():
        ok = "ok" if EXPECTED.get(depth) == n else f"MISMATCH (expected {EXPECTED.get(depth)})"
        print(f"{name:12s} perft({depth}) nodes {n} time_s {dt:.2f} "
              f"leaves_per_s {n / dt:,.0f} {ok}")
    rate = {k: v[1] / v[2] for k, v in rows.items()}
    print(f"ratio damas-robot/py-draughts {rate['damas-robot'] / rate['py-draughts']:.2f}")
    print(f"ratio damas-robot/pydraughts {rate['damas-robot'] / rate['pydraughts']:.0f}")
    print(f"ratio py-draughts/pydraughts {rate['py-draughts'] / rate['pydraughts']:.0f}")


if __name__ == "__main__":
    main()
