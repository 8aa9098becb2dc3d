"""The live web page of a table: see `app.web.server.WebServer`."""

from app.web.server import WebServer, build_app

__all__ = ["WebServer", "build_app"]
