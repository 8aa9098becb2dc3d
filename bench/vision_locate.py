"""Measure automatic board finding alone on rendered scenes (no piece reading).

Usage: python bench/vision_locate.py [--scenes 500] [--seed 1] [--workers 2] [--show-failures]
                                    [--max-side PX] [--markers]
Scenes are drawn exactly as bench/vision_eval.py draws them (same seeds, 10% on 10x10), but the
board is located on every scene.  A board counts as found when all four corners, a1 first, lie
within a quarter square of the renderer's ground truth (vision_eval's rule).  Prints the found
rate, the reasons of the misses, and the CPU time of one locate on one thread (median and 95th
percentile).  With --markers the boards carry ArUco markers on a wider frame, which name a1
and find the board where its squares alone do not (vision.markers); it also prints how many
were named by them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np
from vision_eval import build

from vision.config import VisionConfig
from vision.errors import VisionError
from vision.locate import find_board
from vision.markers import find_board_any


def one(job: tuple[int, int, bool]) -> dict[str, object]:
    seed, max_side, markers = job
    cv2.setNumThreads(1)
    # The same scenes as bench/vision_eval.py (with --markers, the board carrying them).
    frame, scene, variant = build(seed, markers=markers)
    t0 = time.process_time()  # CPU time of this process: fair on a shared machine
    try:
        finder = find_board_any if markers else find_board
        fb = finder(frame.image, variant.width, VisionConfig(**(
            {"locate_max_side_px": max_side} if max_side else {})))
    except VisionError as exc:
        return {"seed": seed, "found": False, "why": type(exc).__name__, "time_s":
                time.process_time() - t0, "tilt": scene.camera.tilt_deg}
    elapsed = time.process_time() - t0
    side = np.linalg.norm(frame.corners_px[0] - frame.corners_px[1]) / variant.width
    err = float(np.max(np.linalg.norm(fb.corners_px - frame.corners_px, axis=1)))
    rolled = min(float(np.max(np.linalg.norm(np.roll(fb.corners_px, k, axis=0)
                                             - frame.corners_px, axis=1))) for k in (1, 2, 3))
    found = err < 0.25 * side
    why = "" if found else ("orientation" if rolled < 0.25 * side else "corners")
    return {"seed": seed, "found": found, "why": why, "time_s": elapsed,
            "err_sq": err / side, "tilt": scene.camera.tilt_deg,
            "confidence": fb.confidence, "by_markers": fb.oriented}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--show-failures", action="store_true")
    ap.add_argument("--max-side", type=int, default=0,
                    help="locate_max_side_px (default: VisionConfig's)")
    ap.add_argument("--markers", action="store_true",
                    help="boards carrying ArUco markers, found by them (vision.markers)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    seeds = [a.seed * 1_000_003 + i for i in range(a.scenes)]
    with ProcessPoolExecutor(a.workers) as ex:
        results = list(ex.map(one, [(s, a.max_side, a.markers) for s in seeds], chunksize=4))
    found = sum(bool(r["found"]) for r in results)
    why = Counter(str(r["why"]) for r in results if not r["found"])
    times = sorted(float(r["time_s"]) for r in results)  # type: ignore[arg-type]
    print(f"scenes: {len(results)}  wall time: {time.perf_counter() - t0:.0f} s")
    print(f"board found automatically: {100 * found / len(results):.1f}% of {len(results)}")
    print(f"misses by reason: {dict(why)}")
    if a.markers:
        by = sum(bool(r.get("by_markers")) for r in results)
        print(f"named by the markers: {by} of {len(results)} (the rest too few in view)")
    print(f"locate CPU time (one thread): median {1000 * statistics.median(times):.0f} ms, "
          f"95th percentile {1000 * times[int(0.95 * (len(times) - 1))]:.0f} ms")
    errs = [float(r["err_sq"]) for r in results if r["found"]]  # type: ignore[arg-type]
    if errs:
        print(f"corner error of found boards: median {statistics.median(errs):.3f} square, "
              f"max {max(errs):.3f}")
    if a.show_failures:
        for r in results:
            if not r["found"]:
                print(f"  seed {r['seed']}: {r['why']} tilt {float(r['tilt']):.0f}"  # type: ignore[arg-type]
                      f" err {r.get('err_sq', float('nan')):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
