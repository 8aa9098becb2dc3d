"""Drive py-draughts' engines (SimpleEngine, TurboEngine) from its own virtualenv.

The peer is called, never copied: `PEER_SCRIPT` runs under the peer's interpreter (see
`_peers.py`) and answers JSON lines on stdin/stdout.  `PeerEngine` is our side of the pipe; it
translates positions (PDN FEN with standard square numbers, 1 = top-left playable square seen
by White, as py-draughts numbers them for both 8x8 and 10x10) and checks every peer move
against our own legal moves: a move that does not match exactly one legal move is an error.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _peers import peer_python  # noqa: E402

from game.board import Board, Move  # noqa: E402
from game.engine.hub import standard_numbers  # noqa: E402

PEER_SCRIPT = r'''
import json, sys, time
from draughts import BrazilianBoard, StandardBoard
from draughts.engines.simple import SimpleEngine
from draughts.engines.turbo import TurboEngine

_orig = SimpleEngine.negamax

def _negamax(self, board, depth, alpha, beta, h):
    # record the depth of each completed root iteration (SimpleEngine does not expose it)
    if getattr(self, "_in_root", False):
        return _orig(self, board, depth, alpha, beta, h)
    self._in_root = True
    try:
        value = _orig(self, board, depth, alpha, beta, h)
    finally:
        self._in_root = False
    if not self.stop_search:
        self.completed_depth = max(getattr(self, "completed_depth", 0), depth)
    return value

SimpleEngine.negamax = _negamax
BOARDS = {"brazilian": BrazilianBoard, "international": StandardBoard}
engines = {}
for line in sys.stdin:
    req = json.loads(line)
    board = BOARDS[req["variant"]].from_fen(req["fen"])
    key = (req["engine"], req["variant"])
    if req.get("fresh") or key not in engines:
        cls = SimpleEngine if req["engine"] == "simple" else TurboEngine
        engines[key] = cls(depth_limit=64, time_limit=req["time"])
    eng = engines[key]
    eng.time_limit = req["time"]
    eng.completed_depth = 0
    t0 = time.perf_counter()
    move = eng.get_best_move(board)
    elapsed = time.perf_counter() - t0
    print(json.dumps({"move": str(move), "path": [s + 1 for s in move.square_list],
                      "captured": [s + 1 for s in move.captured_list],
                      "nodes": eng.nodes, "elapsed": elapsed,
                      "depth": getattr(eng, "completed_depth", 0)}), flush=True)
'''


@dataclass
class PeerAnswer:
    move: Move
    text: str
    nodes: int
    elapsed_s: float
    depth: int


def peer_fen(board: Board) -> str:
    """The position in PDN FEN with standard numbers (py-draughts' numbering)."""
    numbers = standard_numbers(board.variant)
    parts = ["W" if board.turn.value == "white" else "B"]
    for letter, own in (("W", board.white), ("B", board.black)):
        items = []
        for sq in board.geometry.squares_of(own):
            king = board.kings & board.geometry.mask_of[sq]
            items.append((numbers[sq], ("K" if king else "") + str(numbers[sq])))
        parts.append(letter + ",".join(t for _, t in sorted(items)))
    return ":".join(parts)


class PeerEngine:
    """py-draughts' SimpleEngine ("simple") or TurboEngine ("turbo") in a subprocess."""

    def __init__(self) -> None:
        python = peer_python("py-draughts")
        self.proc = subprocess.Popen([str(python), "-c", PEER_SCRIPT], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def best_move(self, board: Board, engine: str, time_s: float, fresh: bool = False
                  ) -> PeerAnswer:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        req = {"variant": board.variant.name, "engine": engine, "fen": peer_fen(board),
               "time": time_s, "fresh": fresh}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("py-draughts peer exited")
        ans = json.loads(line)
        return PeerAnswer(self._our_move(board, ans), ans["move"], ans["nodes"],
                          ans["elapsed"], ans["depth"])

    @staticmethod
    def _our_move(board: Board, ans: dict[str, object]) -> Move:
        numbers = standard_numbers(board.variant)
        square_of = {n: sq for sq, n in enumerate(numbers)}
        path = [square_of[int(n)] for n in ans["path"]]  # type: ignore[attr-defined]
        captured = {square_of[int(n)] for n in ans["captured"]}  # type: ignore[attr-defined]
        matches = [m for m in board.legal_moves if m.from_square == path[0]
                   and m.to_square == path[-1] and set(m.captured) == captured]
        if len(matches) != 1:
            raise RuntimeError(f"peer move {ans['move']} matches {len(matches)} legal moves "
                               f"in {board.fen()} (peer FEN {peer_fen(board)})")
        return matches[0]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)
