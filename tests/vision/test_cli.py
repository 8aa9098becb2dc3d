import json
import random

import cv2
import numpy as np
import pytest

from app.cli import main
from game.variants import find_variant
from sim.render import render
from sim.scene import sample_position, sample_scene, sample_world
from sim.world import TableSpec


def _frame(tmp_path, seed=7, variant_name="brazilian"):
    rng = random.Random(seed)
    variant = find_variant(variant_name)
    spec = TableSpec(grid=variant.width)
    scene = sample_scene(rng, spec, tilt_max_deg=20, hand_probability=0, glare_probability=0,
                         hard_shadow_probability=0)
    board = sample_position(rng, variant, king_share=0.0)
    frame = render(sample_world(rng, board, spec), scene, variant, seed=seed)
    path = tmp_path / "board.jpg"
    cv2.imwrite(str(path), frame.image)
    return frame, path


def _corners(c):
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in c)


def test_detect_json_with_corners(tmp_path, capsys):
    frame, path = _frame(tmp_path)
    out_png = tmp_path / "ann.png"
    code = main(["detect", str(path), "--corners", _corners(frame.corners_px), "--json",
                 "--annotate", str(out_png)])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["grid"] == 8 and len(data["squares"]) == 32 and len(data["corners"]) == 4
    for name, cell in data["squares"].items():
        sq = frame.placement.geometry.parse_algebraic(name)
        truth = frame.placement.piece_at(sq)
        assert cell["piece"].split("_")[0] in ("empty", "white", "black", "occluded")
        if truth is None:
            assert cell["piece"] == "empty"
        else:
            assert cell["piece"].startswith(truth.color.value)
    assert data["fen"].startswith("W:W") and cv2.imread(str(out_png)) is not None


