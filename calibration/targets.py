"""Printed calibration targets, found in photos, and the camera intrinsics they give.

Two targets: a plain chessboard (every inner corner must be in view, so each photo shows the
whole pattern, which keeps the image's edges, where a lens bends most, poorly covered), and a
ChArUco board: a chessboard with an ArUco marker in each white square, whose corners are each
named by the markers beside them, so a photo showing only part of the board still counts and
the pattern can be pushed into the image's corners.  `charuco_image` draws one to print.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraIntrinsics

# A ChArUco corner is named by the two markers beside it; fewer corners than this in one photo
# are too few to tell its pose (they may also lie on one line).
MIN_CHARUCO_CORNERS = 6
MM_PER_INCH = 25.4
DEFAULT_DICTIONARY = "DICT_4X4_50"  # (the dictionary of the board's own corner markers too)


class TargetError(ValueError):
    """A calibration target that cannot be described; `field` names the value at fault
    ("size", "square_mm", "marker_mm", "dictionary" or "dpi"), for a command line to name its
    flag."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def _check_grid(cols: int, rows: int, square_mm: float, least: int, what: str,
                counted: str) -> None:
    """A TargetError unless the target has at least `least` x `least` of what it counts and
    squares of some size."""
    if cols < least or rows < least:
        raise TargetError(f"{what} has at least {least}x{least} {counted}, not {cols}x{rows}",
                          "size")
    if not square_mm > 0:
        raise TargetError(f"the printed squares' side is {square_mm} mm: it must be > 0",
                          "square_mm")


@dataclass(frozen=True)
class Chessboard:
    """A printed chessboard: `cols` x `rows` inner corners, squares `square_mm` wide."""

    cols: int
    rows: int
    square_mm: float

    def __post_init__(self) -> None:
        _check_grid(self.cols, self.rows, self.square_mm, 2, "a chessboard", "inner corners")

    @property
    def name(self) -> str:
        return f"{self.cols}x{self.rows} chessboard"


@dataclass(frozen=True)
class Charuco:
    """A printed ChArUco board: `cols` x `rows` squares (not inner corners), squares
    `square_mm` wide, markers `marker_mm` wide from OpenCV's dictionary `dictionary`
    (e.g. "DICT_4X4_50")."""

    cols: int
    rows: int
    square_mm: float
    marker_mm: float
    dictionary: str = DEFAULT_DICTIONARY

    def __post_init__(self) -> None:
        _check_grid(self.cols, self.rows, self.square_mm, 3, "a ChArUco board", "squares")
        if not 0 < self.marker_mm < self.square_mm:
            raise TargetError(f"the markers ({self.marker_mm} mm) must be smaller than the "
                              f"squares ({self.square_mm} mm)", "marker_mm")
        names = dictionary_names()
        if self.dictionary not in names:
            raise TargetError(f"no ArUco dictionary {self.dictionary!r}; OpenCV's are "
                              f"{', '.join(names)}", "dictionary")
        markers = (self.cols * self.rows) // 2
        size = int(self.dictionary.rsplit("_", 1)[1])
        if markers > size:
            raise TargetError(f"a {self.cols}x{self.rows} ChArUco board needs {markers} markers; "
                              f"{self.dictionary} has {size}", "size")

    @property
    def name(self) -> str:
        return f"{self.cols}x{self.rows} ChArUco board"

    def board(self, legacy: bool = False):  # type: ignore[no-untyped-def]
        """OpenCV's board.  `legacy`: the layout OpenCV used before 4.6 for an even number of
        rows (its squares' colours the other way round), as older generators still print it."""
        import cv2

        aruco = cv2.aruco
        board = aruco.CharucoBoard((self.cols, self.rows), self.square_mm, self.marker_mm,
                                   aruco.getPredefinedDictionary(getattr(aruco, self.dictionary)))
        if legacy:
            board.setLegacyPattern(True)
        return board


def dictionary_names() -> list[str]:
    """OpenCV's predefined ArUco dictionaries of square markers (DICT_4X4_50 ... DICT_7X7_1000)."""
    import cv2

    return sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_") and n[5:6].isdigit())


def parse_size(text: str, flag: str) -> tuple[int, int]:
    """"9x6" -> (9, 6); a clear error naming `flag` otherwise."""
    try:
        cols, rows = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise TargetError(f"{flag} {text!r}: expected two whole numbers, e.g. 9x6",
                          "size") from None
    return cols, rows


def find_chessboard(gray: np.ndarray, target: Chessboard) -> tuple[np.ndarray, np.ndarray] | None:
    """(board points in mm (N x 3), image points (N x 2)) of a chessboard seen whole, or None."""
    import cv2

    ok, corners = cv2.findChessboardCornersSB(gray, (target.cols, target.rows),
                                              flags=cv2.CALIB_CB_ACCURACY)
    if not ok:
        return None
    obj = np.zeros((target.rows * target.cols, 3), np.float32)
    obj[:, :2] = np.mgrid[0:target.cols, 0:target.rows].T.reshape(-1, 2) * target.square_mm
    return obj, corners.reshape(-1, 2).astype(np.float32)


