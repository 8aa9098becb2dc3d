"""`damas replay` sources: a folder of frames in name order, or a video file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from app.commands.replay import frames_of


def _images(n: int) -> list[np.ndarray]:
    return [np.full((48, 64, 3), 20 * i, np.uint8) for i in range(n)]


def test_folder_frames_come_in_name_order(tmp_path: Path) -> None:
    for i, image in reversed(list(enumerate(_images(4)))):
        cv2.imwrite(str(tmp_path / f"frame_{i:03d}.png"), image)
    (tmp_path / "notes.txt").write_text("not a frame")
    frames, fps = frames_of(str(tmp_path))
    got = [(i, int(img[0, 0, 0])) for i, img in frames]
    assert got == [(0, 0), (1, 20), (2, 40), (3, 60)]
    assert fps == 15.0


def test_a_frame_cut_short_is_skipped_not_the_end(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A frame whose copy was interrupted is a dropped frame, said on stderr; the frames after
    it are still read (the replay used to stop there and lose the rest of the game)."""
    for i, image in enumerate(_images(4)):
        cv2.imwrite(str(tmp_path / f"frame_{i:03d}.png"), image)
    cut = tmp_path / "frame_001.png"
    cut.write_bytes(cut.read_bytes()[:40])
    frames, _ = frames_of(str(tmp_path))
    assert [(i, int(img[0, 0, 0])) for i, img in frames] == [(0, 0), (2, 40), (3, 60)]
    err = capsys.readouterr().err
    assert "frame 1 skipped" in err and "cut short" in err


def test_video_frames_and_rate(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 12.0, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for image in _images(5):
        writer.write(image)
    writer.release()
    frames, fps = frames_of(str(path))
    assert fps == pytest.approx(12.0)
    assert [i for i, _ in frames] == [0, 1, 2, 3, 4]


def test_missing_or_empty_source_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        frames_of(str(tmp_path / "nothing.mp4"))
    with pytest.raises(ValueError, match="no image files"):
        frames_of(str(tmp_path))


def test_a_file_with_no_frame_is_a_clear_error(tmp_path: Path) -> None:
    """A text file named like an image opens as an image sequence with nothing in it: the
    replay reported '0 move(s)' and exit 0 as if it had watched a game."""
    fake = tmp_path / "game.jpg"
    fake.write_text("not an image")
    frames, _ = frames_of(str(fake))
    with pytest.raises(ValueError, match="no frame could be read"):
        list(frames)


def test_ajeito_frames_from_a_sidecar_file_or_a_list(tmp_path: Path) -> None:
    from app.commands.replay import ajeito_frames

    sidecar = tmp_path / "ajeito.txt"
    sidecar.write_text("120\n455\n\n", encoding="utf-8")
    assert ajeito_frames(str(sidecar)) == {120, 455}
    assert ajeito_frames("7, 30") == {7, 30}
    assert ajeito_frames(None) == frozenset()
    with pytest.raises(ValueError, match="--ajeito"):
        ajeito_frames("frame twelve")


def test_a_calibration_of_another_shape_stops_the_replay(tmp_path: Path, capsys) -> None:
    """Frames at 640x480, the board calibrated on a 1280x720 one: scaled onto another shape,
    every square was placed wrong without a word; the replay stops with the reason."""
    from app.cli import main
    from tests.vision.test_cli import _corners, _frame

    frame, path = _frame(tmp_path)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", "board", str(path), "--corners", _corners(frame.corners_px),
                 "--output", str(cal)]) == 0
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"f{i}.png"), cv2.resize(frame.image, (640, 480)))
    capsys.readouterr()
    assert main(["replay", str(folder), "--calibration", str(cal)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "640x480" in err[0]


def test_an_undecodable_video_gets_one_line(tmp_path: Path) -> None:
    """Through the installed command: FFmpeg's own complaints ('moov atom not found') came
    above the one line that says what is wrong."""
    import os
    import subprocess
    import sys

    fake = tmp_path / "game.mp4"
    fake.write_text("not a video")
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_FFMPEG_LOGLEVEL"}
    res = subprocess.run([sys.executable, "-m", "app.cli", "replay", str(fake)],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        f"damas replay: error: {str(fake)!r}: not a video this OpenCV build can read"]
