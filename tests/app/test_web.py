"""The live page's HTTP and websocket API, against a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from app.events import BusError, ControlAction, ControlInbox, EventBus
from app.web import WebServer
from game.board import Board
from game.pdn import read_game

TOKEN = "test-token-123"


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


@pytest.fixture
def server(bus: EventBus) -> Iterator[WebServer]:
    srv = WebServer(bus, "127.0.0.1", 0, TOKEN).start_in_thread()
    yield srv
    srv.stop()


def http(server: WebServer, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None, method: str | None = None
         ) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", data=body,
                                 headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def control(server: WebServer, payload: Any, token: str | None = TOKEN) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    status, _, body = http(server, "/api/control", raw, headers, "POST")
    return status, json.loads(body)


def ws_connect(server: WebServer) -> ClientConnection:
    return connect(f"ws://127.0.0.1:{server.port}/ws", open_timeout=5)


def next_state(ws: ClientConnection, until: Any = None, timeout_s: float = 5.0
               ) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        msg = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg["type"] == "state" and (until is None or until(msg["state"])):
            return dict(msg["state"])


def play(bus: EventBus, texts: list[str]) -> Board:
    board = Board()
    names = []
    for text in texts:
        move = board.parse_move(text)
        names.append(board.move_name(move))
        board.push(move)
        bus.set_position(board, names, move)
    return board


def test_page_and_assets_are_served(server: WebServer) -> None:
    status, headers, body = http(server, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b'id="board"' in body and b'src="/page.js"' in body
    for path, kind in (("/page.js", "text/javascript"), ("/page.css", "text/css")):
        status, headers, _ = http(server, path)
        assert status == 200 and headers["content-type"].startswith(kind)


def test_waiting_state_then_moves_over_websocket(server: WebServer, bus: EventBus) -> None:
    with ws_connect(server) as ws:
        first = next_state(ws)
        assert first["phase"] == "waiting" and first["moves"] == []
        bus.new_game("brazilian", White="Ana", Black="Robot", level=3)
        play(bus, ["c3-d4"])
        st_ = next_state(ws, lambda s: s["moves"] == ["c3-d4"])
        assert st_["phase"] == "playing" and st_["turn"] == "black"
        assert st_["tags"] == {"White": "Ana", "Black": "Robot"} and st_["level"] == 3
        svg = st_["svg"]
        # 480 px diagram, 16 px margin, 56 px squares: d4 (file 3, rank 3) is centred at
        # x = 16 + 3*56 + 28 = 212, y = 16 + (7-3)*56 + 28 = 268; c3 at (156, 324)
        assert 'cx="212.0" cy="268.0" r="21.3" fill="#f8f4e8"' in svg
        assert 'cx="156.0" cy="324.0"' not in svg
        assert svg.count('class="last-move"') == 2


def test_every_client_ends_with_every_move(server: WebServer, bus: EventBus) -> None:
    texts = ["c3-d4", "f6-e5", "d4xf6", "g7xe5", "b2-c3", "e7-f6", "c3-d4", "e5xc3",
             "d2xb4", "b6-a5"]
    with contextlib.ExitStack() as stack:
        clients = [stack.enter_context(ws_connect(server)) for _ in range(12)]
        for ws in clients:
            next_state(ws)
        bus.new_game()
        t0 = time.perf_counter()
        play(bus, texts)  # as fast as possible: slow clients skip states, never moves
        assert time.perf_counter() - t0 < 1.0
        for ws in clients:
            final = next_state(ws, lambda s: len(s["moves"]) == len(texts))
            assert final["moves"] == texts


def test_a_client_that_does_not_read_does_not_block_the_publisher(
        server: WebServer, bus: EventBus) -> None:
    with ws_connect(server) as ws:
        bus.new_game()
        board = Board()
        slowest = 0.0
        for i in range(300):  # ~300 states of ~10 kB each, none read meanwhile
            t = time.perf_counter()
            bus.set_thinking(score_cp=i, pv=["c3-d4"] * 5, depth=i)
            slowest = max(slowest, time.perf_counter() - t)
        assert slowest < 0.05
        final = next_state(ws, lambda s: s["thinking"]["score_cp"] == 299)
        assert final["thinking"]["depth"] == 299
        assert board.fen() == final["fen"]


def test_control_needs_the_token(server: WebServer, bus: EventBus) -> None:
    inbox = ControlInbox()
    bus.set_control_handler(inbox)
    status, body = control(server, {"action": "takeback"}, token=None)
    assert status == 401 and "token" in body["error"]
    status, body = control(server, {"action": "takeback"}, token="guess")
    assert status == 403 and body == {"error": "wrong control token"}
    assert inbox.drain() == []
    status, body = control(server, {"action": "takeback"})
    assert status == 202 and body == {"ok": True, "action": "takeback"}
    status, _ = control(server, {"action": "level", "level": 7})
    assert status == 202
    assert inbox.drain() == [ControlAction("takeback"), ControlAction("level", level=7)]


def test_control_without_a_game_loop_is_refused(server: WebServer) -> None:
    status, body = control(server, {"action": "start"})
    assert status == 409 and "no game is running" in body["error"]


def test_resolve_alert_checks_id_and_choice(server: WebServer, bus: EventBus) -> None:
    inbox = ControlInbox()
    bus.set_control_handler(inbox)
    bus.raise_alert("crown", "Crown the man on b8?", squares=(28,), choices=("yes", "no"))
    assert control(server, {"action": "resolve", "alert_id": "other"})[0] == 400
    assert control(server, {"action": "resolve", "alert_id": "crown", "choice": "maybe"})[0] \
        == 400
    assert control(server, {"action": "resolve", "alert_id": "crown", "choice": "yes"})[0] \
        == 202
    assert inbox.drain() == [ControlAction("resolve", alert_id="crown", choice="yes")]
    state = json.loads(http(server, "/api/state")[2])
    assert state["alerts"][0]["squares"] == ["b8"]  # 4 dark squares per rank from a1: b8 = 7*4 + 0


@pytest.mark.parametrize("payload, fragment", [
    (b"not json", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b"[1, 2]", "JSON object"),
    ({"action": "explode"}, "action: expected one of"),
    ({}, "action: expected one of"),
    ({"action": "level"}, "level: expected a whole number 1..10"),
    ({"action": "level", "level": 11}, "1..10"),
    ({"action": "level", "level": True}, "1..10"),
    ({"action": "stop", "level": 3}, "only allowed with action 'level'"),
    ({"action": "stop", "extra": 1}, "unknown field(s) extra"),
    ({"action": "resolve"}, "alert_id"),
])
def test_malformed_control_gets_400_with_json(server: WebServer, bus: EventBus,
                                              payload: Any, fragment: str) -> None:
    bus.set_control_handler(ControlInbox())
    status, body = control(server, payload)
    assert status == 400 and fragment in body["error"]


def test_http_errors_are_json(server: WebServer) -> None:
    for path, method, code in (("/nope", "GET", 404), ("/api/control", "GET", 405),
                               ("/api/frame.jpg", "GET", 404)):
        status, headers, body = http(server, path, method=method)
        assert status == code and headers["content-type"] == "application/json"
        assert "error" in json.loads(body)
    status, _, body = http(server, "/api/control", b"x" * 5000,
                           {"Authorization": f"Bearer {TOKEN}"}, "POST")
    assert status == 413 and "4096" in json.loads(body)["error"]
    assert http(server, "/api/qr.svg")[0] == 401
    assert http(server, "/api/qr.svg", headers={"X-Control-Token": "bad"})[0] == 403
    status, _, body = http(server, "/api/qr.svg", headers={"X-Control-Token": TOKEN})
    assert status == 200 and body.startswith(b"<?xml") and b"<svg" in body


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[WebServer, ControlInbox]]:
    """One server for all hypothesis examples (function-scoped fixtures are not re-run)."""
    bus = EventBus()
    inbox = ControlInbox(max_pending=1000)
    bus.set_control_handler(inbox)
    srv = WebServer(bus, "127.0.0.1", 0, TOKEN).start_in_thread()
    yield srv, inbox
    srv.stop()


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.binary(max_size=200),
                 st.dictionaries(st.sampled_from(["action", "level", "alert_id", "choice", "x"]),
                                 st.one_of(st.none(), st.integers(), st.text(max_size=5),
                                           st.lists(st.integers(), max_size=2)))))
def test_no_control_body_causes_a_server_error(shared: tuple[WebServer, ControlInbox],
                                               payload: Any) -> None:
    srv, inbox = shared
    status, body = control(srv, payload)
    delivered = inbox.drain()
    assert status in (202, 400) and ("ok" in body or "error" in body)
    assert len(delivered) == (1 if status == 202 else 0)


def test_whoami(server: WebServer) -> None:
    assert json.loads(http(server, "/api/whoami")[2]) == {"control": False}
    assert json.loads(http(server, f"/api/whoami?token={TOKEN}")[2]) == {"control": True}


def test_camera_frames(server: WebServer, bus: EventBus) -> None:
    jpeg = b"\xff\xd8\xff\xe0" + bytes(range(256)) + b"\xff\xd9"
    with ws_connect(server) as ws:
        next_state(ws)
        bus.publish_frame(jpeg)
        deadline = time.monotonic() + 5
        while True:
            msg = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if msg["type"] == "frame":
                break
        assert msg["seq"] == 1
    status, headers, body = http(server, "/api/frame.jpg")
    assert status == 200 and headers["content-type"] == "image/jpeg" and body == jpeg
    with pytest.raises(BusError, match="JPEG"):
        bus.publish_frame(b"\x89PNG....")


def test_pdn_download_replays(server: WebServer, bus: EventBus) -> None:
    bus.new_game(White="Ana", Black="Robot")
    board = play(bus, ["c3-d4", "f6-e5", "d4xf6", "g7xe5"])
    bus.end_game("1-1", "Draw agreed")
    status, headers, body = http(server, "/game.pdn")
    assert status == 200 and "attachment" in headers["content-disposition"]
    rec = read_game(body.decode())
    final, _ = rec.replay()
    assert final.fen() == board.fen() and rec.result == "1-1"
    assert rec.tags["White"] == "Ana"


def test_game_loop_pdn_replaces_the_bare_move_list(server: WebServer, bus: EventBus) -> None:
    bus.new_game()
    play(bus, ["c3-d4"])
    text = '[Event "Club"]\n\n1. c3-d4 {put back once from e4} *\n'
    bus.set_pdn(text)
    assert http(server, "/game.pdn")[2].decode() == text
    bus.new_game()  # a new game forgets the old text
    assert b"Club" not in http(server, "/game.pdn")[2]


def test_viewers_beyond_the_limit_are_told_to_come_back(bus: EventBus) -> None:
    srv = WebServer(bus, "127.0.0.1", 0, TOKEN, max_clients=2).start_in_thread()
    try:
        with ws_connect(srv) as a, ws_connect(srv) as b:
            next_state(a)
            next_state(b)
            with ws_connect(srv) as c, pytest.raises(ConnectionClosed) as info:
                c.recv(timeout=5)
            assert info.value.rcvd is not None and info.value.rcvd.code == 1013
    finally:
        srv.stop()


def test_bound_port_in_use_is_a_clear_oserror(server: WebServer, bus: EventBus) -> None:
    with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{server.port}"):
        WebServer(bus, "127.0.0.1", server.port).start_in_thread()
