"""The same driver code over a pseudo-terminal, over a pyserial URL, and under injected
faults: a disconnect or an alarm mid-move leaves the magnet off and raises a clear error; a
dropped piece or missed steps go unnoticed by GRBL but leave the simulated board wrong, where
the camera will see it."""

from __future__ import annotations

import socket
import threading

import pytest

from game.board import Board
from robot.config import config_from_dict
from robot.errors import GantryAlarm, GantryDisconnected
from robot.grbl import Grbl
from sim.grbl import Faults, GrblEmulator, PtyGrbl
from sim.world import World
from tests.robot.table import CONFIGS, execute

FEN = "W:Wc3,g7:Bd4,f6,d6"  # c3xe5xc7 takes d4 and d6: three carries


def test_driver_over_pty_runs_a_capture() -> None:
    board = Board(FEN)
    run = execute(board, board.parse_move("c3xc7"), CONFIGS["under-board"], use_pty=True)
    assert run.error is None
    assert run.world.placement(run.after).placement_equals(run.after)
    assert run.grbl.max_pending_bytes <= 127
    assert run.emulator.rx_peak <= 128 and run.emulator.rx_overflows == 0


def test_driver_over_a_pyserial_url() -> None:
    """`socket://host:port` reaches the emulator through pyserial's URL handler."""
    emu = GrblEmulator(World())
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        conn, _ = srv.accept()
        conn.settimeout(0.02)
        with conn:
            while not stop.is_set():
                try:
                    data = conn.recv(1024)
                    if not data:
                        break
                    emu.feed(data)
                except TimeoutError:
                    pass
                out = emu.read()
                if out:
                    conn.sendall(out)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        with Grbl.open(f"socket://127.0.0.1:{port}") as g:
            assert g.connect(banner_timeout_s=0.3).startswith("Grbl 1.1")
            g.stream(["G21 G90", "G1 X30 Y40 F3000"])
            st = g.wait_idle(timeout_s=5)
            assert st.mpos == pytest.approx((30.0, 40.0, 0.0))
    finally:
        stop.set()
        srv.close()


def test_open_bad_port_is_a_clear_error() -> None:
    with pytest.raises(GantryDisconnected, match="cannot open GRBL port"):
        Grbl.open("/dev/does-not-exist-42")


@pytest.mark.parametrize("use_pty", [False, True])
@pytest.mark.parametrize("name", ["under-board", "overhead"])
def test_disconnect_mid_move_leaves_magnet_off(name: str, use_pty: bool) -> None:
    board = Board(FEN)
    run = execute(board, board.parse_move("c3xc7"), CONFIGS[name],
                  faults=Faults(disconnect_at_block=4), use_pty=use_pty)
    assert isinstance(run.error, GantryDisconnected), run.error
    assert "link lost" in str(run.error)
    assert run.magnet_on_after_error is False and run.sim_magnet_on_after_error is False
    assert not run.emulator.motion.magnet_on  # neither the Pi pin nor GRBL's output
    if name == "under-board":
        assert run.factory.pin(17).state == 0  # the gpiozero mock pin is low
    assert "disconnect" in run.emulator.faults.fired
    last = run.emulator.motion.events[-1]
    assert not last.on and last.discs == 1  # it was carrying c3 when the link died


def test_alarm_mid_move_raises_with_code_and_meaning() -> None:
    board = Board(FEN)
    run = execute(board, board.parse_move("c3xc7"), CONFIGS["under-board"],
                  faults=Faults(alarm_at_block=2, alarm_code=1))
    assert isinstance(run.error, GantryAlarm)
    assert run.error.code == 1 and "Hard limit" in str(run.error)
    assert run.magnet_on_after_error is False and run.sim_magnet_on_after_error is False
    assert run.factory.pin(17).state == 0
    assert not run.emulator.motion.magnet_on
    assert run.emulator.state == "Alarm"
    last = run.emulator.motion.events[-1]
    assert not last.on and last.discs == 1  # it was carrying c3 when the alarm struck


