"""Evaluate the vision pipeline on rendered scenes whose ground truth the renderer knows.

Usage: python bench/vision_eval.py [--scenes 2000] [--seed 1] [--workers 2] [--locate-every 10]
                                   [--dump DIR] [--dump-worst 12] [--camouflaged] [--grey]
Each scene draws a camera (tilt 0-50 deg, distortion), board and piece styles, light, glare,
hard shadows, off-centre pieces and sometimes a hand.  The pipeline gets the fixed camera's
calibration (intrinsics and the board's corners, as `damas calibrate` would store them);
automatic board finding is scored separately on every Nth scene.
Prints square accuracy, king accuracy (stacked vs single), board-found rate, a confusion table,
and the errors broken down by kind (empty read as a piece, a piece missed, colour swapped,
man/king, a covered square not reported, a visible square reported covered) and by scene
condition (glare, hard shadow, hand, tilt, board and piece style), so the dominant causes show.
`--camouflaged` draws the darker set in the colour of the squares it stands on (black men on a
black-and-white board's black squares), which the default scenes leave out.  `--grey` reads
each scene as a monochrome camera (or a greyscale photo) shows it: the colour models then see
every grey as a shade of every other (`damas detect` says so), and this measures what is left.
`--dump DIR` writes the worst scenes as annotated PNGs: the pipeline's reading drawn as by
`damas detect --annotate`, every wrong square boxed in red with its true label.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.store import Calibration
from game.variants import find_variant
from sim.render import Frame, render
from sim.scene import (
    BOARD_COLOURS,
    PIECE_COLOURS,
    Scene,
    sample_position,
    sample_scene,
    sample_world,
)
from sim.world import TableSpec
from vision.annotate import annotate
from vision.config import VisionConfig
from vision.errors import VisionError
from vision.locate import find_board
from vision.observation import BoardObservation
from vision.pipeline import BoardObserver

LABELS = ("empty", "white_man", "black_man", "white_king", "black_king", "occluded")
KINDS = ("empty->piece", "piece->empty", "colour", "man/king", "missed-cover", "false-cover")


def error_kind(truth: str, got: str) -> str | None:
    """Which kind of mistake reading `truth` as `got` is (None when right)."""
    if truth == got:
        return None
    if truth == "occluded":
        return "missed-cover"
    if got == "occluded":
        return "false-cover"
    if truth == "empty":
        return "empty->piece"
    if got == "empty":
        return "piece->empty"
    if truth.split("_")[0] != got.split("_")[0]:
        return "colour"
    return "man/king"


def _nearest_name(bgr: tuple[float, ...], table: dict[str, tuple[tuple[float, ...], ...]],
                  slot: int) -> str:
    return min(table, key=lambda k: float(np.linalg.norm(np.subtract(table[k][slot], bgr))))


def conditions(scene: Scene) -> dict[str, str]:
    """The scene's conditions, one bucket per axis, for the error breakdown."""
    tilt = int(scene.camera.tilt_deg // 10) * 10
    board = _nearest_name(scene.board.dark_bgr, BOARD_COLOURS, 0)  # type: ignore[arg-type]
    pieces = _nearest_name(scene.pieces.white_bgr, PIECE_COLOURS, 0)  # type: ignore[arg-type]
    if pieces == "white_black" or pieces == "white_red":
        # Same light set: the dark set names it.
        pieces = "white_" + _nearest_name(scene.pieces.black_bgr,
                                          {k: PIECE_COLOURS[k] for k in ("white_black",
                                                                         "white_red")},
                                          1).split("_")[1]
    return {"glare": "yes" if scene.light.glare is not None else "no",
            "hard_shadow": "yes" if scene.light.hard_shadow is not None else "no",
            "hand": "yes" if scene.hand is not None else "no",
            "tilt": f"{tilt:02d}-{tilt + 10:02d}",
            "board": f"{scene.board.kind}/{board}",
            "pieces": pieces,
            "gloss": "high" if scene.pieces.gloss > 0.4 else "low",
            "exposure": "dark" if scene.light.exposure < 0.85 else (
                "bright" if scene.light.exposure > 1.05 else "mid")}


MARKED_BORDER_MM = 45.0  # a frame wide enough for markers the table's camera reads


def build(seed: int, camouflaged: bool = False, disc_height_mm: float | None = None,
          markers: bool = False) -> tuple[Frame, Scene, object]:
    """Scene `seed`; `disc_height_mm` other than the table's 7 mm changes the pieces' thickness
    alone (bench/vision_kings.py --disc-heights-mm); with `markers` the board carries ArUco
    markers on a frame 45 mm wide (bench/vision_locate.py --markers)."""
    rng = random.Random(seed)
    variant = find_variant("international" if rng.random() < 0.1 else "brazilian")
    spec = TableSpec(grid=variant.width)
    if disc_height_mm is not None:
        spec = replace(spec, disc_height_mm=disc_height_mm)
    if markers:
        spec = replace(spec, border_mm=MARKED_BORDER_MM)
    scene = sample_scene(rng, spec, camouflaged=camouflaged)
    if markers:
        scene = replace(scene, board=replace(scene.board, markers=True))
    board = sample_position(rng, variant)
    world = sample_world(rng, board, spec)
    return render(world, scene, variant, seed=seed), scene, variant


def read(frame: Frame, variant: object) -> BoardObservation:
    return BoardObserver(variant, calibration=Calibration(camera=frame.intrinsics),  # type: ignore[arg-type]
                         corners_px=frame.corners_px).observe(frame.image)


def truth_pairs(frame: Frame, obs: BoardObservation) -> list[tuple[str, str, int]]:
    pairs = []
    for sq in frame.placement.squares:
        piece = frame.placement.piece_at(sq)
        truth = "occluded" if sq in frame.occluded else (piece.value if piece else "empty")
        got = obs.label(sq)
        if sq in frame.partly_occluded and got == "occluded":
            got = truth
        pairs.append((truth, got, sq))
    return pairs


def one(args: tuple[int, bool, bool, bool]) -> dict[str, object]:
    seed, try_locate, camouflaged, grey = args
    cv2.setNumThreads(1)
    frame, scene, variant = build(seed, camouflaged)
    if grey:
        frame = _no_colour(frame)
    t0 = time.perf_counter()
    obs = read(frame, variant)
    elapsed = time.perf_counter() - t0
    pairs = [(t, g) for t, g, _ in truth_pairs(frame, obs)]
    found = None
    if try_locate:
        try:
            n = variant.width  # type: ignore[attr-defined]
            fb = find_board(frame.image, n, VisionConfig())
            found = bool(np.max(np.linalg.norm(fb.corners_px - frame.corners_px, axis=1))
                         < 0.25 * np.linalg.norm(frame.corners_px[0] - frame.corners_px[1]) / n)
        except VisionError:
            found = False
    return {"seed": seed, "pairs": pairs, "found": found, "tilt": scene.camera.tilt_deg,
            "conditions": conditions(scene), "time_s": elapsed}


def _no_colour(frame: Frame) -> Frame:
    """The frame as a monochrome camera would take it (`--grey`)."""
    grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    return replace(frame, image=cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))