def test_unreadable_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "x.jpg"
    bad.write_text("not an image")
    assert main(["detect", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "x.jpg" in err[0]


def test_board_partly_out_of_view_exits_2(tmp_path, capsys):
    frame, path = _frame(tmp_path)
    corners = np.array(frame.corners_px)
    corners[1, 0] += 5000
    assert main(["detect", str(path), "--corners", _corners(corners)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "out of view" in err[0]


def test_no_board_exits_2(tmp_path, capsys):
    path = tmp_path / "blank.png"
    cv2.imwrite(str(path), np.full((480, 640, 3), 128, np.uint8))
    assert main(["detect", str(path)]) == 2
    assert "no board" in capsys.readouterr().err


def test_an_image_too_small_for_a_board_exits_2(tmp_path, capsys):
    """A rendered board shrunk to 40x23 px: too small to hold 8x8 squares to find (the
    search's thresholding once failed on it with a traceback)."""
    frame, _ = _frame(tmp_path)
    path = tmp_path / "tiny.png"
    cv2.imwrite(str(path), cv2.resize(frame.image, (40, 23), interpolation=cv2.INTER_AREA))
    assert main(["detect", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "too small" in err[0]


def test_a_folder_is_no_image(tmp_path, capsys):
    assert main(["detect", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an image file" in err[0]


def test_corners_that_outline_no_board_exit_2(tmp_path, capsys):
    """A corner given four times, and h1 swapped with h8 (the sides cross): one line naming
    the order, not numpy's complaint from deep in the sampling."""
    frame, path = _frame(tmp_path)
    c = np.array(frame.corners_px)
    for bad in (np.repeat(c[:1], 4, axis=0), c[[0, 2, 1, 3]]):
        assert main(["detect", str(path), "--corners", _corners(bad)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "a1, h1, h8, a8" in err[0], err


def test_an_annotation_file_name_that_is_no_image_exits_2(tmp_path, capsys):
    frame, path = _frame(tmp_path)
    out = tmp_path / "board.txt"
    assert main(["detect", str(path), "--corners", _corners(frame.corners_px),
                 "--annotate", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ".png" in err[0] and not out.exists()


def test_10x10_board_without_variant_is_read_as_10x10(tmp_path, capsys):
    frame, path = _frame(tmp_path, seed=3, variant_name="international")
    assert main(["detect", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["grid"] == 10 and len(data["squares"]) == 50
    assert "10x10" in captured.err and "international" in captured.err
    truth = {frame.placement.geometry.algebraic(sq): frame.placement.piece_at(sq)
             for sq in frame.placement.squares}
    wrong = [name for name, cell in data["squares"].items()
             if (cell["piece"] == "empty") != (truth[name] is None)]
    assert len(wrong) <= 2, wrong


def test_10x10_board_with_8x8_variant_names_the_right_one(tmp_path, capsys):
    _, path = _frame(tmp_path, seed=3, variant_name="international")
    assert main(["detect", str(path), "--variant", "brazilian"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--variant international" in err[0]


def test_calibration_for_another_grid_is_refused(tmp_path, capsys):
    frame, path = _frame(tmp_path)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", "board", str(path), "--corners", _corners(frame.corners_px),
                 "--output", str(cal)]) == 0
    capsys.readouterr()
    assert main(["detect", str(path), "--calibration", str(cal),
                 "--variant", "international"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "8x8" in err[0] and "10x10" in err[0]
    # Without --variant the calibration's grid decides.
    assert main(["detect", str(path), "--calibration", str(cal), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["grid"] == 8


def test_a_calibration_of_another_image_shape_is_refused(tmp_path, capsys):
    """Board and camera calibrated on a 1280x720 frame, then a 640x480 image: scaling 16:9
    onto 4:3 would place every square wrong, silently.  One line, exit 2."""
    frame, path = _frame(tmp_path)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", "board", str(path), "--corners", _corners(frame.corners_px),
                 "--output", str(cal)]) == 0
    capsys.readouterr()
    other = tmp_path / "four_three.png"
    cv2.imwrite(str(other), cv2.resize(cv2.imread(str(path)), (640, 480)))
    assert main(["detect", str(other), "--calibration", str(cal)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "1280x720" in err[0] and "640x480" in err[0]
    # The same shape at another size is the same view, scaled: read.
    half = tmp_path / "half.png"
    cv2.imwrite(str(half), cv2.resize(cv2.imread(str(path)), (640, 360)))
    assert main(["detect", str(half), "--calibration", str(cal)]) == 0


def test_annotating_over_the_photo_itself_is_refused(tmp_path, capsys):
    frame, path = _frame(tmp_path)
    before = path.read_bytes()
    assert main(["detect", str(path), "--corners", _corners(frame.corners_px),
                 "--annotate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the photo itself" in err[0]
    assert path.read_bytes() == before  # the photo is untouched


@pytest.mark.parametrize("azimuth", (90.0, 180.0))
def test_calibrate_board_without_corners_saves_a1_at_whites_side(tmp_path, capsys, azimuth):
    """The start position seen from Black's side (or from beside the board), the board found
    without help: the corners were saved as the finder named them, a1 at the far side, and
    no colours were learned (the start position looked upside down)."""
    from game.board import BaseBoard
    from sim.scene import with_camera

    rng = random.Random(71)
    variant = find_variant("brazilian")
    spec = TableSpec()
    scene = with_camera(sample_scene(rng, spec, hand_probability=0.0, glare_probability=0.0,
                                     hard_shadow_probability=0.0),
                        tilt_deg=30.0, azimuth_deg=azimuth)
    frame = render(sample_world(rng, BaseBoard.starting(variant), spec), scene, variant, seed=71)
    path, out = tmp_path / "start.png", tmp_path / "cal.json"
    cv2.imwrite(str(path), frame.image)
    assert main(["calibrate", "board", str(path), "--output", str(out)]) == 0
    assert "piece colours learned" in capsys.readouterr().out
    saved = np.array(json.loads(out.read_text())["board"]["corners_px"])
    side = np.linalg.norm(frame.corners_px[0] - frame.corners_px[1]) / 8
    assert np.linalg.norm(saved - frame.corners_px, axis=1).max() < 0.25 * side


def test_detect_notes_a_greyscale_photo(tmp_path, capsys):
    # A photograph without colour: every grey is a shade of every other to the colour models,
    # so the reading comes with a note saying so (the same scene in colour has none).
    frame, path = _frame(tmp_path)
    corners = _corners(frame.corners_px)
    assert main(["detect", str(path), "--corners", corners]) == 0
    assert "no colour" not in capsys.readouterr().err
    grey = tmp_path / "grey.jpg"
    cv2.imwrite(str(grey), cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
    assert main(["detect", str(grey), "--corners", corners]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("note: the image has no colour")


@pytest.mark.parametrize("flags", [["--disc-height-mm", "10"], []])
def test_calibrate_board_keeps_the_pieces_size_that_detect_then_reads_kings_with(tmp_path,
                                                                                capsys, flags):
    """A set of 10 mm discs on a camera calibrated for its lens: `calibrate board` on the
    start position saves the size, given (`--disc-height-mm 10`) or measured from the men
    there, and learns the colours (the men read as men at that height); `detect
    --calibration` then tells its kings from its men, which the default 7 mm does not
    (tests/vision/test_kings.py)."""
    from calibration.store import (
        Calibration,
        load_calibration,
        replace_section,
        save_calibration,
    )
    from game.board import BaseBoard
    from sim.scene import with_camera

    variant = find_variant("brazilian")
    spec = TableSpec(disc_height_mm=10.0)
    rng = random.Random(318)
    scene = with_camera(sample_scene(rng, spec, tilt_max_deg=45.0, hand_probability=0.0,
                                     glare_probability=0.0, hard_shadow_probability=0.0),
                        tilt_deg=46.0)
    start = render(sample_world(rng, BaseBoard.starting(variant), spec), scene, variant, seed=1)
    game = render(sample_world(rng, sample_position(rng, variant, king_share=0.3), spec,
                               max_offset_mm=2.0), scene, variant, seed=2)
    start_png, game_png, cal = tmp_path / "start.png", tmp_path / "game.png", tmp_path / "c.json"
    cv2.imwrite(str(start_png), start.image)
    cv2.imwrite(str(game_png), game.image)
    # (The lens as `damas calibrate camera` would have saved it.)
    save_calibration(replace_section(Calibration(), camera=start.intrinsics), cal)
    assert main(["calibrate", "board", str(start_png), "--corners", _corners(start.corners_px),
                 *flags, "--output", str(cal)]) == 0
    out = capsys.readouterr().out
    saved = load_calibration(cal)
    assert saved.camera == start.intrinsics and "piece colours learned" in out
    if flags:
        assert saved.board.disc_height_mm == 10.0
        assert "discs 30 x 10 mm on 40 mm squares" in out
    else:
        assert abs(saved.board.disc_height_mm - 10.0) <= 1.0, saved.board
        assert f"discs 30 x {saved.board.disc_height_mm:g} mm on 40 mm squares, their " \
               f"height measured from the start position" in out
    assert main(["detect", str(game_png), "--calibration", str(cal), "--json"]) == 0
    squares = json.loads(capsys.readouterr().out)["squares"]
    geo = game.placement.geometry
    kings = 0
    for sq, truth in game.placement.piece_map().items():
        got = squares[geo.algebraic(sq)]["piece"]
        assert got == truth.value, (geo.algebraic(sq), truth.value, got)
        kings += truth.is_king
    assert kings >= 2


@pytest.mark.parametrize("flags, words", [
    (["--disc-height-mm", "0"], "--disc-height-mm 0: a size in mm, above 0"),
    (["--square-mm", "-40"], "--square-mm -40"),
    (["--disc-diameter-mm", "45"], "inside its square"),
])
def test_calibrate_board_refuses_sizes_no_set_has_in_one_line(tmp_path, capsys, flags, words):
    frame, path = _frame(tmp_path)
    out = tmp_path / "cal.json"
    assert main(["calibrate", "board", str(path), "--corners", _corners(frame.corners_px),
                 "--output", str(out), *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert not out.exists()


def test_calibrate_board_says_when_the_discs_height_is_the_default(tmp_path, capsys):
    """Not the start position: nothing to measure the discs from; 7 mm saved, and said."""
    frame, path = _frame(tmp_path)
    out = tmp_path / "cal.json"
    assert main(["calibrate", "board", str(path), "--corners", _corners(frame.corners_px),
                 "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "discs 30 x 7 mm on 40 mm squares; their height is the default, cannot " \
           "measure" in printed and "give --disc-height-mm" in printed
    assert json.loads(out.read_text())["board"]["disc_height_mm"] == 7.0
