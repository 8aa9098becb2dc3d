"""The engine as the rest of the program sees it: a `Board` in, a `Move` out.

`Engine` owns a `Searcher` (and so its transposition table across the moves of a game), a
level and a random generator (seeded for reproducible games).  Everything here is pure: the
clock is read only through `time.perf_counter` inside the search.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from game.board import WHITE, Board, Move
from game.engine.levels import Level, choose_move, level
from game.engine.search import (
    Iteration,
    Position,
    Searcher,
    SearchLimits,
    SearchResult,
)
from game.movegen import RawMove

OPENING_MARGIN_CP = 12


@dataclass
class EngineMove:
    move: Move
    name: str  # PDN text of the move in this position
    result: SearchResult
    pv_names: list[str] = field(default_factory=list)


def position_of(board: Board) -> Position:
    """The search's view of `board`, with the positions since the last irreversible move."""
    history: list[tuple[int, int, int, bool]] = []
    if board.quiet_plies and board.move_stack:
        past = board.copy()
        for _ in range(min(board.quiet_plies, len(board.move_stack))):
            past.pop()
            history.append((past.white, past.black, past.kings, past.turn is WHITE))
        history.reverse()
    return Position(board.white, board.black, board.kings, board.turn is WHITE,
                    board.quiet_plies, board.ending_plies, tuple(history))


def pv_names(board: Board, pv: list[RawMove]) -> list[str]:
    """The moves of a principal variation in PDN, each named in its own position."""
    b = board.copy(stack=False)
    names = []
    for raw in pv:
        legal = b.legal_moves
        move = b.move_from_raw(raw)
        if move not in legal:
            break
        names.append(b.move_name(move, legal))
        b.push(move)
    return names


class Engine:
    """A player for one variant at one level (1 = a child's opponent, 10 = full strength)."""

    def __init__(self, variant_board: Board | None = None, level_number: int = 10,
                 seed: int | None = None, searcher: Searcher | None = None) -> None:
        board = variant_board or Board()
        self.variant = board.variant
        self.level: Level = level(level_number)
        self.rng = random.Random(seed)
        self.searcher = searcher or Searcher(self.variant)

    def new_game(self) -> None:
        self.searcher.new_game()

    def analyse(self, board: Board, limits: SearchLimits,
                on_iteration: Callable[[Iteration], None] | None = None) -> SearchResult:
        lvl = self.level
        depth = limits.depth
        if lvl.max_depth is not None:
            depth = min(depth or lvl.max_depth, lvl.max_depth)
        frac = lvl.time_fraction
        limits = SearchLimits(
            depth=depth,
            movetime_s=limits.movetime_s * frac if limits.movetime_s else None,
            nodes=max(100, int(limits.nodes * frac)) if limits.nodes else None,
            stop=limits.stop)
        return self.searcher.search(position_of(board), limits, margin=self._margin(board),
                                    on_iteration=on_iteration)

    def _margin(self, board: Board) -> int:
        """Near-equal moves the level may choose among: wider while no piece has been taken,
        so that even the top level does not repeat the same opening game after game."""
        if (board.white | board.black).bit_count() == 2 * self.variant.men_per_side:
            return max(self.level.margin_cp, OPENING_MARGIN_CP)
        return self.level.margin_cp

    def play(self, board: Board, limits: SearchLimits,
             on_iteration: Callable[[Iteration], None] | None = None) -> EngineMove:
        """Search and choose the move this level plays (always a legal move)."""
        if board.variant != self.variant:
            raise ValueError(f"engine plays {self.variant.name}, board is {board.variant.name}")
        result = self.analyse(board, limits, on_iteration)
        legal_raw = board.raw_moves()
        raw = choose_move(result, legal_raw, self.level, self.rng, self._margin(board))
        move = board.move_from_raw(raw)
        legal = board.legal_moves
        return EngineMove(move, board.move_name(move, legal), result,
                          pv_names(board, result.pv))
