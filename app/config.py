"""The table's configuration file: TOML read with `tomllib` into typed frozen dataclasses.

Every field has a default that runs the simulated table on a laptop (simulated camera and
gantry, gpiozero's mock pins, the page on 127.0.0.1:8080), so `load_config(None)` is a complete
configuration.  A file only says what differs.  Unknown keys, wrong types and bad values are
errors that name the file, the field as a dotted path and what was expected: a typo must not
silently run the robot with a default.

The `[robot]` table (carriage, board geometry, tray, motion, magnet, gantry calibration) belongs
to `robot.config` and is parsed there, so the same file also works for `damas robot ...`.

Relative paths (calibration file, journal folder, a camera's frame folder) are relative to the
configuration file's folder, so a table's folder can be moved as a whole.

Files carry `version = 1`.  When the layout changes the number goes up and `UPGRADE_NOTES`
says, for each old number, what to change; an old file is refused with that text.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from game.errors import GameError
from game.variants import VARIANTS, find_variant
from robot.config import RobotConfig, dataclass_from_table, read_toml
from robot.config import config_from_dict as robot_config_from_dict
from robot.errors import ConfigError as RobotConfigError

CONFIG_VERSION = 1
# version -> what to change in a file of that version to make it current (none yet: 1 is the
# first published layout).
UPGRADE_NOTES: dict[int, str] = {}

COLOURS = ("white", "black")
POLICIES = ("insist", "accept")
MODES = ("play", "record", "exhibition", "teaching")
CAMERA_KINDS = ("picamera2", "opencv", "folder", "sim")
PIN_FACTORIES = ("mock", "lgpio", "rpigpio", "pigpio", "native")
BCM_PINS = range(0, 28)  # the 40-pin header's GPIO0..GPIO27


class ConfigError(ValueError):
    """A configuration file that cannot be used; names the file, the field and the fix."""


@dataclass(frozen=True)
class GameConfig:
    """What is played.  `policy`: what happens after an illegal move on the board: "insist"
    (the robot waits until it is put right) or "accept" (it is recorded with a comment and the
    game goes on from the position on the board, as a scorer would).  `mode`: "play" (robot
    against a person), "record" (two people, the robot only watches and scores), "exhibition"
    (robot against itself) or "teaching" (play, with hints and explanations)."""

    variant: str = "brazilian"
    robot_colour: str = "black"
    level: int = 3
    policy: str = "insist"
    mode: str = "play"


@dataclass(frozen=True)
class CameraConfig:
    """`source`: "picamera2" (Raspberry Pi camera), "opencv:<index or device path>",
    "folder:<dir>" (saved frames, for replays and tests) or "sim" (rendered table).
    `lens_position_dioptres` fixes the focus of an autofocus camera (Camera Module 3: about
    1/distance in metres, e.g. 1.6 at 60 cm); None leaves autofocus on."""

    source: str = "sim"
    resolution: tuple[int, int] = (1280, 960)
    fps: float = 10.0
    lens_position_dioptres: float | None = None

    @property
    def kind(self) -> str:
        return self.source.split(":", 1)[0]

    @property
    def argument(self) -> str:
        """What follows "opencv:" or "folder:" (empty for the others)."""
        return self.source.split(":", 1)[1] if ":" in self.source else ""

    @property
    def opencv_device(self) -> int | str:
        """The OpenCV device: an index when the argument is a number, else a path."""
        arg = self.argument
        return int(arg) if arg.isdigit() else arg


@dataclass(frozen=True)
class CalibrationConfig:
    file: Path = Path("calibration.json")


@dataclass(frozen=True)
class GantryConfig:
    """`port`: the GRBL controller's serial device (prefer /dev/serial/by-id/...) or "sim"."""

    port: str = "sim"
    baud: int = 115200


