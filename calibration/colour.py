"""Colour models learned from the board itself: no threshold is tied to one piece set.

Colours are CIE L*a*b* triples as OpenCV computes them for 8-bit images (L in 0..255).  The
board model is learned from the squares of an empty (or partly empty) board; the piece model
from the start position, when a game begins.  Both are optional: without a piece model the
pipeline clusters the pieces it sees into a lighter and a darker set.
"""

from __future__ import annotations

from dataclasses import dataclass

Lab = tuple[float, float, float]


@dataclass(frozen=True)
class ColourModel:
    """Mean colours of the playable (dark) squares, the light squares and the two piece sets."""

    dark_square_lab: Lab | None = None
    light_square_lab: Lab | None = None
    white_piece_lab: Lab | None = None
    black_piece_lab: Lab | None = None

    @property
    def has_pieces(self) -> bool:
        return self.white_piece_lab is not None and self.black_piece_lab is not None


def lab_distance(a: Lab, b: Lab) -> float:
    """Euclidean distance in OpenCV's 8-bit Lab (roughly 2.55x CIE76 in L, 1x in a/b)."""
    return float(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5)
