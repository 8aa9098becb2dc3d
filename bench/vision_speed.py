"""Median time of one full observation of a 1280x720 frame on one core.

The board is located once (a fixed camera, as in play); each observation then blurs the frame,
reads the sampling plan's pixels and classifies every square.  Usage: python bench/vision_speed.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import cv2

from calibration.store import Calibration
from game.board import BaseBoard
from game.variants import find_variant
from sim.render import render
from sim.scene import sample_scene, sample_world
from sim.world import TableSpec
from vision.pipeline import BoardObserver


def main() -> int:
    cv2.setNumThreads(1)
    variant = find_variant("brazilian")
    spec = TableSpec()
    times = []
    for seed in range(5):
        rng = random.Random(seed)
        scene = sample_scene(rng, spec, hand_probability=0.0)
        world = sample_world(rng, BaseBoard.starting(variant), spec)
        frame = render(world, scene, variant, seed=seed)
        observer = BoardObserver(variant, calibration=Calibration(camera=frame.intrinsics),
                                 corners_px=frame.corners_px)
        t0 = time.perf_counter()
        observer.observe(frame.image)
        first = time.perf_counter() - t0
        for _ in range(40):
            t0 = time.perf_counter()
            observer.observe(frame.image)
            times.append(time.perf_counter() - t0)
        print(f"scene {seed}: first observation (locate + plan) {1000 * first:.1f} ms")
    print(f"frame 1280x720, one core, start position (24 pieces), {len(times)} observations")
    print(f"median observation: {1000 * statistics.median(times):.2f} ms")
    print(f"90th percentile: {1000 * sorted(times)[int(0.9 * len(times))]:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
