"""The GRBL emulator's protocol and motion, checked against hand-worked figures and GRBL 1.1's
documented behaviour (receive buffer, planner, real-time commands, alarms)."""

from __future__ import annotations

import math
import re

import pytest

from sim.grbl import GrblEmulator
from sim.world import World

STATUS = re.compile(r"^<(Idle|Run|Hold:[01]|Jog|Alarm)\|MPos:(-?\d+\.\d{3}),(-?\d+\.\d{3}),"
                    r"(-?\d+\.\d{3})(\|Bf:\d+,\d+)?\|FS:\d+,\d+(\|WCO:[-\d.,]+)?>$")


def lines(emu: GrblEmulator) -> list[str]:
    return [x for x in emu.read().decode().split("\r\n") if x]


def fresh(**kw) -> GrblEmulator:  # type: ignore[no-untyped-def]
    emu = GrblEmulator(World(), **kw)
    emu.read()
    return emu


def test_power_up_banner_and_status_format() -> None:
    emu = GrblEmulator(World())
    assert lines(emu) == ["Grbl 1.1h ['$' for help]"]
    emu.feed(b"?")
    (st,) = lines(emu)
    assert STATUS.match(st), st


def test_trapezoid_time_hand_worked() -> None:
    """100 mm on X at 6000 mm/min (100 mm/s) and 500 mm/s^2: 0.2 s up, 0.2 s down covering
    20 mm, 80 mm at 100 mm/s = 0.8 s; total 1.2 s.  10 mm never reaches cruise speed:
    a triangle of 2*sqrt(10/500) = 0.2828 s."""
    emu = fresh()
    emu.feed(b"G1 X100 F6000\nG4 P0\n")
    assert lines(emu) == ["ok", "ok"]
    assert emu.motion.now_s == pytest.approx(1.2, abs=1e-9)
    emu.feed(b"G1 X110\nG4 P0\n")
    assert emu.motion.now_s == pytest.approx(1.2 + 2 * math.sqrt(10 / 500), abs=1e-9)
    assert emu.motion.pos == pytest.approx((110.0, 0.0, 0.0))


def test_diagonal_limits_per_axis() -> None:
    """A 45 degree move: each axis sees cos45 of the motion, so GRBL allows 500/cos45 mm/s^2
    in the move's direction while the feed stays 6000 mm/min."""
    emu = fresh()
    emu.feed(b"G1 X100 Y100 F6000\nG4 P0\n")
    a, v, length = 500 / math.sqrt(0.5), 100.0, 100 * math.sqrt(2)
    assert emu.motion.now_s == pytest.approx(2 * v / a + (length - v * v / a) / v, abs=1e-9)


def test_max_rate_caps_feed() -> None:
    emu = fresh(settings={110: 1200.0})
    emu.feed(b"G1 X100 F6000\nG4 P0\n")
    v, a = 20.0, 500.0  # 1200 mm/min
    assert emu.motion.now_s == pytest.approx(2 * v / a + (100 - v * v / a) / v, abs=1e-9)


def test_receive_buffer_is_128_bytes_and_overflow_is_lost() -> None:
    """Planner full (15 blocks) and 128 bytes waiting: the 129th byte is dropped, as GRBL's
    serial interrupt drops it."""
    emu = fresh(realtime_factor=1.0)  # real-time mode: no time passes unless ticked
    for i in range(15):
        emu.feed(f"G1 X{i + 1} F100\n".encode())
    assert lines(emu) == ["ok"] * 15
    blocked = b"G1 X20 F100\n" * 11  # 132 bytes
    emu.feed(blocked)
    assert emu.rx_peak == 128 and emu.rx_overflows == 4
    assert lines(emu) == []


def test_ok_only_when_the_planner_has_room() -> None:
    emu = fresh(realtime_factor=1.0)
    for i in range(16):
        emu.feed(f"G1 X{i + 1} F6000\n".encode())
    assert lines(emu) == ["ok"] * 15  # the 16th waits
    emu.tick(0.2)  # the first 1 mm block finishes
    assert lines(emu) == ["ok"]


