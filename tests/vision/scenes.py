"""Rendered scenes for the vision tests: the renderer's ground truth is the independent answer."""

from __future__ import annotations

import random
from dataclasses import replace

import cv2

from calibration.store import Calibration
from game.board import BaseBoard, Piece
from game.variants import find_variant
from sim.render import Frame, render
from sim.scene import Lighting, Scene, sample_hand, sample_position, sample_scene, sample_world
from sim.world import TableSpec
from vision.config import VisionConfig
from vision.observation import BoardObservation
from vision.pipeline import BoardObserver

VARIANT = find_variant("brazilian")
SPEC = TableSpec()


def scene_and_board(seed: int, *, king_share: float = 0.0, tilt: float | None = None,
                    glare: bool = False, hard_shadow: bool = False, hand: bool = False,
                    offset_mm: float = 2.0,
                    board_bgr: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None,
                    pieces_bgr: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None,
                    ) -> tuple[Scene, BaseBoard, random.Random]:
    rng = random.Random(seed)
    scene = sample_scene(rng, SPEC, tilt_max_deg=50 if tilt is None else tilt,
                         hand_probability=0.0, glare_probability=0.0,
                         hard_shadow_probability=0.0)
    if tilt is not None:
        scene = replace(scene, camera=replace(scene.camera, tilt_deg=tilt))
    light: Lighting = scene.light
    if glare:
        light = replace(light, glare=(rng.uniform(100, 220), rng.uniform(100, 220), 40.0, 0.8))
    if hard_shadow:
        light = replace(light, hard_shadow=((0.4, -0.1), (0.6, -0.1), (0.6, 1.1), (0.4, 1.1)),
                        hard_shadow_depth=0.5)
    scene = replace(scene, light=light)
    if board_bgr is not None:
        scene = replace(scene, board=replace(scene.board, dark_bgr=board_bgr[0],
                                             light_bgr=board_bgr[1]))
    if pieces_bgr is not None:
        scene = replace(scene, pieces=replace(scene.pieces, white_bgr=pieces_bgr[0],
                                              black_bgr=pieces_bgr[1]))
    if hand:
        scene = replace(scene, hand=sample_hand(rng, SPEC))
    board = sample_position(rng, VARIANT, king_share=king_share)
    return scene, board, rng


def observe(seed: int, offset_mm: float = 2.0, **kw: object) -> tuple[Frame, BoardObservation]:
    scene, board, rng = scene_and_board(seed, **kw)  # type: ignore[arg-type]
    world = sample_world(rng, board, SPEC, max_offset_mm=offset_mm)
    frame = render(world, scene, VARIANT, seed=seed)
    observer = BoardObserver(VARIANT, calibration=Calibration(camera=frame.intrinsics),
                             corners_px=frame.corners_px)
    return frame, observer.observe(frame.image)


def occupancy_and_colour_errors(frame: Frame, obs: BoardObservation) -> list[str]:
    """Squares whose emptiness or piece colour is wrong (kings and men not told apart)."""
    errors = []
    for sq in frame.placement.squares:
        if sq in frame.occluded or sq in frame.partly_occluded:
            continue
        truth = frame.placement.piece_at(sq)
        got = obs.board.piece_at(sq)
        if sq in obs.occluded or (truth is None) != (got is None) or (
                truth is not None and got is not None and truth.color != got.color):
            errors.append(f"{obs.board.square_name(sq)}:{truth}->{obs.label(sq)}")
    return errors


def evaluation_frame(seed: int, camouflaged: bool = False) -> tuple[Frame, object]:
    """(frame, variant) of scene `seed` of bench/vision_eval.py (`--camouflaged`), drawn the
    same way."""
    rng = random.Random(seed)
    variant = find_variant("international" if rng.random() < 0.1 else "brazilian")
    spec = TableSpec(grid=variant.width)
    scene = sample_scene(rng, spec, camouflaged=camouflaged)
    board = sample_position(rng, variant)
    return render(sample_world(rng, board, spec), scene, variant, seed=seed), variant


def pieces_read_in_grey(seed: int, cfg: VisionConfig | None = None,
                        ) -> tuple[BoardObservation, list[tuple[int, Piece, Piece]]]:
    """Evaluation scene `seed` as a monochrome camera takes it, read with its calibration (and
    `cfg`, or the default configuration): (the observation, (square, truth, read) of every
    piece neither covered nor read empty)."""
    frame, variant = evaluation_frame(seed)
    grey = cv2.cvtColor(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    obs = BoardObserver(variant, cfg=cfg, calibration=Calibration(camera=frame.intrinsics),
                        corners_px=frame.corners_px).observe(grey)
    read = [(sq, p, got) for sq in frame.placement.squares
            if (p := frame.placement.piece_at(sq)) is not None
            and sq not in frame.occluded and sq not in frame.partly_occluded
            and (got := obs.board.piece_at(sq)) is not None]
    return obs, read