def dump(seed: int, out_dir: Path, camouflaged: bool = False, grey: bool = False) -> Path:
    """Re-render scene `seed` (as `--camouflaged` draws it, if so; without colour with
    `grey`), read it, and write the annotated reading with its errors."""
    frame, _, variant = build(seed, camouflaged)
    if grey:
        frame = _no_colour(frame)
    obs = read(frame, variant)
    img = annotate(frame.image, obs)
    geo = frame.placement.geometry
    n = geo.width
    plane = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    hom, _ = cv2.findHomography(plane, np.asarray(frame.corners_px, np.float64))
    for truth, got, sq in truth_pairs(frame, obs):
        if truth == got:
            continue
        f, r = geo.coords[sq]
        quad = cv2.perspectiveTransform(np.array([[[f + 0.08, r + 0.08], [f + 0.92, r + 0.08],
                                                   [f + 0.92, r + 0.92], [f + 0.08, r + 0.92]]],
                                                 np.float64), hom)[0]
        cv2.polylines(img, [np.round(quad).astype(np.int32)], True, (0, 0, 255), 1, cv2.LINE_AA)
        short = {"empty": "E", "white_man": "w", "black_man": "b", "white_king": "W",
                 "black_king": "B", "occluded": "X"}
        x, y = np.round(quad[3]).astype(int)
        cv2.putText(img, f"{short[truth]}>{short[got]}", (int(x) + 2, int(y) + 14),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 255), 1, cv2.LINE_AA)
    # The board's region, as seen and as read, side by side.
    c = np.asarray(frame.corners_px)
    h, w = img.shape[:2]
    x0, y0 = np.maximum(c.min(axis=0).astype(int) - 40, 0)
    x1, y1 = np.minimum(c.max(axis=0).astype(int) + 40, (w, h))
    both = np.hstack([frame.image[y0:y1, x0:x1], img[y0:y1, x0:x1]])
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"scene_{seed}.png"
    cv2.imwrite(str(path), both)
    return path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--locate-every", type=int, default=10)
    ap.add_argument("--camouflaged", action="store_true",
                    help="the darker set the colour of its squares (black men on black squares)")
    ap.add_argument("--grey", action="store_true",
                    help="each scene read as a monochrome camera would see it (no colour)")
    ap.add_argument("--dump", type=Path, default=None, help="folder for the worst scenes' PNGs")
    ap.add_argument("--dump-worst", type=int, default=12)
    ap.add_argument("--ignore", default="man/king",
                    help="error kinds not counted when ranking scenes to dump (comma list)")
    ap.add_argument("--dump-seeds", default="",
                    help="only dump these scene seeds (comma list) to --dump, no evaluation")
    a = ap.parse_args()
    if a.dump_seeds:
        for seed in a.dump_seeds.split(","):
            print(dump(int(seed), a.dump or Path("."), a.camouflaged, a.grey))
        return 0
    t0 = time.perf_counter()
    jobs = [(a.seed * 1_000_003 + i, a.locate_every > 0 and i % a.locate_every == 0,
             a.camouflaged, a.grey) for i in range(a.scenes)]
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
    print_breakdown(results)
    times = sorted(float(r["time_s"]) for r in results)  # type: ignore[arg-type]
    print(f"first observation per scene (locate + plan + classify, {a.workers} workers): "
          f"median {1000 * times[len(times) // 2]:.1f} ms")
    if a.dump is not None:
        ignore = set(a.ignore.split(",")) if a.ignore else set()
        ranked = sorted(results, key=lambda r: -_errors(r, ignore))
        for r in ranked[:a.dump_worst]:
            if _errors(r, ignore) == 0:
                break
            path = dump(int(r["seed"]), a.dump, a.camouflaged,  # type: ignore[call-overload]
                        a.grey)
            kinds = Counter(k for t, g in r["pairs"]  # type: ignore[attr-defined]
                            if (k := error_kind(t, g)) is not None)
            cond = " ".join(f"{k}={v}" for k, v in r["conditions"].items())  # type: ignore[attr-defined]
            print(f"dumped {path}: {dict(kinds)}  {cond}")
    return 0


