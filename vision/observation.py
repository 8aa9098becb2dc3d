"""What the camera saw: a placement-only board, a confidence per square, the occluded squares.

This is the vision pipeline's answer to the code above it: a domain object, never masks.
`to_json_dict` is the `damas detect --json` format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.board import BaseBoard, Color
from game.observation import OCCLUDED, SquareView
from game.observation import Observation as GameObservation

PIECE_NAMES = ("empty", "white_man", "black_man", "white_king", "black_king", "occluded")


@dataclass(frozen=True)
class BoardObservation:
    board: BaseBoard  # occluded squares are left empty here; see `occluded`
    confidence: dict[int, float]  # internal square -> 0..1
    occluded: frozenset[int]
    corners_px: tuple[tuple[float, float], ...]  # a1, h1, h8, a8 outer grid corners
    board_confidence: float = 1.0
    extras: dict[str, Any] = field(default_factory=dict)

    def label(self, sq: int) -> str:
        if sq in self.occluded:
            return "occluded"
        piece = self.board.piece_at(sq)
        return "empty" if piece is None else piece.value

    def labels(self) -> dict[str, str]:
        """Algebraic square name -> piece name, for every playable square."""
        geo = self.board.geometry
        return {geo.algebraic(sq): self.label(sq) for sq in self.board.squares}

    def fen(self, turn: Color = Color.WHITE) -> str:
        return self.board.board_fen(turn)

    def to_json_dict(self) -> dict[str, Any]:
        geo = self.board.geometry
        squares = {geo.algebraic(sq): {"piece": self.label(sq),
                                       "confidence": round(float(self.confidence.get(sq, 0.0)),
                                                           3)}
                   for sq in self.board.squares}
        return {"grid": geo.width,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners_px],
                "squares": squares,
                "fen": self.fen()}


def to_game_observation(obs: BoardObservation, frame: int = -1, time_s: float = 0.0,
                        ) -> GameObservation:
    """The referee's pure `game.observation.Observation` for this reading."""
    views: list[SquareView] = [OCCLUDED if sq in obs.occluded else obs.board.piece_at(sq)
                               for sq in obs.board.squares]
    conf = tuple(float(obs.confidence.get(sq, 0.0)) for sq in obs.board.squares)
    return GameObservation(obs.board.variant, tuple(views), frozenset(),
                           hand=bool(obs.occluded), confidence=conf, frame=frame, time_s=time_s)
