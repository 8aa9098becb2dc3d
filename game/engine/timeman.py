"""Time budgets: how long to think about one move.

A fixed `movetime` is used almost entirely (the search stops at 95% of it, leaving room to
print and return), so the answer comes within the budget +-10%.  With a game clock, the budget
is an even share of the remaining time over the moves still expected, plus most of the
increment, never more than a third of what is left.
"""

from __future__ import annotations

from dataclasses import dataclass

SAFETY_FRACTION = 0.95
EXPECTED_MOVES_LEFT = 30


@dataclass(frozen=True)
class Clock:
    remaining_s: float
    increment_s: float = 0.0
    moves_to_go: int | None = None


def move_budget_s(movetime_s: float | None = None, clock: Clock | None = None,
                  already_used_s: float = 0.0) -> float | None:
    """Seconds the search may use, or None for no time limit.

    `already_used_s`: time spent before the search started (process start-up, parsing), so
    the answer as the caller sees it still lands inside the budget.
    """
    if movetime_s is not None:
        if movetime_s <= 0:
            raise ValueError(f"movetime must be positive, got {movetime_s}")
        return max(0.01, movetime_s * SAFETY_FRACTION - already_used_s)
    if clock is not None:
        if clock.remaining_s <= 0:
            return 0.01
        moves = clock.moves_to_go or EXPECTED_MOVES_LEFT
        share = clock.remaining_s / max(1, moves) + 0.8 * clock.increment_s
        return max(0.01, min(share, clock.remaining_s / 3) - already_used_s)
    return None
