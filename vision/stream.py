"""Observations over time: the motion/hand gate in front of the referee.

A person's move is a few seconds of a hand over the board.  The referee must read the board only
once the hand has gone and the view has been still for a moment (`GateConfig.still_s`); every
frame before that is still useful to it, for touch-move (a piece lifted, its square seen empty)
but is not a position.  `StillnessGate` decides, frame by frame, whether an observation is
*stable*; `ObservationStream` turns images into `game.observation.Observation`s with the vision
pipeline (`vision.pipeline.BoardObserver`), a motion measure and the gate.

A frame is *calm* when no hand is seen (no occluded square, no hand flag), nothing moves in the
image, and no square is uncertain; it is *stable* when it is calm and the squares have read the
same for `still_s` seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import cv2
import numpy as np

from game.board import BaseBoard, Piece
from game.observation import OCCLUDED, Observation, SquareView
from game.variants import Variant


@dataclass(frozen=True)
class GateConfig:
    still_s: float = 0.2  # a calm, unchanged view this long is stable
    motion_px_diff: int = 24  # a grey-level change this large marks a pixel as moving
    motion_share: float = 0.002  # more than this share of moving pixels: something moves
    motion_width_px: int = 200  # frames are compared at this width (noise averages out)
    min_confidence: float = 0.5  # a less certain square keeps the view from being calm

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GateConfig:
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"gate config: unknown field(s) {sorted(unknown)}")
        return cls(**data)


class StillnessGate:
    """Says which observations are stable (see the module docstring)."""

    def __init__(self, config: GateConfig | None = None) -> None:
        self.config = config or GateConfig()
        self._still_since: float | None = None
        self._last: Observation | None = None

    def push(self, obs: Observation, moving: bool = False) -> bool:
        cfg = self.config
        calm = (not obs.hand and not moving and not obs.occluded
                and not obs.unknown_squares(cfg.min_confidence))
        same = self._last is not None and self._last.same_view(obs)
        self._last = obs
        if not calm:
            self._still_since = None
            return False
        if self._still_since is None or not same:
            self._still_since = obs.time_s
        return obs.time_s - self._still_since >= cfg.still_s - 1e-9


class MotionMeter:
    """Share of pixels that changed since the previous frame (grey, downscaled, blurred)."""

    def __init__(self, config: GateConfig | None = None) -> None:
        self.config = config or GateConfig()
        self._prev: np.ndarray | None = None

    def push(self, image_bgr: np.ndarray) -> float:
        cfg = self.config
        h, w = image_bgr.shape[:2]
        small_w = min(cfg.motion_width_px, w)
        small = cv2.resize(image_bgr, (small_w, max(1, round(h * small_w / w))),
                           interpolation=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        prev, self._prev = self._prev, grey
        if prev is None or prev.shape != grey.shape:
            return 0.0
        diff = cv2.absdiff(grey, prev)
        return float(np.count_nonzero(diff > cfg.motion_px_diff)) / diff.size


def observation_from_vision(reading: Any, variant: Variant, frame: int, time_s: float,
                            hand: bool) -> Observation:
    """A `game.observation.Observation` from the pipeline's `BoardObservation`.

    Uses its `board`, `occluded` and `confidence`; pieces off-centre come from
    `extras["displaced"]` (a collection of squares) when the pipeline provides them.
    """
    board: BaseBoard = reading.board
    occluded = frozenset(reading.occluded)
    views: list[SquareView] = []
    for sq in board.squares:
        if sq in occluded:
            views.append(OCCLUDED)
        else:
            p = board.piece_at(sq)
            views.append(p if isinstance(p, Piece) else None)
    conf_map = reading.confidence or {}
    confidence = tuple(float(conf_map.get(sq, 1.0)) for sq in board.squares)
    extras = getattr(reading, "extras", None) or {}
    displaced = frozenset(int(s) for s in extras.get("displaced", ()))
    return Observation(variant, tuple(views), displaced, hand or bool(occluded), confidence,
                       frame, time_s)


class ObservationStream:
    """Images in, (observation, stable) out: the pipeline, a motion meter and the gate.

    `observe` is the per-frame reader (normally `BoardObserver.observe`).  While the image does
    not move and the last reading was calm, the previous reading is reused: reading the board is
    the costly part, and a still image reads the same.
    """

    def __init__(self, observe: Callable[[np.ndarray], Any], variant: Variant,
                 config: GateConfig | None = None) -> None:
        self.config = config or GateConfig()
        self._observe = observe
        self.variant = variant
        self.motion = MotionMeter(self.config)
        self.gate = StillnessGate(self.config)
        self._last_reading: Any = None

    def push(self, image_bgr: np.ndarray, frame: int, time_s: float
             ) -> tuple[Observation, bool]:
        share = self.motion.push(image_bgr)
        moving = share > self.config.motion_share
        reading = self._last_reading
        if reading is None or moving or reading.occluded or share > 0:
            reading = self._observe(image_bgr)
        self._last_reading = reading
        obs = observation_from_vision(reading, self.variant, frame, time_s, hand=moving)
        return obs, self.gate.push(obs, moving)
