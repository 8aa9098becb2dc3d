"""Engine-versus-engine games and the statistics of a match (pure: the caller writes files).

Openings are varied by a few random plies from the starting position, the same for both games
of a pair so that colours alternate on equal terms.  A game ends by the rules
(`Board.outcome(claim_draw=True)`: a recorder declares threefold repetition) or, after
`max_plies`, is adjudicated a draw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from game.board import WHITE, Board, Move
from game.engine.engine import Engine
from game.engine.search import SearchLimits
from game.variants import Variant

NOMINAL_NODES_PER_S = 60_000  # reproducible (seeded) games search a node budget, not a clock


@dataclass
class GameOutcome:
    moves: list[Move]
    names: list[str]
    result: str  # PDN result: "2-0", "1-1", "0-2"
    reason: str
    opening_plies: int
    start_fen: str


def random_opening(variant: Variant, plies: int, rng: random.Random) -> list[Move]:
    board = Board(None, variant)
    out: list[Move] = []
    for _ in range(plies):
        legal = board.legal_moves
        if not legal or board.outcome() is not None:
            break
        move = legal[rng.randrange(len(legal))]
        out.append(move)
        board.push(move)
    return out


def play_game(variant: Variant, white: Engine, black: Engine, limits: SearchLimits,
              opening: list[Move], max_plies: int = 300) -> GameOutcome:
    board = Board(None, variant)
    start_fen = board.fen()
    names: list[str] = []
    for move in opening:
        names.append(board.move_name(move))
        board.push(move)
    reason = "max_plies"
    result = "1-1"
    while len(board.move_stack) < max_plies:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, reason = outcome.result, outcome.reason
            break
        engine = white if board.turn is WHITE else black
        choice = engine.play(board, limits)
        names.append(choice.name)
        board.push(choice.move)
    else:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, reason = outcome.result, outcome.reason
    return GameOutcome(list(board.move_stack), names, result, reason, len(opening), start_fen)


def points_of_white(result: str) -> float:
    return {"2-0": 1.0, "1-1": 0.5, "0-2": 0.0}[result]


def elo_estimate(scores: list[float]) -> tuple[float, float]:
    """Elo difference implied by per-game scores (1, 0.5, 0) and its 95% error margin."""
    n = len(scores)
    if n == 0:
        raise ValueError("no games")
    p = sum(scores) / n
    var = sum((s - p) ** 2 for s in scores) / n
    if var == 0:  # all games alike: use the variance of a score one half-game from the edge
        q = min(max(p, 0.5 / n), 1 - 0.5 / n)
        var = q * (1 - q)
    se = math.sqrt(var / n)

    def elo(x: float) -> float:
        x = min(max(x, 0.5 / n), 1 - 0.5 / n) if n > 1 else min(max(x, 0.01), 0.99)
        return -400 * math.log10(1 / x - 1)

    lo, hi = elo(p - 1.96 * se), elo(p + 1.96 * se)
    return elo(p), (hi - lo) / 2


@dataclass
class MatchGame:
    number: int
    a_is_white: bool
    outcome: GameOutcome
    a_points: float


def play_match(variant: Variant, games: int, level_a: int, level_b: int, movetime_s: float,
               seed: int | None = None, opening_plies: int = 2,
               on_game: Callable[[MatchGame], None] | None = None) -> list[MatchGame]:
    """Level A against level B; colours alternate; each pair of games shares an opening."""
    master = random.Random(seed)
    engine_a = Engine(Board(None, variant), level_a, seed=master.randrange(1 << 30))
    engine_b = Engine(Board(None, variant), level_b, seed=master.randrange(1 << 30))
    if seed is not None:
        limits = SearchLimits(nodes=max(200, int(movetime_s * NOMINAL_NODES_PER_S)))
    else:
        limits = SearchLimits(movetime_s=movetime_s)
    out: list[MatchGame] = []
    opening: list[Move] = []
    for i in range(games):
        if i % 2 == 0:
            opening = random_opening(variant, opening_plies, master)
        a_white = i % 2 == 0
        engine_a.new_game()
        engine_b.new_game()
        white, black = (engine_a, engine_b) if a_white else (engine_b, engine_a)
        g = play_game(variant, white, black, limits, opening)
        wp = points_of_white(g.result)
        mg = MatchGame(i + 1, a_white, g, wp if a_white else 1 - wp)
        out.append(mg)
        if on_game is not None:
            on_game(mg)
    return out
