"""Stacked king or single man? The king stage measured on rendered scenes, broken down.

Usage: python bench/vision_kings.py [--scenes 200] [--seed 7] [--workers 2] [--dump DIR]
       [--uncalibrated] [--disc-heights-mm 5,7,10,12]
The scenes are drawn exactly as in bench/vision_eval.py (same seeds give the same scenes); only
squares whose piece was found with the right colour count, so this isolates the king stage.
Prints stacked-vs-single accuracy overall, by camera tilt, by piece set, by how many pixels a
man and a king differ in the image (the lean of one disc height), by glare, by how near the dark
squares' colour lies to a shade of the piece's (then a wall and the square under it differ in
brightness alone, and a piece's near edge hardly shows), and how often the stage said it was
sure (confidence >= 0.9) and how right it was then.  `--dump` writes crops of the
misread pieces (PNG, enlarged) for looking at.  `--disc-heights-mm` gives the scenes' pieces
other thicknesses in turn, as real sets have (and breaks the figures down by them).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
from vision_eval import build

from calibration.store import BoardCalibration, Calibration
from sim.scene import PIECE_COLOURS
from vision.config import KingConfig
from vision.kings import _ray_distance
from vision.pipeline import BoardObserver

SURE = 0.9  # a call with at least this confidence counts as sure


def _style_name(white_bgr: tuple[float, ...]) -> str:
    return min(PIECE_COLOURS, key=lambda k: float(np.linalg.norm(
        np.subtract(PIECE_COLOURS[k][0], white_bgr))))


def shade_gap(square_bgr: tuple[float, ...], piece_bgr: tuple[float, ...]) -> float:
    """How far a square's colour lies from every shade of a piece's that the king stage allows
    (KingConfig.piece_shade), as a share of the two colours' distance: near 0, the square
    looks like the piece's shaded wall."""
    lo, hi = KingConfig().piece_shade
    apart = float(np.linalg.norm(np.subtract(square_bgr, piece_bgr)))
    return float(_ray_distance(np.array(square_bgr), np.array(piece_bgr), lo, hi)) / max(apart,
                                                                                        1.0)


def one(args: tuple[int, str | None, bool, float | None]) -> list[dict[str, object]]:
    seed, dump, uncalibrated, disc_height_mm = args
    cv2.setNumThreads(1)
    # (The same scenes as bench/vision_eval.py, the pieces' thickness aside.)
    frame, scene, variant = build(seed, disc_height_mm=disc_height_mm)
    calibration = None
    if not uncalibrated:
        # (The lens, and the pieces' size as `damas calibrate board` saves it.)
        h, w = frame.image.shape[:2]
        board = None if disc_height_mm is None else BoardCalibration(
            variant.width, tuple((float(x), float(y)) for x, y in frame.corners_px), w, h,  # type: ignore[attr-defined]
            disc_height_mm=disc_height_mm)
        calibration = Calibration(camera=frame.intrinsics, board=board)
    observer = BoardObserver(variant, calibration=calibration, corners_px=frame.corners_px)
    obs = observer.observe(frame.image)
    s = observer.locate(frame.image).samples
    pose = observer.locate(frame.image).pose
    step_px = (s.kings.lam[:, 1] - s.kings.lam[:, 0]) * s.square_px  # man-to-king shift
    rows = []
    geo = frame.placement.geometry
    for sq in frame.placement.squares:
        truth = frame.placement.piece_at(sq)
        got = obs.board.piece_at(sq)
        if truth is None or got is None or sq in frame.occluded or sq in frame.partly_occluded \
                or sq in obs.occluded or got.color != truth.color:
            continue
        ok = got.is_king == truth.is_king
        row = {"king": truth.is_king, "ok": ok, "conf": obs.confidence[sq],
               "tilt": scene.camera.tilt_deg, "style": _style_name(scene.pieces.white_bgr),
               "colour": truth.color.value, "step_px": float(step_px[sq]),
               "ridges": scene.pieces.ridges, "seed": seed, "square": geo.algebraic(sq),
               "glare": scene.light.glare is not None, "disc_mm": disc_height_mm or 7.0,
               "shade_gap": shade_gap(scene.board.dark_bgr, scene.pieces.white_bgr
                                      if truth.color.value == "white" else scene.pieces.black_bgr)}
        rows.append(row)
        if dump and not ok:
            f, r = geo.coords[sq]
            c = pose.project(np.array([[f + 0.5, r + 0.5, 0.0]]))[0]
            half = int(1.2 * s.square_px)
            x0, y0 = int(c[0]) - half, int(c[1]) - half
            crop = frame.image[max(0, y0):y0 + 2 * half, max(0, x0):x0 + 2 * half]
            crop = cv2.resize(crop, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST)
            name = (f"{seed}_{geo.algebraic(sq)}_{truth.value}_as_{got.value}"
                    f"_t{scene.camera.tilt_deg:.0f}_s{step_px[sq]:.1f}.png")
            cv2.imwrite(str(Path(dump) / name), crop)
    return rows


