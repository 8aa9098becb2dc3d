"""A client for the Hub protocol (version 2, spoken by the Scan engine: `scan hub`).

The client never touches a process: it talks through a `Transport` (send a line, read a line
with a timeout), so `game` stays free of I/O and tests script the engine's side.  The real
subprocess transport lives in `app/engine_process.py`.

Protocol summary (Scan's protocol.txt): lines are `<command> <arg>=<value> ...`, values quoted
with double quotes when they hold spaces.  Start-up: GUI `hub`; engine `id ...`, `param ...`,
`wait`; GUI `set-param name=variant value=...`, `init`; engine `ready`.  A search: GUI
`pos pos=<side><one char per square>`, `level move-time=<s>` or `level depth=<d>`,
`go think`; engine `info ...` lines then `done move=<move> [ponder=<move>]`.  Squares are
numbered in standard order (1 = the top-left playable square seen by White, row by row);
a position is `W` or `B` then one of `w b W B e` per square; a capture is written
`from x to x captured x captured ...` (captured pieces in any order, no intermediate landings).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Protocol

from game.board import WHITE, Board, Move
from game.errors import GameError
from game.geometry import geometry
from game.variants import Variant

# Our variant names -> the Hub `variant` parameter value engines use for them.
HUB_VARIANT_NAMES = {"international": "normal"}


class HubProtocolError(GameError, ConnectionError):
    """The external engine broke the protocol, fell silent, or cannot play this variant."""


class Transport(Protocol):
    def send_line(self, line: str) -> None: ...

    def read_line(self, timeout_s: float) -> str | None:
        """The next line without its newline, or None if nothing came in time / EOF."""
        ...


def parse_line(line: str) -> tuple[str, dict[str, str]]:
    """`info depth=3 pv="a b"` -> ("info", {"depth": "3", "pv": "a b"}); flags map to ""."""
    try:
        tokens = shlex.split(line, posix=True)
    except ValueError as e:
        raise HubProtocolError(f"unreadable Hub line {line!r}: {e}") from None
    if not tokens:
        return "", {}
    args: dict[str, str] = {}
    for tok in tokens[1:]:
        name, eq, value = tok.partition("=")
        args[name] = value if eq else ""
    return tokens[0], args


def format_line(command: str, *flags: str, **args: str) -> str:
    parts = [command, *flags]
    for name, value in args.items():
        name = name.replace("_", "-")
        needs_quotes = value == "" or any(c in value for c in ' ="\t')
        parts.append(f'{name}="{value}"' if needs_quotes else f"{name}={value}")
    return " ".join(parts)


def standard_numbers(variant: Variant) -> tuple[int, ...]:
    """Hub square number of each internal square: row by row from White's top-left."""
    geo = geometry(variant.width, variant.height)
    order = sorted(range(geo.squares), key=lambda s: (-geo.coords[s][1], geo.coords[s][0]))
    numbers = [0] * geo.squares
    for n, sq in enumerate(order, start=1):
        numbers[sq] = n
    return tuple(numbers)


def position_text(board: Board) -> str:
    numbers = standard_numbers(board.variant)
    chars = ["e"] * len(numbers)
    for sq, piece in board.piece_map().items():
        chars[numbers[sq] - 1] = piece.symbol
    return ("W" if board.turn is WHITE else "B") + "".join(chars)


def position_command(board: Board) -> str:
    """`pos pos=... [moves="..."]`: the position before the king moves played since the last
    irreversible move, and those moves, so the engine can see repetitions (as Hub does)."""
    n = min(board.quiet_plies, len(board.move_stack))
    if n == 0:
        return format_line("pos", pos=position_text(board))
    start = board.copy()
    played = [start.pop() for _ in range(n)][::-1]
    texts = []
    replay = start.copy(stack=False)
    for move in played:
        texts.append(move_text(replay, move))
        replay.push(move)
    return format_line("pos", pos=position_text(start), moves=" ".join(texts))


def move_text(board: Board, move: Move) -> str:
    numbers = standard_numbers(board.variant)
    if not move.captured:
        return f"{numbers[move.from_square]}-{numbers[move.to_square]}"
    parts = [numbers[move.from_square], numbers[move.to_square]]
    parts += [numbers[s] for s in move.captured]
    return "x".join(str(p) for p in parts)


