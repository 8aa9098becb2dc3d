"""PDN games (Portable Draughts Notation 3.0): read and write.

A `GameRecord` holds the tag pairs, the starting position and the plies as the scorer wrote
them (move text plus `{comments}`), so a recording may keep even an illegal move with a comment
saying so (a scorer writes what happened).  `GameRecord.replay()` checks the moves against the
rules and returns the final `Board`.  Errors give the line and column of the bad token.

After a move the rules cannot replay, or replay to another position (an irregularity the
opponent let stand), the record adds the position as it stood in a comment,
`{[%fen W:W...:B...]}`, the embedded-command form PGN readers already skip (`[%clk ...]`,
`[%eval ...]`).  `replay()` takes the board from it and goes on, so a game recorded with such
a move can still be read to its end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from game.board import Board, Move
from game.errors import GameError, PdnError
from game.variants import VARIANTS, Variant, find_variant

RESULTS = ("2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "0-0", "*")
_GAMETYPES = {v.gametype: v for v in VARIANTS.values() if v.gametype is not None}
_POSITION = re.compile(r"\[%fen\s+([^\]\s]+)\s*\]", re.IGNORECASE)


def position_comment(fen: str) -> str:
    """The comment after an irregular move that says how the board stood after it."""
    return f"[%fen {fen}]"


def position_in(comments: list[str]) -> str | None:
    """The FEN of the last position command in `comments`, if any."""
    found = [m[1] for c in comments for m in _POSITION.finditer(c)]
    return found[-1] if found else None


def board_after(board: Board, text: str, fen: str) -> tuple[Board, bool]:
    """The board after the move `text` that left the position `fen` as it stood, and whether
    a record needs a `position_comment` to say it: the rules cannot play the move, or play it
    to another position (an irregular move let stand).  A `fen` that cannot be read is taken
    as the rules' position (`GameError` when there is none)."""
    after = board.copy(stack=False)
    try:
        after.push_pdn(text)
    except GameError:
        return Board(fen, board.variant), True
    try:
        stood = Board(fen, board.variant)
    except GameError:
        return after, False
    same = after.placement_equals(stood) and after.turn is stood.turn
    return (after, False) if same else (stood, True)


@dataclass
class Ply:
    text: str  # the move as written, e.g. "c3-d4"
    comments: list[str] = field(default_factory=list)
    line: int = 0
    column: int = 0


@dataclass
class GameRecord:
    variant: Variant
    tags: dict[str, str] = field(default_factory=dict)
    plies: list[Ply] = field(default_factory=list)
    result: str = "*"
    pre_comments: list[str] = field(default_factory=list)  # comments before the first move

    @property
    def fen(self) -> str | None:
        return self.tags.get("FEN")

    def start_board(self) -> Board:
        return Board(self.fen, self.variant)

    def replay(self) -> tuple[Board, list[Move | None]]:
        """Play the plies from the start position; `PdnError` names the first illegal one.

        A ply that carries a position comment (an irregular move the opponent let stand) sets
        the board from the comment after it: the rules may not play the move at all (its entry
        in the moves is then None), or may play it to another position (a man of the mover's
        own taken off with the capture)."""
        board = self.start_board()
        moves: list[Move | None] = []
        for i, ply in enumerate(self.plies):
            where = f"line {ply.line}, column {ply.column}: move {i // 2 + 1} {ply.text!r}"
            fen = position_in(ply.comments)
            try:
                moves.append(board.push_pdn(ply.text))
            except GameError as e:
                if fen is None:
                    raise PdnError(f"{where}: {e}") from None
                moves.append(None)
            if fen is not None:
                try:
                    board = Board(fen, self.variant)
                except GameError as e:
                    raise PdnError(f"{where}: position comment: {e}") from None
        return board, moves

    def add_move(self, board: Board, move: Move, comment: str | None = None) -> None:
        """Append `move` (legal in `board`, before it is pushed), named as the variant writes it."""
        self.plies.append(Ply(board.move_name(move), [comment] if comment else []))


