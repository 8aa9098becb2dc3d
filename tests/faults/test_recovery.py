"""Each fault of issue 8 on the simulated table: detected, told in both languages, recovered,
nothing lost, the magnet never left on.

A short game (level 1, 24 plies) gets one fault at the robot's second move.  "Nothing lost" is
checked against the physical world, not the loop: the journal must replay under the rules to the
position that really stands on the simulated board.  The magnet is checked on the emulator and
on the gpiozero mock pin after every handled fault and at the end (`FaultGame.magnet_left_on`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.events import EventBus
from app.faults import FAULT_KINDS, FaultGame, Injection
from app.journal import load_journal

# the words each fault's message must contain, in Portuguese and in English
TOLD = {
    "camera_lost": ("câmara não dá imagens", "camera gives no pictures"),
    "camera_frozen": ("imagem da câmara está parada", "camera picture is frozen"),
    "lighting": ("Não consigo ler o tabuleiro", "Cannot read the board"),
    "bump": ("Não consigo ler o tabuleiro", "Cannot read the board"),
    "lean": ("afaste-se do tabuleiro", "lean back"),
    "disconnect": ("Ligação ao robô perdida", "Lost the link to the robot"),
    "alarm": ("alarme do controlador", "controller alarm"),
    "grbl_error": ("recusou uma ordem", "refused a command"),
    "missed_steps": ("não ficou no sítio", "not where it should be"),
    "drop": ("não ficou no sítio", "not where it should be"),
    "homing_fail": ("não encontrou a posição de origem", "could not find its home position"),
    "power_cut": ("Jogo retomado do registo", "Game resumed from the journal"),
}


def play(tmp_path: Path, inj: Injection, seed: int = 3, **kw: Any) -> tuple[Any, list[str]]:
    said: list[str] = []
    game = FaultGame(seed, tmp_path, [inj], max_plies=24, say=said.append, **kw)
    out = game.play()
    pin = game.gantry.factory.pin(game.cfg.magnet.pin)
    assert pin.state == 0 and not game.gantry.emulator.motion.magnet_on
    return out, said


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_fault_is_detected_told_and_recovered(tmp_path: Path, kind: str) -> None:
    inj = Injection(kind, 1, variant="short" if kind == "camera_lost" else "")
    out, said = play(tmp_path, inj)
    assert inj.fired, f"{kind} was never injected"
    assert inj.outcome == "auto", [(r.kind, r.outcome, r.detail) for r in out.reports]
    pt, en = TOLD[kind]
    assert any(pt in s and en in s for s in said), said[:20]
    assert out.record_intact, out.problems
    assert out.magnet_left_on == 0
    assert not out.aborted and out.result != "*"


@pytest.mark.parametrize("point", ["after_journal", "mid_move", "torn_write"])
def test_power_cut_at_any_point_resumes_without_losing_a_move(tmp_path: Path,
                                                              point: str) -> None:
    inj = Injection("power_cut", 2, variant=point)
    out, _ = play(tmp_path, inj, seed=5)
    assert inj.fired and out.resumed == 1
    assert out.record_intact, out.problems
    journal = load_journal(next(tmp_path.glob("*.jsonl")))
    assert journal.ended and journal.torn_bytes == 0  # the torn line was cut off on resume
    record = journal.to_game_record()
    _, moves = record.replay()
    assert len(moves) == len(journal.moves) == out.moves


def test_long_camera_outage_asks_for_the_cable(tmp_path: Path) -> None:
    inj = Injection("camera_lost", 1, variant="long")
    out, said = play(tmp_path, inj)
    assert inj.outcome == "person"
    assert any("Verifique o cabo da câmara" in s and "check the camera cable" in s for s in said)
    assert out.record_intact and out.magnet_left_on == 0


def test_homing_that_keeps_failing_asks_to_clear_the_carriage(tmp_path: Path) -> None:
    bus = EventBus("brazilian")
    bus.new_game("brazilian")
    alerts: list[str] = []
    raise_alert = bus.raise_alert

    def spy(alert_id: str, text: str, *a: Any, **k: Any) -> None:
        alerts.append(text)
        raise_alert(alert_id, text, *a, **k)

    bus.raise_alert = spy  # type: ignore[method-assign]
    inj = Injection("homing_fail", 0, variant="stuck")
    out, _ = play(tmp_path, inj, bus=bus)
    assert inj.outcome == "person"
    assert any("nada bloqueia o carro" in a and "nothing blocks the carriage" in a
               for a in alerts)
    # every fault alert was cleared once the fault was over
    assert not [a for a in bus.snapshot().state.alerts if a.alert_id.startswith("fault-")]
    assert out.record_intact and out.magnet_left_on == 0


def test_a_piece_taken_from_the_board_is_asked_back_by_square(tmp_path: Path) -> None:
    """After the robot's 3rd move a spectator pockets one of the robot's men: the robot cannot
    bring it back, so the person is asked for that exact square, and the game goes on."""
    said: list[str] = []
    game = FaultGame(7, tmp_path, [], max_plies=24, say=said.append)
    taken: list[str] = []
    build = game._build_loop

    def build_loop(*a: Any) -> Any:
        loop = build(*a)
        still = loop.still

        def pocket() -> None:
            assert still is not None
            still()
            if game.robot_moves == 3 and not taken:
                board = loop.referee.board
                sq = max(s for s, p in board.piece_map().items() if p.color is game.robot)
                x, y = game.sim.table.centre_of(sq)
                disc = next(d for d in game.sim.world.discs
                            if abs(d.x_mm - x) < 5 and abs(d.y_mm - y) < 5)
                game.sim.world.discs.remove(disc)
                taken.append(board.square_name(sq))
                game.sim.table.wait(0.6)

        loop.still = pocket
        return loop

    game._build_loop = build_loop  # type: ignore[method-assign]
    out = game.play()
    assert taken
    asks = [r for r in out.reports if r.outcome == "person"]
    assert asks and asks[0].kind == "board_mismatch"
    assert any(f"on {taken[0]}" in s and f"em {taken[0]}" in s for s in said), said[-10:]
    assert out.record_intact and not out.aborted
