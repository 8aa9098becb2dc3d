"""Serve a `GrblEmulator` on a pseudo-terminal, so any serial client can open it by path.

Uses Python's own `pty` (no socat).  The server keeps its own handle on the slave side so the
port survives a client closing and reopening it, as a USB serial device does; a `disconnect`
(a fault, or `close()`) shuts the master, and the client then sees the device vanish.
"""

from __future__ import annotations

import os
import pty
import select
import threading
import time
import tty

from sim.grbl.emulator import GrblEmulator


class PtyGrbl:
    def __init__(self, emulator: GrblEmulator) -> None:
        self.emulator = emulator
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        tty.setraw(self.master)
        self.path = os.ttyname(self.slave)
        self._stop = threading.Event()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name="sim-grbl-pty", daemon=True)
        emulator.on_disconnect = self._on_disconnect
        self._pending_close = False

    def __enter__(self) -> PtyGrbl:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> PtyGrbl:
        self._flush_out()
        self._thread.start()
        return self

    def _on_disconnect(self) -> None:
        self._pending_close = True

    def _flush_out(self) -> None:
        data = self.emulator.read()
        while data and not self._closed:
            try:
                n = os.write(self.master, data)
            except OSError:
                return
            data = data[n:]

    def _serve(self) -> None:
        emu = self.emulator
        last = time.monotonic()
        wait = 0.005 if emu.realtime_factor is not None else 0.05
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.master], [], [], wait)
            except (OSError, ValueError):
                break
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    data = b""
                if data:
                    emu.feed(data)
            now = time.monotonic()
            emu.tick(now - last)
            last = now
            self._flush_out()
            if self._pending_close:
                self._shutdown()
                break

    def _shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def disconnect(self) -> None:
        """Pull the cable now (from any thread)."""
        self.emulator.disconnect()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=2.0)
        self._shutdown()
