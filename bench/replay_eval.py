"""Referee evaluation: scripted games rendered by the simulated table, run through `damas replay`.

Each game (seeded) is played by two simulated people (`sim.scripted_game`) with irregularities
planted on purpose, drawn by the rendered camera with its own board, pieces, light and camera
pose (`sim.scene`), written as a folder of JPEG frames, and refereed by `damas replay`.  The
events are compared with the ground truth:

- moves recovered exactly: the k-th `move` event has the k-th true move's text;
- irregularities found: a planted irregularity is found by an event of its type, at its move,
  naming at least one of its squares;
- false alarms: irregularity or `unreadable` events that match nothing planted;
- latency: from the last frame with the hand in view to the frame where the move is reported.

    .venv/bin/python bench/replay_eval.py --games 50 --workers 2
    .venv/bin/python bench/replay_eval.py --games 10 --bump   # the camera knocked mid-game
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

# Half the nudges are announced ("ajeito"): both outcomes are tested (announced: nothing to
# report; unannounced: "adjusted without announcing", informational).
ANNOUNCE_PROBABILITY = 0.5
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _bump(script: Any, scene: Any) -> tuple[int, Any] | None:
    """(frame, camera) for a camera knocked one second after the middle move's hand left, in
    a frame with no hand (None when a hand is there then): looking 15 mm and 10 mm aside and
    turned by 3 degrees, the board moved by a third of a square or more in the image."""
    from dataclasses import replace

    move = script.moves[len(script.moves) // 2]
    at = move.hand_gone_frame + int(script.table.fps)
    state = next((st for st in script.frames if st.frame == at), None)
    if state is None or state.hand is not None:
        return None
    cam = scene.camera
    return at, replace(cam, look_at_mm=(cam.look_at_mm[0] + 15.0, cam.look_at_mm[1] - 10.0),
                       azimuth_deg=cam.azimuth_deg + 3.0)


def render_game(seed: int, folder: Path, plies: int, width_px: int,
                bump: bool = False) -> dict[str, Any]:
    """Write the frames of scripted game `seed` into `folder`; return its ground truth.
    `bump`: the camera is knocked in mid-game (see `_bump`)."""
    import cv2

    from game.board import BaseBoard
    from sim.scripted_game import ScriptConfig, game_scene, render_script, script_game

    script = script_game(seed, config=ScriptConfig(plies=plies,
                                                   announce_probability=ANNOUNCE_PROBABILITY))
    scene = game_scene(seed, script, width_px=width_px)
    knock = _bump(script, scene) if bump else None
    corners = None
    for index, frame in render_script(script, scene, seed, knock):
        if corners is None:
            corners = frame.corners_px
        cv2.imwrite(str(folder / f"{index:06d}.jpg"), frame.image,
                    [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert corners is not None
    names = BaseBoard.empty(script.variant)
    return {
        "seed": seed, "fen": script.start_fen, "fps": script.table.fps,
        "frames": len(script.frames),
        "corners": " ".join(f"{x:.2f},{y:.2f}" for x, y in corners),
        "ajeito_frames": [st.frame for st in script.frames if st.announce_adjust],
        "bump_frame": None if knock is None else knock[0],
        "moves": [{"text": m.text, "hand_gone_frame": m.hand_gone_frame} for m in script.moves],
        "planted": [{"kind": p.kind, "event": p.event, "move": p.move,
                     "squares": [names.square_name(s) for s in p.squares]}
                    for p in script.planted],
    }


def replay_argv(folder: Path, truth: dict[str, Any], tmp: Path) -> list[str]:
    """`damas replay` as a scorer would run it: the corners, the start, and the frames at which
    the "ajeito" button was pressed (a sidecar file)."""
    argv = ["replay", str(folder), "--corners", truth["corners"], "--fen", truth["fen"],
            "--events", str(tmp / "events.jsonl"), "--pdn", str(tmp / "game.pdn")]
    if truth.get("ajeito_frames"):
        sidecar = tmp / "ajeito.txt"
        sidecar.write_text("".join(f"{n}\n" for n in truth["ajeito_frames"]))
        argv += ["--ajeito", str(sidecar)]
    return argv


def score(truth: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    moves = [e for e in events if e["type"] == "move"]
    want = truth["moves"]
    exact = sum(1 for a, b in zip(moves, want, strict=False) if a["move"] == b["text"])
    latencies = []
    for a, b in zip(moves, want, strict=False):
        if a["move"] == b["text"]:
            latencies.append((a["frame"] - (b["hand_gone_frame"] - 1)) / truth["fps"])
    others = [e for e in events if e["type"] != "move"]
    used: set[int] = set()
    found, missed = 0, []
    for p in truth["planted"]:
        hit = next((i for i, e in enumerate(others) if i not in used and e["type"] == p["event"]
                    and e["move"] == p["move"] and set(e["squares"]) & set(p["squares"])), None)
        if hit is None:
            missed.append(p)
        else:
            used.add(hit)
            found += 1
    false = [e for i, e in enumerate(others) if i not in used]
    return {"moves": len(want), "moves_reported": len(moves), "moves_exact": exact,
            "all_moves_exact": exact == len(want) == len(moves),
            "planted": len(truth["planted"]), "found": found, "missed": missed,
            "false_alarms": false, "latencies_s": latencies,
            "planted_kinds": [p["kind"] for p in truth["planted"]],
            "announced": len(truth.get("ajeito_frames", []))}


def run_one(seed: int, plies: int, width_px: int, keep: Path | None,
            bump: bool = False) -> dict[str, Any]:
    from app.cli import main as damas

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"replay{seed}_") as tmp:
        folder = Path(keep / f"game{seed:03d}") if keep else Path(tmp) / "frames"
        folder.mkdir(parents=True, exist_ok=True)
        truth = render_game(seed, folder, plies, width_px, bump)
        t1 = time.perf_counter()
        events_path = Path(tmp) / "events.jsonl"
        argv = replay_argv(folder, truth, Path(tmp))
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            code = damas(argv)
        if code != 0:
            raise RuntimeError(f"damas {' '.join(argv)} exited with {code}")
        events = [json.loads(line) for line in events_path.read_text().splitlines()]
        if keep:
            (folder / "truth.json").write_text(json.dumps(truth, indent=1))
            (folder / "events.jsonl").write_text(events_path.read_text())
    result = score(truth, events)
    result.update(seed=seed, frames=truth["frames"], render_s=t1 - t0,
                  bump_frame=truth["bump_frame"],
                  replay_s=time.perf_counter() - t1)
    return result


def rescore_one(folder: Path) -> dict[str, Any]:
    """`damas replay` again on a kept game folder (frames and truth.json), without rendering."""
    import contextlib
    import io

    from app.cli import main as damas

    truth = json.loads((folder / "truth.json").read_text())
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rescore_") as tmp:
        events_path = Path(tmp) / "events.jsonl"
        argv = replay_argv(folder, truth, Path(tmp))
        with contextlib.redirect_stdout(io.StringIO()):
            if damas(argv) != 0:
                raise RuntimeError(f"damas {' '.join(argv)} failed")
        events = [json.loads(line) for line in events_path.read_text().splitlines()]
    result = score(truth, events)
    result.update(seed=truth["seed"], frames=truth["frames"], render_s=0.0,
                  bump_frame=truth.get("bump_frame"),
                  replay_s=time.perf_counter() - t1)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--plies", type=int, default=6)
    ap.add_argument("--width-px", type=int, default=960)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", type=Path, default=None, help="keep frames and events here")
    ap.add_argument("--rescore", type=Path, default=None,
                    help="run damas replay again on the games kept in this folder (no render)")
    ap.add_argument("--bump", action="store_true",
                    help="knock the camera in mid-game (one second after the middle move): "
                         "the board must be found again where it now is")
    args = ap.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.games)
    kept = []
    if args.rescore:
        kept = sorted(d for d in args.rescore.iterdir() if (d / "truth.json").exists())
    totals: Counter[str] = Counter()
    latencies: list[float] = []
    kinds_found: Counter[str] = Counter()
    kinds_planted: Counter[str] = Counter()
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        if args.rescore:
            futures = [pool.submit(rescore_one, d) for d in kept]
        else:
            futures = [pool.submit(run_one, s, args.plies, args.width_px, args.keep, args.bump)
                       for s in seeds]
        for fut in futures:
            r = fut.result()
            totals["games"] += 1
            totals["games_all_moves_exact"] += r["all_moves_exact"]
            for k in ("moves", "moves_reported", "moves_exact", "planted", "found"):
                totals[k] += r[k]
            totals["false_alarms"] += len(r["false_alarms"])
            totals["announced"] += r["announced"]
            latencies += r["latencies_s"]
            print(f"  so far: games {totals['games']}, moves {totals['moves_exact']}/"
                  f"{totals['moves']}, irregularities {totals['found']}/{totals['planted']}, "
                  f"false alarms {totals['false_alarms']}", flush=True)
            kinds_planted.update(r["planted_kinds"])
            kinds_found.update(r["planted_kinds"])
            kinds_found.subtract(p["kind"] for p in r["missed"])
            print(f"seed {r['seed']:3d}: frames {r['frames']:5d} moves {r['moves_exact']}/"
                  f"{r['moves']} (reported {r['moves_reported']}) irregularities "
                  f"{r['found']}/{r['planted']} false alarms {len(r['false_alarms'])} "
                  f"render {r['render_s']:.0f}s replay {r['replay_s']:.0f}s"
                  + (f" camera knocked at frame {r['bump_frame']}" if r.get("bump_frame")
                     else ""), flush=True)
            totals["bumped"] += r.get("bump_frame") is not None
            totals["bumped_exact"] += r.get("bump_frame") is not None and r["all_moves_exact"]
            for p in r["missed"]:
                print(f"    missed {p['kind']} ({p['event']}) at {p['move']} {p['squares']}")
            for e in r["false_alarms"]:
                print(f"    false alarm {e['type']} at {e['move'] or '-'} {e['squares']}: "
                      f"{e['detail']}")
    med = statistics.median(latencies) if latencies else float("nan")
    p90 = sorted(latencies)[int(0.9 * (len(latencies) - 1))] if latencies else float("nan")
    print(f"games {totals['games']} (all moves exact in {totals['games_all_moves_exact']})")
    print(f"moves recovered exactly {totals['moves_exact']}/{totals['moves']} "
          f"(move events {totals['moves_reported']})")
    print(f"irregularities found {totals['found']}/{totals['planted']}")
    if totals["bumped"]:
        print(f"camera knocked in {totals['bumped']} games: all moves exact in "
              f"{totals['bumped_exact']}")
    print("  by kind: " + ", ".join(f"{k} {kinds_found[k]}/{n}"
                                     for k, n in sorted(kinds_planted.items())))
    print(f"false alarms {totals['false_alarms']} (announced adjustments in the games: "
          f"{totals['announced']}, each must give no event)")
    print(f"latency (last hand frame -> move reported) median {med:.2f}s p90 {p90:.2f}s "
          f"over {len(latencies)} moves")
    print(f"wall time {time.perf_counter() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
