"""Camera sources: a folder of frames and a video file read back what was written, and a
missing camera is a clear `CameraUnavailable`."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.errors import CameraUnavailable, UnreadableImage
from vision.sources import FolderSource, OpenCvSource, has_colour, open_source, read_image


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


def _encoded(ext: str, image: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(ext, image)
    assert ok
    return buf.tobytes()


@pytest.mark.parametrize("ext", [".jpg", ".png"])
def test_read_image_refuses_a_file_cut_short(tmp_path: Path, ext: str) -> None:
    """The decoders fill a truncated file's missing rows with grey and only warn on stderr;
    the reader refuses it instead, whole or cut at any point."""
    noise = np.random.default_rng(1).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    data = _encoded(ext, noise)
    whole = tmp_path / f"whole{ext}"
    whole.write_bytes(data)
    assert read_image(whole).shape == (120, 160, 3)
    for cut in (len(data) // 10, len(data) // 2, len(data) - 3):
        f = tmp_path / f"cut{cut}{ext}"
        f.write_bytes(data[:cut])
        with pytest.raises(UnreadableImage, match="cut short"):
            read_image(f)


def test_read_image_accepts_data_after_the_jpeg_end(tmp_path: Path) -> None:
    """Phones append a video or metadata after a JPEG's end marker (motion photos)."""
    img = np.full((60, 80, 3), (10, 120, 200), np.uint8)
    f = tmp_path / "motion.jpg"
    f.write_bytes(_encoded(".jpg", img) + b"\x00\x00\x00\x18ftypmp42" + bytes(500))
    assert np.abs(read_image(f).astype(int) - img).max() < 8


def test_read_image_gives_three_8_bit_channels(tmp_path: Path) -> None:
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((30, 40), 77, np.uint8))
    deep = tmp_path / "deep.png"
    cv2.imwrite(str(deep), np.full((30, 40, 3), 77 * 257, np.uint16))
    for f in (grey, deep):
        img = read_image(f)
        assert img.shape == (30, 40, 3) and img.dtype == np.uint8
        assert int(img[5, 5, 0]) == 77


@pytest.mark.parametrize("content,words", [(None, "no such file"), (b"", "empty"),
                                           (b"hello", "not a decodable image")])
def test_read_image_says_why_it_cannot(tmp_path: Path, content: bytes | None,
                                       words: str) -> None:
    f = tmp_path / "x.jpg"
    if content is not None:
        f.write_bytes(content)
    with pytest.raises(UnreadableImage, match=words):
        read_image(f)
    with pytest.raises(UnreadableImage, match="folder"):
        read_image(tmp_path)


_PHOTOS = sorted(Path("/work/shared/photos").glob("*.jpg"))


@pytest.mark.skipif(not _PHOTOS, reason="the shared photographs are not available")
@pytest.mark.parametrize("path", _PHOTOS, ids=lambda p: p.name)
def test_real_photos_have_colour_and_their_greyscale_copies_none(path, tmp_path):
    # The black-and-white mat of one photo is nearly grey, yet the photo keeps its chroma.
    image = read_image(path)
    assert has_colour(image)
    grey = tmp_path / "grey.jpg"
    cv2.imwrite(str(grey), cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert not has_colour(read_image(grey))


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an EXIF block (APP1) holding only the Orientation tag (0x0112), as a
    phone writes it: the sensor's rows are stored as taken and the tag says how to turn them."""
    tiff = (b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1)
            + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0))
    app1 = b"Exif\x00\x00" + tiff
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


@pytest.mark.parametrize("orientation,stored_as", [
    (6, cv2.ROTATE_90_COUNTERCLOCKWISE),  # EXIF 6: turn 90 degrees clockwise to show
    (3, cv2.ROTATE_180),
    (8, cv2.ROTATE_90_CLOCKWISE),  # EXIF 8: turn 90 degrees anticlockwise to show
])
def test_read_image_turns_a_phone_photo_as_its_exif_orientation_says(
        tmp_path: Path, orientation: int, stored_as: int) -> None:
    """A phone held upright stores the sensor's landscape rows and an orientation tag; read
    unturned, the board's corners and a1 would be where nobody clicked them."""
    shown = np.zeros((60, 90, 3), np.uint8)
    shown[:20, :30] = (0, 0, 220)  # red top-left corner, as the photo is shown
    shown[40:, 60:] = (220, 0, 0)  # blue bottom-right corner
    f = tmp_path / "phone.jpg"
    f.write_bytes(_with_exif_orientation(_encoded(".jpg", cv2.rotate(shown, stored_as)),
                                         orientation))
    img = read_image(f)
    assert img.shape == shown.shape
    assert np.abs(img[5, 5].astype(int) - (0, 0, 220)).max() < 30
    assert np.abs(img[55, 85].astype(int) - (220, 0, 0)).max() < 30
