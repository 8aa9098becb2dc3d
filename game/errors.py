"""Errors raised by `game`: one base, mixed with `ValueError`, so callers may catch either.

Every message names the offending input (square, token, line/column) so a person can fix it.
"""

from __future__ import annotations


class GameError(Exception):
    """Base of every error raised by `game`."""


class UnknownVariantError(GameError, ValueError):
    """A variant name that is not one of `game.variants.VARIANTS`."""


class InvalidSquareError(GameError, ValueError):
    """A square name or number that is not a playable square of the variant."""


class InvalidPositionError(GameError, ValueError):
    """A placement that cannot arise in the variant (too many pieces, a man on its crowning
    row...)."""


class FenError(GameError, ValueError):
    """A FEN string that cannot be read; the message says what and where."""


class PdnError(GameError, ValueError):
    """A PDN file or move text that cannot be read; the message gives line and column."""


class IllegalMoveError(GameError, ValueError):
    """A move that is not legal in the current position."""


class AmbiguousMoveError(GameError, ValueError):
    """A move text that matches more than one legal move (give the intermediate squares)."""
