"""A headless Chromium driven over the Chrome DevTools Protocol, for the web page tests.

No selenium: Chromium is started with `--remote-debugging-port=0`, the port it picked is read
from `DevToolsActivePort` in its profile folder, and a page target is driven over one
websocket (`Page.navigate`, `Runtime.evaluate`, `Page.captureScreenshot`).  When
/usr/bin/chromium is missing, `tools/ensure_chromium.sh` installs it (as root with apt-get);
otherwise the browser tests are skipped with the reason.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,960", "--remote-debugging-port=0"]


class CdpError(RuntimeError):
    pass


class Cdp:
    """One page target: `call(method, **params)` and `evaluate(js)`."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)

    def call(self, method: str, timeout_s: float = 10.0, **params: Any) -> dict[str, Any]:
        n = next(self.ids)
        self.ws.send(json.dumps({"id": n, "method": method, "params": params}))
        deadline = time.monotonic() + timeout_s
        while True:
            msg = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if msg.get("id") == n:
                if "error" in msg:
                    raise CdpError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))

    def evaluate(self, expression: str) -> Any:
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise CdpError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 10.0) -> Any:
        """Poll `expression` until it is truthy; its last value in the failure message."""
        deadline = time.monotonic() + timeout_s
        value = None
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expression!r} (last value {value!r})")

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'")

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path


def _ensure_chromium() -> str | None:
    """The reason the browser cannot be used, or None when it is ready."""
    if os.access(CHROMIUM, os.X_OK):
        return None
    script = ROOT / "tools" / "ensure_chromium.sh"
    r = subprocess.run(["sh", str(script)], capture_output=True, text=True, timeout=900)
    if r.returncode != 0 or not os.access(CHROMIUM, os.X_OK):
        return f"no headless Chromium: {r.stderr.strip() or 'installation failed'}"
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cdp]:
    reason = _ensure_chromium()
    if reason:
        pytest.skip(reason)
    profile = tmp_path_factory.mktemp("chromium-profile")
    proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 20
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
            targets = json.loads(r.read())
        page = next(t for t in targets if t["type"] == "page")
        with connect(page["webSocketDebuggerUrl"], max_size=2**26, open_timeout=10) as ws:
            cdp = Cdp(ws)
            cdp.call("Page.enable")
            cdp.call("Runtime.enable")
            yield cdp
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        shutil.rmtree(profile, ignore_errors=True)
