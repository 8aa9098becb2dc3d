"""A crowd on the live page while a real simulated game runs (issue 8), kept short here: 50
websocket spectators for 5 s on loopback.  `bench/web_game_load.py` runs the 200-phone, 60-s
version.  Every client must see every move of every game, and the game must not be slowed
much by them (its pace per ply, and the publisher's `set_position` call)."""

from __future__ import annotations

import importlib.util
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> object:
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("web_game_load",
                                                  ROOT / "bench" / "web_game_load.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fifty_spectators_see_every_move_of_a_running_game() -> None:
    bench = _bench()
    out = bench.run(clients=50, seconds=5.0, baseline_s=3.0,  # type: ignore[attr-defined]
                    movetime_s=0.1, think_s=0.1, max_plies=16)
    alone, crowd = out["alone"], out["crowd"]
    assert crowd.games and all(len(m) > 0 for m in crowd.games.values())
    assert len(out["results"]) == 50  # every spectator connected and reported
    assert out["missing"] == 0  # each one's last state of each game lists all its moves
    assert all(r["prefix_ok"] for r in out["results"])  # never a move list that went back
    # not slowed: the loop's pace and its publishing call stay in the same range
    pace = statistics.mean(crowd.ply_s) / statistics.mean(alone.ply_s)
    assert pace < 1.5, pace
    p99 = sorted(crowd.latencies_s)[int(0.99 * (len(crowd.latencies_s) - 1))]
    assert p99 < 0.05, p99
