"""The crash-proof game journal: one append-only JSON-lines file per game.

Line 1 is a header (variant, start FEN, players, level, mode, start time); then one record per
accepted move, take-back, irregularity, decision and the end of the game.  Each record is
written, flushed and `os.fsync`ed before the call returns, so the game loop can act (move the
robot, tell the person) knowing the record survives a power cut.

A power cut can still tear the record being written.  Every line carries a CRC-32 of its own
text and a sequence number, and only a line ending in a newline counts, so `load_journal`
recognises a torn (or zero-filled) tail and ignores it; every record before it is intact.
Damage *before* the last line is not a power cut and is reported as `JournalError`.
`Journal.resume` cuts a torn tail off before appending, so a continued game never glues a new
record onto half an old one.

Line format (a valid JSON object; "crc" is the CRC-32 of the line with `,"crc":"..."` removed)::

    {"n":0,"type":"header","variant":"brazilian",...,"crc":"1a2b3c4d"}
    {"n":1,"type":"move","move":"c3-d4","fen":"B:W...","by":"human","t":"2026-...","crc":"..."}
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from game.board import Board
from game.errors import GameError
from game.pdn import GameRecord, Ply, board_after, new_record, position_comment
from game.variants import find_variant

JOURNAL_FORMAT = 1
RECORD_TYPES = ("move", "takeback", "irregularity", "decision", "end")
_CRC_SUFFIX_LEN = len(',"crc":"00000000"}')


class JournalError(ValueError):
    """A journal that cannot be read or written as asked (names the file and the line)."""


@dataclass(frozen=True)
class JournalHeader:
    """What a game is: enough to replay it from its journal alone."""

    variant: str = "brazilian"
    start_fen: str | None = None  # None: the variant's initial position
    white: str = "?"
    black: str = "?"
    robot_colour: str | None = None  # None: two people (recording)
    level: int | None = None
    mode: str = "play"
    event: str = "?"
    site: str = "?"
    started: str = ""  # ISO 8601 UTC; filled in by `Journal.create` when empty

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JournalHeader:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class LoadedJournal:
    """A journal as read back: the moves still standing (take-backs applied), every record,
    whether the game ended and with what result, and how many torn bytes were ignored."""

    header: JournalHeader
    records: list[dict[str, Any]] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    ended: bool = False
    result: str = "*"
    good_bytes: int = 0  # length of the intact part of the file
    torn_bytes: int = 0  # bytes after it (a record cut by a crash), ignored

    def to_game_record(self) -> GameRecord:
        """The game as PDN; irregularities and decisions become comments on the move before
        them (or before the first move), as a scorer would write them."""
        h = self.header
        tags = {"White": h.white, "Black": h.black, "Event": h.event, "Site": h.site}
        if h.started[:10].count("-") == 2:
            tags["Date"] = h.started[:10].replace("-", ".")
        rec = new_record(h.variant, h.start_fen, **tags)
        board = _start_board(rec)
        before: list[Board | None] = []  # the board before each ply still standing
        # ply -> the position it left, where only that says it; written after the ply's other
        # comments, as the referee's record (the PDN of `damas demo`, `damas record` and the
        # web page) writes it
        positions: dict[int, str] = {}
        for r in self.records:
            kind = r["type"]
            if kind == "move":
                before.append(board)
                board, irregular = _board_after(board, r["move"], r.get("fen"))
                if irregular:
                    positions[len(rec.plies)] = r["fen"]
                rec.plies.append(Ply(r["move"]))
            elif kind == "takeback":
                keep = max(0, len(rec.plies) - int(r["plies"]))
                if keep < len(rec.plies):
                    board = before[keep]
                del rec.plies[keep:], before[keep:]
                positions = {i: f for i, f in positions.items() if i < keep}
            elif kind in ("irregularity", "decision"):
                text = r.get("text", "")
                if rec.plies:
                    rec.plies[-1].comments.append(text)
                else:
                    rec.pre_comments.append(text)
        for i, fen in positions.items():
            rec.plies[i].comments.append(position_comment(fen))
        rec.result = self.result
        return rec


def _start_board(rec: GameRecord) -> Board | None:
    """The journal's start position, or None if it cannot be read (then no position comments
    are added: the PDN says what the journal says)."""
    try:
        return rec.start_board()
    except GameError:
        return None


def _board_after(board: Board | None, move: str, fen: str | None) -> tuple[Board | None, bool]:
    """The board after `move`, and whether only the journal's `fen` could say it (a move
    against the rules that was let stand: the PDN then needs the position to replay past it)."""
    if board is None:
        return None, False
    try:
        return board_after(board, move, fen or "")
    except GameError:
        return None, False


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def encode_record(body: Mapping[str, Any]) -> bytes:
    """One journal line (with its CRC and the newline)."""
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    if not text.endswith("}") or '"crc"' in body:
        raise JournalError(f"record cannot be journalled: {body!r}")
    crc = zlib.crc32(text.encode("utf-8"))
    return (text[:-1] + f',"crc":"{crc:08x}"}}\n').encode("utf-8")


def decode_record(line: bytes) -> dict[str, Any] | None:
    """The record on one line (without its newline), or None if the line is not intact."""
    if len(line) <= _CRC_SUFFIX_LEN or not line.endswith(b'"}'):
        return None
    head, suffix = line[:-_CRC_SUFFIX_LEN], line[-_CRC_SUFFIX_LEN:]
    if not suffix.startswith(b',"crc":"'):
        return None
    try:
        crc = int(suffix[8:16], 16)
    except ValueError:
        return None
    text = head + b"}"
    if zlib.crc32(text) != crc:
        return None
    try:
        data = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def load_journal(path: str | Path) -> LoadedJournal:
    """Read a journal; a torn last line is ignored, damage before it is a `JournalError`."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise JournalError(f"{p}: cannot read the journal: {e.strerror or e}") from None
    return parse_journal(data, str(p))


