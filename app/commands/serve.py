"""`damas serve`: the live web page of the table, on its own (a waiting state until a game
loop publishes to the bus).  `damas demo --web PORT` uses the same `WebServer`."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from app.commands.args import int_range
from app.config import load_config
from app.events import EventBus
from app.web.server import WebServer
from app.web.token import qr_text


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="serve the live web page (board, moves, camera, control)")
    p.add_argument("--host", default=None,
                   help="address to listen on (default from [web], else 127.0.0.1; "
                        "0.0.0.0 for a club screen or phones)")
    p.add_argument("--port", type=int_range(1, 65535, "port number"), default=None,
                   help="TCP port (default 8080)")
    p.add_argument("--config", default=None, help="table configuration (TOML)")
    p.set_defaults(func=cmd_serve)


def announce(server: WebServer, out: TextIO | None = None) -> None:
    """Print the page URL, the control URL and its QR code (for the operator's phone)."""
    stream = out or sys.stdout
    print(f"page:    {server.url}", file=stream)
    print(f"control: {server.control_url}   (keep private: it allows start/stop/take back)",
          file=stream)
    print(qr_text(server.control_url), file=stream, flush=True)


def cmd_serve(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    host = args.host or config.web.host
    port = args.port or config.web.port
    bus = EventBus(config.game.variant, flipped=config.web.flipped)
    bus.set_status("Waiting for a game", phase="waiting")
    server = WebServer(bus, host, port, frame_max_fps=config.web.frame_max_fps)
    server.serve_forever(on_listening=announce)
    print("web server stopped", file=sys.stderr)
    return 0
