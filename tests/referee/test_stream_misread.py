"""The stillness gate with a square the classifier keeps misreading as occluded, on rendered
frames: the simulated world is the ground truth (a quiet move c3-d4, no hand in the picture).

A square read occluded on a still image is waited out once (`still_occluded_s`); when it was
read so at the last still view too and its picture has not changed, the next move is read as
soon as the board is still again, not `still_occluded_s` later.
"""

from __future__ import annotations

import random

from app.commands.replay import REPLAY_REFEREE, referee_stream
from calibration.store import Calibration
from game.board import BaseBoard, Board
from game.referee import EventType, Referee
from game.variants import find_variant
from sim.render import render
from sim.scene import sample_scene, sample_world
from sim.world import TableSpec
from vision.pipeline import BoardObserver

VARIANT = find_variant("brazilian")
FPS = 15.0


class _MisreadsOneSquare(BoardObserver):
    """The pipeline, but one square always reads occluded (as a lit piece once did)."""

    def __init__(self, square: int, **kw: object) -> None:
        super().__init__(VARIANT, **kw)  # type: ignore[arg-type]
        self.square = square

    def observe(self, image):  # type: ignore[no-untyped-def]
        from dataclasses import replace

        obs = super().observe(image)
        return replace(obs, occluded=obs.occluded | {self.square})


def test_a_square_misread_as_occluded_does_not_delay_every_move() -> None:
    seed = 5
    rng = random.Random(seed)
    spec = TableSpec()
    scene = sample_scene(rng, spec, tilt_max_deg=25, hand_probability=0, glare_probability=0,
                         hard_shadow_probability=0)
    start = BaseBoard.starting(VARIANT)
    world = sample_world(rng, start, spec, max_offset_mm=1.0)
    geo = start.geometry
    before = [render(world, scene, VARIANT, seed=seed * 100 + i).image for i in range(24)]
    f, r = geo.coords[geo.parse_algebraic("c3")]
    cx, cy = world.square_center_mm(f, r)
    f2, r2 = geo.coords[geo.parse_algebraic("d4")]
    tx, ty = world.square_center_mm(f2, r2)
    for disc in world.discs:
        if abs(disc.x_mm - cx) < 10 and abs(disc.y_mm - cy) < 10:
            disc.x_mm, disc.y_mm = tx + disc.x_mm - cx, ty + disc.y_mm - cy
    first = render(world, scene, VARIANT, seed=seed)
    after = [first.image] + [render(world, scene, VARIANT, seed=seed * 200 + i).image
                             for i in range(11)]
    observer = _MisreadsOneSquare(geo.parse_algebraic("h2"),
                                  calibration=Calibration(camera=first.intrinsics),
                                  corners_px=first.corners_px)
    referee = Referee(Board(None, VARIANT), REPLAY_REFEREE)
    events = referee_stream(iter(enumerate(before + after)), FPS, referee, VARIANT,
                            observer=observer)
    moves = [e for e in events if e.type is EventType.MOVE]
    assert [e.move for e in moves] == ["c3-d4"]
    # Read within about half a second of the change (0.2 s still + the motion memory), not
    # after `still_occluded_s` (1 s: beyond the end of these frames).
    assert moves[0].frame - len(before) <= 8
