"""An external engine as a subprocess speaking a line protocol (the Hub transport).

`game.engine.hub.HubClient` needs only `send_line` / `read_line`; this is the real
implementation over a child process's stdin/stdout.  A reader thread feeds a queue so reads can
time out; the process is always ended on `close()` (safe to call twice) and on context exit.
"""

from __future__ import annotations

import queue
import shlex
import subprocess
import threading
from types import TracebackType


class EngineProcess:
    def __init__(self, command: str | list[str]) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("empty engine command")
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as e:
            raise OSError(f"cannot start engine {argv[0]!r}: {e.strerror or e}") from None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self._closed = False

    def _read_loop(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def send_line(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise ConnectionError(f"engine exited (could not send {line!r})") from None

    def read_line(self, timeout_s: float) -> str | None:
        try:
            line = self._lines.get(timeout=timeout_s)
        except queue.Empty:
            return None
        if line is None:
            self._lines.put(None)  # stay at EOF
        return line

    def close(self, grace_s: float = 1.0) -> None:
        if self._closed:
            return
        self._closed = True
        if self.proc.poll() is None:
            try:
                self.send_line("quit")
            except (ConnectionError, ValueError, OSError):
                pass
            try:
                self.proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