def new_record(variant: Variant | str = "brazilian", fen: str | None = None,
               **tags: str) -> GameRecord:
    v = find_variant(variant) if isinstance(variant, str) else variant
    rec = GameRecord(v)
    defaults = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "-", "White": "?",
                "Black": "?", "Result": "*"}
    rec.tags.update(defaults)
    rec.tags.update(tags)
    if v.gametype_tag:
        rec.tags["GameType"] = v.gametype_tag
    else:
        rec.tags["Variant"] = v.name
    if fen:
        rec.tags["FEN"] = fen
    return rec


# ---------------------------------------------------------------------------------- writing
def write_game(record: GameRecord, width: int = 79) -> str:
    tags = dict(record.tags)
    tags["Result"] = record.result
    lines = [f'[{k} "{_escape(v)}"]' for k, v in tags.items()]
    lines.append("")
    tokens: list[str] = [f"{{{_clean(c)}}}" for c in record.pre_comments]
    first_black = _first_mover_is_second(record)
    number = 1
    for i, ply in enumerate(record.plies):
        side = (i + (1 if first_black else 0)) % 2
        if side == 0:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        tokens.append(ply.text)
        tokens.extend(f"{{{_clean(c)}}}" for c in ply.comments)
        if side == 1:
            number += 1
    tokens.append(record.result)
    line = ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > width:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    lines.append(line)
    return "\n".join(lines) + "\n"


def _first_mover_is_second(record: GameRecord) -> bool:
    """True when the first ply is the second player's (e.g. a FEN with the other side to move)."""
    fen = record.fen
    first = record.variant.first
    if fen:
        side = fen.strip().strip('"')[:1].upper()
        return side in ("W", "B") and side != first
    return False


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _clean(comment: str) -> str:
    return comment.replace("{", "(").replace("}", ")")


# ---------------------------------------------------------------------------------- reading
class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line = 1
        self.col = 1

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def advance(self) -> str:
        ch = self.text[self.i]
        self.i += 1
        if ch == "\n":
            self.line += 1
            self.col = 1
        else:
            self.col += 1
        return ch

    def error(self, msg: str) -> PdnError:
        return PdnError(f"line {self.line}, column {self.col}: {msg}")


def read_games(text: str, variant: Variant | str = "brazilian") -> list[GameRecord]:
    """Every game in a PDN text.  `variant` is used when a game has no GameType tag."""
    default = find_variant(variant) if isinstance(variant, str) else variant
    sc = _Scanner(text)
    games: list[GameRecord] = []
    while True:
        _skip_space(sc)
        if not sc.peek():
            break
        games.append(_read_one(sc, default))
    return games


def read_game(text: str, variant: Variant | str = "brazilian") -> GameRecord:
    games = read_games(text, variant)
    if not games:
        raise PdnError("line 1, column 1: no game found")
    return games[0]


def _skip_space(sc: _Scanner) -> None:
    while sc.peek() and (sc.peek().isspace() or sc.peek() == "\ufeff"):
        sc.advance()
    if sc.peek() == "%":  # escape line
        while sc.peek() and sc.peek() != "\n":
            sc.advance()
        _skip_space(sc)


