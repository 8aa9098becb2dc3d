"""Errors of `vision`: one base, each mixed with the builtin a caller would expect."""

from __future__ import annotations


class VisionError(Exception):
    """Base of everything `vision` raises on purpose."""


class UnreadableImage(VisionError, OSError):
    """The file or frame could not be decoded as an image."""


class BoardNotFound(VisionError, ValueError):
    """No draughts board could be located in the image."""


class CornersNotABoard(VisionError, ValueError):
    """Four corners that do not outline a board (repeated, crossed, or in no order round it)."""


class CalibrationMismatch(VisionError, ValueError):
    """A calibration made at another image shape (16:9 against 4:3): it cannot be scaled."""


class BoardOutOfView(VisionError, ValueError):
    """The board is only partly inside the image: refuse rather than guess."""


class CameraUnavailable(VisionError, OSError):
    """A camera source could not be opened or stopped delivering frames."""
