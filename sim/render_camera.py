"""The simulated table's camera as a frame source: `read()` renders the world as it is now.

Same shape as the sources in `vision.sources` (`read() -> (image, frame number, time_s)`,
`close()`), so the game loop cannot tell it from a real camera.  The last ground truth is kept
in `last_frame` for tests and the evaluation.
"""

from __future__ import annotations

import time

import numpy as np

from game.variants import Variant
from sim.render import Frame, render
from sim.scene import Scene
from sim.world import World


class RenderedCamera:
    def __init__(self, world: World, scene: Scene, variant: Variant, seed: int = 0) -> None:
        self.world = world
        self.scene = scene
        self.variant = variant
        self.seed = seed
        self.frame = 0
        self.t0 = time.monotonic()
        self.last_frame: Frame | None = None
        self.closed = False

    def read(self) -> tuple[np.ndarray, int, float]:
        if self.closed:
            raise OSError("the rendered camera is closed")
        # Each frame gets its own sensor noise, as a real camera's would.
        frame = render(self.world, self.scene, self.variant, seed=self.seed + self.frame)
        self.last_frame = frame
        n = self.frame
        self.frame += 1
        return frame.image, n, time.monotonic() - self.t0

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> RenderedCamera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
