"""Property tests (hypothesis): random legal play keeps the position valid, push/pop restores
it exactly, and the bulk move count agrees with the generated moves."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from game.board import Board
from game.errors import InvalidPositionError
from game.variants import VARIANTS


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), data=st.data())
def test_random_play_stays_legal_and_pop_restores(variant: str, data: st.DataObject) -> None:
    board = Board(variant=variant)
    snapshots = []
    for _ in range(data.draw(st.integers(min_value=1, max_value=80), label="plies")):
        legal = board.legal_moves
        if not legal or board.outcome() is not None:
            break
        assert len(legal) == board.gen.count(board.white, board.black, board.kings,
                                             board.turn.value == "white")
        snapshots.append((board.fen(), board.quiet_plies, board.ending_plies, board.ending))
        move = data.draw(st.sampled_from(legal))
        board.push(move)
        # the placement is a valid game position
        assert not (board.white & board.black)
        assert (board.white | board.black | board.kings) & ~board.geometry.board_mask == 0
        assert board.kings & ~(board.white | board.black) == 0
        try:
            board.validate()
        except InvalidPositionError as e:  # pragma: no cover - reported by hypothesis
            raise AssertionError(f"{board.fen()} after {board.move_name(move, [])}: {e}") from e
        # captured pieces are gone, the mover stands on its destination
        for sq in move.captured:
            assert board.piece_at(sq) is None
        assert board.piece_at(move.to_square) is not None
    while snapshots:
        board.pop()
        assert (board.fen(), board.quiet_plies, board.ending_plies, board.ending) == \
            snapshots.pop()
    assert board.fen() == Board(variant=variant).fen()


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_move_names_parse_back_to_the_same_move(data: st.DataObject) -> None:
    board = Board(variant=data.draw(st.sampled_from(sorted(VARIANTS))))
    for _ in range(data.draw(st.integers(min_value=0, max_value=60))):
        legal = board.legal_moves
        if not legal:
            break
        for move in legal:
            assert board.parse_move(board.move_name(move, legal)) == move
        board.push(data.draw(st.sampled_from(legal)))
