"""The game loop's camera stream on the rendered table: it knows where the squares are.

`damas play` and `damas demo` read the camera through `GameLoop`'s own `ObservationStream`.
Given the board observer (`locator`), that stream watches the squares as `damas replay`'s
does: a hand held still over the board's edge, which the pipeline alone may take for a glare
veil over bare squares, hides the squares under it instead of showing their pieces lifted.
The simulated world is the ground truth: no piece leaves the board in these frames.  (And the
simulated person does not keep the view from ever being still.)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.commands.table import _calibrated_observer, _oriented
from app.game_loop import GameLoop
from app.simtable import SimOptions, SimulatedTable
from game.board import BLACK, WHITE, BaseBoard, Board, Piece
from game.observation import OCCLUDED
from game.referee import Referee
from robot.config import RobotConfig

# The table of `damas demo --seed 1`'s first game: a wood board whose light squares are
# nearly the person's skin colour.
SEED = 1000


def _table() -> tuple[Board, SimulatedTable, Any]:
    board = Board()
    sim = SimulatedTable(board, RobotConfig().for_grid(8), WHITE, SEED, SimOptions(fps=5.0))
    return board, sim, _calibrated_observer(sim, board, lambda text: None)


def _frames(sim: SimulatedTable) -> list[tuple[Any, int, float]]:
    out = []
    while sim._next < len(sim.table.frames):
        out.append(sim.read())
    return out


def test_a_hand_held_still_over_the_edge_squares_hides_them() -> None:
    board, sim, observer = _table()
    # (Kings told as the game knows them, as `damas demo` reads: this scene's men at the
    # board's near corner look tall.)
    observe = _oriented(observer.observe, lambda: board)
    loop = GameLoop(board, sim.read, observe, robot=BLACK, locator=observer)
    # The person's hand rests over g1, reaching in from White's edge, and stays a second.
    x_mm, y_mm = sim.table.centre_of(board.parse_square("g1"))
    sim.hand.travel(x_mm, y_mm - 55.0)
    sim.table.wait(1.2)
    sim.hand.leave()
    sim.table.wait(1.0)
    truth = sim.truth()
    held = 0
    for image, frame, time_s in _frames(sim):
        obs, _ = loop.stream.push(image, frame, time_s)
        lifted = [board.square_name(sq) for sq in truth.piece_map() if obs.squares[sq] is None]
        assert not lifted, f"frame {frame}: pieces read as lifted under the hand: {lifted}"
        if sim.table.frames[frame].hand is not None:
            held += 1
            assert obs.hand
    assert held >= 6
    # Gone again, the board reads as it stands.
    assert obs.squares == tuple(truth.piece_at(sq) for sq in truth.squares)


def test_a_man_once_read_as_a_king_is_not_kept_a_king_while_a_hand_moves() -> None:
    """The still view's reading is kept for squares whose picture has not changed, so that a
    hand elsewhere cannot make a piece vanish; but a man the still view misread as a king
    takes the present reading (which the game loop's reader tells as the game knows it)."""
    board, sim, observer = _table()
    h2 = board.parse_square("h2")
    misread = {"on": True}

    def observe(image: Any) -> Any:
        reading = observer.observe(image)
        if not misread["on"]:
            return reading
        wrong = BaseBoard.from_placement(reading.board.piece_map(), board.variant)
        wrong.set_piece_at(h2, Piece.WHITE_KING)
        return replace(reading, board=wrong)

    loop = GameLoop(board, sim.read, observe, robot=BLACK, locator=observer)
    sim.table.wait(1.0)
    stable = False
    for image, frame, time_s in _frames(sim):
        obs, stable = loop.stream.push(image, frame, time_s)
    assert stable and obs.squares[h2] is Piece.WHITE_KING  # the still view, misread
    misread["on"] = False
    x_mm, y_mm = sim.table.centre_of(board.parse_square("b2"))
    sim.hand.travel(x_mm, y_mm - 30.0)
    sim.hand.leave()
    seen = [loop.stream.push(image, frame, time_s)[0].squares[h2]
            for image, frame, time_s in _frames(sim)]
    assert seen and all(v in (Piece.WHITE_MAN, OCCLUDED) for v in seen), seen
    assert Piece.WHITE_MAN in seen


def test_a_person_told_to_put_back_what_already_stands_keeps_the_hand_away() -> None:
    """Asked again to put back squares that already hold what they should (the camera has
    not yet seen the board still), the simulated person waits: a hand brought in and taken
    away each time kept the view from ever being still, and the game stopped."""
    board = Board()
    sim = SimulatedTable(board, RobotConfig().for_grid(8), WHITE, SEED,
                         SimOptions(fps=5.0, render=False))
    referee = Referee(board)
    c3, d4 = board.parse_square("c3"), board.parse_square("d4")
    referee.restore = {c3: Piece.WHITE_MAN, d4: None}  # as the table already stands
    before = len(sim.table.frames)
    sim.human.act(referee)
    frames = sim.table.frames[before:]
    assert frames and all(state.hand is None for state in frames)
    assert sim.truth().piece_at(c3) is Piece.WHITE_MAN and sim.truth().piece_at(d4) is None


def test_something_left_lying_on_the_board_does_not_stop_the_game() -> None:
    """A square whose surroundings changed since the last still view is taken as under a
    hand held still; something left lying there (a scoresheet over d4) is not a hand, and
    once nothing has moved for `foreign_timeout_s` the board is read again, d4 unknown.
    (Before, the view was never still again, and the game stopped after 600 s.)"""
    import cv2

    board, sim, observer = _table()
    loop = GameLoop(board, sim.read, observer.observe, robot=BLACK, locator=observer)
    sim.table.wait(1.0)
    for image, frame, time_s in _frames(sim):
        obs, stable = loop.stream.push(image, frame, time_s)
    assert stable
    d4 = board.parse_square("d4")
    ring = loop.stream.ring_points_px[d4]
    (x0, y0), (x1, y1) = ring.min(axis=0).astype(int), ring.max(axis=0).astype(int)
    sim.table.wait(6.0)
    read_at = None
    frames = _frames(sim)
    start_s = frames[0][2]  # the sheet appears
    for image, frame, time_s in frames:
        image = image.copy()
        cv2.rectangle(image, (x0, y0), (x1, y1), (200, 200, 210), -1)
        obs, stable = loop.stream.push(image, frame, time_s)
        if stable:
            read_at = time_s
            break
    assert read_at is not None, "the board was never read again"
    limit_s = loop.stream.config.foreign_timeout_s + loop.stream.config.still_s + 0.6
    assert read_at - start_s <= limit_s
    assert d4 in obs.occluded
