"""Playing levels 1-10 and the choice of a root move.

A level limits the depth, and chooses among the root moves whose exact scores lie within
`margin_cp` of the best, adding a random bonus of up to `noise_cp` to each: a low level sees
little and does not care much for what it sees, so a child can beat it, yet it only ever plays
legal moves.  `blunder_chance` sometimes plays any legal move outright, and `time_fraction`
makes the lower levels answer sooner (a child should not wait) and think less.  Level 10 is the full
search, with a few centipawns of noise so that two games from the same opening differ (a seed
makes them identical again).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from game.engine.search import SearchResult, is_mate_score
from game.movegen import RawMove


@dataclass(frozen=True)
class Level:
    number: int
    max_depth: int | None  # None: as deep as the time allows
    margin_cp: int
    noise_cp: int
    blunder_chance: float
    time_fraction: float  # share of the time (or node) budget it uses


LEVELS: dict[int, Level] = {
    1: Level(1, 1, 400, 400, 0.30, 0.2),
    2: Level(2, 1, 250, 250, 0.15, 0.2),
    3: Level(3, 2, 160, 160, 0.08, 0.2),
    4: Level(4, 3, 100, 100, 0.05, 0.25),
    5: Level(5, 4, 70, 70, 0.03, 0.25),
    6: Level(6, 5, 45, 45, 0.01, 0.25),
    7: Level(7, 6, 30, 30, 0.0, 0.25),
    8: Level(8, 7, 18, 18, 0.0, 0.3),
    9: Level(9, 9, 10, 10, 0.0, 0.5),
    10: Level(10, None, 4, 4, 0.0, 1.0),
}


def level(number: int) -> Level:
    if number not in LEVELS:
        raise ValueError(f"level {number} is out of range 1..10")
    return LEVELS[number]


def choose_move(result: SearchResult, legal: list[RawMove], lvl: Level,
                rng: random.Random, margin_cp: int | None = None) -> RawMove:
    """The move the level plays, given the search result (exact scores within `margin_cp`
    of the best; the level's own margin by default)."""
    if len(legal) > 1 and lvl.blunder_chance and rng.random() < lvl.blunder_chance:
        return legal[rng.randrange(len(legal))]
    candidates = result.root_scores or [(result.best, result.score)]
    margin = lvl.margin_cp if margin_cp is None else margin_cp
    noise = max(lvl.noise_cp, margin)
    if noise <= 0 or len(candidates) == 1 or is_mate_score(result.score):
        return result.best
    best_score = candidates[0][1]
    pick = result.best
    pick_value = None
    for move, score in candidates:
        if score < best_score - margin or (is_mate_score(score) and score < 0):
            continue
        value = score + rng.uniform(0, noise)
        if pick_value is None or value > pick_value:
            pick, pick_value = move, value
    return pick
