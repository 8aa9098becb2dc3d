"""Camera sources: a folder of frames and a video file read back what was written, and a
missing camera is a clear `CameraUnavailable`."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.errors import CameraUnavailable
from vision.sources import FolderSource, OpenCvSource, open_source


def _frames(n: int) -> list[np.ndarray]:
    return [np.full((48, 64, 3), 40 * i, np.uint8) for i in range(n)]


def test_folder_source_in_name_order(tmp_path: Path) -> None:
    for i, img in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"f{2 - i:03d}.png"), img)  # names run backwards
    src = open_source(f"folder:{tmp_path}", fps=10.0)
    assert isinstance(src, FolderSource)
    got = [src.read() for _ in range(3)]
    assert [int(img[0, 0, 0]) for img, _, _ in got] == [80, 40, 0]
    assert [(n, t) for _, n, t in got] == [(0, 0.0), (1, 0.1), (2, 0.2)]
    with pytest.raises(CameraUnavailable, match="no more images"):
        src.read()


def test_video_file_through_opencv(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for img in _frames(4):
        writer.write(img)
    writer.release()
    src = OpenCvSource(str(path), timeout_s=0.2)
    levels = [int(src.read()[0].mean()) for _ in range(4)]
    assert levels == sorted(levels) and levels[-1] > levels[0]
    with pytest.raises(CameraUnavailable, match="gave no image"):
        src.read()
    src.close()


@pytest.mark.parametrize("spec,fragment", [
    ("opencv:/nonexistent/video0", "cannot be opened"),
    ("folder:/nonexistent", "no such folder"),
    ("webcam", "expected picamera2"),
])
def test_bad_sources_are_clear_errors(spec: str, fragment: str) -> None:
    with pytest.raises(CameraUnavailable, match=fragment):
        open_source(spec)


def test_picamera2_missing_off_a_pi() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraUnavailable, match="python3-picamera2"):
            open_source("picamera2")
    else:  # pragma: no cover - on a Pi
        pytest.skip("picamera2 is installed here")