def _errors(r: dict[str, object], ignore: set[str]) -> int:
    return sum(1 for t, g in r["pairs"]  # type: ignore[attr-defined]
               if (k := error_kind(t, g)) is not None and k not in ignore)


def print_breakdown(results: list[dict[str, object]]) -> None:
    """Errors by kind, and per scene condition: squares, error rate, errors by kind."""
    kinds: Counter[str] = Counter()
    for r in results:
        for t, g in r["pairs"]:  # type: ignore[attr-defined]
            k = error_kind(t, g)
            if k is not None:
                kinds[k] += 1
    print("errors by kind: " + "  ".join(f"{k}: {kinds[k]}" for k in KINDS))
    axes = list(results[0]["conditions"]) if results else []  # type: ignore[call-overload]
    print("errors by scene condition (scenes, squares, error %, then errors by kind "
          + "/".join(KINDS) + "):")
    for axis in axes:
        buckets: dict[str, list[dict[str, object]]] = {}
        for r in results:
            buckets.setdefault(r["conditions"][axis], []).append(r)  # type: ignore[index]
        for name in sorted(buckets):
            rs = buckets[name]
            c: Counter[str] = Counter()
            n = 0
            for r in rs:
                for t, g in r["pairs"]:  # type: ignore[attr-defined]
                    n += 1
                    k = error_kind(t, g)
                    if k is not None:
                        c[k] += 1
            err = sum(c.values())
            print(f"  {axis + '=' + name:<28} {len(rs):>4} {n:>6} {100 * err / max(1, n):6.2f}%  "
                  + " ".join(f"{c[k]:>4}" for k in KINDS))


if __name__ == "__main__":
    sys.exit(main())
