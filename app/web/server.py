"""The live web page of a table: Starlette routes, a websocket fan-out and a uvicorn runner.

Routes (all JSON errors are `{"error": "..."}` with a 4xx status, never a traceback):

- `GET /` the page; `GET /page.js`, `/page.css` its assets
- `GET /api/state` the latest state (as sent on the websocket)
- `GET /api/board.svg` the diagram; `GET /api/frame.jpg` the latest camera picture
- `GET /game.pdn` the game so far, as a download
- `WS /ws` live updates: `{"type": "state", "now_s": t, "state": {...}}` after every change and
  `{"type": "frame", "seq": n}` when a new camera picture is there (at most `frame_max_fps`)
- `POST /api/control` `{"action": "start"|"stop"|"takeback"|"level"|"resolve"|"ajeito", ...}`
  with the token in `Authorization: Bearer <token>` (or `X-Control-Token`): 202 when the game
  loop took it, 401/403 without/with a wrong token, 400 malformed, 409 refused by the loop
- `GET /api/whoami` says whether the request's token gives control; `GET /api/qr.svg` (token
  required) the QR code of the control URL

Fan-out: the bus calls one listener per change; it wakes the event loop once, which sets one
`asyncio.Event` per client.  Each client's task sends the *latest* state when it gets to run,
so a slow phone skips states instead of queueing them (each state holds the whole move list).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from app.events import CONTROL_ACTIONS, ControlAction, ControlRefused, EventBus
from app.web.token import control_url, new_token, public_host, qr_svg, token_matches

log = logging.getLogger(__name__)

MAX_CONTROL_BODY_BYTES = 4096
MAX_CLIENTS = 1000  # live viewers; a Pi serving more would slow the game loop's thread
SEND_TIMEOUT_S = 20.0  # a client that takes longer to accept one message is dropped
ASSETS = {"/": ("page.html", "text/html; charset=utf-8"),
          "/page.js": ("page.js", "text/javascript; charset=utf-8"),
          "/page.css": ("page.css", "text/css; charset=utf-8")}
NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


class _Fanout:
    """Wakes every connected client's task after a change on the bus (see module docstring)."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self.clients: set[asyncio.Event] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._pending = False

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.bus.add_listener(self.from_publisher)

    def detach(self) -> None:
        self.bus.remove_listener(self.from_publisher)
        self.loop = None

    def from_publisher(self) -> None:
        """Runs in the publisher's thread: one cheap call, however many clients there are."""
        loop = self.loop
        if loop is None or self._pending:
            return
        self._pending = True
        with contextlib.suppress(RuntimeError):  # loop closed while shutting down
            loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        self._pending = False
        for event in self.clients:
            event.set()


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=NO_STORE)


