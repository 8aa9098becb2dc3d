"""`damas perft` and `damas moves`: the rules from the command line."""

from __future__ import annotations

import argparse
import json
import time

from app.commands.args import int_range
from game.board import Board
from game.perft import perft
from game.variants import find_variant


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("perft", help="count move-tree leaves (move generator check)")
    p.add_argument("--variant", default="brazilian")
    p.add_argument("--depth", type=int_range(1, 30), required=True)
    p.add_argument("--fen", default=None, help="start position (default: the initial one)")
    p.set_defaults(func=cmd_perft)

    m = sub.add_parser("moves", help="list the legal moves of a position")
    m.add_argument("--variant", default="brazilian")
    m.add_argument("--fen", required=True)
    m.add_argument("--json", action="store_true", help="print a JSON list of move objects")
    m.set_defaults(func=cmd_moves)


def cmd_perft(args: argparse.Namespace) -> int:
    variant = find_variant(args.variant)
    board = Board(args.fen, variant)
    wtm = board.turn.value == "white"
    for depth in range(1, args.depth + 1):
        t0 = time.perf_counter()
        n = perft(board.gen, board.white, board.black, board.kings, wtm, depth)
        dt = time.perf_counter() - t0
        print(f"depth {depth} nodes {n} time_s {dt:.3f}", flush=True)
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    board = Board(args.fen, find_variant(args.variant))
    legal = board.legal_moves
    if args.json:
        js = board.notation.json_square
        out = [{"pdn": board.move_name(m, legal), "path": [js(s) for s in m.path],
                "captured": [js(s) for s in m.captured]} for m in legal]
        print(json.dumps(out))
    else:
        for m in legal:
            print(board.move_name(m, legal))
    return 0