def parse_move(board: Board, text: str) -> Move:
    """The legal move of `board` that the Hub move text names (checked, never trusted)."""
    numbers = standard_numbers(board.variant)
    square_of = {n: sq for sq, n in enumerate(numbers)}
    is_capture = "x" in text
    try:
        nums = [int(t) for t in text.replace("x", "-").split("-")]
        squares = [square_of[n] for n in nums]
    except (ValueError, KeyError):
        raise HubProtocolError(f"engine move {text!r} is not a Hub move") from None
    if len(squares) < 2:
        raise HubProtocolError(f"engine move {text!r} is not a Hub move")
    for move in board.legal_moves:
        if move.from_square != squares[0] or move.to_square != squares[1]:
            continue
        if is_capture != bool(move.captured):
            continue
        if is_capture and len(squares) > 2 and set(squares[2:]) != set(move.captured):
            continue
        return move
    raise HubProtocolError(f"engine move {text!r} is not legal in {board.fen()}")


@dataclass
class HubEngineInfo:
    name: str = "?"
    version: str = ""
    params: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class HubSearchResult:
    move: Move
    name: str  # PDN of the move
    infos: list[dict[str, str]]
    ponder: str | None = None


class HubClient:
    """Plays through an external Hub engine (`scan hub`) for the variants it supports."""

    def __init__(self, transport: Transport, timeout_s: float = 10.0) -> None:
        self.transport = transport
        self.timeout_s = timeout_s
        self.info = HubEngineInfo()
        self.variant: Variant | None = None

    def _read(self, timeout_s: float, waiting_for: str) -> tuple[str, dict[str, str]]:
        line = self.transport.read_line(timeout_s)
        if line is None:
            raise HubProtocolError(
                f"external engine sent nothing for {timeout_s:.1f} s while waiting for "
                f"{waiting_for!r} (or it exited)")
        cmd, args = parse_line(line)
        if cmd == "error":
            raise HubProtocolError(f"external engine error: {args.get('message', line)}")
        return cmd, args

    def start(self, variant: Variant) -> HubEngineInfo:
        """Handshake (`hub` ... `wait`), choose the variant, `init` ... `ready`."""
        self.transport.send_line("hub")
        while True:
            cmd, args = self._read(self.timeout_s, "wait")
            if cmd == "id":
                self.info.name = args.get("name", "?")
                self.info.version = args.get("version", "")
            elif cmd == "param" and "name" in args:
                self.info.params[args["name"]] = args
            elif cmd == "wait":
                break
        wanted = HUB_VARIANT_NAMES.get(variant.name, variant.name)
        declared = self.info.params.get("variant")
        if declared is None:
            if wanted != "normal":
                raise HubProtocolError(
                    f"{self.info.name} declares no variant parameter, so it plays only "
                    f"international draughts, not {variant.name}")
        else:
            values = declared.get("values", declared.get("value", "")).split()
            if wanted not in values:
                raise HubProtocolError(
                    f"{self.info.name} cannot play {variant.name} (its variants: "
                    f"{', '.join(values) or 'none'})")
            if declared.get("value") != wanted:
                self.transport.send_line(format_line("set-param", name="variant", value=wanted))
        self.transport.send_line("init")
        while True:
            cmd, _args = self._read(self.timeout_s, "ready")
            if cmd == "ready":
                break
        self.variant = variant
        return self.info

    def new_game(self) -> None:
        self.transport.send_line("new-game")

    def best_move(self, board: Board, movetime_s: float | None = None,
                  depth: int | None = None) -> HubSearchResult:
        if self.variant is None or board.variant != self.variant:
            raise HubProtocolError("start the Hub engine for this variant first")
        if not board.legal_moves:
            raise HubProtocolError("the position has no legal move")
        self.transport.send_line(position_command(board))
        if depth is not None:
            self.transport.send_line(format_line("level", depth=str(depth)))
        else:
            self.transport.send_line(format_line("level", move_time=f"{movetime_s or 1.0:g}"))
        self.transport.send_line("go think")
        wait_s = (movetime_s or 0.0) + self.timeout_s if depth is None else 10 * self.timeout_s
        infos: list[dict[str, str]] = []
        while True:
            cmd, args = self._read(wait_s, "done")
            if cmd == "info":
                infos.append(args)
            elif cmd == "done":
                if "move" not in args:
                    raise HubProtocolError("engine said 'done' without a move")
                move = parse_move(board, args["move"])
                return HubSearchResult(move, board.move_name(move), infos,
                                       args.get("ponder"))

    def quit(self) -> None:
        self.transport.send_line("quit")