@dataclass(frozen=True)
class GpioConfig:
    """BCM pin numbers (None: not fitted).  Buttons connect the pin to ground (internal
    pull-ups); LEDs and the buzzer are driven high when on.  `pin_factory` is gpiozero's:
    "mock" off a Pi, "lgpio" on a Pi 5 (and 4), "rpigpio"/"pigpio"/"native" if preferred."""

    pin_factory: str = "mock"
    button_move_done: int | None = None
    button_ajeito: int | None = None
    led_ready: int | None = None
    led_thinking: int | None = None
    led_alert: int | None = None
    buzzer: int | None = None
    bounce_s: float = 0.05

    def pins(self) -> dict[str, int]:
        """{field name: pin} of the fitted devices."""
        names = ("button_move_done", "button_ajeito", "led_ready", "led_thinking",
                 "led_alert", "buzzer")
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}


@dataclass(frozen=True)
class WebConfig:
    """Where the live page listens: 127.0.0.1 (this machine only) unless a club screen or
    phones need it ("0.0.0.0").  `frame_max_fps` caps camera pictures per viewer;
    `flipped` draws the diagram from the black side (e.g. the screen stands behind Black)."""

    host: str = "127.0.0.1"
    port: int = 8080
    frame_max_fps: float = 2.0
    flipped: bool = False  # draw the diagram from the black side


@dataclass(frozen=True)
class JournalConfig:
    dir: Path = Path("games")


