"""Recorded GRBL sessions (`transcripts/*.grbl`) replayed as a serial port.

`ScriptedPort` plays GRBL's side: a line from GRBL becomes readable once every host item
before it in the transcript has been written; a host write that differs from the transcript
fails the test at once.  It also models GRBL's 128-byte receive buffer: bytes of lines not yet
acknowledged by an `ok`/`error` that the host has read must never exceed 128.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent / "transcripts"
RX_BUFFER_BYTES = 128


@dataclass(frozen=True)
class Item:
    kind: str  # "host" (line), "rt" (real-time bytes), "grbl" (line from GRBL)
    text: str

    @property
    def data(self) -> bytes:
        if self.kind == "host":
            return (self.text + "\n").encode()
        if self.kind == "rt":
            return b"\x18" if self.text == "0x18" else self.text.encode()
        return (self.text + "\r\n").encode()


@dataclass(frozen=True)
class Transcript:
    name: str
    items: tuple[Item, ...]
    emulator: dict[str, str]  # "settings" -> "22=1 ...", "fault" -> "alarm_at_block=2"


def load(name: str) -> Transcript:
    items, meta = [], {}
    for raw in (HERE / name).read_text().splitlines():
        if raw.startswith("# emulator:"):
            for part in raw[len("# emulator:"):].split(";"):
                key, _, value = part.strip().partition(" ")
                meta[key] = value
            continue
        if raw.startswith("#") or not raw:
            continue
        marker, text = raw[0], raw[2:]
        kind = {"<": "grbl", ">": "host", "!": "rt"}[marker]
        items.append(Item(kind, text))
    return Transcript(name, tuple(items), meta)


def all_names() -> list[str]:
    return sorted(p.name for p in HERE.glob("*.grbl"))


class ScriptedPort:
    def __init__(self, transcript: Transcript) -> None:
        self.items = list(transcript.items)
        self.pos = 0  # next transcript item
        self.readable = bytearray()
        self.unacked: list[int] = []  # byte counts of host lines awaiting ok/error
        self.max_unacked = 0
        self.closed = False
        self._release()

    def _release(self) -> None:
        while self.pos < len(self.items) and self.items[self.pos].kind == "grbl":
            self.readable += self.items[self.pos].data
            self.pos += 1

    def write(self, data: bytes) -> int:
        buf = bytes(data)
        while buf:
            assert self.pos < len(self.items), f"host sent {buf!r} after the transcript ended"
            item = self.items[self.pos]
            assert item.kind in ("host", "rt"), f"host sent {buf!r}, GRBL was to speak first"
            want = item.data
            assert buf[: len(want)] == want, f"host sent {buf!r}, transcript has {want!r}"
            buf = buf[len(want):]
            self.pos += 1
            if item.kind == "host":
                self.unacked.append(len(want))
                total = sum(self.unacked)
                self.max_unacked = max(self.max_unacked, total)
                assert total <= RX_BUFFER_BYTES, f"GRBL's receive buffer overflowed ({total})"
            self._release()
        return len(data)

    @property
    def in_waiting(self) -> int:
        return len(self.readable)

    def read(self, size: int = 1) -> bytes:
        out = bytes(self.readable[:size])
        del self.readable[:size]
        for line in out.split(b"\n")[:-1] if b"\n" in out else []:
            text = line.strip().decode()
            if (text == "ok" or text.startswith("error:")) and self.unacked:
                self.unacked.pop(0)
        return out

    def close(self) -> None:
        self.closed = True

    @property
    def finished(self) -> bool:
        return self.pos == len(self.items) and not self.readable