def build_app(bus: EventBus, token: str, frame_max_fps: float = 2.0,
              public_url: str = "", max_clients: int = MAX_CLIENTS) -> Starlette:
    """The Starlette application; `public_url` is the control URL put in the QR code;
    websocket viewers beyond `max_clients` are turned away (code 1013, "try again later")."""
    fanout = _Fanout(bus)
    assets = {path: (resources.files("app.web").joinpath(name).read_bytes(), kind)
              for path, (name, kind) in ASSETS.items()}
    frame_interval_s = 1.0 / frame_max_fps if frame_max_fps > 0 else float("inf")

    def asset(request: Request) -> Response:
        body, kind = assets[request.url.path]
        return Response(body, media_type=kind, headers={"Cache-Control": "no-cache"})

    def request_token(request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip()
        return request.headers.get("x-control-token") or request.query_params.get("token")

    def state(request: Request) -> Response:
        return Response(bus.snapshot().json(), media_type="application/json", headers=NO_STORE)

    def board(request: Request) -> Response:
        return Response(bus.snapshot().svg(), media_type="image/svg+xml", headers=NO_STORE)

    def frame(request: Request) -> Response:
        _, jpeg = bus.frame()
        if jpeg is None:
            return _error(404, "no camera picture yet")
        return Response(jpeg, media_type="image/jpeg", headers=NO_STORE)

    def pdn(request: Request) -> Response:
        snap = bus.snapshot()
        name = f"damas-game-{snap.state.game_id}.pdn"
        return Response(snap.pdn(), media_type="application/x-pdn; charset=utf-8",
                        headers={**NO_STORE,
                                 "Content-Disposition": f'attachment; filename="{name}"'})

    def whoami(request: Request) -> Response:
        return JSONResponse({"control": token_matches(request_token(request), token)},
                            headers=NO_STORE)

    def qr(request: Request) -> Response:
        if not token_matches(request_token(request), token):
            return _error(401 if request_token(request) is None else 403,
                          "the control token is required")
        return Response(qr_svg(public_url), media_type="image/svg+xml", headers=NO_STORE)

    async def control(request: Request) -> Response:
        given = request_token(request)
        if given is None:
            return _error(401, "control actions need the control token "
                               "(Authorization: Bearer <token>)")
        if not token_matches(given, token):
            return _error(403, "wrong control token")
        body = b""
        async for chunk in request.stream():  # never more than the limit in memory
            body += chunk
            if len(body) > MAX_CONTROL_BODY_BYTES:
                return _error(413, f"request body over {MAX_CONTROL_BODY_BYTES} bytes")
        try:
            action = parse_control(body, bus)
        except ValueError as e:
            return _error(400, str(e))
        try:
            bus.send_control(action)
        except ControlRefused as e:
            return _error(409, str(e))
        return JSONResponse({"ok": True, "action": action.kind}, status_code=202,
                            headers=NO_STORE)

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        if len(fanout.clients) >= max_clients:
            await ws.close(code=1013, reason="too many viewers; try again later")
            return
        wake = asyncio.Event()
        closed = asyncio.Event()
        fanout.clients.add(wake)

        async def read_until_closed() -> None:
            try:
                while True:
                    msg = await ws.receive()
                    if msg["type"] == "websocket.disconnect":
                        return
            except (WebSocketDisconnect, RuntimeError):
                return
            finally:
                closed.set()
                wake.set()

        reader = asyncio.create_task(read_until_closed())
        sent_seq, sent_frame, frame_sent_at = -1, 0, 0.0
        try:
            while not closed.is_set():
                wake.clear()
                snap = bus.snapshot()
                if snap.seq != sent_seq:
                    text = f'{{"type":"state","now_s":{time.time():.3f},"state":{snap.json()}}}'
                    await asyncio.wait_for(ws.send_text(text), SEND_TIMEOUT_S)
                    sent_seq = snap.seq
                timeout_s = None
                fseq = bus.frame_seq
                if fseq != sent_frame:
                    wait_s = frame_interval_s - (time.monotonic() - frame_sent_at)
                    if wait_s <= 0:
                        await asyncio.wait_for(
                            ws.send_text(f'{{"type":"frame","seq":{fseq}}}'), SEND_TIMEOUT_S)
                        sent_frame, frame_sent_at = fseq, time.monotonic()
                    else:
                        timeout_s = wait_s
                if wake.is_set():
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout_s)
        except (WebSocketDisconnect, TimeoutError, RuntimeError, OSError):
            pass  # the client went away or stopped reading: drop it
        finally:
            fanout.clients.discard(wake)
            reader.cancel()
            with contextlib.suppress(Exception):
                await ws.close()

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, str(exc.detail))

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("web: %s %s failed", request.method, request.url.path)
        return _error(500, "internal error (see the server log)")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        fanout.attach(asyncio.get_running_loop())
        try:
            yield
        finally:
            fanout.detach()

    routes: list[BaseRoute] = [Route(path, asset) for path in ASSETS]
    routes += [Route("/api/state", state), Route("/api/board.svg", board),
               Route("/api/frame.jpg", frame), Route("/game.pdn", pdn),
               Route("/api/whoami", whoami), Route("/api/qr.svg", qr),
               Route("/api/control", control, methods=["POST"]),
               WebSocketRoute("/ws", websocket)]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={HTTPException: http_error, Exception: server_error})
    app.state.fanout = fanout
    return app