def parse_journal(data: bytes, p: str = "<journal>") -> LoadedJournal:
    """`load_journal` on the bytes of a journal file; `p` names it in errors."""
    records: list[dict[str, Any]] = []
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break  # no newline: the write was cut short
        rec = decode_record(data[pos:end])
        if rec is None or rec.get("n") != len(records):
            if data.find(b"\n", end + 1) < 0 and not data[end + 1:].strip(b"\0"):
                break  # the last line is damaged (only zeros may follow): a torn write
            raise JournalError(f"{p}: line {len(records) + 1} is damaged and is not the last "
                               f"line; the journal was altered (not a power cut)")
        records.append(rec)
        pos = end + 1
    if not records:
        raise JournalError(f"{p}: no intact header line: not a game journal, or the program "
                           f"stopped before the game started")
    head = records[0]
    if head.get("type") != "header":
        raise JournalError(f"{p}: line 1 is not a journal header")
    fmt = head.get("format")
    if not isinstance(fmt, int) or fmt > JOURNAL_FORMAT:
        raise JournalError(f"{p}: journal format {head.get('format')} is newer than this "
                           f"program reads ({JOURNAL_FORMAT})")
    out = LoadedJournal(JournalHeader.from_dict(head), records[1:], good_bytes=pos,
                        torn_bytes=len(data) - pos)
    for i, r in enumerate(out.records, start=2):
        kind = r.get("type")
        if kind == "move":
            out.moves.append(str(r["move"]))
        elif kind == "takeback":
            n = int(r.get("plies", 0))
            if not 0 < n <= len(out.moves):
                raise JournalError(f"{p}: line {i}: take-back of {n} plies with "
                                   f"{len(out.moves)} moves played")
            del out.moves[len(out.moves) - n:]
        elif kind == "end":
            out.ended, out.result = True, str(r.get("result", "*"))
        elif kind not in RECORD_TYPES:
            raise JournalError(f"{p}: line {i}: unknown record type {kind!r}")
    return out


class Journal:
    """Writes one game's journal.  `create` starts a new file, `resume` continues one."""

    def __init__(self, path: Path, fd: int, next_n: int) -> None:
        self.path = path
        self._fd: int | None = fd
        self._n = next_n

    @classmethod
    def create(cls, path: str | Path, header: JournalHeader) -> Journal:
        """A new journal at `path` (which must not exist: a game is never overwritten)."""
        p = Path(path)
        find_variant(header.variant)
        if not header.started:
            header = JournalHeader(**{**header.to_dict(), "started": _utc_now()})
        p.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        except FileExistsError:
            raise JournalError(f"{p}: a journal with this name exists already") from None
        journal = cls(p, fd, 0)
        journal._append({"type": "header", "format": JOURNAL_FORMAT, **header.to_dict()})
        _fsync_dir(p.parent)  # the new file's name must survive a power cut too
        return journal

    @classmethod
    def resume(cls, path: str | Path) -> tuple[Journal, LoadedJournal]:
        """Continue a journal after a crash: a torn tail is cut off first."""
        p = Path(path)
        loaded = load_journal(p)
        if loaded.ended:
            raise JournalError(f"{p}: this game has ended ({loaded.result}); start a new one")
        fd = os.open(p, os.O_WRONLY | os.O_APPEND)
        if loaded.torn_bytes:
            os.ftruncate(fd, loaded.good_bytes)
            os.fsync(fd)
        return cls(p, fd, len(loaded.records) + 1), loaded

    @classmethod
    def new_path(cls, folder: str | Path, when: datetime | None = None) -> Path:
        """A fresh file name in `folder`, e.g. games/2026-12-02T13-05-09Z.jsonl."""
        stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%dT%H-%M-%SZ")
        base = Path(folder) / f"{stamp}.jsonl"
        n = 1
        while base.exists():
            n += 1
            base = Path(folder) / f"{stamp}-{n}.jsonl"
        return base

    # -- records -------------------------------------------------------------------------------
    def record_move(self, move: str, fen_after: str, by: str = "human",
                    comment: str | None = None) -> None:
        """An accepted move in PDN text; `fen_after` lets a resumed game check the board."""
        body: dict[str, Any] = {"type": "move", "move": move, "fen": fen_after, "by": by}
        if comment:
            body["comment"] = comment
        self._append(body)

    def record_takeback(self, plies: int = 1, by: str = "control") -> None:
        self._append({"type": "takeback", "plies": plies, "by": by})

    def record_irregularity(self, kind: str, text: str, squares: list[str] | None = None) -> None:
        """Something against the rules happened on the board (text goes into the PDN)."""
        self._append({"type": "irregularity", "kind": kind, "text": text,
                      "squares": squares or []})

    def record_decision(self, text: str, choice: str | None = None, by: str = "control") -> None:
        """A person's or the policy's answer to an irregularity (text goes into the PDN)."""
        self._append({"type": "decision", "text": text, "choice": choice, "by": by})

    def record_end(self, result: str, reason: str) -> None:
        self._append({"type": "end", "result": result, "reason": reason})

    def _append(self, body: dict[str, Any]) -> None:
        if self._fd is None:
            raise JournalError(f"{self.path}: journal is closed")
        if body["type"] != "header":
            body.setdefault("t", _utc_now())
        line = encode_record({"n": self._n, **body})
        view = memoryview(line)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)
        self._n += 1

    def close(self) -> None:
        """Close the file (safe to call twice)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not possible on every platform; the file's own fsync still holds its data
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
