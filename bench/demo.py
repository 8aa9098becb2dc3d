"""A simulated match on the whole table: robot against the simulated person.

    python bench/demo.py [--games 10] [--seed 1] [--camera rendered|oracle] [--max-plies 120]

Prints, per game, the wall time, the robot's thinking time and the share of time spent in
vision, engine and (simulated) motion, then the totals and the peak resident memory of the
process (target: under 300 MB, so it fits a 1 GB Raspberry Pi).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.commands.table import play_demo_game  # noqa: E402
from app.events import EventBus  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--camera", choices=("rendered", "oracle"), default="rendered")
    ap.add_argument("--level", type=int, default=6)
    ap.add_argument("--movetime", type=float, default=0.3)
    ap.add_argument("--max-plies", type=int, default=120)
    ap.add_argument("--fps", type=float, default=5.0)
    args = ap.parse_args()
    ns = argparse.Namespace(level=args.level, movetime=args.movetime, max_plies=args.max_plies,
                            irregularities=0.1, fps=args.fps, quiet=True, camera=args.camera)
    bus = EventBus("brazilian")
    totals = {"wall_s": 0.0, "vision_s": 0.0, "engine_s": 0.0, "motion_s": 0.0, "moves": 0,
              "mismatches": 0, "irregularities": 0, "machine_s": 0.0, "planted": 0,
              "planted_seen": 0, "false_alarms": 0, "notes": 0, "unreadable": 0}
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for g in range(args.games):
            s = play_demo_game(g, args.seed, ns, bus, Path(tmp))
            for k in totals:
                totals[k] += s[k]
            robot_moves = max(1, s["moves"] // 2)
            print(f"bench game {g + 1}: wall_s {s['wall_s']:.1f} moves {s['moves']} "
                  f"think_s_per_move {s['engine_s'] / robot_moves:.2f} "
                  f"vision {100 * s['vision_s'] / s['wall_s']:.0f}% "
                  f"engine {100 * s['engine_s'] / s['wall_s']:.0f}% "
                  f"motion {100 * s['motion_s'] / s['wall_s']:.0f}% "
                  f"gantry_s_per_move {s['machine_s'] / robot_moves:.1f}", flush=True)
    wall = totals["wall_s"]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"games {args.games} moves {totals['moves']} mismatches {totals['mismatches']} "
          f"irregularities {totals['irregularities']}")
    # (The person's rule-breaking is seen by the camera or not; the notes and unreadable moves
    # are the camera's mistakes: the simulated person neither adjusts pieces nor touches one
    # that cannot move.)
    print(f"planted {totals['planted']} seen {totals['planted_seen']} "
          f"false_alarms {totals['false_alarms']} notes {totals['notes']} "
          f"unreadable {totals['unreadable']}")
    print(f"wall_s_per_game {wall / args.games:.1f} (total {time.perf_counter() - t_start:.0f})")
    other = wall - totals["vision_s"] - totals["engine_s"] - totals["motion_s"]
    print(f"share vision {100 * totals['vision_s'] / wall:.0f}% engine "
          f"{100 * totals['engine_s'] / wall:.0f}% motion {100 * totals['motion_s'] / wall:.0f}% "
          f"other (rendering the simulated camera, referee) {100 * other / wall:.0f}%")
    robot_moves = max(1, totals["moves"] // 2)
    print(f"robot: think_s_per_move {totals['engine_s'] / robot_moves:.2f} "
          f"gantry_s_per_move {totals['machine_s'] / robot_moves:.1f} (simulated machine time; "
          f"on a real table this is the motion share)")
    print(f"peak_rss_mb {peak_mb:.0f}")


if __name__ == "__main__":
    main()
