"""`damas replay`: referee a recorded game from a video or a folder of frames, like a scorer.

Every frame goes through the vision pipeline and the stillness gate (`vision.stream`) into the
referee (`game.referee`, policy RECORD): every move that changed the position is a `move` event
and a PDN move, legal or not, and each irregularity is a separate event and a `{comment}` at
that move.  `--events` writes one JSON line per event; `--pdn` the game.  `--ajeito` names the
frames at which the player pressed the "ajeito" button (an announced adjustment: pieces nudged
until the next still board are neither a move nor touch-move).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import cv2
import numpy as np

from game.board import BaseBoard, Board
from game.observation import Observation
from game.pdn import write_game
from game.referee import EventType, Policy, Referee, RefereeConfig, RefereeEvent
from game.variants import Variant, find_variant
from vision.errors import UnreadableImage
from vision.sources import IMAGE_SUFFIXES, read_image
from vision.stream import GateConfig, ObservationStream

DEFAULT_FPS = 15.0
# The classifier's confidence is about the whole label (man or king too); the referee compares
# colours only, so it trusts every square the stream did not hide.  A lifted piece must be seen
# gone for 4 frames (0.27 s) to count as touched: a single misread frame near a hand is not.
REPLAY_REFEREE = RefereeConfig(policy=Policy.RECORD, min_confidence=0.0, touch_frames=4)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("replay", help="referee a recorded game (video or folder of frames): "
                                      "moves and irregularities")
    p.add_argument("source", metavar="SOURCE", help="a video file or a folder of frames "
                                                    "(taken in name order)")
    p.add_argument("--variant", default="brazilian")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--corners", default=None,
                       help='outer grid corners "x,y x,y x,y x,y" in the order a1, h1, h8, a8')
    where.add_argument("--calibration", default=None, help="calibration file (board corners)")
    p.add_argument("--fen", default=None, help="start position (default: the initial one)")
    p.add_argument("--pdn", default=None, metavar="OUT.pdn", help="write the game as PDN")
    p.add_argument("--events", default=None, metavar="OUT.jsonl",
                   help="write one JSON line per event")
    p.add_argument("--ajeito", default=None, metavar="FRAMES",
                   help='frames at which the player announced an adjustment ("ajeito" button): '
                        'a file listing frame numbers, or a list like "120,455"')
    p.add_argument("--fps", type=float, default=None,
                   help=f"frame rate of a folder of frames (default {DEFAULT_FPS:g})")
    p.set_defaults(func=cmd_replay)


# -- sources -------------------------------------------------------------------------------
def frames_of(source: str, fps: float | None = None
              ) -> tuple[Iterator[tuple[int, np.ndarray]], float]:
    """(frames as (index, BGR image), frame rate) from a folder of images or a video file."""
    path = Path(source)
    if path.is_dir():
        files = sorted(f for f in path.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise ValueError(f"{source!r}: no image files (.png, .jpg...) in this folder")

        def from_folder() -> Iterator[tuple[int, np.ndarray]]:
            # A frame that cannot be read (cut short while copying) is a dropped frame, not
            # the end of the session: the rest of the game is still read.
            for i, f in enumerate(files):
                try:
                    yield i, read_image(f)
                except UnreadableImage as e:
                    print(f"note: frame {i} skipped: {e}", file=sys.stderr)

        return from_folder(), fps or DEFAULT_FPS
    if not path.is_file():
        raise FileNotFoundError(f"{source!r}: no such file or folder")
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise ValueError(f"{source!r}: not a video this OpenCV build can read")
    rate = fps or float(cap.get(cv2.CAP_PROP_FPS) or 0.0) or DEFAULT_FPS

    def from_video() -> Iterator[tuple[int, np.ndarray]]:
        i = 0
        try:
            while True:
                ok, image = cap.read()
                if not ok:
                    if i == 0:
                        raise ValueError(f"{source!r}: no frame could be read (not a video "
                                         f"this OpenCV build decodes, or an empty one)")
                    return
                yield i, image
                i += 1
        finally:
            cap.release()

    return from_video(), rate


def ajeito_frames(text: str | None) -> frozenset[int]:
    """The frames at which "ajeito" was pressed, from a sidecar file of frame numbers (one per
    line, or separated by commas or spaces) or from such a list given inline."""
    if not text:
        return frozenset()
    path = Path(text)
    body = path.read_text(encoding="utf-8") if path.is_file() else text
    try:
        return frozenset(int(t) for t in body.replace(",", " ").split())
    except ValueError:
        raise ValueError(f"--ajeito {text!r}: expected frame numbers (a file of them, or "
                         f"\"120,455\")") from None


# -- refereeing -------------------------------------------------------------------------------
class _SafeObserver:
    """The pipeline, with a frame it cannot read (board out of view...) seen as fully hidden."""

    def __init__(self, observer: Any, variant: Variant) -> None:
        self.observer = observer
        self.variant = variant
        self.failures = 0

    def __call__(self, image: np.ndarray) -> Any:
        from vision.errors import VisionError

        try:
            return self.observer.observe(image)
        except VisionError:
            self.failures += 1
            return _Hidden(self.variant)


class _Hidden:
    """A pipeline reading with every square occluded."""

    def __init__(self, variant: Variant) -> None:
        self.board = BaseBoard.empty(variant)
        self.occluded = frozenset(self.board.squares)
        self.confidence: dict[int, float] = {}
        self.extras: dict[str, Any] = {}


def make_observer(variant: Variant, corners: str | None, calibration: str | None,
                  first_image: np.ndarray, start: BaseBoard | None = None) -> Any:
    """The vision pipeline for this recording.  The recording starts on the start position
    (`start`), so the colours of the two piece sets and of the squares are learned from the first
    frame, as `damas calibrate board` does: the classifier then no longer has to guess, frame by
    frame, which pieces are which set (unless a calibration file brings its own colours)."""
    from app.commands.vision import parse_corners
    from calibration.store import Calibration, load_calibration
    from vision.pipeline import BoardObserver

    cal = load_calibration(calibration) if calibration else None
    if corners:
        observer = BoardObserver(variant, calibration=cal, corners_px=parse_corners(corners))
    elif cal is not None:
        observer = BoardObserver(variant, calibration=cal)
    else:
        # No calibration: find the board once, on the first frame, and keep it (the camera is
        # fixed).
        located = BoardObserver(variant).locate(first_image)
        observer = BoardObserver(variant,
                                 corners_px=np.asarray(located.pose.corners_px, np.float64))
    if start is None or (cal is not None and cal.colours is not None):
        return observer
    from dataclasses import replace

    from vision.colour_learn import learn_colours

    colours = learn_colours(first_image, observer.locate(first_image).pose, start)
    observer.calibration = replace(cal or Calibration(), colours=colours)
    return observer


def referee_stream(frames: Iterator[tuple[int, np.ndarray]], fps: float, referee: Referee,
                   variant: Variant, corners: str | None = None, calibration: str | None = None,
                   gate: GateConfig | None = None, out: TextIO | None = None,
                   observer: Any = None, ajeito: frozenset[int] = frozenset()
                   ) -> list[RefereeEvent]:
    """Feed every frame to the referee; print each event as it happens; close at the end.
    `ajeito`: frames at which the player announced an adjustment."""
    stream: ObservationStream | None = None
    last: Observation | None = None
    for index, image in frames:
        if stream is None:
            if observer is None:
                observer = make_observer(variant, corners, calibration, image,
                                         referee.board.placement())
            # (A test's stand-in observer that does not locate gives the meters no squares.)
            stream = ObservationStream(_SafeObserver(observer, variant), variant, gate,
                                       locator=observer if hasattr(observer, "locate") else None)
        obs, stable = stream.push(image, index, index / fps)
        last = obs
        if index in ajeito:
            referee.announce_adjust()
        noted = len(referee.notes)
        for e in referee.observe(obs, stable):
            _print_event(e, referee, out)
        for e in referee.notes[noted:]:
            _print_event(e, referee, out, "camera note")
    if last is not None:
        for e in referee.close(last):
            _print_event(e, referee, out)
    return referee.events


def _print_event(e: RefereeEvent, referee: Referee, out: TextIO | None,
                 label: str | None = None) -> None:
    if out is None:
        return
    names = " ".join(referee.board.square_name(s) for s in e.squares)
    if e.type is EventType.MOVE:
        text = f"frame {e.frame}: move {e.move}" + (f" ({e.detail})" if e.detail else "")
    else:
        text = f"frame {e.frame}: {label or e.type.value} [{names}] {e.detail}"
    print(text, file=out, flush=True)


def cmd_replay(args: argparse.Namespace) -> int:
    variant = find_variant(args.variant)
    board = Board(args.fen, variant)
    frames, fps = frames_of(args.source, args.fps)
    announced = ajeito_frames(args.ajeito)
    referee = Referee(board, REPLAY_REFEREE)
    events = referee_stream(frames, fps, referee, variant, args.corners, args.calibration,
                            out=sys.stdout, ajeito=announced)
    if args.events:
        with open(args.events, "w", encoding="utf-8") as f:
            for e in events:
                f.write(json.dumps(e.as_json(referee.board)) + "\n")
    if args.pdn:
        record = referee.game_record(Event="damas replay", Site=Path(args.source).name)
        Path(args.pdn).write_text(write_game(record), encoding="utf-8")
    moves = sum(1 for e in events if e.type is EventType.MOVE)
    irregular = sum(1 for e in events if e.type not in (EventType.MOVE, EventType.UNREADABLE))
    print(f"{moves} move(s), {irregular} irregularity event(s), "
          f"final position {referee.board.fen()}")
    return 0