def _line(name: str, rows: list[dict[str, object]]) -> str:
    n = len(rows)
    ok = sum(bool(r["ok"]) for r in rows)
    kings = [r for r in rows if r["king"]]
    kok = sum(bool(r["ok"]) for r in kings)
    sure = [r for r in rows if float(r["conf"]) >= SURE]  # type: ignore[arg-type]
    sure_ok = sum(bool(r["ok"]) for r in sure)
    return (f"  {name:<16} {100 * ok / max(1, n):6.2f}% of {n:5d}   kings "
            f"{100 * kok / max(1, len(kings)):6.2f}% of {len(kings):4d}   "
            f"sure {100 * len(sure) / max(1, n):5.1f}%, right when sure "
            f"{100 * sure_ok / max(1, len(sure)):6.2f}%")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dump", default=None, help="folder for crops of misread pieces")
    ap.add_argument("--uncalibrated", action="store_true",
                    help="read without the camera's intrinsics (as a photograph from an unknown "
                         "camera is read: the focal length estimated from the board itself)")
    ap.add_argument("--disc-heights-mm", default=None, metavar="MM,MM,...",
                    help="pieces of these thicknesses, scene by scene in turn (the scenes' own "
                         "is 7 mm; real sets differ): calibrated, the calibration's board "
                         "says it, as `damas calibrate board` saves it; uncalibrated, the "
                         "height is measured from the pieces in view")
    a = ap.parse_args()
    if a.dump:
        Path(a.dump).mkdir(parents=True, exist_ok=True)
    heights: list[float | None] = [None]
    if a.disc_heights_mm:
        try:
            heights = [float(v) for v in a.disc_heights_mm.split(",")]
        except ValueError:
            ap.error(f"--disc-heights-mm {a.disc_heights_mm!r}: thicknesses in mm, e.g. 5,7,10")
        if not all(0 < v < 30 for v in heights if v is not None):
            ap.error(f"--disc-heights-mm {a.disc_heights_mm!r}: each above 0 and under 30")
    t0 = time.perf_counter()
    jobs = [(a.seed * 1_000_003 + i, a.dump, a.uncalibrated, heights[i % len(heights)])
            for i in range(a.scenes)]
    with ProcessPoolExecutor(a.workers) as ex:
        rows = [r for part in ex.map(one, jobs, chunksize=4) for r in part]
    print(f"scenes: {a.scenes}  pieces read in the right colour: {len(rows)}  "
          f"time: {time.perf_counter() - t0:.0f} s")
    print(f"stacked-vs-single (all pieces, kings only, share with confidence >= {SURE}):")
    print(_line("all", rows))
    print("by camera tilt:")
    for b in range(0, 50, 10):
        print(_line(f"{b}-{b + 10} deg", [r for r in rows if b <= float(r["tilt"]) < b + 10]))  # type: ignore[arg-type]
    print("by man-to-king difference in the image (px):")
    for lo, hi in ((0, 2), (2, 4), (4, 6), (6, 9), (9, 14), (14, 99)):
        print(_line(f"{lo}-{hi} px", [r for r in rows if lo <= float(r["step_px"]) < hi]))  # type: ignore[arg-type]
    print("by piece set and colour:")
    for k in sorted({(str(r["style"]), str(r["colour"])) for r in rows}):
        print(_line(f"{k[0][:10]} {k[1]}", [r for r in rows if (r["style"], r["colour"]) == k]))
    if len(heights) > 1:
        print("by the discs' height:")
        for mm in sorted({float(r["disc_mm"]) for r in rows}):  # type: ignore[arg-type]
            print(_line(f"{mm:g} mm", [r for r in rows if r["disc_mm"] == mm]))
    print("by glare:")
    for g in (False, True):
        print(_line("glare" if g else "no glare", [r for r in rows if r["glare"] == g]))
    print("by the dark squares' distance from a shade of the piece's colour (share of apart):")
    for gap_lo, gap_hi in ((0.0, 0.05), (0.05, 0.1), (0.1, 0.2), (0.2, 0.4), (0.4, float("inf"))):
        print(_line(f"{gap_lo}-{gap_hi}" if gap_hi < float("inf") else f"{gap_lo} and more",
                    [r for r in rows if gap_lo <= float(r["shade_gap"]) < gap_hi]))  # type: ignore[arg-type]
    print("by ridges:")
    for k in sorted({int(r["ridges"]) for r in rows}):  # type: ignore[call-overload]
        print(_line(f"{k} ridges", [r for r in rows if r["ridges"] == k]))
    wrong = Counter((bool(r["king"]), float(r["conf"]) >= SURE) for r in rows if not r["ok"])  # type: ignore[arg-type]
    print(f"misread: kings as men {wrong[(True, True)]} sure + {wrong[(True, False)]} unsure, "
          f"men as kings {wrong[(False, True)]} sure + {wrong[(False, False)]} unsure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
