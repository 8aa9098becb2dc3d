"""Match: our engine against py-draughts' SimpleEngine (Brazilian) or TurboEngine (10x10).

Equal time per move, varied openings (two random plies, shared by each pair of games, colours
alternating), games refereed by our `Board` (every peer move checked against our legal moves),
a game longer than `--max-plies` adjudicated a draw.  Prints each game and the final score with
an Elo estimate.

Usage: python bench/engine_match.py [--peer simple|turbo] [--games 40] [--movetime 1]
       [--level 10] [--seed 1] [--pdn out/engine_match.pdn]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_peer import PeerEngine  # noqa: E402

from game.board import WHITE, Board  # noqa: E402
from game.engine import Engine, SearchLimits  # noqa: E402
from game.engine.match import elo_estimate, random_opening  # noqa: E402
from game.pdn import new_record, write_game  # noqa: E402
from game.variants import find_variant  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", choices=("simple", "turbo"), default="simple")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--movetime", type=float, default=1.0)
    ap.add_argument("--level", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--pdn", type=Path, default=None)
    ap.add_argument("--verbose", action="store_true",
                    help="print every move with our score and both depths (to find where a "
                         "game turned)")
    args = ap.parse_args()
    variant = find_variant("brazilian" if args.peer == "simple" else "international")
    peer_name = "SimpleEngine" if args.peer == "simple" else "TurboEngine"
    rng = random.Random(args.seed)
    peer = PeerEngine()
    ours = Engine(Board(None, variant), args.level, seed=rng.randrange(1 << 30))
    scores: list[float] = []
    texts: list[str] = []
    opening = []
    think = {"ours": 0.0, "peer": 0.0}
    for g in range(args.games):
        if g % 2 == 0:
            opening = random_opening(variant, 2, rng)
        ours_white = g % 2 == 0
        ours.new_game()
        board = Board(None, variant)
        for m in opening:
            board.push(m)
        fresh = True
        while board.outcome(claim_draw=True) is None and len(board.move_stack) < args.max_plies:
            if (board.turn is WHITE) == ours_white:
                t0 = time.perf_counter()
                played = ours.play(board, SearchLimits(movetime_s=args.movetime))
                move = played.move
                think["ours"] += time.perf_counter() - t0
                if args.verbose:
                    r = played.result
                    print(f"  {len(board.move_stack) + 1:3d} damas {played.name:8s} "
                          f"score {r.score:6d} depth {r.depth:2d} nodes {r.nodes}", flush=True)
            else:
                ans = peer.best_move(board, args.peer, args.movetime, fresh=fresh)
                fresh = False
                think["peer"] += ans.elapsed_s
                move = ans.move
                if args.verbose:
                    print(f"  {len(board.move_stack) + 1:3d} peer  {ans.text:8s} "
                          f"depth {ans.depth:2d} nodes {ans.nodes}", flush=True)
            board.push(move)
        outcome = board.outcome(claim_draw=True)
        result = outcome.result if outcome else "1-1"
        reason = outcome.reason if outcome else "adjudicated"
        white_points = {"2-0": 1.0, "1-1": 0.5, "0-2": 0.0}[result]
        pts = white_points if ours_white else 1 - white_points
        scores.append(pts)
        rec = new_record(variant, Event=f"damas vs {peer_name}", Round=str(g + 1),
                         White="damas" if ours_white else peer_name,
                         Black=peer_name if ours_white else "damas")
        replay = Board(None, variant)
        for m in board.move_stack:
            rec.add_move(replay, m)
            replay.push(m)
        rec.result = result
        texts.append(write_game(rec))
        if args.pdn:  # written after every game, so a long match can be read as it goes
            args.pdn.parent.mkdir(parents=True, exist_ok=True)
            args.pdn.write_text("\n".join(texts))
        print(f"game {g + 1}: damas {'white' if ours_white else 'black'} {result} {reason} "
              f"plies {len(board.move_stack)} -> damas {pts:g}; running "
              f"{sum(scores):g}/{len(scores)}", flush=True)
    elo, err = elo_estimate(scores)
    print(f"think time s: damas {think['ours']:.0f} {peer_name} {think['peer']:.0f}")
    print(f"score damas {sum(scores):g}/{len(scores)} ({100 * sum(scores) / len(scores):.1f}%) "
          f"vs {peer_name} at {args.movetime:g} s/move: elo_diff {elo:.0f} ± {err:.0f}",
          flush=True)
    peer.close()


if __name__ == "__main__":
    main()