def test_dropped_piece_is_visible_on_the_board() -> None:
    board = Board(FEN)
    run = execute(board, board.parse_move("c3xc7"), CONFIGS["under-board"],
                  faults=Faults(drop_at_carry_block=2))
    assert run.error is None  # GRBL cannot know
    assert "drop" in run.emulator.faults.fired
    assert not run.world.placement(run.after).placement_equals(run.after)


def test_missed_steps_misplace_the_piece() -> None:
    board = Board("W:Wc3:Bh8")
    run = execute(board, board.parse_move("c3-d4"), CONFIGS["under-board"],
                  faults=Faults(missed_step_at_block=1, missed_step_mm=(25.0, 0.0)))
    assert run.error is None
    # The magnet arrived 25 mm right of c3's disc: it grabbed nothing; c3 stays where it was.
    assert run.emulator.motion.events[0].discs == 0
    assert not run.world.placement(run.after).placement_equals(run.after)


def test_spindle_magnet_runs_without_gpio() -> None:
    cfg = config_from_dict({"magnet": {"kind": "grbl-spindle"}})
    board = Board(FEN)
    run = execute(board, board.parse_move("c3xc7"), cfg)
    assert run.error is None
    assert run.world.placement(run.after).placement_equals(run.after)
    assert any(line.startswith("M3S1000") for line in run.emulator.lines_received)


def test_pty_server_survives_client_reopen() -> None:
    emu = GrblEmulator(World())
    with PtyGrbl(emu) as server:
        for _ in range(2):
            with Grbl.open(server.path) as g:
                g.connect(banner_timeout_s=0.05)
                g.command("G21 G90")


def test_streaming_keeps_grbl_buffer_full_but_never_overflows() -> None:
    """Real-time mode (machine time at 200x the wall clock): the planner fills, GRBL stops
    acknowledging, and character counting keeps up to 127 bytes in flight - never more."""
    emu = GrblEmulator(World(), realtime_factor=200.0)
    lines = [f"G1 X{(i % 2) * 10 + 0.5 * i:.3f} Y{i * 1.25:.3f} F6000" for i in range(80)]
    with PtyGrbl(emu) as server, Grbl.open(server.path, motion_timeout_s=30.0) as g:
        g.connect(banner_timeout_s=0.05)
        g.stream(lines)
        g.wait_idle(timeout_s=30.0)
    assert emu.rx_overflows == 0 and emu.rx_peak <= 128
    assert 100 < g.max_pending_bytes <= 127  # it streamed ahead, within the buffer
    assert emu.lines_received[-81:-1] == [line.replace(" ", "") for line in lines]


def test_pwm_magnet_drops_to_holding_duty() -> None:
    board = Board("W:Wc3:Bh8")
    run = execute(board, board.parse_move("c3-d4"), CONFIGS["under-board-tray-king"])
    assert run.error is None
    states = [round(s.state, 3) for s in run.factory.pin(17).states]
    assert states[:4] == [0.0, 1.0, 0.6, 0.0]  # off, pick-up pulse, hold, release


def test_realtime_factor_paces_the_demo() -> None:
    """At 10x, c3-d4 from the park position (2.00 s of machine time, see the CLI test) takes
    about 0.2 s of wall clock, and machine time still matches the plan's estimate."""
    import time

    from robot.motion import estimate

    board = Board()
    t0 = time.monotonic()
    run = execute(board, board.parse_move("c3-d4"), CONFIGS["under-board"], use_pty=True,
                  realtime_factor=10.0)
    wall = time.monotonic() - t0
    assert run.error is None
    assert run.world.placement(run.after).placement_equals(run.after)
    est = estimate(run.plan).seconds
    assert est == pytest.approx(2.0, abs=0.01)
    assert wall >= est / 10.0
    assert run.emulator.motion.now_s >= est  # the clock also ran while connecting
