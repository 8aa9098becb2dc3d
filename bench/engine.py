"""Engine speed: nodes per second and depth reached in 1 s and 5 s, ours against py-draughts.

20 varied Brazilian middlegame positions (each reached by 16-26 plies of a low-level engine
from the start, seeded), searched one after the other by our engine and by py-draughts'
SimpleEngine (its own virtualenv, see `_peers.py`), fresh tables for each position.  With
`--variant international` the positions are 10x10 (20-40 plies in) and the peer is
py-draughts' TurboEngine.  Both
count one node per position searched (their negamax and quiescence calls; our search and
quiescence calls).  Prints per-position figures and the medians.

Usage: python bench/engine.py [--positions 20] [--times 1,5] [--no-peer]
       [--variant brazilian|international]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_peer import PeerEngine  # noqa: E402

from game.board import Board  # noqa: E402
from game.engine import Engine, Searcher, SearchLimits, position_of  # noqa: E402


def middlegame_positions(count: int, seed: int = 2026, variant: str = "brazilian"
                         ) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    first, last = (16, 27) if variant == "brazilian" else (20, 41)
    while len(out) < count:
        board = Board(None, variant)
        opener = Engine(board, 4, seed=rng.randrange(1 << 30))
        plies = rng.randrange(first, last)
        while len(board.move_stack) < plies and board.outcome() is None:
            board.push(opener.play(board, SearchLimits(depth=2)).move)
        pieces = (board.white | board.black).bit_count()
        if board.outcome() is None and not board.has_capture() and pieces >= 14:
            out.append(board.fen())
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--times", default="1,5")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--variant", choices=("brazilian", "international"), default="brazilian")
    args = ap.parse_args()
    times = [float(t) for t in args.times.split(",")]
    fens = middlegame_positions(args.positions, variant=args.variant)
    peer_kind, peer_name = (("simple", "SimpleEngine") if args.variant == "brazilian"
                            else ("turbo", "TurboEngine"))
    peer = None if args.no_peer else PeerEngine()
    rows: dict[tuple[str, float], list[tuple[float, int]]] = {}
    for i, fen in enumerate(fens, start=1):
        board = Board(fen, args.variant)
        for t in times:
            r = Searcher(board.variant).search(position_of(board), SearchLimits(movetime_s=t))
            nps = r.nodes / r.elapsed_s
            rows.setdefault(("ours", t), []).append((nps, r.depth))
            line = (f"pos {i:2d} {t:g}s  ours: depth {r.depth:2d} nodes {r.nodes:8d} "
                    f"nps {nps:8.0f}")
            if peer is not None:
                a = peer.best_move(board, peer_kind, t, fresh=True)
                pnps = a.nodes / a.elapsed_s
                rows.setdefault(("peer", t), []).append((pnps, a.depth))
                line += (f"  | {peer_name}: depth {a.depth:2d} nodes {a.nodes:8d} "
                         f"nps {pnps:8.0f}")
            print(line, flush=True)
    print()
    for t in times:
        ours = rows[("ours", t)]
        o_nps = statistics.median(x for x, _ in ours)
        o_depth = statistics.median(d for _, d in ours)
        line = f"median {t:g}s: ours nps {o_nps:.0f} depth {o_depth:g}"
        if ("peer", t) in rows:
            peer_rows = rows[("peer", t)]
            p_nps = statistics.median(x for x, _ in peer_rows)
            p_depth = statistics.median(d for _, d in peer_rows)
            line += (f" | {peer_name} nps {p_nps:.0f} depth {p_depth:g} | "
                     f"nps ratio {o_nps / p_nps:.2f}")
        print(line, flush=True)
    if peer is not None:
        peer.close()


if __name__ == "__main__":
    main()
