"""The versioned calibration file: camera intrinsics, board location, colour models, gantry.

One JSON file holds everything a session learned about its table.  Every section is optional
(a laptop with a webcam may have only a board section).  Unknown keys are an error naming the
file and the field, so a typo in a hand-edited file is not silently ignored; a file written by a
newer version of the program is refused rather than half-read.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import types
import typing
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from calibration.camera import CameraIntrinsics
from calibration.colour import ColourModel

CALIBRATION_VERSION = 1


class CalibrationError(ValueError):
    """A calibration file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class BoardCalibration:
    """Where the playing grid is in the image of a fixed camera, and its physical size.

    `corners_px` are the outer corners of the playing grid in the order a1, h1, h8, a8 (a1, j1,
    j10, a10 on 10x10), in pixels of an image of `image_width_px` x `image_height_px`.
    `lens_k` is the radial lens term the grid showed when it was located (vision.grid_fit: about
    the image's centre, in units of half its longer side; 0 when none paid for itself): a
    camera not calibrated reads every square through it.
    """

    grid: int
    corners_px: tuple[tuple[float, float], ...]
    image_width_px: int
    image_height_px: int
    square_mm: float = 40.0
    disc_height_mm: float = 7.0
    disc_diameter_mm: float = 30.0
    lens_k: float = 0.0

    def __post_init__(self) -> None:
        if len(self.corners_px) != 4:
            raise CalibrationError(f"board.corners_px needs 4 corners, got {len(self.corners_px)}")
        for name in ("square_mm", "disc_height_mm", "disc_diameter_mm"):
            if not getattr(self, name) > 0:
                raise CalibrationError(f"{name} must be above 0, got {getattr(self, name)}")
        if self.disc_diameter_mm >= self.square_mm:
            raise CalibrationError(
                f"disc_diameter_mm ({self.disc_diameter_mm}) must be less than "
                f"square_mm ({self.square_mm}): a disc stands inside its square")
        if not abs(self.lens_k) < 1.0:
            raise CalibrationError(f"lens_k must lie between -1 and 1, got {self.lens_k}")


@dataclass(frozen=True)
class Calibration:
    version: int = CALIBRATION_VERSION
    camera: CameraIntrinsics | None = None
    board: BoardCalibration | None = None
    colours: ColourModel | None = None
    # Typed loosely until the robot's `calibration.gantry` defines its section.
    gantry: dict[str, Any] | None = None


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


def _listify(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_listify(v) for v in value]
    return value


def _section(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise CalibrationError(f"{where}: expected a table of fields, got {type(data).__name__}")
    names = {f.name for f in fields(cls)}
    for key in data:
        if key not in names:
            raise CalibrationError(f"{where}: unknown field {key!r} (known: {sorted(names)})")
    hints = typing.get_type_hints(cls)
    values = {k: _checked(hints[k], v, f"{where}.{k}") for k, v in data.items()}
    try:
        return cls(**values)
    except (TypeError, ValueError) as e:
        raise CalibrationError(f"{where}: {e}") from None


def _checked(hint: Any, value: Any, where: str) -> Any:
    """`value` as the field's declared type (ints, floats, tuples of them, optional), or a
    CalibrationError naming the field and what was expected: a hand-edited or damaged file
    must not slip a string into a focal length."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _checked(inner[0], value, where)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise CalibrationError(f"{where}: expected a whole number, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise CalibrationError(f"{where}: expected a finite number, got {value!r}")
        return float(value)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise CalibrationError(f"{where}: expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_checked(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise CalibrationError(f"{where}: expected a list of {len(args)} values, "
                                   f"got {value!r}")
        return tuple(_checked(a, v, f"{where}[{i}]") for i, (a, v) in
                     enumerate(zip(args, value, strict=True)))
    return _tuplify(value)  # a type without a check here: as before


_SECTIONS: dict[str, type] = {
    "camera": CameraIntrinsics,
    "board": BoardCalibration,
    "colours": ColourModel,
}


def calibration_from_dict(data: Any, source: str = "<dict>") -> Calibration:
    if not isinstance(data, dict):
        raise CalibrationError(f"{source}: expected a JSON object at the top level")
    known = {f.name for f in fields(Calibration)}
    for key in data:
        if key not in known:
            raise CalibrationError(f"{source}: unknown field {key!r} (known: {sorted(known)})")
    version = data.get("version")
    if not isinstance(version, int):
        raise CalibrationError(f"{source}: field 'version' missing or not a whole number")
    if version > CALIBRATION_VERSION:
        raise CalibrationError(
            f"{source}: field 'version' is {version}; this program reads up to "
            f"{CALIBRATION_VERSION}")
    kwargs: dict[str, Any] = {"version": version}
    for name, cls in _SECTIONS.items():
        if data.get(name) is not None:
            kwargs[name] = _section(cls, data[name], f"{source}: {name}")
    if data.get("gantry") is not None:
        if not isinstance(data["gantry"], dict):
            raise CalibrationError(f"{source}: gantry: expected a table of fields")
        kwargs["gantry"] = data["gantry"]
    return Calibration(**kwargs)


def calibration_to_dict(cal: Calibration) -> dict[str, Any]:
    out: dict[str, Any] = {"version": cal.version}
    for name in ("camera", "board", "colours"):
        section = getattr(cal, name)
        if section is not None:
            out[name] = {k: _listify(v) for k, v in dataclasses.asdict(section).items()}
    if cal.gantry is not None:
        g = cal.gantry
        out["gantry"] = (dataclasses.asdict(g) if dataclasses.is_dataclass(g)
                         and not isinstance(g, type) else g)
    return out


def load_calibration(path: str | os.PathLike[str]) -> Calibration:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise CalibrationError(f"{p}: cannot read calibration file ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise CalibrationError(f"{p}: not a UTF-8 text file (byte {e.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CalibrationError(f"{p}: not valid JSON (line {e.lineno}: {e.msg})") from None
    return calibration_from_dict(data, str(p))


def save_calibration(cal: Calibration, path: str | os.PathLike[str]) -> None:
    """Write atomically (temp file + rename), so a crash never leaves half a file."""
    p = Path(path)
    if not p.parent.is_dir():
        raise FileNotFoundError(f"cannot save the calibration to {str(p)!r}: no folder "
                                f"{str(p.parent)!r}")
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(calibration_to_dict(cal), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, p)


def replace_section(cal: Calibration, **sections: Any) -> Calibration:
    return dataclasses.replace(cal, **sections)