def test_feed_hold_and_resume() -> None:
    emu = fresh()
    emu.feed(b"G1 X200 F6000\n")
    emu.feed(b"?")
    emu.read()
    emu.feed(b"!")
    emu.feed(b"?")
    (st,) = lines(emu)
    assert st.startswith("<Hold:0|")
    x_hold = emu.motion.pos[0]
    emu.feed(b"?")
    assert emu.motion.pos[0] == x_hold  # holding: no motion however long we wait
    lines(emu)
    emu.feed(b"~G4 P0\n?")
    out = lines(emu)
    assert out[0] == "ok" and out[1].startswith("<Idle|MPos:200.000,")


def test_gcode_errors() -> None:
    emu = fresh()
    for text, code in ((b"G2 X1 Y1 I1\n", 20), (b"G1 X10\n", 22), (b"G0 G1 X1\n", 21),
                       (b"X\n", 2), (b"1 X\n", 1), (b"$Q\n", 3), (b"G4\n", 28),
                       (b"G1 " + b"X1" * 45 + b"\n", 11)):
        emu.feed(text)
        assert lines(emu) == [f"error:{code}"], text


def test_homing_disabled_and_settings_need_idle() -> None:
    emu = fresh()
    emu.feed(b"$H\n")
    assert lines(emu) == ["error:5"]
    emu = fresh(realtime_factor=1.0)
    emu.feed(b"G1 X10 F100\n$$\n")
    assert lines(emu) == ["ok", "error:8"]


def test_soft_limit_alarm_needs_reset() -> None:
    emu = fresh(settings={20: 1, 22: 1, 130: 100})
    emu.feed(b"$X\n")
    lines(emu)
    emu.feed(b"G1 X10 F100\n")
    assert lines(emu) == ["ALARM:2", "[MSG:Reset to continue]"]
    emu.feed(b"G1 X-10 F100\n$X\n")
    assert lines(emu) == []  # everything but reset is ignored after a critical event
    emu.feed(b"\x18")
    assert lines(emu) == ["Grbl 1.1h ['$' for help]", "[MSG:'$H'|'$X' to unlock]"]


def test_reset_while_moving_is_alarm_3() -> None:
    emu = fresh()
    emu.feed(b"G1 X100 F6000\n?")
    lines(emu)
    emu.feed(b"\x18")
    assert lines(emu)[:2] == ["ALARM:3", "Grbl 1.1h ['$' for help]"]
    emu.feed(b"G1 X1 F100\n")
    assert lines(emu) == ["error:9"]


def test_jog_and_cancel() -> None:
    emu = fresh()
    emu.feed(b"$J=G91 X10 F600\n")
    assert lines(emu) == ["ok"]
    emu.feed(b"?")
    (st,) = lines(emu)
    assert st.startswith("<Jog|")
    emu.feed(b"G1 X0 F100\n")
    assert lines(emu) == ["error:9"]  # G-code locked out while jogging
    emu.feed(b"\x85?")
    (st,) = lines(emu)
    assert st.startswith("<Idle|") and 0 < emu.motion.pos[0] < 10
    emu.feed(b"$J=X5\n")
    assert lines(emu) == ["error:16"]  # a jog needs a feed


def test_coolant_waits_for_motion() -> None:
    """M8 is synchronised with the queue: the magnet switches where the move ended."""
    world = World()
    d = world.add_disc(__import__("game.board").board.Color.WHITE, 100.0, 20.0)
    emu = GrblEmulator(world)
    emu.read()
    emu.feed(b"G1 X100 Y20 F6000\nM8\nG1 X100 Y100\nM9\nG4 P0\n")
    assert lines(emu) == ["ok"] * 5
    assert (d.x_mm, d.y_mm) == pytest.approx((100.0, 100.0))
    on, off = emu.motion.events
    assert on.discs == 1 and (on.x_mm, on.y_mm) == pytest.approx((100.0, 20.0))
    assert off.discs == 1 and off.overlapping == 0
