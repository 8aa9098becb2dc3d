"""Teaching mode: what a child at a school demonstration is told, in Portuguese and English.

Before each of the person's moves the table says which moves are legal, and when a capture is
due, that it must be taken and how many pieces the majority rule requires (RULES.md s.1).  When
the referee refuses a move, the reason is said in plain words.
"""

from __future__ import annotations

from game.board import Board
from game.referee import EventType, RefereeEvent

# event type -> (Portuguese, English): the rule, said simply.
RULE_WORDS: dict[EventType, tuple[str, str]] = {
    EventType.TOUCH_MOVE: ("Peça tocada é peça jogada: tem de jogar a peça em que tocou.",
                           "Touch-move: you must play the piece you touched."),
    EventType.MANDATORY_CAPTURE: ("A captura é obrigatória: quando pode comer, tem de comer.",
                                  "Capturing is compulsory: when you can capture, you must."),
    EventType.MAJORITY: ("Lei da maioria: tem de comer o maior número de peças possível.",
                         "Majority rule: you must capture as many pieces as possible."),
    EventType.REMOVAL: ("Retire as peças comidas, e só essas, depois de acabar a jogada.",
                        "Take off the captured pieces, and only those, after the move."),
    EventType.ILLEGAL: ("Essa jogada não é permitida: a pedra anda uma casa em diagonal "
                        "para a frente; a dama anda na diagonal quantas casas quiser.",
                        "That move is not allowed: a man moves one square diagonally "
                        "forward; a king moves any distance along a diagonal."),
}


def hint(board: Board) -> tuple[str, list[int]]:
    """The hint before a move, and the squares to highlight (the pieces that can move)."""
    legal = board.legal_moves
    if not legal:
        return ("Não há jogadas. / No legal move.", [])
    names = ", ".join(board.move_name(m, legal) for m in legal)
    squares = sorted({m.from_square for m in legal})
    if legal[0].captured:
        n = len(legal[0].captured)
        return (f"Captura obrigatória ({n} peça{'s' if n > 1 else ''}): {names} / "
                f"You must capture ({n} piece{'s' if n > 1 else ''}): {names}", squares)
    return (f"Jogadas possíveis: {names} / Your legal moves: {names}", squares)


def explain(event: RefereeEvent) -> str:
    """Why the referee refused (or noted) a move, in plain words, both languages."""
    pt, en = RULE_WORDS.get(event.type, ("", ""))
    if not pt:
        return event.detail
    return f"{pt} / {en} ({event.detail})"
