"""An in-process serial link to a `GrblEmulator`: pyserial's read/write interface, no pty.

The same driver code runs over it; it only skips the operating system, which makes long
property runs (thousands of moves) fast and single-threaded.  Bytes written are handed to the
emulator at once and its answers are readable immediately, as if the wire were instant.
"""

from __future__ import annotations

from sim.grbl.emulator import GrblEmulator


class EmulatorLink:
    def __init__(self, emulator: GrblEmulator) -> None:
        self.emulator = emulator
        self._rx = bytearray()
        self.closed = False
        self.bytes_written = 0

    def _check(self) -> None:
        if self.closed:
            raise OSError("link closed")
        if self.emulator.disconnected:
            raise OSError(5, "device disconnected (emulated power loss)")

    def write(self, data: bytes) -> int:
        self._check()
        self.emulator.feed(bytes(data))
        self.bytes_written += len(data)
        self._rx += self.emulator.read()
        return len(data)

    @property
    def in_waiting(self) -> int:
        self._rx += self.emulator.read()
        return len(self._rx)

    def read(self, size: int = 1) -> bytes:
        self._rx += self.emulator.read()
        if not self._rx:
            self._check()
            return b""
        out = bytes(self._rx[:size])
        del self._rx[:size]
        return out

    def close(self) -> None:
        self.closed = True