def _read_one(sc: _Scanner, default: Variant) -> GameRecord:
    tags: dict[str, str] = {}
    while True:
        _skip_space(sc)
        if sc.peek() != "[":
            break
        tag_line, tag_col = sc.line, sc.col
        sc.advance()
        name = ""
        while sc.peek() and (sc.peek().isalnum() or sc.peek() == "_"):
            name += sc.advance()
        if not name:
            raise sc.error("expected a tag name after '['")
        while sc.peek() in (" ", "\t"):
            sc.advance()
        if sc.peek() != '"':
            raise sc.error(f'tag {name}: expected a quoted value')
        sc.advance()
        value = ""
        while True:
            ch = sc.peek()
            if not ch or ch == "\n":
                raise PdnError(f"line {tag_line}, column {tag_col}: tag {name}: "
                               f"unterminated value")
            sc.advance()
            if ch == "\\" and sc.peek() in ('"', "\\"):
                value += sc.advance()
                continue
            if ch == '"':
                break
            value += ch
        while sc.peek() in (" ", "\t"):
            sc.advance()
        if sc.peek() != "]":
            raise sc.error(f"tag {name}: expected ']'")
        sc.advance()
        tags[name] = value
    variant = _variant_of(tags, default, sc)
    record = GameRecord(variant, tags)
    if "FEN" in tags:
        try:
            Board(tags["FEN"], variant)
        except GameError as e:
            raise PdnError(f"FEN tag: {e}") from None
    # move text
    while True:
        _skip_space(sc)
        ch = sc.peek()
        if not ch or ch == "[":
            break
        line, col = sc.line, sc.col
        if ch == "{":
            sc.advance()
            comment = ""
            while sc.peek() != "}":
                if not sc.peek():
                    raise PdnError(f"line {line}, column {col}: unterminated comment")
                comment += sc.advance()
            sc.advance()
            comment = " ".join(comment.split())
            if record.plies:
                record.plies[-1].comments.append(comment)
            else:
                record.pre_comments.append(comment)
            continue
        if ch == "(":
            _skip_variation(sc, line, col)
            continue
        token = ""
        while sc.peek() and not sc.peek().isspace() and sc.peek() not in "{}()[":
            token += sc.advance()
        if not token:  # a stray '}' or ')': nothing else would consume it
            raise PdnError(f"line {line}, column {col}: unexpected {ch!r} (no matching "
                           f"{'{' if ch == '}' else '('})")
        if token in RESULTS:
            record.result = token
            break
        if token.startswith("$"):
            continue  # a NAG
        body = token
        # strip a move number: "12." or "12..." possibly glued to the move ("12.c3-d4")
        j = 0
        while j < len(body) and body[j].isdigit():
            j += 1
        if j < len(body) and body[j] == "." and j > 0:
            while j < len(body) and body[j] == ".":
                j += 1
            body = body[j:]
            col += j
        if not body:
            continue
        body = body.rstrip("!?")
        if not _looks_like_move(body):
            raise PdnError(f"line {line}, column {col}: {token!r} is not a move, move number, "
                           f"comment or result")
        record.plies.append(Ply(body, [], line, col))
    if "Result" in tags and record.result == "*":
        record.result = tags["Result"]
    return record


def _skip_variation(sc: _Scanner, line: int, col: int) -> None:
    depth = 0
    while True:
        ch = sc.peek()
        if not ch:
            raise PdnError(f"line {line}, column {col}: unterminated variation '('")
        sc.advance()
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return
        elif ch == "{":
            while sc.peek() and sc.peek() != "}":
                sc.advance()
            if sc.peek():
                sc.advance()


def _looks_like_move(text: str) -> bool:
    seps = [c for c in text if c in "-x:X"]
    if not seps:
        return False
    parts = text.replace("x", "-").replace("X", "-").replace(":", "-").split("-")
    return len(parts) >= 2 and all(p and p.isalnum() for p in parts)


def _variant_of(tags: dict[str, str], default: Variant, sc: _Scanner) -> Variant:
    gt = tags.get("GameType")
    if gt:
        head = gt.split(",")[0].strip()
        if not head.isdigit() or int(head) not in _GAMETYPES:
            known = ", ".join(f"{k} ({v.name})" for k, v in sorted(_GAMETYPES.items()))
            raise PdnError(f"GameType {gt!r} is not supported; supported: {known}")
        return _GAMETYPES[int(head)]
    name = tags.get("Variant")
    if name:
        try:
            return find_variant(name)
        except GameError as e:
            raise PdnError(f"Variant tag: {e}") from None
    return default
