"""The driver against recorded GRBL 1.1 sessions, and the emulator against the same records.

Each transcript reproduces GRBL 1.1's documented responses (gnea/grbl doc/markdown/interface.md
and the error/alarm code tables).  The driver must send exactly the host side and interpret the
GRBL side; the emulator, fed the host side, must answer exactly the GRBL side.
"""

from __future__ import annotations

import pytest

from robot.errors import GantryAlarm, GantryCommandError
from robot.grbl import Grbl
from sim.grbl import Faults, GrblEmulator
from sim.world import World
from tests.robot.transcript import ScriptedPort, all_names, load


def test_connect_reads_banner_and_idle_status_then_settings() -> None:
    port = ScriptedPort(load("startup_idle.grbl"))
    g = Grbl(port, timeout_s=0.5)
    assert g.connect(banner_timeout_s=0.2) == "Grbl 1.1h ['$' for help]"
    assert g.last_status is not None and g.last_status.state == "Idle"
    s = g.settings()
    assert s[110] == 500.0 and s[120] == 10.0 and s[22] == 0 and len(s) == 34
    assert port.finished


def test_connect_in_homing_alarm_unlocks_when_asked() -> None:
    port = ScriptedPort(load("startup_homing_alarm.grbl"))
    g = Grbl(port, timeout_s=0.5)
    g.connect(banner_timeout_s=0.2, unlock=True)
    assert "[MSG:'$H'|'$X' to unlock]" in g.messages
    assert "[MSG:Caution: Unlocked]" in g.messages
    assert port.finished


def test_connect_in_homing_alarm_refuses_without_unlock() -> None:
    port = ScriptedPort(load("startup_homing_alarm.grbl"))
    g = Grbl(port, timeout_s=0.5)
    with pytest.raises(GantryAlarm, match="homing required"):
        g.connect(banner_timeout_s=0.2)


def test_error_code_surfaces_with_grbl_meaning() -> None:
    port = ScriptedPort(load("error_no_feed.grbl"))
    g = Grbl(port, timeout_s=0.5)
    g.connect(banner_timeout_s=0.2)
    g.command("G21 G90")
    with pytest.raises(GantryCommandError) as err:
        g.command("G1 X10.000 Y10.000")
    assert err.value.code == 22
    assert "Undefined feed rate" in str(err.value)
    assert "G1 X10.000 Y10.000" in str(err.value)


def test_alarm_locks_gcode() -> None:
    port = ScriptedPort(load("alarm_locked.grbl"))
    g = Grbl(port, timeout_s=0.5)
    with pytest.raises(GantryAlarm):
        g.connect(banner_timeout_s=0.2)
    with pytest.raises(GantryCommandError) as err:
        g.command("G1 X10.000 F1000")
    assert err.value.code == 9 and "locked out" in str(err.value)


def test_hard_limit_while_streaming_raises_alarm_1() -> None:
    port = ScriptedPort(load("hard_limit.grbl"))
    g = Grbl(port, timeout_s=0.5, motion_timeout_s=0.5)
    g.connect(banner_timeout_s=0.2)
    with pytest.raises(GantryAlarm) as err:
        g.stream(["G21 G90", "G1 X50.000 Y0.000 F6000", "G1 X50.000 Y50.000 F6000"])
        g.wait_idle()
    assert err.value.code == 1 and "Hard limit" in str(err.value)
    assert port.max_unacked <= 128


def _emulator_for(meta: dict[str, str]) -> GrblEmulator:
    settings = {}
    for pair in meta.get("settings", "").split():
        k, _, v = pair.partition("=")
        settings[int(k)] = float(v)
    faults = Faults()
    for pair in meta.get("fault", "").split():
        k, _, v = pair.partition("=")
        setattr(faults, k, int(v))
    return GrblEmulator(World(), settings=settings, faults=faults)


@pytest.mark.parametrize("name", all_names())
def test_emulator_answers_like_the_transcript(name: str) -> None:
    t = load(name)
    emu = _emulator_for(t.emulator)
    got = bytearray(emu.read())
    for item in t.items:
        if item.kind != "grbl":
            emu.feed(item.data)
            got += emu.read()
    want = b"".join(i.data for i in t.items if i.kind == "grbl")
    assert got.decode() == want.decode()


class _SilentPort:
    """A port whose device never answers (wrong baud rate, dead board)."""

    def __init__(self) -> None:
        self.sent = bytearray()

    def write(self, data: bytes) -> int:
        self.sent += data
        return len(data)

    def read(self, size: int = 1) -> bytes:
        return b""

    def close(self) -> None:
        pass


def test_silent_device_times_out_after_a_soft_reset() -> None:
    import time

    from robot.errors import GantryTimeout

    port = _SilentPort()
    g = Grbl(port, timeout_s=0.2)
    t0 = time.monotonic()
    with pytest.raises(GantryTimeout, match="no GRBL banner"):
        g.connect(banner_timeout_s=0.1)
    assert port.sent == b"\x18"  # it tried a soft reset before giving up
    assert time.monotonic() - t0 < 1.0
    with pytest.raises(GantryTimeout, match="did not answer"):
        g.command("G21")
