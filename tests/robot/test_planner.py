"""Planner checks on hand-worked positions (distances computed here from the geometry, not
taken from the planner's output)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from game.board import Board
from robot.config import RobotConfig, config_from_dict
from robot.errors import PlanError
from robot.gcode import to_gcode
from robot.motion import block_time_s, estimate, program
from robot.planner import AskCrown, TrayState, plan_move
from robot.routing import segment_distance
from tests.robot.table import execute

S = 40.0  # default square
D = 30.0  # default disc


def centre(name: str) -> tuple[float, float]:
    f, r = "abcdefgh".index(name[0]), int(name[1:]) - 1
    return ((f + 0.5) * S, (r + 0.5) * S)


def path_distance(path, p) -> float:  # type: ignore[no-untyped-def]
    return min(segment_distance(p, a, b) for a, b in zip(path, path[1:], strict=False))


def test_quiet_move_is_one_straight_carry() -> None:
    board = Board()
    plan = plan_move(board, board.parse_move("c3-d4"), RobotConfig())
    (carry,) = plan.carries
    assert carry.path == (centre("c3"), centre("d4"))
    # Nearest other discs to the diagonal c3-d4 are d2 and e3... at 40*sqrt(2) from an end.
    assert plan.min_clearance_mm == pytest.approx(40 * math.sqrt(2) - D)
    assert plan.lower_bound_mm == pytest.approx(40 * math.sqrt(2))


def test_capture_routes_round_the_captured_piece() -> None:
    """c3xe5 with d4 still standing (it is removed only after the move): the straight jump
    would run through d4; the route must keep 30 + 2 mm from its centre."""
    board = Board("W:Wc3,g1:Bd4,a7")
    plan = plan_move(board, board.parse_move("c3xe5"), RobotConfig())
    move, removal = plan.carries
    assert move.purpose == "move" and move.path[0] == centre("c3")
    assert move.path[-1] == centre("e5")
    assert path_distance(move.path, centre("d4")) >= D + 2.0 - 1e-9
    assert removal.purpose == "capture" and removal.path[0] == centre("d4")


def test_nearest_free_slot_first() -> None:
    """d4's centre is (140, 140); default slots are at x = 360, y = 20 + 36 k: the nearest is
    y = 128 (slot 4), then y = 164 (slot 5)."""
    board = Board("W:Wc3:Bd4,a7")
    cfg = RobotConfig()
    plan = plan_move(board, board.parse_move("c3xe5"), cfg)
    assert plan.carries[-1].path[-1] == (360.0, 128.0)
    full_cfg = cfg.for_grid(8)
    tray = TrayState.initial(full_cfg)
    caps = list(tray.captures)
    caps[3] = 1
    plan = plan_move(board, board.parse_move("c3xe5"), cfg,
                     tray=dataclasses.replace(tray, captures=tuple(caps)))
    assert plan.carries[-1].path[-1] == (360.0, 164.0)
    assert plan.tray_after.captures[4] == 1


def test_full_tray_is_a_plan_error() -> None:
    board = Board("W:Wc3:Bd4,a7")
    cfg = RobotConfig().for_grid(8)
    tray = TrayState.initial(cfg)
    tray = dataclasses.replace(tray, captures=(1,) * len(tray.captures))
    with pytest.raises(PlanError, match="tray is full"):
        plan_move(board, board.parse_move("c3xe5"), cfg, tray=tray)


def test_removal_order_jump_versus_shortest() -> None:
    board = Board("W:Wc3,g7:Bd4,f6,d6")
    move = board.parse_move("c3xc7")  # jumps d4 then d6
    jump = plan_move(board, move, config_from_dict({"removal_order": "jump"}))
    assert [c.path[0] for c in jump.carries[1:]] == [centre("d4"), centre("d6")]
    short = plan_move(board, move, RobotConfig())
    # From c7 the gantry is nearer d6 than d4: shortest removes d6 first.
    assert [c.path[0] for c in short.carries[1:]] == [centre("d6"), centre("d4")]
    assert estimate(short).travel_mm <= estimate(jump).travel_mm


def test_blocked_route_moves_a_piece_aside_and_back() -> None:
    """a1xc3 over b2 in a crowded corner.  Hand check: from a1 the only free neighbours are
    the light squares a2 and b1, whose exits lead to a3 and c1 (occupied) or across corners
    flanked by b2 (28.3 mm from a corner point < 30 mm disc): no clear route, so a disc must
    step aside.  Afterwards b2 itself is boxed in by a3, c1, c3 and d2.  Executed on the
    emulator, every disc that stepped aside is back on its square."""
    board = Board("W:Wa1,c1,a3,e1,b4,d2:Bb2,e5")
    move = board.parse_move("a1xc3")
    plan = plan_move(board, move, RobotConfig())
    purposes = [c.purpose for c in plan.carries]
    assert "aside" in purposes and "back" in purposes
    asides = [c for c in plan.carries if c.purpose == "aside"]
    backs = [c for c in plan.carries if c.purpose == "back"]
    assert sorted(c.path[0] for c in asides) == sorted(c.path[-1] for c in backs)
    assert plan.min_clearance_mm >= 2.0 - 1e-9
    run = execute(board, move, RobotConfig())
    assert run.error is None and not run.emulator.motion.collisions
    assert run.world.placement(run.after).placement_equals(run.after)


def test_crowning_under_board_asks_the_person() -> None:
    board = Board("W:Wc7:Bh2")
    plan = plan_move(board, board.parse_move("c7-d8"), RobotConfig())
    assert isinstance(plan.steps[-1], AskCrown) and plan.steps[-1].square == "d8"
    assert any("crown d8" in line for line in to_gcode(plan.config, program(plan)))


def test_crowning_under_board_with_tray_king() -> None:
    board = Board("W:Wc7:Bh2")
    plan = plan_move(board, board.parse_move("c7-d8"), config_from_dict({"crown": "tray-king"}))
    purposes = [c.purpose for c in plan.carries]
    assert purposes == ["move", "unmake", "king"]
    assert plan.carries[-1].discs == 2 and plan.carries[-1].path[-1] == centre("d8")


def test_crowning_overhead_stacks_a_spare() -> None:
    cfg = config_from_dict({"carriage": "overhead-lift"})
    board = Board("W:Wc7:Bh2")
    plan = plan_move(board, board.parse_move("c7-d8"), cfg)
    crown = plan.carries[-1]
    assert crown.purpose == "crown" and crown.drop_onto == 1 and crown.discs == 1
    # Dropped onto a man: the magnet stops one disc height higher than for the bare board.
    lines = to_gcode(plan.config, program(plan))
    z_down = plan.config.lift.z_down_mm
    h = plan.config.board.disc_height_mm
    assert f"G1 Z{z_down + h:.3f} F3000" in lines


def test_overhead_king_is_picked_at_stack_height() -> None:
    cfg = config_from_dict({"carriage": "overhead-lift"})
    board = Board("W:WKc3:Bh8")
    plan = plan_move(board, board.parse_move("c3-e5"), cfg)
    assert plan.carries[0].discs == 2
    lines = to_gcode(plan.config, program(plan))
    z_down, h = plan.config.lift.z_down_mm, plan.config.board.disc_height_mm
    assert f"G1 Z{z_down + h:.3f} F3000" in lines  # touches the top of a two-disc stack


def test_plan_is_deterministic() -> None:
    board = Board("W:Wa1,c1,a3,e1,b4,d2:Bb2,e5")
    move = board.parse_move("a1xc3")
    a = to_gcode(RobotConfig().for_grid(8), program(plan_move(board, move, RobotConfig())))
    b = to_gcode(RobotConfig().for_grid(8), program(plan_move(board, move, RobotConfig())))
    assert a == b


def test_block_time_hand_worked() -> None:
    """100 mm along X at 6000 mm/min and 500 mm/s^2: 0.2 s + 0.2 s ramps, 80 mm at 100 mm/s."""
    t = block_time_s((100.0, 0.0, 0.0), 6000.0, (6000.0, 6000.0, 1000.0), (500.0, 500.0, 200.0))
    assert t == pytest.approx(1.2)
    t = block_time_s((10.0, 0.0, 0.0), 6000.0, (6000.0, 6000.0, 1000.0), (500.0, 500.0, 200.0))
    assert t == pytest.approx(2 * math.sqrt(10 / 500))
