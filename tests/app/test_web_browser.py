"""The live page in a real headless Chromium: it loads, follows the bus, and control actions
are refused without the token and delivered with it.  A screenshot is kept for a look
(`DAMAS_SCREENSHOT=/path.png` to keep it outside pytest's temporary folder)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.events import ControlAction, ControlInbox, EventBus
from app.web import WebServer
from game.board import BLACK, Board

from .conftest import Cdp

TOKEN = "browser-token-42"


@pytest.fixture
def table() -> Iterator[tuple[EventBus, WebServer, ControlInbox]]:
    bus = EventBus()
    inbox = ControlInbox()
    bus.set_control_handler(inbox)
    server = WebServer(bus, "127.0.0.1", 0, TOKEN).start_in_thread()
    yield bus, server, inbox
    server.stop()


def camera_jpeg() -> bytes:
    """A 640x480 picture with a green 8x8 grid, like a frame with the detected grid drawn."""
    img = np.full((480, 640, 3), (60, 90, 120), np.uint8)
    for i in range(9):
        cv2.line(img, (120 + 50 * i, 40), (120 + 50 * i, 440), (0, 255, 0), 2)
        cv2.line(img, (120, 40 + 50 * i), (520, 40 + 50 * i), (0, 255, 0), 2)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return bytes(buf)


def wait_for_inbox(inbox: ControlInbox, timeout_s: float = 5.0) -> ControlAction:
    action = inbox.get(timeout_s)
    assert action is not None, "the game loop received nothing"
    return action


def test_page_follows_the_bus_and_guards_control(
        browser: Cdp, table: tuple[EventBus, WebServer, ControlInbox], tmp_path: Path) -> None:
    bus, server, inbox = table
    base = f"http://127.0.0.1:{server.port}/"

    # a spectator: waiting state, then a game appears move by move
    browser.navigate(base)
    browser.wait_for("document.getElementById('phase').textContent === 'waiting'")
    assert browser.evaluate("document.getElementById('controls').hidden") is True
    for hidden in ("controls", "clock", "camera-box"):  # no controls, clock, camera yet
        assert browser.evaluate(
            f"getComputedStyle(document.getElementById('{hidden}')).display") == "none"
    bus.new_game("brazilian", White="Ana", Black="Robot", level=3)
    board, names = Board(), []
    for text in ("c3-d4", "f6-e5", "d4xf6"):
        move = board.parse_move(text)
        names.append(board.move_name(move))
        board.push(move)
        bus.set_position(board, names, move)
    browser.wait_for("document.querySelector('#moves span.last') && "
                     "document.querySelector('#moves span.last').textContent === 'd4xf6'")
    # the diagram was replaced: a white man on f6 (file 5, rank 5: x = 16+5*56+28 = 324,
    # y = 16+2*56+28 = 156) and the black man captured on e5 is gone (x 268, y 212)
    assert browser.evaluate(
        "!!document.querySelector('#board circle.white_man[cx=\"324.0\"][cy=\"156.0\"]')")
    assert not browser.evaluate("!!document.querySelector('#board circle[cx=\"268.0\"]"
                                "[cy=\"212.0\"]')")
    assert browser.evaluate("document.getElementById('phase').textContent") == "playing"
    assert browser.evaluate("[...document.querySelectorAll('#moves span')]"
                            ".map(s => s.textContent)") == ["c3-d4", "f6-e5", "d4xf6", ""]

    # without the token a control request is refused and nothing reaches the game loop
    assert browser.evaluate("window.damasControl({action: 'takeback'})") == 401
    assert inbox.get(0.2) is None

    # with the token (from the QR link): controls appear, the token leaves the address bar
    browser.navigate(base + f"?token={TOKEN}")
    browser.wait_for("!document.getElementById('controls').hidden")
    assert browser.evaluate("location.search") == ""
    browser.evaluate("document.getElementById('btn-takeback').click()")
    assert wait_for_inbox(inbox) == ControlAction("takeback")
    browser.wait_for("document.getElementById('control-msg').dataset.status === '202'")
    browser.evaluate("document.getElementById('level').value = '7';"
                     "document.getElementById('btn-level').click()")
    assert wait_for_inbox(inbox) == ControlAction("level", level=7)

    # an irregularity with choices, answered from the page
    bus.raise_alert("crown", "Black reached the last row: crown the man?", squares=(3,),
                    choices=("yes", "no"))
    browser.wait_for("document.querySelectorAll('#alerts .alert button').length === 2")
    browser.evaluate("[...document.querySelectorAll('#alerts .alert button')]"
                     ".find(b => b.textContent === 'no').click()")
    assert wait_for_inbox(inbox) == ControlAction("resolve", alert_id="crown", choice="no")

    # engine view, clock and the camera picture
    bus.set_thinking(score_cp=-40, pv=["g7xe5", "b2-c3"], depth=9)
    bus.set_clock(300.0, 287.5, BLACK)
    bus.publish_frame(camera_jpeg())
    browser.wait_for("document.getElementById('camera').naturalWidth === 640")
    browser.wait_for("document.getElementById('pv').textContent === 'thinks: g7xe5 b2-c3'")
    assert browser.evaluate("document.getElementById('score').textContent") == "-0.40"
    assert browser.evaluate(
        "document.querySelector('#clock-white .t').textContent") == "5:00"
    assert browser.evaluate("getComputedStyle(document.getElementById('clock')).display") \
        == "flex"
    time.sleep(0.3)  # let the page's clock tick once more before the picture
    shot = Path(os.environ.get("DAMAS_SCREENSHOT", tmp_path / "page.png"))
    browser.screenshot(shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
