"""Camera sources behind one small interface: `read()` gives the next BGR image.

- `PiCamera`: the Raspberry Pi camera through picamera2, imported only when opened (the
  library comes from the Pi's apt as python3-picamera2 and exists nowhere else);
- `OpenCvSource`: any `cv2.VideoCapture` device number, device path or video file;
- `FolderSource`: the images of a folder, sorted by name (a recorded session);
- the rendered camera of the simulated table lives in `sim/` and `app/simtable.py` (vision
  must not import sim), and offers the same `read()`.

`open_source("picamera2" | "opencv:0" | "opencv:/dev/video0" | "opencv:game.mp4" |
"folder:frames")` builds one from the configuration's `camera.source` string.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from vision.errors import CameraUnavailable, UnreadableImage

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def _cut_short(data: bytes) -> str | None:
    """Why an image file's bytes end before the image does (a copy interrupted, a camera still
    writing), or None.  The decoders fill the missing part with grey and say so only on
    stderr: a board read there would be guessed, not seen."""
    if data[:2] == b"\xff\xd8":  # JPEG: the scan must be followed by the end marker
        i = 2
        while i + 4 <= len(data) and data[i] == 0xFF:
            marker = data[i + 1]
            if marker == 0xDA:  # start of scan: entropy-coded data never holds FF D9
                return None if data.find(b"\xff\xd9", i) >= 0 else "a JPEG without its end"
            if marker == 0xFF:  # fill byte
                i += 1
                continue
            i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
        return "a JPEG cut short before its image data"
    if data[:8] == b"\x89PNG\r\n\x1a\n":  # PNG: chunks up to IEND
        i = 8
        while i + 8 <= len(data):
            size = int.from_bytes(data[i:i + 4], "big")
            if data[i + 4:i + 8] == b"IEND" and i + 12 + size <= len(data):
                return None
            i += 12 + size
        return "a PNG without its end"
    return None


def read_image(path: str | Path) -> np.ndarray:
    """The BGR image in an image file (grey and 16-bit files converted, EXIF rotation applied).

    Raises UnreadableImage, with the reason in words, for a missing file, a folder, an empty
    or truncated file, or bytes no decoder reads."""
    import cv2

    p = Path(path)
    if p.is_dir():
        raise UnreadableImage(f"cannot read image {str(path)!r}: it is a folder, not an image file")
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise UnreadableImage(f"cannot read image {str(path)!r}: no such file") from None
    except OSError as e:
        raise UnreadableImage(f"cannot read image {str(path)!r}: {e.strerror or e}") from None
    if not data:
        raise UnreadableImage(f"cannot read image {str(path)!r}: the file is empty")
    short = _cut_short(data)
    if short:
        raise UnreadableImage(f"cannot read image {str(path)!r}: the file is cut short ({short}); "
                              f"copy it again")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise UnreadableImage(f"cannot read image {str(path)!r}: not a decodable image")
    return image


# A greyscale picture decodes to three equal channels; a colour one, even of a grey scene,
# keeps some chroma (sensor noise, demosaicing, the light's tint) in more than a few pixels.
_GREY_SPREAD = 2  # channel spread (0..255) a grey pixel stays within
_GREY_SHARE = 0.999  # of the pixels


def has_colour(image_bgr: np.ndarray) -> bool:
    """Does the image carry colour at all?  A greyscale photograph does not: the colour
    models (vision.pieces: a shade of a colour is that colour) then see every grey as a shade
    of every other, and tell the sets and the bare squares apart unreliably."""
    img = np.asarray(image_bgr)
    if img.ndim < 3 or img.shape[2] < 3:
        return False
    step = max(1, int(np.sqrt(img.shape[0] * img.shape[1] / 250_000)))
    px = img[::step, ::step, :3].astype(np.int16)
    spread = px.max(axis=2) - px.min(axis=2)
    return float(np.mean(spread <= _GREY_SPREAD)) < _GREY_SHARE


class FrameSource(Protocol):
    def read(self) -> tuple[np.ndarray, int, float]:
        """(BGR image, frame number, time in seconds since the source opened)."""

    def close(self) -> None: ...


class _Counter:
    def __init__(self) -> None:
        self.frame = 0
        self.t0 = time.monotonic()

    def next(self) -> tuple[int, float]:
        n = self.frame
        self.frame += 1
        return n, time.monotonic() - self.t0


class OpenCvSource:
    """A `cv2.VideoCapture`: a device number, a device path, a video file or a stream URL."""

    def __init__(self, spec: str | int, size_px: tuple[int, int] | None = None,
                 timeout_s: float = 3.0) -> None:
        import cv2

        self.spec = spec
        self.cap = cv2.VideoCapture(int(spec) if isinstance(spec, str) and spec.isdigit()
                                    else spec)
        if not self.cap.isOpened():
            raise CameraUnavailable(f"camera {spec!r} cannot be opened (check the cable and the "
                              f"device: v4l2-ctl --list-devices)")
        if size_px is not None:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, size_px[0])
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size_px[1])
        self.timeout_s = timeout_s
        self._count = _Counter()

    def read(self) -> tuple[np.ndarray, int, float]:
        deadline = time.monotonic() + self.timeout_s
        while True:
            ok, image = self.cap.read()
            if ok and image is not None:
                n, t = self._count.next()
                return image, n, t
            if time.monotonic() > deadline:
                raise CameraUnavailable(
                    f"camera {self.spec!r} gave no image for {self.timeout_s:g} s "
                    f"(unplugged, or the end of the video)")
            time.sleep(0.01)

    def close(self) -> None:
        self.cap.release()


class FolderSource:
    """The images of a folder in name order, at a nominal frame rate."""

    def __init__(self, folder: str | Path, fps: float = 15.0) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraUnavailable(f"{self.folder}: no such folder")
        self.files = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraUnavailable(f"{self.folder}: no image files ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = fps
        self.index = 0

    def read(self) -> tuple[np.ndarray, int, float]:
        if self.index >= len(self.files):
            raise CameraUnavailable(f"{self.folder}: no more images after {len(self.files)}")
        path = self.files[self.index]
        try:
            image = read_image(path)
        except UnreadableImage as e:
            raise CameraUnavailable(str(e)) from None
        n = self.index
        self.index += 1
        return image, n, n / self.fps

    def close(self) -> None:
        pass


class PiCamera:
    """The Raspberry Pi camera (Camera Module 3...) through picamera2, in BGR."""

    def __init__(self, size_px: tuple[int, int] = (1280, 960),
                 lens_position_dioptres: float | None = None) -> None:
        try:
            from picamera2 import Picamera2  # only on a Pi: python3-picamera2 from apt
        except ImportError as e:
            raise CameraUnavailable("picamera2 is not installed: on a Raspberry Pi run `sudo apt "
                              "install python3-picamera2` and create the virtualenv with "
                              "--system-site-packages") from e
        self.cam: Any = Picamera2()
        config = self.cam.create_video_configuration(
            main={"size": tuple(size_px), "format": "RGB888"})  # RGB888 is BGR in memory
        self.cam.configure(config)
        if lens_position_dioptres is not None:
            self.cam.set_controls({"AfMode": 0, "LensPosition": lens_position_dioptres})
        self.cam.start()
        self._count = _Counter()

    def read(self) -> tuple[np.ndarray, int, float]:
        image = self.cam.capture_array("main")
        n, t = self._count.next()
        return np.ascontiguousarray(image[:, :, :3]), n, t

    def close(self) -> None:
        self.cam.stop()
        self.cam.close()


def open_source(spec: str, size_px: tuple[int, int] | None = None, fps: float = 15.0,
                lens_position_dioptres: float | None = None) -> FrameSource:
    """A frame source from the configuration's `camera.source` string."""
    if spec == "picamera2":
        return PiCamera(size_px or (1280, 960), lens_position_dioptres)
    kind, _, rest = spec.partition(":")
    if kind == "opencv" and rest:
        return OpenCvSource(rest, size_px)
    if kind == "folder" and rest:
        return FolderSource(rest, fps)
    raise CameraUnavailable(f"camera source {spec!r}: expected picamera2, opencv:<device or file>, "
                      f"folder:<dir> (or sim, handled by the application)")