def parse_control(body: bytes, bus: EventBus) -> ControlAction:
    """A `ControlAction` from a request body; `ValueError` says what is wrong with it."""
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"body is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise ValueError('body must be a JSON object like {"action": "takeback"}')
    allowed = {"action", "level", "alert_id", "choice"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)} "
                         f"(expected {', '.join(sorted(allowed))})")
    kind = data.get("action")
    if kind not in CONTROL_ACTIONS:
        raise ValueError(f"action: expected one of {', '.join(CONTROL_ACTIONS)}, got {kind!r}")
    level = data.get("level")
    if kind == "level":
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
            raise ValueError(f"level: expected a whole number 1..10, got {level!r}")
    elif level is not None:
        raise ValueError(f"level: only allowed with action 'level', not {kind!r}")
    alert_id, choice = data.get("alert_id"), data.get("choice")
    if kind == "resolve":
        if not isinstance(alert_id, str):
            raise ValueError(f"alert_id: expected the id of an open alert, got {alert_id!r}")
        alerts = {a.alert_id: a for a in bus.snapshot().state.alerts}
        if alert_id not in alerts:
            open_ids = ", ".join(alerts) or "none"
            raise ValueError(f"alert_id: no open alert {alert_id!r} (open: {open_ids})")
        choices = alerts[alert_id].choices
        if choices and choice not in choices:
            raise ValueError(f"choice: expected one of {', '.join(choices)}, got {choice!r}")
        if not choices and choice is not None:
            raise ValueError(f"choice: alert {alert_id!r} takes no choice")
    elif alert_id is not None or choice is not None:
        raise ValueError(f"alert_id/choice: only allowed with action 'resolve', not {kind!r}")
    return ControlAction(kind, level=level, alert_id=alert_id, choice=choice)


class WebServer:
    """The page for one table, served by uvicorn.

    `WebServer(bus, host, port, token).start_in_thread()` for a game loop that owns the main
    thread (then `.stop()`), or `.serve_forever()` for `damas serve`.  `port=0` picks a free
    port (see `.port` after starting).  `token=None` makes a random one.  `compress`
    deflates websocket messages: a state shrinks about 8x (11.4 kB -> 1.4 kB, the diagram is
    repetitive SVG), which matters on a club's Wi-Fi, for some CPU per client
    (see bench/web_load.py --no-compress).
    """

    def __init__(self, bus: EventBus, host: str = "127.0.0.1", port: int = 8080,
                 token: str | None = None, frame_max_fps: float = 2.0,
                 compress: bool = True, max_clients: int = MAX_CLIENTS) -> None:
        self.bus = bus
        self.host = host
        self.port = port
        self.token = token or new_token()
        self._frame_max_fps = frame_max_fps
        self._compress = compress
        self._max_clients = max_clients
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        h = public_host(self.host)
        return f"http://{'[' + h + ']' if ':' in h else h}:{self.port}/"

    @property
    def control_url(self) -> str:
        return control_url(self.host, self.port, self.token)

    def _make_server(self) -> uvicorn.Server:
        app = build_app(self.bus, self.token, self._frame_max_fps, self.control_url,
                        self._max_clients)
        config = uvicorn.Config(app, host=self.host, port=self.port, log_level="warning",
                                lifespan="on", ws_max_size=65536, access_log=False,
                                ws_per_message_deflate=self._compress)
        server = uvicorn.Server(config)
        self._server = server
        return server

    def _bind(self) -> socket.socket:
        """Bind the listening socket ourselves: a clear OSError (address in use, bad host)
        instead of uvicorn's exit, and the real port at once when `port` is 0."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
            sock.listen(512)
        except OSError as e:
            sock.close()
            raise OSError(f"web server cannot listen on {self.host}:{self.port}: "
                          f"{e.strerror or e}") from None
        self.port = int(sock.getsockname()[1])
        return sock

    def start_in_thread(self, timeout_s: float = 10.0) -> WebServer:
        """Serve from a daemon thread; returns once the server accepts connections."""
        if self._thread is not None:
            raise RuntimeError("web server already started")
        sock = self._bind()
        server = self._make_server()
        self._thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                                        name="damas-web", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                sock.close()
                raise OSError(f"web server did not start within {timeout_s} s")
            time.sleep(0.01)
        return self

    def serve_forever(self, on_listening: Callable[[WebServer], None] | None = None) -> None:
        """Serve in this thread until Ctrl-C / SIGTERM (uvicorn handles the signals).
        `on_listening(self)` runs once the port is bound (e.g. to print the URLs)."""
        sock = self._bind()
        if on_listening is not None:
            on_listening(self)
        try:
            self._make_server().run(sockets=[sock])
        finally:
            sock.close()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop serving (safe to call twice)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None

    def __enter__(self) -> WebServer:
        return self.start_in_thread()

    def __exit__(self, *exc: object) -> None:
        self.stop()
