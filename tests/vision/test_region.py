"""A frame is blurred only over the region the samples read (`SquareSamples.roi`): every pixel
any stage reads must lie inside it, away from its edge, or a stage would read undefined pixels."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.store import Calibration
from sim.render import Frame, render
from sim.scene import sample_world
from vision.config import VisionConfig
from vision.pieces import classify
from vision.pipeline import BoardObserver
from vision.sampling import SquareSamples

from .scenes import SPEC, VARIANT, scene_and_board


def _located(seed: int, tilt: float) -> tuple[Frame, SquareSamples]:
    scene, board, rng = scene_and_board(seed, tilt=tilt, king_share=0.3)
    frame = render(sample_world(rng, board, SPEC), scene, VARIANT, seed=seed)
    observer = BoardObserver(VARIANT, calibration=Calibration(camera=frame.intrinsics),
                             corners_px=frame.corners_px)
    return frame, observer.locate(frame.image).samples


@pytest.mark.parametrize("tilt", [0.0, 30.0, 50.0])
def test_every_sample_lies_inside_the_blurred_region(tilt: float) -> None:
    frame, s = _located(3, tilt)
    w = frame.image.shape[1]
    x0, y0, x1, y1 = s.roi
    margin = VisionConfig().blur_px // 2 + 1
    flat = np.concatenate([a.ravel() for a in (s.base, s.ref, s.frame, s.probe, s.corner_dark,
                                               s.corner_light)])
    xy = np.vstack([np.column_stack([flat % w, flat // w]), s.kings.along_xy.reshape(-1, 2),
                    s.kings.across_xy.reshape(-1, 2)])
    assert (xy[:, 0] >= x0 + margin).all() and (xy[:, 0] < x1 - margin - 1).all()
    assert (xy[:, 1] >= y0 + margin).all() and (xy[:, 1] < y1 - margin - 1).all()
    # ... and it is a real saving, not the whole frame.
    assert (x1 - x0) * (y1 - y0) < 0.8 * frame.image.shape[0] * w


def test_region_blur_reads_as_a_whole_frame_blur() -> None:
    frame, s = _located(5, 40.0)
    cfg = VisionConfig()
    h, w = frame.image.shape[:2]
    region = classify(frame.image, s, cfg)
    whole = classify(frame.image, replace(s, roi=(0, 0, w, h)), cfg)
    assert np.array_equal(region.labels, whole.labels)
    assert np.allclose(region.confidence, whole.confidence)
