"""Load on the live page while a real simulated game runs: a hall of phones watching.

`bench/web_load.py` drives the page with a stand-in publisher; this drives it with the game
itself: `GameLoop` on the simulated table (oracle camera, GRBL emulator on a pty, robot level 1
against the simulated person), publishing every move to the `EventBus` served by `WebServer`
on 127.0.0.1, games one after another.  It plays first with no client, then with N websocket
spectators in another process (`web_load.spectators`, as phones are other machines).

Prints the game's pace (mean wall seconds per ply: the simulated person plays at once, the
robot thinks `--movetime`) and the publisher's `set_position` latency
without and with the clients, and whether every client saw every move of every game (each
client's last state of a game lists all of that game's moves).

    .venv/bin/python bench/web_game_load.py --clients 200 --seconds 60
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from web_load import spectators, summary  # noqa: E402

from app.events import EventBus  # noqa: E402
from app.web import WebServer  # noqa: E402

GAME_PAUSE_S = 1.0


class GamePublisher:
    """Simulated games through the real game loop, one after another, for `seconds`."""

    def __init__(self, bus: EventBus, seed: int, movetime_s: float = 0.2,
                 think_s: float = 0.2, max_plies: int = 60) -> None:
        self.bus = bus
        self.seed = seed
        self.movetime_s = movetime_s
        self.think_s = think_s  # the simulated person's thinking time before each move
        self.max_plies = max_plies
        self.games: dict[int, list[str]] = {}  # game_id -> the moves the loop played
        self.latencies_s: list[float] = []
        self.ply_s: list[float] = []  # wall time between successive published moves
        self._stop = threading.Event()

    def run(self, seconds: float) -> None:
        from app.game_loop import GameLoop, RobotArm
        from app.simtable import OracleStream, SimOptions, SimulatedTable
        from game.board import Board, Color
        from game.engine.engine import Engine
        from game.referee import Policy
        from robot.config import RobotConfig

        bus = self.bus
        set_position = bus.set_position
        last = [time.monotonic()]

        def timed(*a: Any, **k: Any) -> None:
            t0 = time.perf_counter()
            set_position(*a, **k)
            self.latencies_s.append(time.perf_counter() - t0)
            now = time.monotonic()
            self.ply_s.append(now - last[0])
            last[0] = now

        bus.set_position = timed  # type: ignore[method-assign]
        end = time.monotonic() + seconds
        n = 0
        while time.monotonic() < end:
            n += 1
            board = Board()
            human = Color.WHITE if n % 2 else Color.BLACK
            cfg = RobotConfig().for_grid(8)
            sim = SimulatedTable(board, cfg, human, self.seed * 1000 + n,
                                 SimOptions(render=False, human_level=1, human_movetime_s=0.02))
            bus.new_game("brazilian", None, 1, White="Sim", Black="Robot")
            gid = bus.snapshot().state.game_id
            with sim.gantry as g:
                arm = RobotArm(cfg, g.grbl, g.magnet, g.lift,
                               wait_for_crown=lambda name, s=sim, b=board, c=human.other:
                               s.crown(b.parse_square(name), c))
                loop = GameLoop(board, sim.read, lambda image: None, robot=human.other,
                                engine=Engine(board, 1, seed=n), arm=arm,
                                policy=Policy.INSIST, movetime_s=self.movetime_s,
                                max_plies=self.max_plies, bus=bus, truth=sim.truth,
                                still=sim.record_still, crown=sim.crown,
                                stream=OracleStream(sim.world, sim.variant))
                sim.idle = lambda s=sim, lp=loop: self._idle(s, lp)
                last[0] = time.monotonic()
                loop.run()
            self.games[gid] = list(loop.moves)
            # people set the pieces up again: the finished game stays on the page a moment (a
            # reader that lags behind would otherwise jump straight to the next game)
            time.sleep(GAME_PAUSE_S)
        bus.set_position = set_position  # type: ignore[method-assign]


    def _idle(self, sim: Any, loop: Any) -> None:
        if loop.recovering:
            sim.table.wait(0.4)
            return
        played = sim.human.played_ply
        sim.human.act(loop.referee)
        if sim.human.played_ply != played:
            time.sleep(self.think_s)  # (the frames of the move are read after this)


def run(clients: int, seconds: float, baseline_s: float, seed: int = 1,
        movetime_s: float = 0.2, think_s: float = 0.2, max_plies: int = 60) -> dict[str, Any]:
    """Both phases; returns the figures (the test uses this with small numbers)."""
    bus = EventBus()
    server = WebServer(bus, "127.0.0.1", 0, "bench").start_in_thread()
    try:
        alone = GamePublisher(bus, seed, movetime_s, think_s, max_plies)
        alone.run(baseline_s)
        ctx = mp.get_context("spawn")
        ready, stop = ctx.Event(), ctx.Event()
        recv_end, send_end = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=spectators, args=(server.port, clients, ready, stop, send_end),
                           daemon=True)
        proc.start()
        if not ready.wait(90):
            proc.kill()
            raise RuntimeError("spectators did not connect")
        crowd = GamePublisher(bus, seed + 1, movetime_s, think_s, max_plies)
        crowd.run(seconds)
        time.sleep(1.0)  # the last state reaches the slowest clients
        stop.set()
        results = recv_end.recv() if recv_end.poll(60) else []
        proc.join(10)
        if proc.is_alive():
            proc.kill()
    finally:
        server.stop()
    missing = sum(1 for r in results for gid, final in crowd.games.items()
                  if r["seen"].get(str(gid)) != final)
    return {"alone": alone, "crowd": crowd, "results": results, "missing": missing,
            "clients": clients}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--baseline-seconds", type=float, default=15.0)
    ap.add_argument("--movetime", type=float, default=0.2, help="robot's seconds per move")
    ap.add_argument("--think", type=float, default=0.2, help="person's seconds per move")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.clients < 1 or args.seconds <= 0:
        ap.error("--clients >= 1 and --seconds > 0")
    out = run(args.clients, args.seconds, args.baseline_seconds, args.seed, args.movetime,
              args.think)
    alone, crowd = out["alone"], out["crowd"]
    for name, pub in (("without clients", alone), (f"with {args.clients} clients", crowd)):
        print(summary(f"{name}: set_position", pub.latencies_s))
        if pub.ply_s:
            print(f"{name}: game pace mean_s_per_ply {statistics.mean(pub.ply_s):.4f} "
                  f"(median {statistics.median(pub.ply_s):.4f}) over {len(pub.ply_s)} plies "
                  f"in {len(pub.games)} games")
    slow = statistics.mean(crowd.ply_s) / statistics.mean(alone.ply_s)
    print(f"pace ratio (with / without clients) {slow:.2f}")
    ok = len(out["results"]) == args.clients and out["missing"] == 0
    print(f"clients reporting {len(out['results'])}/{args.clients}; every client saw every "
          f"move: {'yes' if ok else 'NO'} (client-games missing moves: {out['missing']})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
