"""The camera side of fault injection on the simulated table (see `app.faults`).

`FaultyCamera` wraps the simulated camera's `read` with outages and freezes; `FaultyStream`
wraps the flawless "oracle" observation stream with a board that cannot be read (a sudden
lighting change, a bumped camera); `oracle_locator` says where the disc stacks are, as a camera
that measures positions would (the robot's repairs need it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from app.simtable import OracleStream
from game.observation import OCCLUDED, Observation
from robot.repair import SeenStack
from vision.errors import CameraUnavailable


# -- camera ---------------------------------------------------------------------------------------
class FaultyCamera:
    """`SimulatedTable.read` with outages and freezes.  An outage of n reads ends by itself, or
    when the person is asked to check the cable; a freeze ends when the camera is restarted."""

    def __init__(self, read: Callable[[], Any]) -> None:
        self._read = read
        self.outage_reads = 0
        self.frozen_reads = 0
        self._last: Any = None
        self.restarts = 0

    def read(self) -> Any:
        if self.outage_reads > 0:
            self.outage_reads -= 1
            raise CameraUnavailable("simulated camera: no frame within 1 s (device gone)")
        if self.frozen_reads > 0 and self._last is not None:
            self.frozen_reads -= 1
            return self._last
        self._last = self._read()
        return self._last

    def restart(self) -> None:
        self.restarts += 1
        self.frozen_reads = 0


class FaultyStream:
    """`OracleStream` whose board cannot be read for a while (lighting) or until it is found
    again (bump): every square unknown, no hand, as the vision reports a board it cannot match
    to its colour model or grid.  (The rendered pipeline's own reaction is not modelled.)"""

    def __init__(self, inner: OracleStream) -> None:
        self.inner = inner
        self.dark_frames = 0
        self.bumped = False
        self.relocations = 0

    def push(self, state: Any, frame: int, time_s: float) -> tuple[Observation, bool]:
        obs, stable = self.inner.push(state, frame, time_s)
        if self.dark_frames > 0 or self.bumped:
            self.dark_frames = max(0, self.dark_frames - 1)
            blind = Observation(obs.variant, (OCCLUDED,) * len(obs.squares), frozenset(), False,
                                (), obs.frame, obs.time_s)
            self.inner.gate.push(blind, False)
            return blind, False
        return obs, stable

    def relocate(self) -> bool:
        """Find the board in the current image again (the oracle always can)."""
        self.relocations += 1
        self.bumped = False
        return True


def oracle_locator(world: Any, lock: Any) -> Callable[[], list[SeenStack]]:
    """Where the discs are, as a camera that measures positions would say (exact here).  It
    also sees the robot's tray beside the board."""

    def locate() -> list[SeenStack]:
        with lock:
            discs = [(d.x_mm, d.y_mm, d.color, d.level) for d in world.discs]
        stacks: list[list[Any]] = []
        # discs overlapping by more than 5 mm of offset are one blob to a camera (and to the
        # magnet): the bottom one's colour, the count of discs
        for x, y, color, _level in sorted(discs, key=lambda d: d[3]):
            for st in stacks:
                if math.hypot(st[0] - x, st[1] - y) < 5.0:
                    st[3] += 1
                    break
            else:
                stacks.append([x, y, color, 1])
        return [SeenStack(x, y, c, n) for x, y, c, n in stacks]

    return locate
