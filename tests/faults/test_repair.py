"""`robot.repair`: the carries that put the physical board back to the game's position.

Positions are worked by hand on the default table (40 mm squares, a1's centre at (20, 20)); each
plan is then replayed on a model of the table (stacks carried one by one, never dropped onto
another) and must end in the expected placement."""

from __future__ import annotations

import math

from game.board import BaseBoard, Board, Color, Piece
from robot.config import RobotConfig
from robot.planner import AskCrown, Carry
from robot.repair import SeenStack, plan_repair, tray_from_sightings

CFG = RobotConfig().for_grid(8)
W, B = Color.WHITE, Color.BLACK


def centre(name: str) -> tuple[float, float]:
    f = "abcdefgh".index(name[0])
    r = int(name[1]) - 1
    return (f * 40.0 + 20.0, r * 40.0 + 20.0)


def placement(fen: str) -> BaseBoard:
    return Board(fen).placement()


def replay(seen: list[SeenStack], steps: tuple) -> dict[tuple[float, float], list[Color]]:
    """Carry stacks as the plan says; a carry must pick up a stack and drop on free ground
    (except a crown the person adds)."""
    table = {st.at: [st.color] * st.discs for st in seen}
    for step in steps:
        if isinstance(step, AskCrown):
            table[step.at].append(step.color)
            continue
        assert isinstance(step, Carry)
        src = next(p for p in table if math.dist(p, step.path[0]) < 1e-6)
        dst = step.path[-1]
        assert all(math.dist(p, dst) >= CFG.board.disc_diameter_mm for p in table if p != src), \
            f"{step.label} drops onto another disc"
        table[dst] = table.pop(src)
    return table


def on_squares(table: dict[tuple[float, float], list[Color]]) -> BaseBoard:
    out = BaseBoard.empty("brazilian")
    geo = out.geometry
    for (x, y), discs in table.items():
        f, r = int(x // 40), int(y // 40)
        if 0 <= f < 8 and 0 <= r < 8 and math.dist((x, y), (f * 40 + 20, r * 40 + 20)) < 1:
            sq = geo.square_at(f, r)
            assert sq is not None
            out.set_piece_at(sq, Piece.of(discs[0], king=len(discs) >= 2))
    return out


def test_piece_that_landed_off_its_square_is_carried_onto_it() -> None:
    """Missed steps: c3-d4 left the man 14 mm right of d4's centre (140, 140)."""
    expected = placement("B:Wd4:Bh8")
    seen = [SeenStack(154.0, 140.0, W), SeenStack(*centre("h8"), B)]
    rep = plan_repair(expected, seen, CFG)
    assert rep.complete and rep.plan is not None
    (carry,) = rep.plan.carries
    assert carry.path[0] == (154.0, 140.0) and carry.path[-1] == (140.0, 140.0)
    assert on_squares(replay(seen, rep.plan.steps)).placement_equals(expected)


def test_nothing_to_do_when_the_board_is_right() -> None:
    expected = placement("B:Wd4:Bh8")
    seen = [SeenStack(141.5, 138.0, W), SeenStack(*centre("h8"), B)]  # within 5 mm: on d4
    rep = plan_repair(expected, seen, CFG)
    assert rep.plan is None and rep.complete


def test_half_done_capture_removal_is_finished_into_a_free_slot() -> None:
    """c3xe5 was played, but the alarm struck before d4 was carried to the tray; slot 1 of
    the tray already holds a piece."""
    expected = placement("B:We5:Bh8")
    slot0 = CFG.tray.capture_slots[0]
    seen = [SeenStack(*centre("e5"), W), SeenStack(*centre("d4"), B),
            SeenStack(*centre("h8"), B), SeenStack(*slot0, B)]
    rep = plan_repair(expected, seen, CFG, tray_from_sightings(CFG, seen))
    assert rep.complete and rep.plan is not None
    (carry,) = rep.plan.carries
    assert carry.path[0] == centre("d4")
    assert carry.path[-1] in CFG.tray.capture_slots and carry.path[-1] != slot0
    assert on_squares(replay(seen, rep.plan.steps)).placement_equals(expected)


def test_piece_dropped_between_squares_on_the_way() -> None:
    """The man for c3-d4-...: dropped at (121, 118), near the corner of c3/d4/c4/d3."""
    expected = placement("B:Wd4,a1:Bh8")
    seen = [SeenStack(121.0, 118.0, W), SeenStack(*centre("a1"), W), SeenStack(*centre("h8"), B)]
    rep = plan_repair(expected, seen, CFG)
    assert rep.complete and rep.plan is not None
    assert on_squares(replay(seen, rep.plan.steps)).placement_equals(expected)


def test_two_pieces_on_each_others_squares_swap_through_the_tray() -> None:
    expected = placement("W:Wd4:Be5")
    seen = [SeenStack(*centre("e5"), W), SeenStack(*centre("d4"), B)]
    rep = plan_repair(expected, seen, CFG)
    assert rep.complete and rep.plan is not None
    assert len(rep.plan.carries) == 3  # one parked in the tray, the other across, then back
    assert on_squares(replay(seen, rep.plan.steps)).placement_equals(expected)


def test_promotion_cut_short_brings_the_man_and_asks_for_the_crown() -> None:
    expected = placement("B:WKf8:Bh8")  # white promoted on f8; the man stopped on e7 + 6 mm
    seen = [SeenStack(186.0, 260.0, W), SeenStack(*centre("h8"), B)]
    rep = plan_repair(expected, seen, CFG)
    assert rep.complete and rep.plan is not None
    kinds = [type(s).__name__ for s in rep.plan.steps]
    assert kinds == ["Carry", "AskCrown"]
    assert rep.plan.steps[1].square == "f8"
    assert on_squares(replay(seen, rep.plan.steps)).placement_equals(expected)


def test_a_piece_nowhere_on_the_table_is_asked_of_the_person() -> None:
    expected = placement("B:Wd4,a1:Bh8")
    seen = [SeenStack(*centre("a1"), W), SeenStack(*centre("h8"), B)]
    rep = plan_repair(expected, seen, CFG)
    assert rep.plan is None
    assert [(f.square, f.want) for f in rep.person] == [(expected.parse_square("d4"),
                                                         Piece.WHITE_MAN)]


def test_the_persons_captured_pieces_are_left_alone() -> None:
    """Discs in front of the person (y < -20 mm, off the robot's surface) are not strays."""
    expected = placement("B:Wd4:Bh8")
    seen = [SeenStack(*centre("d4"), W), SeenStack(*centre("h8"), B), SeenStack(20.0, -45.0, B)]
    rep = plan_repair(expected, seen, CFG)
    assert rep.plan is None and rep.complete
