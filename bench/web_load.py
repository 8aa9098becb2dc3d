"""Load on the live page: a hall of phones watching while the game loop publishes.

Loopback only (127.0.0.1).  A simulated publisher plays random legal Brazilian games at a
steady rate (an engine PV update before each move, a camera picture at --frame-fps, a short
pause between games as on a real table).  First it plays with no client connected, then with
N websocket spectators (run in a separate process, as phones would be other machines).

Prints the publisher's per-move latency (the `set_position` call, median and max) without and
with clients, the delivery delay from publish to a client seeing the move, and whether every
client saw every move (each client's last state of each game holds that game's whole list).

    .venv/bin/python bench/web_load.py --clients 200 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.events import EventBus  # noqa: E402
from app.web import WebServer  # noqa: E402
from game.board import Board  # noqa: E402

MAX_PLIES = 80
GAME_PAUSE_S = 1.0


# -- publisher (the game loop's side) ------------------------------------------------------------
class Publisher:
    def __init__(self, bus: EventBus, rate_per_s: float, frame_fps: float, seed: int) -> None:
        self.bus = bus
        self.interval_s = 1.0 / rate_per_s
        self.frame_fps = frame_fps
        self.rng = random.Random(seed)
        self.latencies_s: list[float] = []
        self.games: dict[int, list[str]] = {}  # game_id -> final move list
        self.published_at: dict[tuple[int, int], float] = {}  # (game_id, plies) -> monotonic
        self.jpeg = b"\xff\xd8" + bytes(self.rng.getrandbits(8) for _ in range(40_000)) \
            + b"\xff\xd9"

    def run(self, seconds: float) -> None:
        """Play for `seconds`, then end the current game and pause (bounded)."""
        end = time.monotonic() + seconds
        next_frame = time.monotonic()
        while time.monotonic() < end:
            self.bus.new_game("brazilian", White="Sim", Black="Robot", level=5)
            game_id = self.bus.snapshot().state.game_id
            board, names = Board(), []
            self.games[game_id] = names
            next_move = time.monotonic()
            while time.monotonic() < end and not board.is_game_over() and len(names) < MAX_PLIES:
                now = time.monotonic()
                if self.frame_fps > 0 and now >= next_frame:
                    self.bus.publish_frame(self.jpeg)
                    next_frame = now + 1.0 / self.frame_fps
                if now < next_move:
                    time.sleep(min(next_move - now, max(0.0, next_frame - now) or 0.001))
                    continue
                next_move += self.interval_s
                legal = board.legal_moves
                move = self.rng.choice(legal)
                names.append(board.move_name(move, legal))
                board.push(move)
                self.bus.set_thinking(score_cp=self.rng.randint(-300, 300),
                                      pv=names[-3:], depth=self.rng.randint(4, 12))
                t0 = time.perf_counter()
                self.bus.set_position(board, names, move)
                self.latencies_s.append(time.perf_counter() - t0)
                self.published_at[(game_id, len(names))] = time.monotonic()
            outcome = board.outcome()
            self.bus.end_game(outcome.result if outcome else "*", "Game over")
            time.sleep(GAME_PAUSE_S)


# -- spectators (a separate process) ---------------------------------------------------------
def spectators(port: int, n: int, ready: Any, stop: Any, out: Any) -> None:
    """Run `n` websocket clients until `stop` is set; send each one's observations to `out`."""
    from websockets.asyncio.client import connect

    async def one(i: int, results: list[dict[str, Any]], connected: list[int]) -> None:
        seen: dict[int, list[str]] = {}
        first_seen: dict[str, float] = {}
        prefix_ok = True
        states = 0
        async with connect(f"ws://127.0.0.1:{port}/ws", max_size=2**22,
                           open_timeout=30) as ws:
            connected.append(i)
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 0.5)
                except TimeoutError:
                    continue
                msg = json.loads(raw)
                if msg["type"] != "state":
                    continue
                states += 1
                st = msg["state"]
                gid, moves = st["game_id"], st["moves"]
                old = seen.get(gid, [])
                if moves[:len(old)] != old:
                    prefix_ok = False
                seen[gid] = moves
                key = f"{gid}:{len(moves)}"
                first_seen.setdefault(key, time.monotonic())
        results.append({"seen": {str(k): v for k, v in seen.items()}, "states": states,
                        "prefix_ok": prefix_ok, "first_seen": first_seen})

    async def main() -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = []
        connected: list[int] = []
        tasks = [asyncio.create_task(one(i, results, connected)) for i in range(n)]
        deadline = time.monotonic() + 60
        while len(connected) < n and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        ready.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return results

    out.send(asyncio.run(main()))
    out.close()


