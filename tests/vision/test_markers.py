"""Finding the board by its ArUco markers (vision.markers): on rendered boards that carry them
(the renderer's corners are the answer) and on the hand-labelled photograph that does."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from game.board import BaseBoard
from game.variants import find_variant
from sim.render import Frame, render
from sim.scene import sample_scene, sample_world, with_camera
from sim.world import TableSpec
from tests.vision.test_locate import _error_squares
from vision.config import VisionConfig
from vision.locate import find_board
from vision.markers import find_board_by_markers
from vision.pipeline import BoardObserver

PHOTOS = Path("/work/shared/photos")
NAMES = {"w": "white_man", "b": "black_man", "W": "white_king", "B": "black_king"}


def _empty_board(seed: int, markers: bool, **camera: object) -> Frame:
    """An empty board on a frame wide enough (45 mm) for markers a camera at the table's
    distance reads; a camera on Black's side unless told otherwise."""
    rng = random.Random(seed)
    variant = find_variant("brazilian")
    spec = TableSpec(grid=8, border_mm=45.0)
    scene = sample_scene(rng, spec, hand_probability=0.0, glare_probability=0.0,
                         hard_shadow_probability=0.0)
    scene = replace(scene, board=replace(scene.board, markers=markers))
    scene = with_camera(scene, **({"tilt_deg": 30.0, "azimuth_deg": 180.0} | camera))
    world = sample_world(rng, BaseBoard.empty(variant), spec)
    return render(world, scene, variant, seed=seed)


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_an_empty_board_seen_from_blacks_side_is_named_by_its_markers(seed):
    """No piece says where White sits, and the grid alone is the same turned half round: the
    markers say which corner is a1."""
    frame = _empty_board(seed, markers=True)
    assert frame.fully_visible
    obs = BoardObserver("brazilian").observe(frame.image)
    assert _error_squares(np.array(obs.corners_px), frame, 8) < 0.05
    assert all(label == "empty" for label in obs.labels().values())


def test_without_markers_the_empty_board_is_found_up_to_a_half_turn():
    """The same board without markers: the grid is found, a1 at either dark corner (the
    search's choice, nothing to go by), so the markers are what named it above."""
    frame = _empty_board(21, markers=False)
    assert find_board_by_markers(frame.image, 8, VisionConfig()) is None
    found = find_board(frame.image, 8, VisionConfig()).corners_px
    turned = np.roll(frame.corners_px, 2, axis=0)
    side = np.linalg.norm(frame.corners_px[0] - frame.corners_px[1]) / 8
    assert min(np.max(np.linalg.norm(found - c, axis=1)) for c in (frame.corners_px, turned)) \
        < 0.05 * side


def _fhgr():
    path = PHOTOS / "labels.json"
    if not path.exists():
        return None
    return next((it for it in json.loads(path.read_text())["images"]
                 if it["file"].startswith("fhgr")), None)


@pytest.mark.skipif(_fhgr() is None, reason="the shared photographs are not available")
@pytest.mark.parametrize("quality", [None, 15], ids=["as taken", "jpeg 15"])
def test_the_photographed_board_with_markers_is_found_by_them(quality):
    """fhgr-board-v2.jpg carries four markers (ids 3, 2, 1, 0 beyond a1, h1, h8, a8): found by
    them, the corners within two pixels of the hand labels and a1 where the labels put it.
    Saved at JPEG quality 15 the search without markers took the board and its lettered frame
    for a 10x10 grid ("no 8x8 board found"); by the markers every square reads as labelled."""
    item = _fhgr()
    image = cv2.imread(str(PHOTOS / item["file"]))
    if quality is not None:
        image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1],
                             cv2.IMREAD_COLOR)
    found = find_board_by_markers(image, 8, VisionConfig())
    assert found is not None and found.oriented
    assert np.abs(found.corners_px - np.array(item["corners"])).max() < 2.5
    obs = BoardObserver("brazilian").observe(image)
    wrong = [name for name, got in obs.labels().items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert wrong == []


def test_the_printed_markers_stuck_beyond_the_corners_name_the_board(tmp_path, capsys):
    """`damas calibrate target --board-markers` prints the four markers; each, cut out and put
    beyond the corner its label names, on a board seen from Black's side that carries none,
    names the board right (the grid alone finds it half turned: the test above)."""
    from app.cli import main
    from vision.markers import ID_AT_CORNER, detect_markers

    sheet_path = tmp_path / "markers.png"
    assert main(["calibrate", "target", str(sheet_path), "--board-markers", "--marker-mm", "20",
                 "--dpi", "150"]) == 0
    assert "0 beyond a8" in capsys.readouterr().out
    sheet = cv2.imread(str(sheet_path))
    on_sheet = detect_markers(sheet)
    assert sorted(on_sheet) == [0, 1, 2, 3]
    # 20 mm at 150 dots per inch: 118 px a side (the detector's corners a pixel in).
    sides = [np.linalg.norm(q[1] - q[0]) for q in on_sheet.values()]
    assert min(sides) > 116 and max(sides) < 119
    frame = _empty_board(21, markers=False)
    image = frame.image.copy()
    plane = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], np.float64)
    to_image, _ = cv2.findHomography(plane, np.asarray(frame.corners_px, np.float64))
    for (cx, cy), marker_id in zip(plane, ID_AT_CORNER, strict=True):
        # Beyond the corner along the diagonal, 30 mm wide with its margin (the frame is 45).
        ox, oy = np.sign(cx - 4) * 0.6, np.sign(cy - 4) * 0.6
        r = 0.375
        quad = np.array([[cx + ox - r, cy + oy - r], [cx + ox + r, cy + oy - r],
                         [cx + ox + r, cy + oy + r], [cx + ox - r, cy + oy + r]])
        # (The sheet's marker, its white margin kept, mapped onto that quad of the board;
        # printed as seen from White's side: its top edge towards the 8th rank.)
        q = on_sheet[marker_id]
        margin = 0.25 * (q[1] - q[0])
        down = 0.25 * (q[3] - q[0])
        src = np.array([q[0] - margin - down, q[1] + margin - down, q[2] + margin + down,
                        q[3] - margin + down], np.float32)
        dst = cv2.perspectiveTransform(quad[[3, 2, 1, 0]][None], to_image)[0].astype(np.float32)
        warp = cv2.getPerspectiveTransform(src, dst)
        h, w = image.shape[:2]
        patch = cv2.warpPerspective(sheet, warp, (w, h), flags=cv2.INTER_AREA)
        cut = np.zeros(sheet.shape[:2], np.uint8)
        cv2.fillConvexPoly(cut, np.round(src).astype(np.int32), 255)
        mask = cv2.warpPerspective(cut, warp, (w, h))
        image[mask > 128] = patch[mask > 128]
    obs = BoardObserver("brazilian").observe(image)
    assert _error_squares(np.array(obs.corners_px), frame, 8) < 0.05
    assert all(label == "empty" for label in obs.labels().values())
