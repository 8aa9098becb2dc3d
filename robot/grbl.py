"""A GRBL 1.1 controller on a serial port (pyserial): the gantry's driver.

Talks GRBL's documented protocol: the reset banner, `$$` settings, `ok` / `error:N` per line,
`ALARM:N`, status reports `<State|MPos:x,y,z|...>` to `?`, real-time feed hold `!`, resume
`~`, soft reset 0x18, jog cancel 0x85, `$X` unlock, `$H` homing, `$J=` jogging.  Lines are
streamed with GRBL's character-counting scheme: a line is sent only when every unacknowledged
byte still fits GRBL's 128-byte receive buffer, so the planner stays full and nothing is lost.

Every wait has a timeout; every failure is a `robot.errors.GantryError` naming GRBL's code and
its meaning.  The port is anything pyserial opens: a device path, or a URL (`socket://`,
`rfc2217://`, `loop://`...).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from robot.errors import (
    GantryAlarm,
    GantryCommandError,
    GantryDisconnected,
    GantryError,
    GantryProtocolError,
    GantryTimeout,
)

# GRBL's receive buffer is 128 bytes; like GRBL's own stream.py, keep one byte spare.
RX_BUFFER_BYTES = 128
STREAM_LIMIT_BYTES = RX_BUFFER_BYTES - 1


class SerialLike(Protocol):
    def write(self, data: bytes) -> int | None: ...
    def read(self, size: int = 1) -> bytes: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class Status:
    state: str  # Idle, Run, Hold:0, Jog, Alarm, Door:0, Check, Home, Sleep
    mpos: tuple[float, float, float]
    feed_mm_min: float = 0.0
    raw: str = ""

    @property
    def is_idle(self) -> bool:
        return self.state == "Idle"


def parse_status(line: str) -> Status:
    """`<Idle|MPos:1.000,2.000,0.000|FS:0,0>` -> Status (WPos is turned into MPos with WCO)."""
    if not (line.startswith("<") and line.endswith(">")):
        raise GantryProtocolError(f"not a GRBL status report: {line!r}")
    fields = line[1:-1].split("|")
    state = fields[0]
    mpos = wpos = wco = None
    feed = 0.0
    for f in fields[1:]:
        key, _, value = f.partition(":")
        try:
            nums = tuple(float(v) for v in value.split(","))
        except ValueError:
            continue
        if key == "MPos":
            mpos = nums
        elif key == "WPos":
            wpos = nums
        elif key == "WCO":
            wco = nums
        elif key in ("FS", "F"):
            feed = nums[0]
    if mpos is None and wpos is not None:
        off = wco or (0.0,) * len(wpos)
        mpos = tuple(a + b for a, b in zip(wpos, off, strict=False))
    if mpos is None:
        raise GantryProtocolError(f"status report without a position: {line!r}")
    xyz = (tuple(mpos) + (0.0, 0.0, 0.0))[:3]
    return Status(state, (xyz[0], xyz[1], xyz[2]), feed, line)


class Grbl:
    """One GRBL controller.  Use `Grbl.open(port)` then `connect()`; close() when done."""

    def __init__(self, port: SerialLike, *, timeout_s: float = 5.0,
                 motion_timeout_s: float = 300.0, poll_s: float = 0.02,
                 log: Callable[[str, str], None] | None = None) -> None:
        self.port = port
        self.timeout_s = timeout_s
        self.motion_timeout_s = motion_timeout_s
        self.poll_s = poll_s
        self.log = log  # log(direction, text): direction ">" sent, "<" received
        self.banner: str | None = None
        self.last_status: Status | None = None
        self.messages: list[str] = []  # [MSG:...] and other feedback lines
        self.max_pending_bytes = 0  # the most unacknowledged bytes ever in GRBL's buffer
        self._buf = bytearray()
        self._pending: deque[tuple[int, str]] = deque()  # (bytes, line) awaiting ok/error
        self._closed = False

    @classmethod
    def open(cls, url: str, baudrate: int = 115200, **kw: Any) -> Grbl:
        import serial

        try:
            port = serial.serial_for_url(url, baudrate=baudrate, timeout=0.02,
                                         write_timeout=5.0)
        except (serial.SerialException, ValueError) as e:
            raise GantryDisconnected(f"cannot open GRBL port {url!r}: {e}") from None
        return cls(port, **kw)

    def __enter__(self) -> Grbl:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.port.close()
        except Exception:  # noqa: BLE001 - closing a dead port must not raise
            pass

    # -- bytes --------------------------------------------------------------------------------
    def _write(self, data: bytes) -> None:
        if self._closed:
            raise GantryDisconnected("GRBL port is closed")
        try:
            self.port.write(data)
        except Exception as e:  # pyserial raises SerialException (an OSError) or OSError
            raise GantryDisconnected(f"GRBL link lost while writing: {e}") from None
        if self.log:
            self.log(">", data.decode("ascii", "replace").rstrip("\n"))

    def _readline(self, deadline: float) -> str | None:
        """One line without its end, or None at the deadline."""
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                raw = bytes(self._buf[:nl])
                del self._buf[: nl + 1]
                line = raw.decode("ascii", "replace").strip("\r ")
                if not line:
                    continue
                if self.log:
                    self.log("<", line)
                return line
            if time.monotonic() >= deadline:
                return None
            try:
                # read(1) returns as soon as a byte arrives; then take whatever is waiting.
                chunk = self.port.read(1)
                waiting = getattr(self.port, "in_waiting", 0) if chunk else 0
                if waiting:
                    chunk += self.port.read(waiting)
            except Exception as e:
                raise GantryDisconnected(f"GRBL link lost while reading: {e}") from None
            if chunk:
                self._buf += chunk

    def _next(self, deadline: float, what: str) -> str:
        """The next response line that is not a status report or a message."""
        while True:
            line = self._readline(deadline)
            if line is None:
                raise GantryTimeout(f"GRBL did not answer {what} in time")
            if self._absorb(line):
                continue
            return line

    def _absorb(self, line: str) -> bool:
        """Handle asynchronous lines; raise on alarms; True if the line was consumed."""
        if line.startswith("<"):
            self.last_status = parse_status(line)
            return True
        if line.startswith("ALARM:"):
            code = _int_after(line, "ALARM:")
            self._pending.clear()
            raise GantryAlarm(code)
        if line.startswith("Grbl "):
            self.banner = line
            if self._pending:
                self._pending.clear()
                raise GantryProtocolError(f"GRBL reset unexpectedly ({line!r})")
            return True
        if line.startswith("[") or line.startswith(">"):
            self.messages.append(line)
            return True
        return False

    # -- connection ---------------------------------------------------------------------------
    def connect(self, banner_timeout_s: float = 2.5, home: bool = False,
                unlock: bool = False) -> str:
        """Wait for the reset banner (a USB Arduino resets when the port opens), soft-reset if
        none comes, then check the state: Alarm needs `home` ($H) or `unlock` ($X)."""
        deadline = time.monotonic() + banner_timeout_s
        self.banner = None
        while self.banner is None:
            line = self._readline(deadline)
            if line is None:
                break
            self._absorb(line)
        if self.banner is None:
            self.soft_reset()
        if not self.banner or "1.1" not in self.banner:
            raise GantryProtocolError(f"expected a GRBL 1.1 banner, got {self.banner!r}")
        st = self.status()
        if st.state.startswith("Alarm"):
            if home:
                self.home()
            elif unlock:
                self.unlock()
            else:
                raise GantryAlarm(None, "homing required: home the machine ($H) or unlock ($X)")
        return self.banner

    def soft_reset(self, timeout_s: float | None = None) -> None:
        """Ctrl-X: stops everything at once and waits for the banner."""
        self._pending.clear()
        self._buf.clear()
        self._write(b"\x18")
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        self.banner = None
        while self.banner is None:
            line = self._readline(deadline)
            if line is None:
                raise GantryTimeout("no GRBL banner after a soft reset")
            if line.startswith("ALARM:"):
                self.messages.append(line)  # ALARM:3 from resetting a moving machine
                continue
            self._absorb(line)

    # -- commands -----------------------------------------------------------------------------
    def command(self, line: str, timeout_s: float | None = None) -> list[str]:
        """Send one line and wait for its `ok`; returns the lines GRBL printed before it."""
        self.drain(timeout_s)
        line = line.strip()
        data = (line + "\n").encode("ascii")
        self._write(data)
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        out: list[str] = []
        while True:
            resp = self._next(deadline, repr(line))
            if resp == "ok":
                return out
            if resp.startswith("error:"):
                raise GantryCommandError(_int_after(resp, "error:") or 0, line)
            out.append(resp)

    def settings(self) -> dict[int, float]:
        """`$$` as a dict: {110: 6000.0, ...}."""
        out: dict[int, float] = {}
        for resp in self.command("$$"):
            if resp.startswith("$") and "=" in resp:
                k, _, v = resp[1:].partition("=")
                try:
                    out[int(k)] = float(v.split()[0])
                except ValueError:
                    continue
        return out

    def unlock(self) -> None:
        self.command("$X")

    def home(self) -> None:
        """`$H`; GRBL answers when the cycle ends (error:5 if homing is not enabled)."""
        self.command("$H", timeout_s=self.motion_timeout_s)

    def jog(self, dx_mm: float = 0.0, dy_mm: float = 0.0, dz_mm: float = 0.0,
            feed_mm_min: float = 1000.0) -> None:
        words = [f"{a}{v:.3f}" for a, v in (("X", dx_mm), ("Y", dy_mm), ("Z", dz_mm)) if v]
        if words:
            self.command(f"$J=G91 G21 {' '.join(words)} F{feed_mm_min:.0f}")

    def jog_cancel(self) -> None:
        self._write(b"\x85")

    def feed_hold(self) -> None:
        self._write(b"!")

    def resume(self) -> None:
        self._write(b"~")

    # -- status and waiting -------------------------------------------------------------------
    def status(self, timeout_s: float | None = None) -> Status:
        """Ask `?` and return the report (lines for pending commands are processed too)."""
        self.last_status = None
        self._write(b"?")
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while self.last_status is None:
            line = self._readline(deadline)
            if line is None:
                raise GantryTimeout("GRBL did not answer a status request")
            if not self._absorb(line):
                self._ack(line)
        return self.last_status

    def wait_idle(self, timeout_s: float | None = None, sync: bool = True) -> Status:
        """Block until every queued move has finished: `G4 P0` is acknowledged only when the
        planner is empty; then confirm with a status report.  `sync=False` only polls `?`
        (GRBL refuses G-code while jogging)."""
        timeout = timeout_s or self.motion_timeout_s
        if sync:
            self.command("G4 P0", timeout_s=timeout)
        deadline = time.monotonic() + timeout
        while True:
            st = self.status()
            if st.is_idle:
                return st
            if st.state.startswith("Alarm"):
                raise GantryAlarm(None, "while waiting for motion to end")
            if time.monotonic() >= deadline:
                raise GantryTimeout(f"GRBL still {st.state} after {timeout:.0f} s")
            time.sleep(self.poll_s)

    # -- streaming ----------------------------------------------------------------------------
    def _ack(self, resp: str) -> None:
        if not self._pending:
            raise GantryProtocolError(f"unexpected response {resp!r} with nothing pending")
        _, line = self._pending.popleft()
        if resp.startswith("error:"):
            self._pending.clear()
            raise GantryCommandError(_int_after(resp, "error:") or 0, line)
        if resp != "ok":
            raise GantryProtocolError(f"unexpected response {resp!r} to {line!r}")

    @property
    def pending_bytes(self) -> int:
        return sum(n for n, _ in self._pending)

    def send(self, line: str, timeout_s: float | None = None) -> None:
        """Queue one line with character counting: waits only until it fits GRBL's buffer."""
        line = line.strip()
        data = (line + "\n").encode("ascii")
        if len(data) > STREAM_LIMIT_BYTES:
            raise GantryError(f"line too long for GRBL's buffer: {line!r}")
        deadline = time.monotonic() + (timeout_s or self.motion_timeout_s)
        while self._pending and self.pending_bytes + len(data) > STREAM_LIMIT_BYTES:
            self._ack(self._next(deadline, "a streamed line"))
        self._write(data)
        self._pending.append((len(data), line))
        self.max_pending_bytes = max(self.max_pending_bytes, self.pending_bytes)

    def drain(self, timeout_s: float | None = None) -> None:
        """Wait for the `ok` of every streamed line."""
        deadline = time.monotonic() + (timeout_s or self.motion_timeout_s)
        while self._pending:
            self._ack(self._next(deadline, "a streamed line"))

    def stream(self, lines: Iterable[str], on_sent: Callable[[str], None] | None = None) -> None:
        for line in lines:
            self.send(line)
            if on_sent:
                on_sent(line)
        self.drain()


def _int_after(text: str, prefix: str) -> int | None:
    try:
        return int(text[len(prefix):].strip())
    except ValueError:
        return None
