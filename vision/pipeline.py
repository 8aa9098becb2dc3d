"""One observation of the board: locate (or reuse the located board) -> sample -> classify.

`BoardObserver` is what the game loop holds.  With a fixed camera the board is found once
(from `--corners`, the calibration file, or automatically) and the sampling plan is reused, so
each later frame costs only a blur and a few thousand pixel reads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from calibration.camera import CameraIntrinsics, same_shape
from calibration.colour import ColourModel
from calibration.store import Calibration
from game.board import BaseBoard, Piece
from game.geometry import geometry
from game.variants import Variant, find_variant
from vision.config import PieceGeometry, VisionConfig
from vision.errors import BoardOutOfView, CalibrationMismatch, CornersNotABoard, VisionError
from vision.geometry import BoardPose, nearest_order, outside_image, pose_from_corners
from vision.grid_check import CornerPixels, GridFit, grid_fit
from vision.observation import BoardObservation
from vision.parity import played_on_the_other_colour
from vision.pieces import (
    BLACK_KING,
    BLACK_MAN,
    OCCLUDED,
    WHITE_KING,
    WHITE_MAN,
    SquareVerdicts,
    classify,
)
from vision.sampling import SquareSamples, build_samples

# A reading with more of its squares hidden than this shows a hand: the grid check then does
# not take corners it cannot see for a moved board.
_MAX_HIDDEN_SHARE = 0.2
# While the board seems moved and is not found again, it is looked for once in this many
# frames (finding it costs tens of milliseconds).
_SEARCH_EVERY_FRAMES = 10
# Corners from a calibration file under which fewer of the inner corners than this show the
# square pattern are looked for again in the image.
_MIN_FIT_SHARE = 0.3
# A board found again is taken only where this share of the corners that showed the pattern
# when it was located show it there.
_MIN_FOUND_SHARE = 0.6

_PIECE_OF = {WHITE_MAN: Piece.WHITE_MAN, BLACK_MAN: Piece.BLACK_MAN,
             WHITE_KING: Piece.WHITE_KING, BLACK_KING: Piece.BLACK_KING}


@dataclass(frozen=True)
class Located:
    pose: BoardPose
    samples: SquareSamples
    confidence: float


def check_in_view(corners_px: np.ndarray, image_size: tuple[int, int]) -> None:
    w, h = image_size
    c = np.asarray(corners_px, np.float64).reshape(4, 2)
    if not np.all(np.isfinite(c)):
        raise BoardOutOfView("board corners are not finite numbers")
    outside = outside_image(c, (w, h))
    if outside.any():
        names = ", ".join(str(i) for i in np.flatnonzero(outside))
        raise BoardOutOfView(
            f"board partly out of view: corner(s) {names} of 4 lie outside the "
            f"{w}x{h} image")


def check_corner_shape(corners_px: np.ndarray, min_side_px: float = 4.0) -> None:
    """The corners must go round a convex quadrilateral, in either direction, each side at
    least `min_side_px` long: anything else (a corner given twice, two swapped so the sides
    cross) places no square anywhere sensible."""
    c = np.asarray(corners_px, np.float64).reshape(4, 2)
    edges = np.roll(c, -1, axis=0) - c
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(
        edges, -1, axis=0)[:, 0]
    if np.linalg.norm(edges, axis=1).min() < min_side_px or not (
            np.all(turns > 0) or np.all(turns < 0)):
        pts = " ".join(f"{x:.0f},{y:.0f}" for x, y in c)
        raise CornersNotABoard(
            f"the corners {pts} do not outline a board: give the four outer corners of the "
            f"playing grid in order round it (a1, h1, h8, a8)")


class BoardObserver:
    def __init__(self, variant: Variant | str = "brazilian", cfg: VisionConfig | None = None,
                 calibration: Calibration | None = None,
                 corners_px: np.ndarray | None = None) -> None:
        self.variant = find_variant(variant) if isinstance(variant, str) else variant
        self.cfg = _with_the_pieces_of(cfg or VisionConfig(), calibration)
        self.calibration = calibration
        self.fixed_corners = None if corners_px is None else np.asarray(corners_px, np.float64)
        self._located: Located | None = None
        self._located_key: tuple[object, ...] | None = None
        self._auto = False
        self._by_markers = False
        # The square pattern as seen when the board was located (vision.grid_check), and
        # frames since the board last seemed moved and was looked for.
        self._grid: tuple[GridFit, np.ndarray] | None = None
        self._since_search = _SEARCH_EVERY_FRAMES
        self._from_file = False
        self._corner_px: tuple[Located, CornerPixels] | None = None
        self.relocations = 0  # times the board was found again elsewhere

    @property
    def grid(self) -> int:
        return self.variant.width

    def _intrinsics(self) -> CameraIntrinsics | None:
        return self.calibration.camera if self.calibration is not None else None

    def _colours(self) -> ColourModel | None:
        return self.calibration.colours if self.calibration is not None else None

    def _corners_for(self, image: np.ndarray) -> tuple[np.ndarray, float, float, bool]:
        """(corners, confidence, the lattice's lens term, whether a1 is known beyond the
        grid's own two choices) of the board in `image`."""
        h, w = image.shape[:2]
        if self.fixed_corners is not None:
            # (Clicked corners are a few pixels off: refined on the grid where it shows.)
            from vision.locate import refine_corners

            check_in_view(self.fixed_corners, (w, h))
            check_corner_shape(self.fixed_corners)
            refined = refine_corners(image, self.fixed_corners, self.grid, self._intrinsics())
            return refined.corners_px, 1.0, refined.lens_k, True
        cal = self.calibration
        if cal is not None and cal.board is not None:
            b = cal.board
            sx, sy = w / b.image_width_px, h / b.image_height_px
            if not same_shape((w, h), (b.image_width_px, b.image_height_px)):
                raise CalibrationMismatch(
                    f"the calibration's board was located in a {b.image_width_px}x"
                    f"{b.image_height_px} image and this one is {w}x{h}, another shape: "
                    f"locate the board again at this resolution (damas calibrate board)")
            return np.array(b.corners_px, np.float64) * (sx, sy), 1.0, b.lens_k, True
        from vision.markers import find_board_any

        found = find_board_any(image, self.grid, self.cfg)
        return found.corners_px, found.confidence, found.lens_k, found.oriented

    def locate(self, image: np.ndarray) -> Located:
        h, w = image.shape[:2]
        key: tuple[object, ...] = (w, h)
        # The camera is fixed: a board found once (however) stays found; `forget_board()`
        # starts over when the camera or the board was moved.
        if self._located is not None and self._located_key == key:
            return self._located
        corners, conf, lens_k, oriented = self._corners_for(image)
        located = self._plan(corners, conf, (w, h), lens_k)
        self._located, self._located_key = located, key
        self._grid = None
        self._from_file = self.fixed_corners is None and self.calibration is not None \
            and self.calibration.board is not None
        self._auto = self.fixed_corners is None and (self.calibration is None
                                                     or self.calibration.board is None)
        # (A board named by its markers has a1 where they say: not turned by the pieces.)
        self._by_markers = self._auto and oriented
        return located

    def _plan(self, corners: np.ndarray, conf: float, size: tuple[int, int],
              lens_k: float = 0.0) -> Located:
        check_in_view(corners, size)
        check_corner_shape(corners)
        pose = pose_from_corners(corners, self.grid, size, self._intrinsics(), lens_k)
        return Located(pose, build_samples(pose, size, self.cfg), conf)

    def forget_board(self) -> None:
        self._located = None
        self._located_key = None
        self._grid = None

    def _still_there(self, image: np.ndarray, located: Located, v: SquareVerdicts,
                     ) -> Located | None:
        """`located`, or the board found again where it now is (keeping which corner is
        a1), or None when the board has left the located grid and is not found again.

        Checked on every frame (a few hundred pixel reads): a bumped camera or a pushed
        board would otherwise be read square by square off the wrong places.  Where the
        pattern is not seen as when located but no clear sign says the board moved (a hand
        over it, the light changed), the reading stands."""
        if self._grid is None:
            self._grid = grid_fit(image, located.pose)
            fit = self._grid[0]
            # Corners from a calibration file were found in another image: where the pattern
            # hardly shows there now, the board is looked for (and kept where it fits better).
            if self._from_file and fit.agree < _MIN_FIT_SHARE * fit.corners:
                found = self._found_again(image, located)
                if found is not None:
                    new = grid_fit(image, found.pose)
                    if new[0].agree > fit.agree:
                        self._located, self._grid = found, new
                        self.relocations += 1
                        return found
            return located
        reference, axis = self._grid
        if self._corner_px is None or self._corner_px[0] is not located:
            self._corner_px = (located, CornerPixels.of(located.pose))
        fit, _ = grid_fit(image, self._corner_px[1], axis)
        if not fit.moved_from(reference):
            self._since_search = _SEARCH_EVERY_FRAMES
            return located
        # (Only the pattern turned round says so for sure: corners merely unseen may be under
        # a hand, which the reading shows as many hidden squares.)
        hand = np.count_nonzero(v.labels == OCCLUDED) > _MAX_HIDDEN_SHARE * len(v.labels)
        gone = None if fit.disagree > fit.agree and not hand else located
        self._since_search += 1
        if self._since_search < _SEARCH_EVERY_FRAMES:
            return gone
        self._since_search = 0
        found = self._found_again(image, located)
        if found is None:
            return gone
        # (It must show most of the pattern seen when the board was located: under a hand a
        # board found elsewhere, a little better than the hidden one, may be a wrong one.)
        new_fit, _ = grid_fit(image, found.pose, axis)
        if new_fit.agree <= fit.agree or new_fit.agree < _MIN_FOUND_SHARE * reference.agree:
            return gone
        self._located, self._grid = found, (new_fit, axis)
        self.relocations += 1
        return found

    def _found_again(self, image: np.ndarray, old: Located) -> Located | None:
        """The board found anew in `image`, its corners in the order (of the eight that keep
        the square pattern) nearest the old ones: a bumped camera moves the board a little."""
        from vision.markers import find_board_any

        try:
            found = find_board_any(image, self.grid, self.cfg)
            best = nearest_order(found.corners_px, old.pose.corners_px)
            return self._plan(best, found.confidence, image.shape[1::-1], found.lens_k)
        except VisionError:
            return None

    def _board_gone(self, located: Located) -> BoardObservation:
        """Every square hidden: the board is not where it was located, nor found again."""
        corners = tuple((float(x), float(y)) for x, y in located.pose.corners_px)
        squares = BaseBoard.empty(self.variant)
        return BoardObservation(squares, {sq: 0.0 for sq in squares.squares},
                                frozenset(squares.squares), corners, 0.0,
                                {"board_moved": True})

    def observe(self, image: np.ndarray) -> BoardObservation:
        located = self.locate(image)
        verdicts = classify(image, located.samples, self.cfg, self._colours())
        still = self._still_there(image, located, verdicts)
        if still is None:
            return self._board_gone(located)
        if still is not located:
            located = still
            verdicts = classify(image, located.samples, self.cfg, self._colours())
        if getattr(self, "_auto", False):
            # A board found without help is symmetric under a half turn (a1 and the opposite
            # corner are both dark), and the camera need not stand on White's side: White's
            # side is where the lighter pieces stand.
            self._auto = False
            # Nor need the game be played on the dark squares (see vision.parity): a quarter
            # turn of the corners makes the other colour's squares the playable ones.
            # (A board named by its markers has a1 where they say, on a dark corner; were it
            # light, they are not laid out as vision.markers reads them, and the pieces say.)
            if played_on_the_other_colour(image, located.pose.corners_px, self.grid):
                located = self._plan(located.pose.corners_px[[1, 2, 3, 0]],
                                     located.confidence, image.shape[1::-1], located.pose.lens_k)
                self._located, self._grid = located, None
                verdicts = classify(image, located.samples, self.cfg, self._colours())
                self._by_markers = False
            order = None if self._by_markers else self._white_side_order(verdicts)
            if order is not None:
                corners = located.pose.corners_px[list(order)]
                located = self._plan(corners, located.confidence, image.shape[1::-1],
                                     located.pose.lens_k)
                self._located, self._grid = located, None
                verdicts = classify(image, located.samples, self.cfg, self._colours())
        return self._to_observation(verdicts, located)

    def learn_colours(self, image: np.ndarray, expected: BaseBoard | None = None,
                      ) -> ColourModel:
        """Colour model from a frame showing `expected` (default: the start position).

        Refuses (a ValueError naming the squares) when the frame does not show that position,
        so a model is never learned from a wrong reading.
        """
        located = self.locate(image)
        v = classify(image, located.samples, self.cfg, None)
        seen = self._to_observation(v, located).board
        expected = expected or BaseBoard.starting(self.variant)
        diff = seen.differences(expected)
        if diff or v.white_lab is None or v.black_lab is None:
            names = " ".join(expected.square_name(sq) for sq in diff[:8]) or "(no two sets)"
            raise ValueError(f"cannot learn the piece colours: the board does not show the "
                             f"expected position (differs on {names})")
        return ColourModel(_lab(v.dark_lab), _lab(v.light_lab), _lab(v.white_lab),
                           _lab(v.black_lab))

    def measure_disc_height(self, image: np.ndarray, expected: BaseBoard | None = None,
                            ) -> float:
        """The discs' height (squares) from a frame showing `expected` (default: the start
        position), every piece read at the number of discs it is.

        With a calibrated lens the king stage takes the height as given (the calibration's
        board), and sets differ in thickness: the start of a game, where every piece is a
        man, measures it.  Refuses (a ValueError naming the squares) when the frame does not
        show that position, so a height is never measured from a wrong reading; and (a
        ValueError saying why) when the image cannot tell it: a view too steep for a lens not
        calibrated, or a height at an end of the range tried (`KingConfig.height_range`).
        """
        located = self.locate(image)
        if not located.samples.kings.leans_known:
            raise ValueError("cannot measure the discs' height: the view is too steep for a "
                             "lens not calibrated (damas calibrate camera)")
        expected = expected or BaseBoard.starting(self.variant)
        discs = np.zeros(len(located.samples.playable), np.intp)
        for sq, piece in expected.piece_map().items():
            discs[sq] = 2 if piece.is_king else 1
        v = classify(image, located.samples, self.cfg, self._colours(), known_discs=discs)
        diff = self._to_observation(v, located).board.differences(expected)
        if diff or not v.disc_height_sq > 0:
            names = " ".join(expected.square_name(sq) for sq in diff[:8]) or "(no piece)"
            raise ValueError(f"cannot measure the discs' height: the board does not show the "
                             f"expected position (differs on {names})")
        lo, hi = (self.cfg.pieces.height_sq * r for r in self.cfg.kings.height_range)
        if not lo * 1.001 < v.disc_height_sq < hi * 0.999:
            raise ValueError(f"cannot measure the discs' height: it is "
                             f"{'at most' if v.disc_height_sq < 0.5 * (lo + hi) else 'at least'}"
                             f" {v.disc_height_sq:.2f} of a square, the end of the range tried")
        return v.disc_height_sq

    def _white_side_order(self, v: SquareVerdicts) -> tuple[int, int, int, int] | None:
        """How to reorder the corners (a1, h1, h8, a8) so that rank 1 is White's side, or None
        to keep them.  Only the orders that keep a1 on a dark corner are possible: a half
        turn, and the two reflections through the dark diagonal (a board whose dark corner is
        at White's right, seen from above); a reflection needs White clearly beside the
        board's rank axis, not merely a little off the middle."""
        coords = geometry(self.variant.width, self.variant.height).coords
        white: list[tuple[int, int]] = []
        black: list[tuple[int, int]] = []
        for sq, code in enumerate(v.labels):
            if int(code) in _PIECE_OF:
                is_white = _PIECE_OF[int(code)].color.value == "white"
                (white if is_white else black).append(coords[sq])
        if not white or not black:
            return None
        dfile, drank = (np.mean(np.array(white, float), axis=0)
                        - np.mean(np.array(black, float), axis=0))
        if abs(dfile) > abs(drank) + 1.0 and abs(dfile) > 1.5:
            # White on the a-file side: a1 stays, h1 and a8 swap; on the h-file side, h8
            # becomes a1.
            return (0, 3, 2, 1) if dfile < 0 else (2, 1, 0, 3)
        if drank > 0.5:
            return (2, 3, 0, 1)
        return None

    def _to_observation(self, v: SquareVerdicts, located: Located) -> BoardObservation:
        board = BaseBoard.empty(self.variant)
        occluded = set()
        confidence = {}
        for sq, code in enumerate(v.labels):
            confidence[sq] = float(v.confidence[sq])
            if code == OCCLUDED:
                occluded.add(sq)
            elif int(code) in _PIECE_OF:
                board.set_piece_at(sq, _PIECE_OF[int(code)])
        corners = tuple((float(x), float(y)) for x, y in located.pose.corners_px)
        return BoardObservation(board, confidence, frozenset(occluded), corners,
                                located.confidence,
                                {"contrast": v.contrast, "tilt_deg": located.pose.tilt_deg()})


def _with_the_pieces_of(cfg: VisionConfig, calibration: Calibration | None) -> VisionConfig:
    """`cfg` with the discs' size the calibration's board gives (its `disc_height_mm` and
    `disc_diameter_mm` over `square_mm`), where it has a board.

    With a calibrated lens the king stage takes the discs' height as given, and a set of
    another thickness then reads wrong: rendered scenes with 10 mm discs, read as the
    default 7 mm, called 183 of 1,216 men and kings wrong; told 10 mm, 2."""
    if calibration is None or calibration.board is None:
        return cfg
    b = calibration.board
    return replace(cfg, pieces=PieceGeometry.from_mm(b.square_mm, b.disc_diameter_mm,
                                                     b.disc_height_mm))


def _lab(x: np.ndarray) -> tuple[float, float, float]:
    return float(x[0]), float(x[1]), float(x[2])
