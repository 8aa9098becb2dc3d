"""`damas robot plan`, `damas robot execute` and `damas calibrate gantry`: formats exactly as the
issue names them, numbers worked by hand, and the commands run against the simulated gantry."""

from __future__ import annotations

import io
import math
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from calibration.gantry import GantryCalibration, corner_centres_mm
from calibration.store import load_calibration
from game.board import Board
from sim.grbl import GrblEmulator, Hand, PtyGrbl
from sim.world import World

ROOT = Path(__file__).resolve().parents[2]
START = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def start_fen() -> str:
    return Board().fen()


def test_plan_summary_hand_worked(capsys: pytest.CaptureFixture[str]) -> None:
    """c3-d4 from the park position (160, 160): travel 60*sqrt2 to c3 then 40*sqrt2 carried =
    141.4 mm.  Each 45-degree move runs at 100 mm/s with 500/cos45 mm/s^2: 0.990 s + 0.707 s,
    plus two 0.15 s magnet dwells = 2.00 s."""
    assert main(["robot", "plan", "--variant", "brazilian", "--fen", start_fen(),
                 "--move", "c3-d4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "segments 2 travel_mm 141.4 est_s 2.00"
    assert "G1 X100.000 Y100.000 F6000" in out and "G1 X140.000 Y140.000 F6000" in out
    assert out[1] == "G21 G90"


def test_plan_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["robot", "plan", "--fen", "W:Wa1,c1,a3,e1,b4,d2:Bb2,e5", "--move", "a1xc3"]
    main(args)
    first = capsys.readouterr().out
    main(args)
    assert capsys.readouterr().out == first
    assert re.search(r"^segments \d+ travel_mm \d+\.\d est_s \d+\.\d\d$", first.splitlines()[-1])


def test_plan_grbl_magnet_and_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "robot.toml"
    cfg.write_text('[robot.magnet]\nkind = "grbl-coolant"\n')
    main(["robot", "plan", "--fen", start_fen(), "--move", "c3-d4", "--config", str(cfg)])
    out = capsys.readouterr().out.splitlines()
    assert out.index("M8") < out.index("G1 X140.000 Y140.000 F6000") < out.index("M9")


@pytest.mark.parametrize("args,needle", [
    (["--fen", "W:Wz9"], "z9"),
    (["--fen", START, "--move", "c3-c5"], "not a legal move"),
])
def test_plan_user_errors(args: list[str], needle: str,
                          capsys: pytest.CaptureFixture[str]) -> None:
    base = ["robot", "plan", "--variant", "brazilian", "--move", "c3-d4"]
    assert main(base + args) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_plan_bad_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "robot.toml"
    cfg.write_text("[robot]\nfeed = 1\n")
    assert main(["robot", "plan", "--fen", start_fen(), "--move", "c3-d4",
                 "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert str(cfg) in err and "robot.feed" in err


def test_execute_on_sim_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["robot", "execute", "--fen", "W:Wc3,g7:Bd4,f6,d6", "--move", "c3xc7",
                 "--port", "sim://"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "simulated board matches B:Wc7,g7:Bf6" in out
    assert re.fullmatch(r"done travel_mm \d+\.\d elapsed_s \d+\.\d\d", out[-1])


def test_execute_against_emulator_process(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m sim.grbl` on a pty, the real command with the coolant magnet (no GPIO)."""
    fen = "W:Wc3,g7:Bd4,f6,d6"
    proc = subprocess.Popen([sys.executable, "-m", "sim.grbl", "--world-fen", fen],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        assert path.startswith("/dev/")
        code = main(["robot", "execute", "--variant", "brazilian", "--fen", fen,
                     "--move", "c3xc7", "--port", path, "--magnet", "grbl-coolant"])
        out = capsys.readouterr().out.splitlines()
        assert code == 0
        assert out[0].startswith("connected: Grbl 1.1h")
        assert "move: c3xc7" in out
        assert re.fullmatch(r"done travel_mm 1002\.0 elapsed_s \d+\.\d\d", out[-1])
    finally:
        proc.send_signal(signal.SIGTERM)
        final, _ = proc.communicate(timeout=10)
    assert final.strip().splitlines()[-1] == "W:Wc7,g7:Bf6"


def test_execute_unreachable_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["robot", "execute", "--fen", start_fen(), "--move", "c3-d4",
                 "--port", "/dev/nonexistent-grbl", "--magnet", "grbl-coolant"]) == 2
    assert "cannot open GRBL port" in capsys.readouterr().err


def _keys(dx_mm: float, dy_mm: float) -> str:
    """Key presses that jog by (dx, dy) with steps 50/10/1/0.1 mm, starting at 10 mm."""
    out = ["+"]  # to 50 mm
    rest = [round(dx_mm * 10), round(dy_mm * 10)]  # tenths of a millimetre
    for step in (500, 100, 10, 1):
        for axis, (neg, pos) in enumerate((("a", "d"), ("s", "w"))):
            n = abs(rest[axis]) // step
            out.append((pos if rest[axis] > 0 else neg) * n)
            rest[axis] -= int(math.copysign(n * step, rest[axis])) if n else 0
        out.append("-")
    return "".join(out)


def test_calibrate_gantry_from_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """An operator who sees the board jogs the magnet over each corner centre; the board is
    mounted turned by 1.5 degrees and offset.  The fit must recover that mount."""
    c, s = math.cos(math.radians(1.5)), math.sin(math.radians(1.5))
    mount = GantryCalibration(c, -s, s, c, 35.0, 12.5)
    emu = GrblEmulator(World(), Hand(mount=mount), poll_step_s=2.0)
    lines, pos = [], (0.0, 0.0)
    for name in ("a1", "h1", "h8", "a8"):
        target = mount.to_machine(*corner_centres_mm(8, 40.0)[name])
        lines.append(_keys(target[0] - pos[0], target[1] - pos[1]))
        lines.append("")
        pos = (round(target[0], 1), round(target[1], 1))
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    out_file = tmp_path / "calibration.json"
    with PtyGrbl(emu) as server:
        code = main(["calibrate", "gantry", "--port", server.path,
                     "--calibration", str(out_file), "--feed", "6000"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    m = re.fullmatch(r"residual_mm (\d+\.\d{3})", out[-1])
    assert m and float(m.group(1)) < 0.1
    cal = load_calibration(out_file)
    assert cal.gantry is not None
    fit = GantryCalibration.from_dict(cal.gantry)
    for p in ((0.0, 0.0), (320.0, 320.0), (160.0, 40.0)):
        assert math.dist(fit.to_machine(*p), mount.to_machine(*p)) < 0.15


def test_calibrate_gantry_input_ends_early(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("dd\n"))
    emu = GrblEmulator(World(), poll_step_s=2.0)
    with PtyGrbl(emu) as server:
        code = main(["calibrate", "gantry", "--port", server.path,
                     "--calibration", str(tmp_path / "c.json")])
    assert code == 2
    assert "input ended before a1 was recorded" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()
