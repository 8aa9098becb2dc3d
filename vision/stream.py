"""Observations over time: the motion/hand gate in front of the referee.

A person's move is a few seconds of a hand over the board.  The referee must read the board only
once the hand has gone and the view has been still for a moment (`GateConfig.still_s`); every
frame before that is still useful to it, for touch-move (a piece lifted, its square seen empty)
but is not a position.  `StillnessGate` decides, frame by frame, whether an observation is
*stable*; `ObservationStream` turns images into `game.observation.Observation`s with the vision
pipeline (`vision.pipeline.BoardObserver`), a motion measure and the gate.

A frame is *calm* when no hand is seen (no occluded square, no hand flag), nothing moves in the
image, and no square is uncertain; it is *stable* when it is calm and the squares have read the
same for `still_s` seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import cv2
import numpy as np

from game.board import BaseBoard, Piece
from game.observation import OCCLUDED, Observation, SquareView
from game.variants import Variant
from vision.errors import VisionError


@dataclass(frozen=True)
class GateConfig:
    still_s: float = 0.2  # a calm, unchanged view this long is stable
    motion_px_diff: int = 24  # a grey-level change this large marks a pixel as moving
    motion_share: float = 0.002  # more than this share of moving pixels: something moves
    motion_width_px: int = 200  # frames are compared at this width (noise averages out)
    min_confidence: float = 0.0  # a less certain square keeps the view from being calm
    # Squares where the image moved in the last `motion_memory_frames` frames are hidden (a
    # hand, its arm, its shadow): the classifier's reading of them is not trusted.
    motion_memory_frames: int = 2
    motion_dilate_sq: float = 0.6  # grow the moving region by this much of a square
    # A piece whose top face changed this much (mean grey difference at sampled points) between
    # two still views while its reading stayed the same was pushed off-centre (a nudge).
    displaced_grey: float = 6.0
    # A square whose top-face picture changed less than this since the last still view (mean
    # over sampled points of the largest colour-channel difference) keeps that view's reading.
    # Colour, not grey: a dark red piece leaving a dark brown square hardly changes the grey.
    unchanged_colour: float = 15.0
    # A hand held still over the board is not motion; what gives it away is a change from the
    # last still view where no square's reading changed.  More than this many squares' worth of
    # such change in the board area keeps the view from being calm ...
    foreign_squares: float = 0.8
    foreign_grey: int = 30  # (a pixel this much brighter or darker counts as changed)
    # ... unless nothing has moved for this long (something left lying on the board edge).
    # Squares whose surroundings changed (the ring test) are hidden no longer than this
    # either: past it they are unknown and do not keep the view from being still.
    foreign_timeout_s: float = 2.0
    # A square the pipeline calls occluded while nothing has moved for this long is unknown,
    # not a hand: a hand comes and goes, a misread square on a still image stays (it must not
    # keep the whole board from being read).
    still_occluded_s: float = 0.5

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GateConfig:
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"gate config: unknown field(s) {sorted(unknown)}")
        return cls(**data)


class StillnessGate:
    """Says which observations are stable (see the module docstring)."""

    def __init__(self, config: GateConfig | None = None) -> None:
        self.config = config or GateConfig()
        self._still_since: float | None = None
        self._last: Observation | None = None

    def push(self, obs: Observation, moving: bool = False,
             lasting: frozenset[int] = frozenset()) -> bool:
        """`lasting`: occluded squares that are not a hand (see `GateConfig.still_occluded_s`)."""
        cfg = self.config
        calm = (not obs.hand and not moving and not (obs.occluded - lasting)
                and not set(obs.unknown_squares(cfg.min_confidence)) - lasting)
        same = self._last is not None and self._last.same_view(obs)
        self._last = obs
        if not calm:
            self._still_since = None
            return False
        if self._still_since is None or not same:
            self._still_since = obs.time_s
        return obs.time_s - self._still_since >= cfg.still_s - 1e-9


class MotionMeter:
    """Where the image changed since the previous frame (grey, downscaled, blurred).

    `push` returns the share of moving pixels; `recent_mask` is the union of the moving regions
    of the last `motion_memory_frames` frames, grown by `motion_dilate_sq` of a square.
    """

    def __init__(self, config: GateConfig | None = None) -> None:
        self.config = config or GateConfig()
        self._prev: np.ndarray | None = None
        self._masks: list[np.ndarray] = []
        self.scale = 1.0
        self.square_px = 0.0  # a square's size in the full image, for dilation
        self.last_grey: np.ndarray | None = None

    def push(self, image_bgr: np.ndarray) -> float:
        cfg = self.config
        h, w = image_bgr.shape[:2]
        small_w = min(cfg.motion_width_px, w)
        self.scale = small_w / w
        small = cv2.resize(image_bgr, (small_w, max(1, round(h * self.scale))),
                           interpolation=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        prev, self._prev = self._prev, grey
        self.last_grey = grey
        if prev is None or prev.shape != grey.shape:
            self._masks = []
            return 0.0
        moving = (cv2.absdiff(grey, prev) > cfg.motion_px_diff).astype(np.uint8)
        self._masks = (self._masks + [moving])[-max(1, cfg.motion_memory_frames):]
        return float(np.count_nonzero(moving)) / moving.size

    def recent_any(self) -> bool:
        """Did anything move in the last `motion_memory_frames` frames?"""
        return any(m.any() for m in self._masks)

    def recent_mask(self) -> np.ndarray | None:
        if not self._masks:
            return None
        mask = self._masks[0].copy()
        for m in self._masks[1:]:
            mask |= m
        if not mask.any():
            return mask
        r = max(1, round(self.config.motion_dilate_sq * self.square_px * self.scale))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        dilated: np.ndarray = cv2.dilate(mask, kernel)
        return dilated

    def hidden_squares(self, square_points_px: np.ndarray) -> frozenset[int]:
        """Squares (rows of `square_points_px`: points per square, full-image pixels) that any
        recent motion touches."""
        mask = self.recent_mask()
        if mask is None or not mask.any():
            return frozenset()
        h, w = mask.shape
        pts = np.round(square_points_px * self.scale).astype(int)
        xs = np.clip(pts[..., 0], 0, w - 1)
        ys = np.clip(pts[..., 1], 0, h - 1)
        hit = mask[ys, xs].any(axis=1)
        return frozenset(int(i) for i in np.flatnonzero(hit))


def square_points(project: Callable[[np.ndarray], np.ndarray], grid_w: int, grid_h: int,
                  coords: tuple[tuple[int, int], ...], height_sq: float = 0.35) -> np.ndarray:
    """Image points sampling each playable square (centre and a ring, on the board and at a
    piece's top), as an array squares x points x 2, from a board-to-image `project`
    (board units: one square = 1)."""
    ring = [(0.0, 0.0)] + [(0.3 * np.cos(a), 0.3 * np.sin(a))
                           for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)]
    pts = []
    for f, r in coords:
        for z in (0.0, height_sq):
            for dx, dy in ring:
                pts.append((f + 0.5 + dx, r + 0.5 + dy, z))
    px = project(np.array(pts, np.float64))
    del grid_w, grid_h
    return px.reshape(len(coords), -1, 2)


def observation_from_vision(reading: Any, variant: Variant, frame: int, time_s: float,
                            hand: bool) -> Observation:
    """A `game.observation.Observation` from the pipeline's `BoardObservation`.

    Uses its `board`, `occluded` and `confidence`; pieces off-centre come from
    `extras["displaced"]` (a collection of squares) when the pipeline provides them.
    """
    board: BaseBoard = reading.board
    occluded = frozenset(reading.occluded)
    views: list[SquareView] = []
    for sq in board.squares:
        if sq in occluded:
            views.append(OCCLUDED)
        else:
            p = board.piece_at(sq)
            views.append(p if isinstance(p, Piece) else None)
    conf_map = reading.confidence or {}
    confidence = tuple(float(conf_map.get(sq, 1.0)) for sq in board.squares)
    extras = getattr(reading, "extras", None) or {}
    displaced = frozenset(int(s) for s in extras.get("displaced", ()))
    return Observation(variant, tuple(views), displaced, hand or bool(occluded), confidence,
                       frame, time_s)


def ring_points(project: Callable[[np.ndarray], np.ndarray],
                coords: tuple[tuple[int, int], ...], radius_sq: float = 0.8) -> np.ndarray:
    """Image points on the board around each square (squares x 8 x 2), between it and its
    neighbours: a hand or an arm over the square covers them too, a lifted piece does not."""
    ring = [(radius_sq * np.cos(a), radius_sq * np.sin(a))
            for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)]
    pts = [(f + 0.5 + dx, r + 0.5 + dy, 0.0) for f, r in coords for dx, dy in ring]
    return project(np.array(pts, np.float64)).reshape(len(coords), -1, 2)


def top_points(project: Callable[[np.ndarray], np.ndarray],
               coords: tuple[tuple[int, int], ...], height_sq: float) -> np.ndarray:
    """Image points on the top face of a piece standing on each square (squares x points x 2):
    the centre and two rings, where a push of a few mm changes what is seen."""
    ring = [(0.0, 0.0)]
    for rad in (0.16, 0.3):
        ring += [(rad * np.cos(a), rad * np.sin(a))
                 for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)]
    pts = [(f + 0.5 + dx, r + 0.5 + dy, height_sq) for f, r in coords for dx, dy in ring]
    return project(np.array(pts, np.float64)).reshape(len(coords), -1, 2)


class DisplacementMeter:
    """Pieces pushed on their squares between two still views (a nudge, a careless put-back).

    The camera cannot say whether a disc is exactly centred, but it can see that a disc that is
    still on its square *moved*: the grey levels on its top face change.  `compare` gives the
    squares whose piece reads the same colour as in the reference still view (a man misread once
    as a king is the same disc) but whose top face changed, and the squares read empty in both
    whose picture changed (something came that the classifier does not see: the referee then
    tries the rules on it); `set_reference` keeps a still view to compare later ones with.
    """

    def __init__(self, man_points_px: np.ndarray, king_points_px: np.ndarray,
                 config: GateConfig | None = None) -> None:
        self.config = config or GateConfig()
        self.man_points = np.round(man_points_px).astype(int)
        self.king_points = np.round(king_points_px).astype(int)
        self._ref: tuple[np.ndarray, np.ndarray, tuple[SquareView, ...]] | None = None
        self._ref_colour: np.ndarray | None = None

    def _sample(self, grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, w = grey.shape
        out = []
        for pts in (self.man_points, self.king_points):
            xs = np.clip(pts[..., 0], 0, w - 1)
            ys = np.clip(pts[..., 1], 0, h - 1)
            out.append(grey[ys, xs].astype(np.float32))
        return out[0], out[1]

    @staticmethod
    def grey(image_bgr: np.ndarray) -> np.ndarray:
        g: np.ndarray = cv2.GaussianBlur(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        return g

    def _colour_sample(self, image_bgr: np.ndarray) -> np.ndarray:
        img = cv2.GaussianBlur(image_bgr, (3, 3), 0)
        h, w = img.shape[:2]
        xs = np.clip(self.man_points[..., 0], 0, w - 1)
        ys = np.clip(self.man_points[..., 1], 0, h - 1)
        out: np.ndarray = img[ys, xs].astype(np.float32)
        return out

    def set_reference(self, image_bgr: np.ndarray, obs: Observation,
                      keep: frozenset[int] = frozenset()) -> None:
        """`keep`: squares whose picture and reading stay those of the reference before (the
        still view saw no board there: a hand held still over it)."""
        man, king = self._sample(self.grey(image_bgr))
        colour = self._colour_sample(image_bgr)
        squares = obs.squares
        if keep and self._ref is not None and self._ref_colour is not None:
            idx = sorted(keep)
            man[idx], king[idx], colour[idx] = (self._ref[0][idx], self._ref[1][idx],
                                                self._ref_colour[idx])
            squares = tuple(self._ref[2][sq] if sq in keep else v
                            for sq, v in enumerate(squares))
        self._ref = (man, king, squares)
        self._ref_colour = colour

    def top_changes(self, image_bgr: np.ndarray) -> np.ndarray | None:
        """Per square, how much the top face of a man standing there changed since the reference
        still view (mean over points of the largest colour-channel difference); None without a
        reference."""
        if self._ref_colour is None:
            return None
        now = self._colour_sample(image_bgr)
        diff: np.ndarray = np.mean(np.max(np.abs(now - self._ref_colour), axis=2), axis=1)
        return diff

    @property
    def reference_squares(self) -> tuple[SquareView, ...] | None:
        return None if self._ref is None else self._ref[2]

    def compare(self, image_bgr: np.ndarray, obs: Observation) -> frozenset[int]:
        if self._ref is None:
            return frozenset()
        ref_man, ref_king, ref_squares = self._ref
        man, king = self._sample(self.grey(image_bgr))
        out = set()
        colour = self.top_changes(image_bgr)
        for sq, v in enumerate(obs.squares):
            ref = ref_squares[sq]
            if v is None and ref is None and colour is not None:
                # Read empty before and now, but the picture changed: something came (a dark
                # piece on a dark square that the classifier does not see).
                if colour[sq] >= self.config.unchanged_colour:
                    out.add(sq)
                continue
            if not isinstance(v, Piece) or not isinstance(ref, Piece) or ref.color != v.color:
                continue
            # A man read once as a king (or back) is still the same disc: compare the top
            # face at both heights and call it moved only when both changed.
            if v == ref:
                a, b = (king, ref_king) if v.is_king else (man, ref_man)
                change = float(np.mean(np.abs(a[sq] - b[sq])))
            else:
                change = min(float(np.mean(np.abs(man[sq] - ref_man[sq]))),
                             float(np.mean(np.abs(king[sq] - ref_king[sq]))))
            if change > self.config.displaced_grey:
                out.add(sq)
        return frozenset(out)


def located_geometry(observer: Any, image_bgr: np.ndarray, variant: Variant,
                     config: GateConfig | None = None
                     ) -> tuple[np.ndarray, DisplacementMeter, np.ndarray, np.ndarray]:
    """(square points, displacement meter, board polygon, ring points) of the board where
    `observer` (a `vision.pipeline.BoardObserver`) locates it in `image_bgr`, for
    `ObservationStream`."""
    geo = BaseBoard.empty(variant).geometry
    project = observer.locate(image_bgr).pose.project
    points = square_points(project, geo.width, geo.height, geo.coords)
    height = observer.cfg.pieces.height_sq
    meter = DisplacementMeter(top_points(project, geo.coords, height),
                              top_points(project, geo.coords, 2 * height), config)
    ring = ring_points(project, geo.coords)
    n, m = float(geo.width), float(geo.height)
    polygon = project(np.array([[-0.4, -0.4, 0], [n + 0.4, -0.4, 0],
                                [n + 0.4, m + 0.4, 0], [-0.4, m + 0.4, 0]]))
    return points, meter, polygon, ring


def meter_ref_ok(meter: DisplacementMeter | None) -> bool:
    return meter is not None and meter.reference_squares is not None


class ObservationStream:
    """Images in, (observation, stable) out: the pipeline, a motion meter and the gate.

    `observe` is the per-frame reader (normally `BoardObserver.observe`).  While the image does
    not move and the last reading was calm, the previous reading is reused: reading the board is
    the costly part, and a still image reads the same.

    Without the squares' places (`square_points_px` and the rest, or a `locator` to take them
    from) only the pipeline's own reading and the image's motion are used: a hand held still
    over the board's edge, which the pipeline may take for a glare veil over bare squares, is
    then not seen, and the pieces under it look lifted.
    """

    def __init__(self, observe: Callable[[np.ndarray], Any], variant: Variant,
                 config: GateConfig | None = None,
                 square_points_px: np.ndarray | None = None,
                 displacement: DisplacementMeter | None = None,
                 board_polygon_px: np.ndarray | None = None,
                 ring_points_px: np.ndarray | None = None, locator: Any = None) -> None:
        self.config = config or GateConfig()
        self._observe = observe
        self.variant = variant
        self.motion = MotionMeter(self.config)
        self.gate = StillnessGate(self.config)
        self._watch(square_points_px, displacement, board_polygon_px, ring_points_px)
        # The board observer behind `observe`, if any: where it located the board tells the
        # meters where the squares are (on the first frame, and each time it finds the board
        # again after a knock: `relocations`).
        self._locator = locator
        self._relocations = getattr(locator, "relocations", 0)
        self._last_reading: Any = None
        self._displaced: frozenset[int] = frozenset()
        self._was_stable = False
        self._ref_grey: np.ndarray | None = None
        self._ref_squares: tuple[SquareView, ...] | None = None
        self._board_mask: np.ndarray | None = None
        self._last_motion_s = -1e9
        self._lasting_ref: frozenset[int] = frozenset()  # lasting occlusion, last still view
        # The board was found again elsewhere and no view since has served as the still one.
        self._reference_due = False

    def _watch(self, square_points_px: np.ndarray | None,
               displacement: DisplacementMeter | None, board_polygon_px: np.ndarray | None,
               ring_points_px: np.ndarray | None) -> None:
        """Where the squares are in the image, for the meters."""
        self.square_points_px = square_points_px
        if square_points_px is not None:
            centres = square_points_px[:, 0, :]
            span = float(np.ptp(centres[:, 0]) + np.ptp(centres[:, 1])) / 2
            self.motion.square_px = span / max(1, self.variant.width - 1)
        self.displacement = displacement
        self.board_polygon_px = board_polygon_px
        self.ring_points_px = ring_points_px

    def invalidate(self) -> None:
        """Read the next image afresh: something changed the board that the motion meter may
        not see (the robot slid a piece whose colour is close to its square's)."""
        self._last_reading = None

    def board_moved(self, square_points_px: np.ndarray | None,
                    displacement: DisplacementMeter | None = None,
                    board_polygon_px: np.ndarray | None = None,
                    ring_points_px: np.ndarray | None = None) -> None:
        """The observer found the board again elsewhere in the image (the camera was
        knocked): where the squares now are, and every reference taken of the old view
        dropped (arguments as for the constructor); one is taken anew as soon as a frame
        allows (`_take_reference`)."""
        # (Not on the first frame, before any still view: the gate's first one will do.)
        self._reference_due = self._ref_squares is not None
        self._watch(square_points_px, displacement, board_polygon_px, ring_points_px)
        self._displaced = frozenset()
        self._ref_grey = None
        self._ref_squares = None
        self._board_mask = None
        self._lasting_ref = frozenset()
        self._last_reading = None

    def push(self, image_bgr: np.ndarray, frame: int, time_s: float
             ) -> tuple[Observation, bool]:
        if self._locator is not None and self.square_points_px is None:
            self._locate(image_bgr)
        obs, stable = self._push(image_bgr, frame, time_s)
        if (self._locator is not None
                and getattr(self._locator, "relocations", 0) != self._relocations):
            # (The camera was knocked and the board found again: the meters look at the
            # squares where they now are, from the next frame.)
            self._locate(image_bgr)
        return obs, stable

    def _locate(self, image_bgr: np.ndarray) -> None:
        self._relocations = getattr(self._locator, "relocations", 0)
        try:
            geometry = located_geometry(self._locator, image_bgr, self.variant, self.config)
        except VisionError:
            return  # (the board is not in view: tried again on the next frame)
        self.board_moved(*geometry)

    def _push(self, image_bgr: np.ndarray, frame: int, time_s: float
              ) -> tuple[Observation, bool]:
        share = self.motion.push(image_bgr)
        moving = share > self.config.motion_share
        if moving:
            self._last_motion_s = time_s
        reading = self._last_reading
        if reading is None or share > 0 or reading.occluded:
            reading = self._observe(image_bgr)
        self._last_reading = reading
        if self._reference_due and not moving and not reading.occluded:
            self._take_reference(image_bgr, observation_from_vision(reading, self.variant,
                                                                    frame, time_s, False))
        obs = observation_from_vision(reading, self.variant, frame, time_s, hand=moving)
        if self.square_points_px is not None:
            hidden = self.motion.hidden_squares(self.square_points_px)
            if hidden:
                views = tuple(OCCLUDED if sq in hidden else v
                              for sq, v in enumerate(obs.squares))
                obs = obs.replace(squares=views, hand=True)
        if meter_ref_ok(self.displacement):
            obs = self._keep_unchanged(image_bgr, obs)
        covered = self._covered_squares()
        if covered:
            views = tuple(OCCLUDED if sq in covered else v for sq, v in enumerate(obs.squares))
            obs = obs.replace(squares=views, hand=True)
        lasting: frozenset[int] = frozenset()
        # (Squares whose surroundings changed are waited out longer, as a hand held still is
        # (`foreign_timeout_s`): then it is something left lying there, which must not keep
        # the board from being read for good.)
        quiet_s = time_s - self._last_motion_s
        if (obs.occluded and not moving and not self.motion.recent_any()
                and quiet_s >= (self.config.foreign_timeout_s if covered
                                else self.config.still_occluded_s)):
            lasting = obs.occluded
            obs = obs.replace(hand=False)
        elif obs.occluded and not moving and not covered and obs.occluded <= self._unchanged(
                self._lasting_ref, image_bgr):
            # Read occluded at the last still view too, and the picture there has not changed
            # since: the same misread square, not a hand; waiting for it again would hold
            # back every move's reading by `still_occluded_s`.
            lasting = obs.occluded
            obs = obs.replace(hand=False)
        calm = not obs.hand and obs.occluded <= lasting
        if calm and self._foreign(obs, time_s, image_bgr):
            obs = obs.replace(hand=True)  # a still hand: something changed that no piece explains
            calm = False
        meter = self.displacement
        if meter is not None and calm:
            if not self._was_stable:
                self._displaced = meter.compare(image_bgr, obs)
            if self._displaced:
                obs = obs.replace(displaced=self._displaced)
        stable = self.gate.push(obs, moving, lasting)
        if stable and not self._was_stable:
            self._take_reference(image_bgr, obs, lasting)
        if not calm:
            self._displaced = frozenset()
        self._was_stable = stable
        return obs, stable

    def _take_reference(self, image_bgr: np.ndarray, obs: Observation,
                        lasting: frozenset[int] = frozenset()) -> None:
        """The view later frames are compared with: a still one, or after the board was found
        again elsewhere, the first frame where nothing moved and the pipeline saw no hand.
        (A knocked camera is often followed at once by the next move's hand: with nothing to
        compare with, pieces the classifier misreads under a hand's shadow looked lifted, and
        a piece nudged in that move went unseen.)"""
        self._reference_due = False
        self._lasting_ref = lasting
        if self.displacement is not None:
            # (A square read occluded there is compared with the view before: a piece a
            # still hand held and put back askew shows as moved.)
            self.displacement.set_reference(image_bgr, obs, keep=lasting)
        self._ref_grey = self.motion.last_grey
        self._ref_squares = obs.squares

    def _unchanged(self, squares: frozenset[int], image_bgr: np.ndarray) -> frozenset[int]:
        """Those of `squares` whose picture has not changed since the last still view."""
        meter = self.displacement
        diff = meter.top_changes(image_bgr) if meter is not None and squares else None
        if diff is None:
            return frozenset()
        return frozenset(sq for sq in squares if diff[sq] < self.config.unchanged_colour)

    def _keep_unchanged(self, image_bgr: np.ndarray, obs: Observation) -> Observation:
        """While a hand is about, a square whose picture has not changed since the last still
        view keeps that view's reading: a hand elsewhere must not make a piece vanish (or
        appear, or change colour) in the classifier's eyes.  Man or king of one colour is
        left to the present reading: the still view may have misread it (before the move
        that brought the piece was read, the game could not tell the reader which it is), and
        a misread kept there for good shows a piece the table does not have."""
        meter = self.displacement
        assert meter is not None
        diff = meter.top_changes(image_bgr)
        ref = meter.reference_squares
        if diff is None or ref is None:
            return obs
        views = list(obs.squares)
        changed = False
        for sq, v in enumerate(views):
            was = ref[sq]
            if isinstance(v, Piece) and isinstance(was, Piece) and v.color is was.color:
                continue  # (man or king: the present reading)
            if was is OCCLUDED:
                continue  # (the still view did not see it: nothing to keep)
            if v is not OCCLUDED and v != was and diff[sq] < self.config.unchanged_colour:
                views[sq] = was
                changed = True
        return obs.replace(squares=tuple(views)) if changed else obs

    def _covered_squares(self) -> frozenset[int]:
        """Squares whose surroundings changed since the last still view: under a hand or an
        arm that is not moving just now.  (A piece lifted off changes its square, not the
        squares around it.)"""
        grey = self.motion.last_grey
        if (self._ref_grey is None or grey is None or self.ring_points_px is None
                or grey.shape != self._ref_grey.shape):
            return frozenset()
        scale = self.motion.scale
        h, w = grey.shape
        pts = np.round(self.ring_points_px * scale).astype(int)
        xs = np.clip(pts[..., 0], 0, w - 1)
        ys = np.clip(pts[..., 1], 0, h - 1)
        diff = cv2.absdiff(grey, self._ref_grey)[ys, xs] > self.config.foreign_grey
        share = diff.mean(axis=1)
        # (A square the still view itself read occluded, past `still_occluded_s`, had no board
        # to compare with there: a hand held still that long, gone since.)
        return frozenset(int(i) for i in np.flatnonzero(share >= 0.5)) - self._lasting_ref

    def _foreign(self, obs: Observation, time_s: float, image_bgr: np.ndarray) -> bool:
        """Is there change since the last still view, in the board area, that no change of a
        square's reading explains (a hand held still)?"""
        cfg = self.config
        grey = self.motion.last_grey
        if (self._ref_grey is None or grey is None or self._ref_squares is None
                or self.square_points_px is None or self.board_polygon_px is None
                or grey.shape != self._ref_grey.shape
                or time_s - self._last_motion_s >= cfg.foreign_timeout_s):
            return False
        scale = self.motion.scale
        if self._board_mask is None:
            mask = np.zeros(grey.shape, np.uint8)
            cv2.fillPoly(mask, [np.round(self.board_polygon_px * scale).astype(np.int32)], 1)
            self._board_mask = mask
        changed = ((cv2.absdiff(grey, self._ref_grey) > cfg.foreign_grey)
                   & (self._board_mask > 0)).astype(np.uint8)
        radius = max(1, round(0.85 * self.motion.square_px * scale))
        # Change where a square's reading changed, or where its own picture changed (a piece came
        # or went even if the classifier misreads it: glare read as a piece), is explained.
        meter = self.displacement
        top = meter.top_changes(image_bgr) if meter_ref_ok(meter) and meter is not None else None
        for sq, v in enumerate(obs.squares):
            if v != self._ref_squares[sq] or (
                    top is not None and top[sq] >= cfg.unchanged_colour):
                for x, y in self.square_points_px[sq, ::9]:
                    cv2.circle(changed, (round(x * scale), round(y * scale)), radius, 0, -1)
        area = (self.motion.square_px * scale) ** 2
        return bool(np.count_nonzero(changed) > cfg.foreign_squares * area)
