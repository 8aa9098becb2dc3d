"""The draughts engine: search, evaluation, time management, levels and the Hub client.

Pure like the rest of `game`: no I/O (the Hub client talks through a transport object).
"""

from game.engine.engine import Engine, EngineMove, position_of, pv_names
from game.engine.levels import LEVELS, Level, level
from game.engine.search import (
    MATE,
    Position,
    Searcher,
    SearchLimits,
    SearchResult,
)
from game.engine.timeman import Clock, move_budget_s

__all__ = [
    "LEVELS", "MATE", "Clock", "Engine", "EngineMove", "Level", "Position", "SearchLimits",
    "SearchResult", "Searcher", "level", "move_budget_s", "position_of", "pv_names",
]
