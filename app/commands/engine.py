"""`damas bestmove` and `damas selfplay`: the engine from the command line.

bestmove prints one `info depth <d> score <cp> nodes <n> nps <n> pv <moves>` line per completed
iteration and `bestmove <pdn>` last.  selfplay plays level A against level B, colours
alternating, and prints `score <A's points>/<games> elo_diff <estimate> ± <error>` last; the
games are written as PDN.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from app.commands.args import int_range, positive_float
from game.board import Board
from game.engine import Engine, SearchLimits, move_budget_s, pv_names
from game.engine.hub import HubClient
from game.engine.match import MatchGame, elo_estimate, play_match
from game.engine.search import Iteration
from game.pdn import new_record, write_game
from game.variants import find_variant

DEFAULT_MOVETIME_S = 1.0
SECONDS = positive_float("number of seconds")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("bestmove", help="search a position and print the best move")
    p.add_argument("--variant", default="brazilian")
    p.add_argument("--fen", default=None, help="position (default: the initial one)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=SECONDS, default=None, metavar="S",
                       help=f"seconds to think (default {DEFAULT_MOVETIME_S:g})")
    limit.add_argument("--depth", type=int_range(1, 64), default=None, metavar="D")
    p.add_argument("--level", type=int_range(1, 10), default=10, metavar="L",
                   help="1 (gentle) .. 10 (full strength)")
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="seed of the level's random choices")
    p.add_argument("--engine-cmd", default=None, metavar="CMD",
                   help='external Hub engine to use instead, e.g. "scan hub"')
    p.set_defaults(func=cmd_bestmove)

    s = sub.add_parser("selfplay", help="play the engine against itself at two levels")
    s.add_argument("--variant", default="brazilian")
    s.add_argument("--games", type=int_range(1, 10000), required=True, metavar="N")
    s.add_argument("--level", type=int_range(1, 10), required=True, metavar="A")
    s.add_argument("--vs-level", type=int_range(1, 10), required=True, metavar="B")
    s.add_argument("--movetime", type=SECONDS, required=True, metavar="S")
    s.add_argument("--seed", type=int, default=None, metavar="N",
                   help="reproducible match (searches a node budget instead of the clock)")
    s.add_argument("--pdn", type=Path, default=Path("out/selfplay.pdn"), metavar="FILE",
                   help="where to write the games (default out/selfplay.pdn)")
    s.set_defaults(func=cmd_selfplay)


def _process_age_s() -> float:
    """Seconds since this process started (interpreter start-up counts against the budget)."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime_s = float(f.read().split()[0])
        return max(0.0, uptime_s - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def _startup_s() -> float:
    """Time already spent starting this command, to take off the thinking budget.

    A one-shot `damas bestmove` pays interpreter start-up and imports before the search, and
    the caller's clock runs from the start; when `main()` runs inside a long-lived process
    (tests, the game loop) the process age is no start-up at all."""
    if sys.argv[1:2] != ["bestmove"]:
        return 0.0
    return _process_age_s()


def cmd_bestmove(args: argparse.Namespace) -> int:
    variant = find_variant(args.variant)
    board = Board(args.fen, variant)
    if not board.legal_moves:
        raise ValueError(f"no legal move in {board.fen()}: the game is over")
    if args.engine_cmd:
        return _bestmove_hub(args, board)
    movetime = args.movetime if args.movetime is not None or args.depth else DEFAULT_MOVETIME_S
    budget = move_budget_s(movetime, already_used_s=_startup_s()) if movetime else None
    engine = Engine(board, args.level, seed=args.seed)

    def info(it: Iteration) -> None:
        nps = int(it.nodes / it.elapsed_s) if it.elapsed_s > 0 else it.nodes
        pv = " ".join(pv_names(board, it.pv))
        print(f"info depth {it.depth} score {it.score} nodes {it.nodes} nps {nps} pv {pv}",
              flush=True)

    choice = engine.play(board, SearchLimits(depth=args.depth, movetime_s=budget), info)
    if not choice.result.iterations:
        r = choice.result
        nps = int(r.nodes / r.elapsed_s) if r.elapsed_s > 0 else r.nodes
        print(f"info depth {r.depth} score {r.score} nodes {r.nodes} nps {nps} "
              f"pv {choice.name}", flush=True)
    print(f"bestmove {choice.name}", flush=True)
    return 0


def _bestmove_hub(args: argparse.Namespace, board: Board) -> int:
    from app.engine_process import EngineProcess

    movetime = args.movetime if args.movetime is not None or args.depth else DEFAULT_MOVETIME_S
    t0 = time.perf_counter()
    with EngineProcess(args.engine_cmd) as proc:
        client = HubClient(proc)
        client.start(board.variant)
        result = client.best_move(board, movetime_s=movetime, depth=args.depth)
    elapsed = max(time.perf_counter() - t0, 1e-9)
    last = result.infos[-1] if result.infos else {}
    nodes = int(float(last.get("nodes", "0") or 0))
    print(f"info depth {last.get('depth', '0')} score {last.get('score', '0')} nodes {nodes} "
          f"nps {int(nodes / elapsed)} pv {result.name}", flush=True)
    print(f"bestmove {result.name}", flush=True)
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    variant = find_variant(args.variant)
    texts: list[str] = []

    def on_game(g: MatchGame) -> None:
        o = g.outcome
        rec = new_record(variant, Event="damas selfplay", Round=str(g.number),
                         White=f"damas level {args.level if g.a_is_white else args.vs_level}",
                         Black=f"damas level {args.vs_level if g.a_is_white else args.level}")
        board = Board(None, variant)
        for move in o.moves:
            rec.add_move(board, move)
            board.push(move)
        rec.result = o.result
        rec.tags["Termination"] = o.reason
        texts.append(write_game(rec))
        colour = "white" if g.a_is_white else "black"
        print(f"game {g.number}: level {args.level} ({colour}) {g.a_points:g} "
              f"{o.result} {o.reason} plies {len(o.moves)}", flush=True)

    games = play_match(variant, args.games, args.level, args.vs_level, args.movetime,
                       seed=args.seed, on_game=on_game)
    args.pdn.parent.mkdir(parents=True, exist_ok=True)
    args.pdn.write_text("\n".join(texts))
    scores = [g.a_points for g in games]
    elo, err = elo_estimate(scores)
    print(f"pdn {args.pdn}")
    print(f"score {sum(scores):g}/{len(scores)} elo_diff {round(elo) + 0} ± {round(err)}",
          flush=True)
    return 0
