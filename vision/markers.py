"""Find and name the board by the ArUco markers printed on its sheet, where it carries them.

A board may carry four markers of OpenCV's 4x4 dictionary (`DICT_4X4_50`) beyond the corners
of its playing grid, one per corner, their ids running clockwise from White's top left as the
sheet is printed: 0 beyond a8, 1 beyond h8, 2 beyond h1, 3 beyond a1 (as on
fhgr-board-v2.jpg, a robotics course's board, and as the simulated table draws them).

They say which corner is a1 (`FoundBoard.oriented`), which a board without them leaves to
the pieces: an empty board, or one seen from Black's side, is named right.  And where the
square pattern alone finds no board (a photo compressed until the frame's letters look like
squares), they find it: how far each sits from the grid differs from board to board, so a
marker is no grid corner, but the image warped so that the markers' centres make a square
undoes the camera's perspective and leaves out all beyond the sheet; the grid is searched on
that view (vision.locate), its corners taken back to the image and refined there.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.targets import MM_PER_INCH
from vision import locate
from vision.config import VisionConfig
from vision.errors import BoardNotFound, BoardOutOfView, VisionError
from vision.geometry import nearest_order, outside_image
from vision.locate import FoundBoard, refine_corners

DICTIONARY = cv2.aruco.DICT_4X4_50
# Marker id beyond each grid corner, in the corners' order (a1, h1, h8, a8).
ID_AT_CORNER = (3, 2, 1, 0)
# The warped view: the markers' centres this share of its side in from its edges, the side
# the board's own size in the image, within these bounds (px).
_MARGIN_SHARE = 0.04
_GUESSED_MARGIN_SHARE = 0.2  # (with one marker guessed: the view is less square)
_SIDE_PX = (480, 1400)


def detect_markers(image_bgr: np.ndarray) -> dict[int, np.ndarray]:
    """id -> the marker's four corners (4, 2) in the image, for the ids of `ID_AT_CORNER`
    seen (of two with one id, the larger)."""
    grey = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        q = np.asarray(quad, np.float64).reshape(4, 2)
        i = int(marker_id)
        if i in ID_AT_CORNER and (i not in found or cv2.contourArea(q.astype(np.float32))
                                  > cv2.contourArea(found[i].astype(np.float32))):
            found[i] = q
    return found


def _centres(markers: dict[int, np.ndarray]) -> tuple[np.ndarray, list[int]] | None:
    """(the markers' centres in the corners' order (4, 2), which of them were guessed), or
    None with fewer than three markers.  Of three, the fourth is put where they make a
    parallelogram: a view warped by them is then rectified up to the perspective across the
    board, which the search takes in its stride."""
    missing = [k for k, i in enumerate(ID_AT_CORNER) if i not in markers]
    if len(missing) > 1:
        return None
    centres = np.array([markers[i].mean(axis=0) if i in markers else (np.nan, np.nan)
                        for i in ID_AT_CORNER])
    for k in missing:
        centres[k] = centres[(k - 1) % 4] + centres[(k + 1) % 4] - centres[(k + 2) % 4]
    return centres, missing


def find_board_by_markers(image_bgr: np.ndarray, grid: int, cfg: VisionConfig,
                          markers: dict[int, np.ndarray] | None = None) -> FoundBoard | None:
    """The board's outer grid corners (a1, h1, h8, a8), found between its markers
    (`detect_markers`' when not given) and oriented by them, or None where the image shows
    fewer than three of them.

    Raises BoardNotFound when the markers are there and no grid between them, and
    BoardOutOfView when the grid found runs past the image."""
    markers = detect_markers(image_bgr) if markers is None else markers
    seen = _centres(markers)
    if seen is None:
        return None
    centres, missing = seen
    side_px = float(np.clip(np.mean(np.linalg.norm(centres - np.roll(centres, 1, axis=0),
                                                   axis=1)), *_SIDE_PX))
    share = _MARGIN_SHARE if not missing else _GUESSED_MARGIN_SHARE
    m, far = share * side_px, (1 - share) * side_px
    # a1's marker at the warped view's bottom left, as White sees the board.
    square = np.array([[m, far], [far, far], [far, m], [m, m]])
    to_view = cv2.getPerspectiveTransform(centres.astype(np.float32), square.astype(np.float32))
    size = int(round(side_px))
    view = cv2.warpPerspective(image_bgr, to_view, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    _paint_out(view, [cv2.perspectiveTransform(markers[i].reshape(-1, 1, 2), to_view)
                      .reshape(4, 2) for i in ID_AT_CORNER if i in markers])
    try:
        found = locate.find_board(view, grid, cfg)
    except BoardOutOfView:
        raise BoardNotFound("the board's markers are there, but no whole grid between them; "
                            "give --corners") from None
    back = cv2.perspectiveTransform(found.corners_px.reshape(-1, 1, 2).astype(np.float64),
                                    np.linalg.inv(to_view)).reshape(4, 2)
    corners = nearest_order(back, centres)
    h, w = image_bgr.shape[:2]
    if outside_image(corners, (w, h)).any():
        raise BoardOutOfView("board partly out of view: its outer corners fall outside the "
                             "image")
    refined = refine_corners(image_bgr, corners, grid)
    return FoundBoard(refined.corners_px, found.confidence, refined.lens_k, oriented=True)


def _paint_out(view: np.ndarray, quads: list[np.ndarray], grow: float = 1.25) -> None:
    """Paint each marker (its quad grown by `grow` about its centre) in the colour of the
    sheet around it: a marker's black and white cells line up with the grid in the warped
    view, and the search took them for squares off the board, too many to leave out."""
    h, w = view.shape[:2]
    for q in quads:
        c = q.mean(axis=0)
        inner = (c + grow * (q - c)).astype(np.int32)
        ring = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(ring, (c + 1.6 * grow * (q - c)).astype(np.int32), 1)
        cv2.fillConvexPoly(ring, inner, 0)
        colour = np.median(view[ring > 0], axis=0) if ring.any() else view.mean(axis=(0, 1))
        cv2.fillConvexPoly(view, inner, tuple(float(v) for v in colour))


def find_board_any(image_bgr: np.ndarray, grid: int, cfg: VisionConfig) -> FoundBoard:
    """The board found by its square pattern (vision.locate.find_board) and named by its
    markers where three or four are in view; where the pattern alone finds none, found
    between the markers (`find_board_by_markers`).

    The search on the image itself comes first: between the markers, the warped view bends
    the camera's lens about another centre, and under an arm its corners came out up to a
    third of a square off where the search on the image put them within a twentieth (one of
    500 rendered scenes with markers)."""
    markers = detect_markers(image_bgr)
    try:
        found = locate.find_board(image_bgr, grid, cfg)
    except VisionError:
        try:
            by_markers = find_board_by_markers(image_bgr, grid, cfg, markers)
        except VisionError:
            by_markers = None
        if by_markers is None:
            raise
        return by_markers
    seen = _centres(markers)
    if seen is None:
        return found
    named = nearest_order(found.corners_px, seen[0])
    return FoundBoard(named, found.confidence, found.lens_k, oriented=True)


CORNER_NAMES = ("a1", "h1", "h8", "a8")  # (the corners' order, as ID_AT_CORNER)


def marker_sheet(marker_mm: float = 30.0, dpi: float = 300.0) -> np.ndarray:
    """The four markers to print, cut out and stick beyond the grid's corners (grey image at
    `dpi` pixels per inch): each `marker_mm` wide at 100 % scale, within a white margin a
    quarter of its side (the quiet zone a detector needs), labelled with its id and the
    corner it goes beyond, as on the sheet a board is printed on: 0 top left, beyond a8."""
    if not marker_mm > 0 or not dpi > 0:
        raise ValueError(f"markers of {marker_mm} mm at {dpi} dpi: both must be > 0")
    side = max(8, round(marker_mm * dpi / MM_PER_INCH))
    quiet = side // 4
    label = max(20, side // 5)
    cell_w, cell_h = side + 2 * quiet, side + 2 * quiet + label
    sheet = np.full((2 * cell_h, 2 * cell_w), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    # (Laid out as they go round the board seen from White's side: a8 and h8 above.)
    for corner, marker_id, (row, col) in zip(CORNER_NAMES, ID_AT_CORNER,
                                             ((1, 0), (1, 1), (0, 1), (0, 0)), strict=True):
        x0, y0 = col * cell_w + quiet, row * cell_h + quiet
        sheet[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(dictionary, marker_id,
                                                                          side)
        text = f"{marker_id}: beyond {corner}"
        scale = label / 40.0
        cv2.putText(sheet, text, (x0, y0 + side + int(0.8 * label)), cv2.FONT_HERSHEY_SIMPLEX,
                    scale, 0, max(1, label // 12), cv2.LINE_AA)
    return sheet
