"""What the camera saw at one instant, as the referee needs it: no images, only squares.

`vision` produces an `Observation` per frame; `game.referee` turns a stream of them into moves
and irregularities.  Per playable square the view is a `Piece`, empty (`None`) or `OCCLUDED`
(something - a hand, an arm - covers it, so it is *unknown*, not empty).  Pieces seen off the
centre of their square are `displaced` (a nudge, or a piece put back after being lifted);
`hand` says whether a hand or arm is in view at all; `confidence` is the classifier's certainty
per square (a square below the referee's threshold is treated as unknown, like an occluded one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from game.board import BaseBoard, Color, Piece
from game.geometry import Geometry, geometry
from game.variants import Variant


class Occluded(Enum):
    """The single value `OCCLUDED`: the square is hidden, its content unknown."""

    OCCLUDED = "occluded"

    def __repr__(self) -> str:
        return "OCCLUDED"


OCCLUDED = Occluded.OCCLUDED

SquareView = Piece | Occluded | None


@dataclass(frozen=True)
class Observation:
    """One frame's reading of the board (placement, occlusion, displacement, hand)."""

    variant: Variant
    squares: tuple[SquareView, ...]
    displaced: frozenset[int] = frozenset()
    hand: bool = False
    confidence: tuple[float, ...] = ()  # per square; empty means fully confident
    frame: int = -1
    time_s: float = 0.0
    _geo: Geometry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        geo = geometry(self.variant.width, self.variant.height)
        object.__setattr__(self, "_geo", geo)
        if len(self.squares) != geo.squares:
            raise ValueError(f"an observation of {self.variant.name} needs {geo.squares} "
                             f"squares, got {len(self.squares)}")
        if self.confidence and len(self.confidence) != geo.squares:
            raise ValueError(f"confidence needs {geo.squares} values, got "
                             f"{len(self.confidence)}")
        bad = [s for s in self.displaced if not 0 <= s < geo.squares]
        if bad:
            raise ValueError(f"displaced square index {bad[0]} out of range 0..{geo.squares - 1}")

    # -- building -------------------------------------------------------------------------------
    @classmethod
    def from_board(cls, board: BaseBoard, *, occluded: Iterable[int] = (),
                   displaced: Iterable[int] = (), hand: bool = False, frame: int = -1,
                   time_s: float = 0.0) -> Observation:
        """What a perfect camera sees of `board`, with some squares hidden or pieces off-centre."""
        hidden = set(occluded)
        views: list[SquareView] = [
            OCCLUDED if sq in hidden else board.piece_at(sq) for sq in board.squares]
        return cls(board.variant, tuple(views), frozenset(displaced), hand, (), frame, time_s)

    @classmethod
    def from_map(cls, variant: Variant, pieces: Mapping[int, Piece], *,
                 occluded: Iterable[int] = (), displaced: Iterable[int] = (),
                 hand: bool = False, frame: int = -1, time_s: float = 0.0) -> Observation:
        board = BaseBoard.from_placement(dict(pieces), variant)
        return cls.from_board(board, occluded=occluded, displaced=displaced, hand=hand,
                              frame=frame, time_s=time_s)

    def replace(self, **changes: object) -> Observation:
        """A copy with some fields changed (frame, time_s, hand, displaced...)."""
        from dataclasses import replace as _replace

        return _replace(self, **changes)  # type: ignore[arg-type]

    # -- reading --------------------------------------------------------------------------------
    @property
    def geometry(self) -> Geometry:
        return self._geo

    def is_known(self, sq: int, min_confidence: float = 0.0) -> bool:
        if self.squares[sq] is OCCLUDED:
            return False
        return not self.confidence or self.confidence[sq] >= min_confidence

    def unknown_squares(self, min_confidence: float = 0.0) -> list[int]:
        return [sq for sq in range(len(self.squares)) if not self.is_known(sq, min_confidence)]

    @property
    def occluded(self) -> frozenset[int]:
        return frozenset(sq for sq, v in enumerate(self.squares) if v is OCCLUDED)

    def piece_at(self, sq: int) -> Piece | None:
        """The piece seen on `sq` (None for empty *or* occluded; see `is_known`)."""
        v = self.squares[sq]
        return v if isinstance(v, Piece) else None

    def masks(self, min_confidence: float = 0.0) -> tuple[int, int, int]:
        """(known, white, black) bitboards: which squares are readable and what is on them."""
        known = white = black = 0
        mask_of = self._geo.mask_of
        for sq, v in enumerate(self.squares):
            if not self.is_known(sq, min_confidence):
                continue
            m = mask_of[sq]
            known |= m
            if isinstance(v, Piece):
                if v.color is Color.WHITE:
                    white |= m
                else:
                    black |= m
        return known, white, black

    def placement(self) -> BaseBoard:
        """The visible pieces as a placement (occluded squares left empty)."""
        out = BaseBoard.empty(self.variant)
        for sq, v in enumerate(self.squares):
            if isinstance(v, Piece):
                out.set_piece_at(sq, v)
        return out

    def same_view(self, other: Observation) -> bool:
        """Same squares and the same displaced pieces (frame, time and hand aside)."""
        return self.squares == other.squares and self.displaced == other.displaced