# -- the run -------------------------------------------------------------------------------------
def summary(name: str, lat_s: list[float], what: str = "moves") -> str:
    if not lat_s:
        return f"{name}: no {what}"
    ms = [x * 1000 for x in lat_s]
    return (f"{name}: {what} {len(ms)}  median_ms {statistics.median(ms):.3f}  "
            f"p99_ms {sorted(ms)[int(0.99 * (len(ms) - 1))]:.3f}  max_ms {max(ms):.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0, help="phase with clients")
    ap.add_argument("--baseline-seconds", type=float, default=None,
                    help="phase without clients (default: seconds/3, at most 10)")
    ap.add_argument("--rate", type=float, default=5.0, help="moves per second")
    ap.add_argument("--frame-fps", type=float, default=2.0, help="camera pictures per second")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-compress", action="store_true",
                    help="no permessage-deflate on the websockets")
    args = ap.parse_args()
    if args.clients < 0 or args.seconds <= 0 or args.rate <= 0:
        ap.error("--clients >= 0, --seconds > 0 and --rate > 0")
    baseline_s = args.baseline_seconds if args.baseline_seconds is not None else \
        min(10.0, args.seconds / 3)

    bus = EventBus()
    server = WebServer(bus, "127.0.0.1", 0, "bench",
                       compress=not args.no_compress).start_in_thread()
    print(f"server http://127.0.0.1:{server.port}/  clients {args.clients}  "
          f"rate {args.rate}/s  frames {args.frame_fps}/s  "
          f"deflate {'off' if args.no_compress else 'on'}", flush=True)
    try:
        alone = Publisher(bus, args.rate, args.frame_fps, args.seed)
        alone.run(baseline_s)
        print(summary("without clients", alone.latencies_s), flush=True)

        ctx = mp.get_context("spawn")
        ready, stop = ctx.Event(), ctx.Event()
        recv_end, send_end = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=spectators,
                           args=(server.port, args.clients, ready, stop, send_end), daemon=True)
        proc.start()
        if not ready.wait(90):
            print("spectators did not connect", file=sys.stderr)
            proc.kill()
            return 1
        crowd = Publisher(bus, args.rate, args.frame_fps, args.seed + 1)
        t0 = time.monotonic()
        loaded = threading.Thread(target=crowd.run, args=(args.seconds,))
        loaded.start()
        loaded.join(args.seconds + 60)
        time.sleep(1.0)  # the last state reaches the slowest clients
        stop.set()
        results = recv_end.recv() if recv_end.poll(60) else []
        proc.join(10)
        if proc.is_alive():
            proc.kill()
        print(summary(f"with {args.clients} clients", crowd.latencies_s), flush=True)
        print(f"played {sum(len(m) for m in crowd.games.values())} moves in "
              f"{len(crowd.games)} games over {time.monotonic() - t0:.1f} s", flush=True)
    finally:
        server.stop()

    # what the publisher does not pay for: building a state's SVG + JSON, once per change,
    # lazily in the server's thread
    probe = EventBus()
    probe.new_game()
    board = Board()
    for name in list(crowd.games.values())[0][:30]:
        board.push_pdn(name)
    probe.set_position(board, list(crowd.games.values())[0][:30], board.peek())
    build_s = []
    for i in range(50):
        probe.set_thinking(score_cp=i)
        t0 = time.perf_counter()
        probe.snapshot().json()
        build_s.append(time.perf_counter() - t0)
    print(summary("state build (SVG + JSON, server thread, once per change)", build_s,
                  "samples"))

    missing = 0
    delays: list[float] = []
    for r in results:
        for gid, final in crowd.games.items():
            if r["seen"].get(str(gid)) != final:
                missing += 1
        for key, at in r["first_seen"].items():
            gid, plies = (int(x) for x in key.split(":"))
            if (gid, plies) in crowd.published_at:
                delays.append(at - crowd.published_at[(gid, plies)])
    states = sorted(r["states"] for r in results)
    print(f"clients reporting {len(results)}/{args.clients}; states per client "
          f"min {states[0] if states else 0} median {statistics.median(states) if states else 0}"
          f"; prefix-consistent {all(r['prefix_ok'] for r in results)}")
    if delays:
        d = sorted(x * 1000 for x in delays)
        print(f"delivery (publish -> a client receives that state): "
              f"median_ms {statistics.median(d):.1f}  p99_ms {d[int(0.99 * (len(d) - 1))]:.1f}"
              f"  max_ms {d[-1]:.1f}")
    ok = len(results) == args.clients and missing == 0
    print(f"every client saw every move: {'yes' if ok else 'NO'} "
          f"(client-games missing moves: {missing})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
