"""Calibrating the simulated table's camera at the start of a game: the a1 corner is told by
the start position (a board turned half-way looks the same), and the colours learned from it.
Ground truth: the renderer's own corners and the world's placement."""

from __future__ import annotations

import numpy as np

from app.commands.table import learned_observer, oriented_corners
from app.simtable import SimOptions, SimulatedTable
from game.board import BLACK, Board
from robot.config import RobotConfig
from sim.render import render


def test_a_half_turned_corner_list_is_put_right_and_the_board_reads_right() -> None:
    board = Board()
    sim = SimulatedTable(board, RobotConfig().for_grid(8), BLACK, 2000, SimOptions())
    image, _, _ = sim.read()
    truth = render(sim.world, sim.scene, board.variant).corners_px
    turned = np.roll(np.asarray(truth), 2, axis=0)  # h8 given where a1 should be
    fixed = oriented_corners(image, turned, board)
    assert np.allclose(fixed, truth)
    reading = learned_observer(image, fixed, board).observe(image)
    assert reading.board.placement_equals(sim.truth())