@dataclass(frozen=True)
class Config:
    version: int = CONFIG_VERSION
    game: GameConfig = field(default_factory=GameConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    calibration: CalibrationConfig = field(default_factory=CalibrationConfig)
    gantry: GantryConfig = field(default_factory=GantryConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    web: WebConfig = field(default_factory=WebConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)
    robot: RobotConfig = field(default_factory=RobotConfig)
    source: Path | None = None  # the file it came from (None: defaults)


# -- loading -----------------------------------------------------------------------------------
def load_config(path: str | Path | None) -> Config:
    """The configuration in `path`; every default when `path` is None."""
    if path is None:
        return Config()
    p = Path(path)
    try:
        data = read_toml(p)
    except RobotConfigError as e:
        raise ConfigError(str(e)) from None
    return config_from_dict(data, p)


def config_from_dict(data: dict[str, Any], source: Path | None = None) -> Config:
    """Build and check a `Config` from parsed TOML; `source` names the file in errors and is
    the base of relative paths."""
    where = str(source) if source is not None else "<configuration>"
    base = source.parent if source is not None else Path(".")

    def fail(msg: str) -> ConfigError:
        return ConfigError(f"{where}: {msg}")

    _check_version(data, fail)
    known = {f.name for f in fields(Config)} - {"source"}
    for key in data:
        if key not in known:
            raise fail(f"{key}: unknown section or key (expected one of "
                       f"{', '.join(sorted(known))})")
    kwargs: dict[str, Any] = {"version": CONFIG_VERSION, "source": source}
    hints = typing.get_type_hints(Config)
    for name in ("game", "camera", "calibration", "gantry", "gpio", "web", "journal"):
        if name in data:
            try:
                kwargs[name] = dataclass_from_table(hints[name], data[name], name, base=base)
            except RobotConfigError as e:
                raise fail(str(e)) from None
    if "robot" in data:
        if not isinstance(data["robot"], dict):
            raise fail(f"robot: expected a table, got {data['robot']!r}")
        try:
            kwargs["robot"] = robot_config_from_dict(data["robot"])
        except ValueError as e:
            raise fail(str(e)) from None
    cam = kwargs.get("camera")
    if cam is not None and cam.kind == "folder" and cam.argument:
        folder = Path(cam.argument).expanduser()
        folder = folder if folder.is_absolute() else base / folder
        kwargs["camera"] = dataclasses.replace(cam, source=f"folder:{folder}")
    config = Config(**kwargs)
    _check_values(config, fail)
    return config


def _check_version(data: dict[str, Any], fail: typing.Callable[[str], ConfigError]) -> None:
    if "version" not in data:
        raise fail(f"version: missing; add `version = {CONFIG_VERSION}` as the first line "
                   f"(see examples/pi.toml for the layout)")
    v = data["version"]
    if isinstance(v, bool) or not isinstance(v, int):
        raise fail(f"version: expected a whole number ({CONFIG_VERSION}), got {v!r}")
    if v > CONFIG_VERSION:
        raise fail(f"version: {v} is newer than this program understands ({CONFIG_VERSION}); "
                   f"update damas-robot or use a configuration of version {CONFIG_VERSION}")
    if v < CONFIG_VERSION:
        notes = UPGRADE_NOTES.get(v, "compare the file with examples/pi.toml")
        raise fail(f"version: {v} is an old configuration layout; this program reads version "
                   f"{CONFIG_VERSION}. To update: {notes}; then set `version = "
                   f"{CONFIG_VERSION}`")


def _check_values(c: Config, fail: typing.Callable[[str], ConfigError]) -> None:
    g = c.game
    if g.variant.lower() not in VARIANTS:
        try:
            find_variant(g.variant)
        except (GameError, ValueError):
            raise fail(f"game.variant: expected one of {', '.join(VARIANTS)}, "
                       f"got {g.variant!r}") from None
    _choice(fail, "game.robot_colour", g.robot_colour, COLOURS)
    _choice(fail, "game.policy", g.policy, POLICIES)
    _choice(fail, "game.mode", g.mode, MODES)
    if not 1 <= g.level <= 10:
        raise fail(f"game.level: expected a whole number 1..10, got {g.level}")
    cam = c.camera
    _choice(fail, "camera.source", cam.kind, CAMERA_KINDS,
            hint=' (e.g. "picamera2", "opencv:0", "folder:frames", "sim")')
    if cam.kind in ("opencv", "folder") and not cam.argument:
        raise fail(f'camera.source: "{cam.kind}:" needs a '
                   f'{"device index or path" if cam.kind == "opencv" else "folder"} after the '
                   f'colon, got {cam.source!r}')
    if cam.kind in ("picamera2", "sim") and cam.argument:
        raise fail(f"camera.source: {cam.kind!r} takes no argument, got {cam.source!r}")
    if min(cam.resolution) <= 0:
        raise fail(f"camera.resolution: expected two positive whole numbers [width, height], "
                   f"got {list(cam.resolution)}")
    if not 0 < cam.fps <= 120:
        raise fail(f"camera.fps: expected a number in (0, 120], got {cam.fps}")
    if cam.lens_position_dioptres is not None and not 0 <= cam.lens_position_dioptres <= 32:
        raise fail(f"camera.lens_position_dioptres: expected 0..32, "
                   f"got {cam.lens_position_dioptres}")
    if not c.gantry.port:
        raise fail('gantry.port: expected a serial device path or "sim", got ""')
    if c.gantry.baud <= 0:
        raise fail(f"gantry.baud: expected a positive whole number, got {c.gantry.baud}")
    _choice(fail, "gpio.pin_factory", c.gpio.pin_factory, PIN_FACTORIES)
    used: dict[int, str] = {}
    if c.robot.magnet.kind in ("gpio", "gpio-pwm"):
        used[c.robot.magnet.pin] = "robot.magnet.pin"
    if c.robot.carriage == "overhead-lift" and c.robot.lift.kind == "servo":
        used.setdefault(c.robot.lift.servo_pin, "robot.lift.servo_pin")
    for name, pin in c.gpio.pins().items():
        if pin not in BCM_PINS:
            raise fail(f"gpio.{name}: expected a BCM pin number 0..27, got {pin}")
        if pin in used:
            raise fail(f"gpio.{name}: pin {pin} is already used by {used[pin]}")
        used[pin] = f"gpio.{name}"
    if not 0 <= c.gpio.bounce_s <= 1:
        raise fail(f"gpio.bounce_s: expected 0..1 seconds, got {c.gpio.bounce_s}")
    if not c.web.host:
        raise fail('web.host: expected an address such as "127.0.0.1" or "0.0.0.0", got ""')
    if not 1 <= c.web.port <= 65535:
        raise fail(f"web.port: expected 1..65535, got {c.web.port}")
    if c.web.frame_max_fps < 0:
        raise fail(f"web.frame_max_fps: expected a number >= 0, got {c.web.frame_max_fps}")


def _choice(fail: typing.Callable[[str], ConfigError], name: str, value: str,
            choices: tuple[str, ...], hint: str = "") -> None:
    if value not in choices:
        raise fail(f"{name}: expected one of {', '.join(choices)}{hint}, got {value!r}")
