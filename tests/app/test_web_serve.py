"""`damas serve` as a user runs it, and the event bus's own checks."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from app.events import BusError, ControlAction, ControlInbox, ControlRefused, EventBus
from game.board import Board

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_damas_serve_prints_urls_serves_waiting_page_and_stops_on_ctrl_c(
        tmp_path: Path) -> None:
    port = free_port()
    cfg = tmp_path / "t.toml"
    cfg.write_text('version = 1\n[game]\nvariant = "russian"\n[web]\nport = 1\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--config", str(cfg)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        page = proc.stdout.readline().strip()
        control = proc.stdout.readline().strip()
        assert page == f"page:    http://127.0.0.1:{port}/"  # --port wins over [web] port
        m = re.match(rf"control: http://127\.0\.0\.1:{port}/\?token=([\w-]{{16,}}) ", control)
        assert m, control
        token = m.group(1)
        qr_first = proc.stdout.readline()
        assert set(qr_first.strip()) <= set("█▀▄ ")  # a QR code drawn in block characters
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state") as r:
                    state = json.loads(r.read())
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert state["phase"] == "waiting" and state["variant"] == "russian"
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/control",
                                     data=b'{"action": "start"}', method="POST",
                                     headers={"Authorization": f"Bearer {token}"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req)
        assert info.value.code == 409  # no game loop behind `damas serve`
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(10)
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
    assert proc.returncode in (0, 130)


@pytest.mark.parametrize("args, message", [
    (["--port", "0"], "0 is out of range 1..65535"),
    (["--config", "/nonexistent/t.toml"], "t.toml: cannot read the configuration"),
])
def test_damas_serve_bad_input_is_one_line_exit_2(args: list[str], message: str) -> None:
    r = subprocess.run([sys.executable, "-m", "app.cli", "serve", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=30,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_bus_rejects_what_it_cannot_show() -> None:
    bus = EventBus()
    with pytest.raises(BusError, match="phase"):
        bus.set_status("x", phase="lunch")
    with pytest.raises(BusError, match="squares 0..31"):
        bus.raise_alert("a", "text", squares=(32,))
    with pytest.raises(BusError, match="severity"):
        bus.raise_alert("a", "text", severity="panic")
    with pytest.raises(ValueError):
        bus.new_game("checkers-9000")


def test_bus_state_changes_and_snapshots_are_immutable() -> None:
    bus = EventBus()
    seen: list[int] = []
    bus.add_listener(lambda: seen.append(bus.seq))
    before = bus.snapshot()
    bus.new_game(White="A")
    board = Board()
    move = board.parse_move("c3-d4")
    board.push(move)
    bus.set_position(board, ["c3-d4"], move)
    bus.raise_alert("x", "look", squares=(9,))
    bus.raise_alert("x", "look again")  # same id: replaced, not added
    after = bus.snapshot()
    assert seen == [1, 2, 3, 4] and after.seq == 4
    assert before.moves == () and before.phase == "waiting"  # the old snapshot did not change
    assert after.moves == ("c3-d4",) and [a.text for a in after.state.alerts] == ["look again"]
    assert bus.snapshot() is after  # unchanged state: the same object, caches shared
    bus.clear_alert("x")
    assert bus.snapshot().state.alerts == ()


def test_alerts_until_move_and_cap() -> None:
    bus = EventBus()
    bus.new_game()
    bus.raise_alert("keep", "needs a person", choices=("ok",))
    bus.raise_alert("put-back", "put the man back on d4", squares=(13,), until_move=True)
    board = Board()
    move = board.parse_move("c3-d4")
    board.push(move)
    bus.set_position(board, ["c3-d4"], move)
    assert [a.alert_id for a in bus.snapshot().state.alerts] == ["keep"]
    for i in range(30):
        bus.raise_alert(f"a{i}", "x")
    ids = [a.alert_id for a in bus.snapshot().state.alerts]
    assert len(ids) == 20 and ids[0] == "a10" and ids[-1] == "a29"


def test_control_inbox_is_bounded() -> None:
    bus = EventBus()
    with pytest.raises(ControlRefused, match="no game"):
        bus.send_control(ControlAction("stop"))
    inbox = ControlInbox(max_pending=2)
    bus.set_control_handler(inbox)
    bus.send_control(ControlAction("takeback"))
    bus.send_control(ControlAction("takeback"))
    with pytest.raises(ControlRefused, match="too many"):
        bus.send_control(ControlAction("takeback"))
    assert len(inbox.drain()) == 2 and inbox.get(0.01) is None


def test_page_jpeg_scales_down_and_encodes() -> None:
    import cv2
    import numpy as np

    from app.web.frames import page_jpeg

    img = np.zeros((1296, 2304, 3), np.uint8)
    img[:, 1152:] = (0, 255, 0)  # right half green
    data = page_jpeg(img)
    assert data[:2] == b"\xff\xd8"
    back = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert back.shape == (450, 800, 3)  # 1296 * 800 / 2304 = 450
    assert back[225, 600, 1] > 200 and back[225, 200, 1] < 50
    small = cv2.imdecode(np.frombuffer(page_jpeg(img[:100, :300]), np.uint8), cv2.IMREAD_COLOR)
    assert small.shape == (100, 300, 3)  # not enlarged
    with pytest.raises(ValueError, match="8-bit"):
        page_jpeg(img.astype(np.float32))
    EventBus().publish_frame(data)  # the bus takes it


def test_terminal_qr_code_scans_to_the_control_url() -> None:
    """Read the printed block characters back into modules and decode them with OpenCV's QR
    reader (an independent decoder): the operator's phone would open this URL."""
    import cv2
    import numpy as np

    from app.web.token import control_url, qr_text

    url = control_url("192.168.1.20", 8080, "Zk3-token_x")
    assert url == "http://192.168.1.20:8080/?token=Zk3-token_x"
    halves = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0), "\xa0": (0, 0)}
    rows: list[list[int]] = []
    for line in qr_text(url).rstrip("\n").split("\n"):
        pairs = [halves[ch] for ch in line]  # printed inverted: a solid block is light
        rows += [[p[0] for p in pairs], [p[1] for p in pairs]]
    width = max(len(r) for r in rows)
    img = np.array([r + [1] * (width - len(r)) for r in rows], np.uint8) * 255
    img = cv2.resize(np.pad(img, 4, constant_values=255), None, fx=8, fy=8,
                     interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(img)
    assert text == url
