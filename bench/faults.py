"""Fault bench: many simulated games with seeded random faults of every kind.

Each game is the robot (level 1, 0.02 s a move) against the simulated person on the simulated
table with the flawless "oracle" camera (camera faults are modelled on its stream: see
`app.faults`), the GRBL emulator on a pseudo-terminal with limit switches, and gpiozero mock
pins.  Every game gets `--per-game` faults at random robot moves.  For each fault type it
prints: injected (faults that actually happened), recovered without help, recovered after a
request to the person, undetected, failed (the loop gave up), games whose record was lost (the
journal does not replay to the position physically on the board) and times the magnet was
found on after a fault.  The last line is

    games <n> faults <k> records_lost <x> magnet_left_on <y> recovered_without_help <p>%

    .venv/bin/python bench/faults.py --games 200 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.faults import FAULT_KINDS, RENDERED_KINDS, FaultGame, schedule  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-game", type=int, default=3, help="faults injected per game")
    ap.add_argument("--max-plies", type=int, default=30)
    ap.add_argument("--kinds", default=",".join(FAULT_KINDS),
                    help="comma-separated fault kinds to draw from")
    ap.add_argument("--render", action="store_true",
                    help="the rendered camera (640 px) and the real vision pipeline instead of "
                         "the oracle (slow; lighting and bump are oracle-only)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.games < 1 or args.per_game < 0 or args.max_plies < 2:
        ap.error("--games >= 1, --per-game >= 0, --max-plies >= 2")
    kinds = tuple(k for k in args.kinds.split(",") if k)
    if args.render:
        kinds = tuple(k for k in kinds if k in RENDERED_KINDS)
    bad = [k for k in kinds if k not in FAULT_KINDS]
    if bad:
        ap.error(f"unknown fault kind {bad[0]!r} (known: {', '.join(FAULT_KINDS)})")
    rng = random.Random(args.seed)
    stats: dict[str, Counter[str]] = {k: Counter() for k in kinds}
    records_lost = magnet_on = aborted = 0
    t0 = time.perf_counter()
    print(f"camera: {'rendered 640 px + vision pipeline' if args.render else 'oracle'}; "
          f"kinds: {', '.join(kinds)}", flush=True)
    with tempfile.TemporaryDirectory(prefix="damas-faults-") as tmp:
        for g in range(args.games):
            game_seed = rng.randrange(1 << 30)
            faults = schedule(random.Random(game_seed), kinds, args.per_game,
                              robot_moves=max(1, args.max_plies // 2 - 1))
            game = FaultGame(game_seed, Path(tmp) / f"g{g}", faults, max_plies=args.max_plies,
                             render=args.render)
            out = game.play()
            lost = not out.record_intact
            records_lost += lost
            magnet_on += out.magnet_left_on
            aborted += bool(out.aborted)
            for inj in out.injections:
                if not inj.fired:
                    continue
                c = stats[inj.kind]
                c["injected"] += 1
                c[inj.outcome] += 1
                c["lost"] += lost
            for k in {i.kind for i in out.injections if i.fired}:
                stats[k]["magnet"] += out.magnet_left_on
            if args.verbose or lost or out.aborted:
                print(f"game {g + 1} seed {game_seed}: {out.moves} moves {out.result}"
                      f"{' ABORTED: ' + out.aborted if out.aborted else ''}"
                      f"{' RECORD LOST: ' + '; '.join(out.problems) if lost else ''} faults "
                      + ", ".join(f"{i.kind}@{i.at_robot_move}:{i.outcome if i.fired else '-'}"
                                  for i in out.injections), flush=True)
    wall = time.perf_counter() - t0
    print(f"{'fault':<14} {'injected':>8} {'no_help':>8} {'asked':>8} {'undetected':>10} "
          f"{'failed':>7} {'games_lost':>10} {'magnet_on':>9}")
    total = Counter[str]()
    for k in kinds:
        c = stats[k]
        total.update(c)
        print(f"{k:<14} {c['injected']:>8} {c['auto']:>8} {c['person']:>8} "
              f"{c['undetected']:>10} {c['failed']:>7} {c['lost']:>10} {c['magnet']:>9}")
    n = total["injected"]
    pct = 100.0 * total["auto"] / n if n else 100.0
    print(f"wall {wall:.0f} s, {aborted} games gave up (TableError), "
          f"{total['person']} faults needed the person")
    print(f"games {args.games} faults {n} records_lost {records_lost} magnet_left_on {magnet_on} "
          f"recovered_without_help {pct:.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
