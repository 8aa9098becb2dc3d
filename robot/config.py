"""The robot's configuration: carriage design, geometry in mm, tray, motion, magnet and lift.

Read from the `[robot]` part of a TOML file with `tomllib` into frozen dataclasses.  Every
field has a default that matches the simulated table (40 mm squares, 30 mm discs, GRBL at
6000 mm/min and 500 mm/s^2), so every command works without a file.  An unknown key is an
error naming the file and the field, never silently ignored (a typo would otherwise run the
gantry with a default).

Coordinates are in the board frame: mm, origin at the outer corner of the playing grid next
to a1, x towards h1, y towards a8 (the frame of `sim.world`).  The mapping to machine
coordinates lives in `calibration.gantry`.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from calibration.gantry import GantryCalibration
from robot.errors import ConfigError

CARRIAGES = ("under-board", "overhead-lift")
MAGNET_KINDS = ("gpio", "gpio-pwm", "grbl-coolant", "grbl-spindle")
LIFT_KINDS = ("z-axis", "servo")
CROWN_MODES = ("ask", "tray-king")
REMOVAL_ORDERS = ("shortest", "jump")

Point = tuple[float, float]


@dataclass(frozen=True)
class BoardGeometry:
    """Physical sizes; `grid` 0 means "the variant's board width"."""

    grid: int = 0
    square_mm: float = 40.0
    border_mm: float = 20.0
    disc_diameter_mm: float = 30.0
    disc_height_mm: float = 7.0
    # Gap kept between a carried disc's rim and every other disc's rim.
    min_clearance_mm: float = 2.0

    def with_grid(self, grid: int) -> BoardGeometry:
        return self if self.grid else dataclasses.replace(self, grid=grid)


@dataclass(frozen=True)
class TrayConfig:
    """Positions beside the board (board frame, mm).  Empty tuples mean "the default layout".

    `capture_slots` receive captured pieces; `spare_white`/`spare_black` hold spare discs used
    as crowns by an overhead carriage, or (under-board, crown = "tray-king") ready-made king
    pieces.
    """

    capture_slots: tuple[Point, ...] = ()
    spare_white: tuple[Point, ...] = ()
    spare_black: tuple[Point, ...] = ()


@dataclass(frozen=True)
class MotionConfig:
    feed_mm_min: float = 6000.0  # carrying and travel feed (GRBL $110/$111 cap it too)
    accel_mm_s2: float = 500.0  # used for the time estimate; GRBL's $120/$121 rule the machine
    magnet_settle_s: float = 0.15  # dwell after switching the magnet, so the piece follows
    z_feed_mm_min: float = 3000.0  # overhead carriage: the Z axis (GRBL $112, $122)
    z_accel_mm_s2: float = 500.0
    park_mm: Point | None = None  # None: board centre (under-board) or beside the tray (overhead)


@dataclass(frozen=True)
class MagnetConfig:
    kind: str = "gpio"
    pin: int = 17  # BCM pin of the MOSFET gate (gpio, gpio-pwm)
    hold_duty: float = 0.6  # gpio-pwm: duty after the pick-up pulse (lower holding current)
    spindle_rpm: float = 1000.0  # grbl-spindle: the S word sent with M3


@dataclass(frozen=True)
class LiftConfig:
    """How an overhead carriage lowers the magnet onto a piece."""

    kind: str = "z-axis"
    z_up_mm: float = 0.0  # machine Z with the magnet clear above every stack
    z_down_mm: float = -30.0  # machine Z with the magnet touching a single disc
    servo_pin: int = 18
    servo_up: float = 1.0  # gpiozero Servo value (-1..1)
    servo_down: float = -1.0
    servo_settle_s: float = 0.3


@dataclass(frozen=True)
class RobotConfig:
    carriage: str = "under-board"
    crown: str = "ask"  # under-board only: ask the person, or slide a ready king from the tray
    removal_order: str = "shortest"  # "jump": remove captured pieces in the order jumped
    board: BoardGeometry = field(default_factory=BoardGeometry)
    tray: TrayConfig = field(default_factory=TrayConfig)
    motion: MotionConfig = field(default_factory=MotionConfig)
    magnet: MagnetConfig = field(default_factory=MagnetConfig)
    lift: LiftConfig = field(default_factory=LiftConfig)
    gantry: GantryCalibration = field(default_factory=GantryCalibration)

    def __post_init__(self) -> None:
        _check_choice("carriage", self.carriage, CARRIAGES)
        _check_choice("crown", self.crown, CROWN_MODES)
        _check_choice("removal_order", self.removal_order, REMOVAL_ORDERS)
        _check_choice("magnet.kind", self.magnet.kind, MAGNET_KINDS)
        _check_choice("lift.kind", self.lift.kind, LIFT_KINDS)
        b = self.board
        if not 0 < b.disc_diameter_mm < b.square_mm:
            raise ConfigError(
                f"board.disc_diameter_mm: expected 0 < value < square_mm ({b.square_mm}), "
                f"got {b.disc_diameter_mm}")
        for name in ("feed_mm_min", "accel_mm_s2"):
            if getattr(self.motion, name) <= 0:
                raise ConfigError(f"motion.{name}: expected a positive number")

    @property
    def is_overhead(self) -> bool:
        return self.carriage == "overhead-lift"

    # -- derived layout ---------------------------------------------------------------------
    def for_grid(self, grid: int) -> RobotConfig:
        """This configuration with the board size and the default tray filled in for `grid`."""
        board = self.board.with_grid(grid)
        tray = default_tray(board, self.tray)
        motion = self.motion
        if motion.park_mm is None:
            side = board.grid * board.square_mm
            # Under the board the carriage is invisible: wait under its centre.  Above it, it
            # must leave the camera's view: wait beside the board, over the capture tray.
            park = (side / 2, side / 2) if not self.is_overhead else (
                side + board.border_mm + board.disc_diameter_mm, side / 2)
            motion = dataclasses.replace(motion, park_mm=park)
        return dataclasses.replace(self, board=board, tray=tray, motion=motion)


def default_tray(board: BoardGeometry, tray: TrayConfig) -> TrayConfig:
    """Capture slots in two columns right of the board's frame (pitch = disc + 6 mm: enough
    for every piece of one side on 8x8 and 10x10 boards); spares in one column left of the
    board, white ones from the bottom, black ones from the top.  Keeping the spares apart
    leaves a free lane round the capture columns for a disc slid from below.
    """
    side = board.grid * board.square_mm
    pitch = board.disc_diameter_mm + 6.0
    x0 = side + board.border_mm + board.disc_diameter_mm / 2 + 5.0
    y0 = board.disc_diameter_mm / 2 + 5.0
    rows = max(1, int((side - 2 * y0) // pitch) + 1)
    ys = [y0 + i * pitch for i in range(rows)]
    captures = tray.capture_slots or tuple((x0 + c * pitch, y) for c in range(2) for y in ys)
    half = max(1, rows // 2)
    xs = -(board.border_mm + board.disc_diameter_mm / 2 + 5.0)  # left of the board
    spare_w = tray.spare_white or tuple((xs, y) for y in ys[:half])
    spare_b = tray.spare_black or tuple((xs, y) for y in ys[::-1][:half])
    return TrayConfig(captures, spare_w, spare_b)


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"{name}: expected one of {', '.join(choices)}, got {value!r}")


# -- reading TOML -----------------------------------------------------------------------------
def read_toml(p: Path) -> dict[str, Any]:
    """A TOML file as a dict; `ConfigError` naming the file for anything that is not one."""
    try:
        with p.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not a UTF-8 text file (byte {e.start}): is it the "
                          f"configuration?") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the configuration: {e.strerror or e}") from None


def load_robot_config(path: str | Path | None) -> RobotConfig:
    """The `[robot]` table of a TOML file (or the whole file if it has none); defaults if None."""
    if path is None:
        return RobotConfig()
    p = Path(path)
    data = read_toml(p)
    section = data.get("robot", data)
    if not isinstance(section, dict):
        raise ConfigError(f"{p}: [robot] must be a table")
    try:
        return config_from_dict(section)
    except ConfigError as e:
        raise ConfigError(f"{p}: {e}") from None


def config_from_dict(data: dict[str, Any]) -> RobotConfig:
    gantry = data.get("gantry")
    rest = {k: v for k, v in data.items() if k != "gantry"}
    cfg = dataclass_from_table(RobotConfig, rest, "robot", skip=frozenset({"gantry"}))
    if gantry is not None:
        try:
            cfg = dataclasses.replace(cfg, gantry=GantryCalibration.from_dict(gantry))
        except ValueError as e:
            raise ConfigError(f"robot.gantry: {e}") from None
    return cfg


def dataclass_from_table(cls: type, data: Any, where: str, *, base: Path | None = None,
                         skip: frozenset[str] = frozenset()) -> Any:
    """An instance of the frozen dataclass `cls` from a parsed TOML table.

    Shared by every configuration file of the program (the table's and the robot's), so they
    all check alike: an unknown key, a wrong type or a value refused by `__post_init__` raises
    `ConfigError` naming the dotted path `where.key`.  Relative `Path` fields are resolved
    against `base` (the configuration file's folder).  Keys in `skip` are parsed by the caller.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table, got {data!r}")
    hints = typing.get_type_hints(cls)
    known = [f.name for f in fields(cls) if f.name not in skip]
    kwargs = {}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{where}.{key}: unknown key (expected one of "
                              f"{', '.join(known)})")
        kwargs[key] = _convert(hints[key], value, f"{where}.{key}", base)
    try:
        return cls(**kwargs)
    except ConfigError as e:
        raise ConfigError(f"{where}.{e}") from None


def _convert(hint: Any, value: Any, where: str, base: Path | None) -> Any:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return dataclass_from_table(hint, value, where, base=base)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)][0]
        return _convert(inner, value, where, base)
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected a whole number, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    if hint is Path:
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: expected a path (a string), got {value!r}")
        p = Path(value).expanduser()
        return p if p.is_absolute() or base is None else base / p
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v, f"{where}[{i}]", base)
                         for i, v in enumerate(value))
        if len(value) != len(args):
            raise ConfigError(f"{where}: expected a list of {len(args)} values, got {value!r}")
        pairs = enumerate(zip(args, value, strict=True))
        return tuple(_convert(a, v, f"{where}[{i}]", base) for i, (a, v) in pairs)
    raise ConfigError(f"{where}: unsupported field type {hint!r}")  # a programming error
