"""PDN FEN: `W:Wa1,c3,Kd4:Bb6,f8` (side to move, then each side's squares; `K` marks a king).

Squares may be algebraic names or numbers in either kind of variant, when unambiguous; numeric
ranges (`W:W31-50:B1-20`) are allowed.  Errors say which token, at which character, and why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.errors import FenError, InvalidPositionError, InvalidSquareError

if TYPE_CHECKING:
    from game.board import BaseBoard, Color


def parse_fen(fen: str, board: BaseBoard) -> None:
    """Fill `board` (and its `turn`, if it has one) from `fen`; raise `FenError` if malformed."""
    from game.board import BLACK, WHITE, Piece

    text = fen.strip().strip('"').strip()
    if text.startswith("[FEN"):
        text = text[4:].strip().strip("]").strip().strip('"')
    text = text.rstrip(".")
    if not text:
        raise FenError("empty FEN (expected e.g. 'W:W21,22,K5:B1,2')")
    fields = text.split(":")
    turn_field = fields[0].strip().upper()
    if turn_field not in ("W", "B"):
        raise FenError(f"FEN {fen!r}: the first field must be W or B (side to move), "
                       f"not {fields[0]!r}")
    board.white = board.black = board.kings = 0
    seen: set[str] = set()
    pos = len(fields[0]) + 1
    for field in fields[1:]:
        f = field.strip()
        if not f:
            pos += len(field) + 1
            continue
        color_letter = f[0].upper()
        if color_letter not in ("W", "B"):
            raise FenError(f"FEN {fen!r}: at character {pos + 1}, a piece list must start with "
                           f"W or B, not {f[0]!r}")
        if color_letter in seen:
            raise FenError(f"FEN {fen!r}: the {color_letter} piece list appears twice")
        seen.add(color_letter)
        color = WHITE if color_letter == "W" else BLACK
        for token in f[1:].split(","):
            tok = token.strip()
            if not tok:
                continue
            king = tok[0] in "Kk"
            body = tok[1:] if king else tok
            try:
                squares = _squares_of_token(body, board)
            except InvalidSquareError as e:
                raise FenError(f"FEN {fen!r}: bad square {tok!r} ({e})") from None
            for sq in squares:
                if board.piece_at(sq) is not None:
                    raise FenError(f"FEN {fen!r}: square {board.square_name(sq)} is listed twice")
                board.set_piece_at(sq, Piece.of(color, king))
        pos += len(field) + 1
    try:
        board.validate()
    except InvalidPositionError as e:
        raise FenError(f"FEN {fen!r}: {e}") from None
    if hasattr(board, "turn"):
        board.turn = WHITE if turn_field == "W" else BLACK


def _squares_of_token(body: str, board: BaseBoard) -> list[int]:
    if "-" in body:
        lo_s, _, hi_s = body.partition("-")
        if not (lo_s.strip().isdigit() and hi_s.strip().isdigit()):
            raise InvalidSquareError(f"range {body!r} must be two numbers like 1-12")
        lo, hi = int(lo_s), int(hi_s)
        if lo > hi:
            raise InvalidSquareError(f"range {body!r} runs backwards")
        return [board.parse_square(str(n)) for n in range(lo, hi + 1)]
    if not body:
        raise InvalidSquareError("empty square")
    return [board.parse_square(body)]


def board_to_fen(board: BaseBoard, turn: Color) -> str:
    """FEN of the placement with `turn` to move, squares in the variant's own notation."""
    from game.board import BLACK, WHITE

    parts = [turn.letter]
    for color, own in ((WHITE, board.white), (BLACK, board.black)):
        sqs = board.geometry.squares_of(own)
        items = []
        for sq in sorted(sqs, key=lambda s: _sort_key(board, s)):
            name = board.square_name(sq)
            items.append(("K" + name) if board.kings & board.geometry.mask_of[sq] else name)
        parts.append(color.letter + ",".join(items))
    return ":".join(parts)


def _sort_key(board: BaseBoard, sq: int) -> tuple[int, int]:
    if board.variant.is_algebraic:
        f, r = board.geometry.coords[sq]
        return (r, f)
    return (board.notation.numbers[sq], 0)
