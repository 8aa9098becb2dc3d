"""Camera pictures for the page: scaled down and JPEG-encoded once, in the game loop's thread.

The bus stores bytes, not images, so every viewer gets the same encoded picture and the web
server never touches numpy.  Typical use in the loop (the grid drawn by `vision.annotate`)::

    bus.publish_frame(page_jpeg(annotate(frame_bgr, observation)))
"""

from __future__ import annotations

import cv2
import numpy as np

PAGE_WIDTH_PX = 800  # wide enough for a club screen, light enough for 200 phones on Wi-Fi
JPEG_QUALITY = 70


def page_jpeg(image_bgr: np.ndarray, max_width_px: int = PAGE_WIDTH_PX,
              quality: int = JPEG_QUALITY) -> bytes:
    """`image_bgr` (H x W x 3 uint8, or H x W grey) as JPEG bytes, no wider than
    `max_width_px` (aspect ratio kept; smaller pictures are not enlarged)."""
    if image_bgr.dtype != np.uint8 or image_bgr.ndim not in (2, 3):
        raise ValueError(f"page_jpeg expects an 8-bit image, got {image_bgr.dtype} "
                         f"with shape {image_bgr.shape}")
    if not 1 <= quality <= 100:
        raise ValueError(f"quality: expected 1..100, got {quality}")
    height, width = image_bgr.shape[:2]
    if width > max_width_px:
        scale = max_width_px / width
        image_bgr = cv2.resize(image_bgr, (max_width_px, max(1, round(height * scale))),
                               interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return bytes(buf)
