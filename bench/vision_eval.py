"""Evaluate the vision pipeline on rendered scenes whose ground truth the renderer knows.

Usage: python bench/vision_eval.py [--scenes 2000] [--seed 1] [--workers 2] [--locate-every 10]
Each scene draws a camera (tilt 0-50 deg, distortion), board and piece styles, light, glare,
hard shadows, off-centre pieces and sometimes a hand.  The pipeline gets the fixed camera's
calibration (intrinsics and the board's corners, as `damas calibrate` would store them);
automatic board finding is scored separately on every Nth scene.
Prints square accuracy, king accuracy (stacked vs single), board-found rate, a confusion table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np

from calibration.store import Calibration
from game.variants import find_variant
from sim.render import render
from sim.scene import sample_position, sample_scene, sample_world
from sim.world import TableSpec
from vision.config import VisionConfig
from vision.errors import VisionError
from vision.locate import find_board
from vision.pipeline import BoardObserver

LABELS = ("empty", "white_man", "black_man", "white_king", "black_king", "occluded")


def one(args: tuple[int, bool]) -> dict[str, object]:
    seed, try_locate = args
    cv2.setNumThreads(1)
    rng = random.Random(seed)
    variant = find_variant("international" if rng.random() < 0.1 else "brazilian")
    spec = TableSpec(grid=variant.width)
    scene = sample_scene(rng, spec)
    board = sample_position(rng, variant)
    world = sample_world(rng, board, spec)
    frame = render(world, scene, variant, seed=seed)
    obs = BoardObserver(variant, calibration=Calibration(camera=frame.intrinsics),
                        corners_px=frame.corners_px).observe(frame.image)
    pairs = []
    for sq in frame.placement.squares:
        piece = frame.placement.piece_at(sq)
        truth = "occluded" if sq in frame.occluded else (piece.value if piece else "empty")
        got = obs.label(sq)
        if sq in frame.partly_occluded and got == "occluded":
            got = truth
        pairs.append((truth, got))
    found = None
    if try_locate:
        try:
            fb = find_board(frame.image, variant.width, VisionConfig())
            found = bool(np.max(np.linalg.norm(fb.corners_px - frame.corners_px, axis=1))
                         < 0.25 * np.linalg.norm(frame.corners_px[0] - frame.corners_px[1])
                         / variant.width)
        except VisionError:
            found = False
    return {"pairs": pairs, "found": found, "tilt": scene.camera.tilt_deg}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--locate-every", type=int, default=10)
    a = ap.parse_args()
    t0 = time.perf_counter()
    jobs = [(a.seed * 1_000_003 + i, a.locate_every > 0 and i % a.locate_every == 0)
            for i in range(a.scenes)]
    with ProcessPoolExecutor(a.workers) as ex:
        results = list(ex.map(one, jobs, chunksize=8))
    conf: Counter[tuple[str, str]] = Counter()
    by_tilt: Counter[tuple[int, bool]] = Counter()
    for r in results:
        for truth, got in r["pairs"]:  # type: ignore[attr-defined]
            conf[(truth, got)] += 1
            if truth.endswith("king") or truth.endswith("man"):
                bucket = int(r["tilt"] // 10) * 10  # type: ignore[operator]
                by_tilt[(bucket, got.endswith("king") == truth.endswith("king"))] += 1
    total = sum(conf.values())
    right = sum(v for (t, g), v in conf.items() if t == g)
    kings = sum(v for (t, g), v in conf.items() if t.endswith("king"))
    kings_right = sum(v for (t, g), v in conf.items() if t.endswith("king") and g.endswith("king"))
    pieces = sum(v for (t, g), v in conf.items() if t.endswith("man") or t.endswith("king"))
    stack_right = sum(v for (t, g), v in conf.items() if (t.endswith("man") or t.endswith("king"))
                      and (g.endswith("king") == t.endswith("king")) and g != "occluded"
                      and g != "empty")
    tried = [r["found"] for r in results if r["found"] is not None]
    print(f"scenes: {len(results)}  squares: {total}  time: {time.perf_counter() - t0:.0f} s")
    print(f"square accuracy: {100 * right / total:.3f}%")
    print(f"king accuracy (king squares read as a king of any colour): "
          f"{100 * kings_right / max(1, kings):.2f}% of {kings}")
    print(f"stacked-vs-single accuracy over all pieces: {100 * stack_right / max(1, pieces):.2f}%"
          f" of {pieces}")
    if tried:
        print(f"board found automatically: {100 * sum(tried) / len(tried):.1f}% of {len(tried)}")
    print("stacked-vs-single accuracy by camera tilt:")
    for b in sorted({k[0] for k in by_tilt}):
        ok, bad = by_tilt[(b, True)], by_tilt[(b, False)]
        print(f"  {b:2d}-{b + 10:2d} deg: {100 * ok / max(1, ok + bad):.2f}% of {ok + bad}")
    print("confusion (rows truth, columns read):")
    print(" " * 12 + "".join(f"{g[:10]:>11}" for g in LABELS))
    for t in LABELS:
        print(f"{t[:11]:<12}" + "".join(f"{conf[(t, g)]:>11}" for g in LABELS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