def find_charuco(gray: np.ndarray, target: Charuco) -> tuple[np.ndarray, np.ndarray] | None:
    """(board points in mm (N x 3), image points (N x 2)) of the ChArUco corners in view, or
    None when fewer than MIN_CHARUCO_CORNERS are, or they lie on one line.

    Both layouts of a board with an even number of rows are tried (OpenCV changed it in 4.6;
    printed boards of either kind are about), and the one that names more corners kept."""
    import cv2

    best: tuple[np.ndarray, np.ndarray] | None = None
    for legacy in ((False, True) if target.rows % 2 == 0 else (False,)):
        board = target.board(legacy)
        corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
        if corners is None or ids is None or len(ids) < MIN_CHARUCO_CORNERS:
            continue
        if board.checkCharucoCornersCollinear(ids):
            continue
        obj, img = board.matchImagePoints(corners, ids)
        if best is None or len(obj) > len(best[0]):
            best = (obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32))
    return best


def find_target(gray: np.ndarray, target: Chessboard | Charuco,
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """The target's points in one grey photo (see `find_chessboard`, `find_charuco`)."""
    if isinstance(target, Charuco):
        return find_charuco(gray, target)
    return find_chessboard(gray, target)


@dataclass(frozen=True)
class CalibrationResult:
    """The camera found, with what says how far to trust it: each photo's reprojection error
    (px, in the photos' order) and the share of the image the target's points covered in all
    the photos together (a lens is measured only where the target was seen)."""

    camera: CameraIntrinsics
    view_rms_px: tuple[float, ...]
    coverage: float


def calibrate_views(views: list[tuple[np.ndarray, np.ndarray]], size: tuple[int, int],
                    ) -> CalibrationResult:
    """The camera (pinhole, k1 k2 p1 p2 radial and tangential terms) that best explains the
    target's points in every view; `size` is the photos' (width, height)."""
    import cv2

    obj = [o.reshape(-1, 1, 3).astype(np.float32) for o, _ in views]
    img = [i.reshape(-1, 1, 2).astype(np.float32) for _, i in views]
    # (k3 fixed at 0: a handful of photos cannot pin a sixth-order term, which then bends the
    # image edges; k1, k2 describe ordinary lenses well.)
    rms, k, dist, _, _, _, _, per_view = cv2.calibrateCameraExtended(
        obj, img, size, None, None, flags=cv2.CALIB_FIX_K3)
    camera = CameraIntrinsics(size[0], size[1], float(k[0, 0]), float(k[1, 1]), float(k[0, 2]),
                              float(k[1, 2]), tuple(float(v) for v in dist.ravel()[:5]),
                              float(rms))
    return CalibrationResult(camera, tuple(float(v) for v in np.ravel(per_view)),
                             _coverage([i for _, i in views], size))


def _coverage(points: list[np.ndarray], size: tuple[int, int], cells: int = 8) -> float:
    """Share of an 8 x 8 division of the image whose cells hold a target point in some photo."""
    w, h = size
    seen = np.zeros((cells, cells), bool)
    for p in points:
        p = p.reshape(-1, 2)
        cx = np.clip((p[:, 0] / w * cells).astype(int), 0, cells - 1)
        cy = np.clip((p[:, 1] / h * cells).astype(int), 0, cells - 1)
        seen[cy, cx] = True
    return float(seen.mean())


def charuco_image(target: Charuco, dpi: float = 300.0, margin_mm: float = 10.0) -> np.ndarray:
    """The board to print (grey, a white margin of about `margin_mm` round it) at `dpi` pixels
    per inch: each square a whole number of pixels, `square_printed_mm` wide at 100 % scale."""
    if not dpi > 0:
        raise TargetError(f"--dpi {dpi}: pixels per inch, > 0", "dpi")
    square_px = square_printed_px(target, dpi)
    margin_px = round(margin_mm * dpi / MM_PER_INCH)
    # (An image exactly the squares plus the margins: OpenCV then draws each square
    # `square_px` wide, where it would otherwise round a fractional size.)
    size = (target.cols * square_px + 2 * margin_px, target.rows * square_px + 2 * margin_px)
    return target.board().generateImage(size, marginSize=margin_px, borderBits=1)


def square_printed_px(target: Charuco, dpi: float) -> int:
    """A square's side in `charuco_image` at `dpi`: the whole number of pixels nearest to it."""
    return max(1, round(target.square_mm * dpi / MM_PER_INCH))


def square_printed_mm(target: Charuco, dpi: float) -> float:
    """A square's side, printed at 100 % scale, of `charuco_image` at `dpi`."""
    return square_printed_px(target, dpi) * MM_PER_INCH / dpi
