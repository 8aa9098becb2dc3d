"""`damas detect` and `damas calibrate camera|board`: the vision pipeline from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.store import (
    BoardCalibration,
    Calibration,
    load_calibration,
    replace_section,
    save_calibration,
)
from calibration.targets import (
    DEFAULT_DICTIONARY,
    CalibrationResult,
    Charuco,
    Chessboard,
    TargetError,
    calibrate_views,
    charuco_image,
    find_target,
    parse_size,
    square_printed_mm,
)
from game.variants import Variant, find_variant
from vision.annotate import annotate
from vision.config import PieceGeometry, VisionConfig
from vision.errors import BoardNotFound
from vision.markers import marker_sheet
from vision.observation import BoardObservation
from vision.pipeline import BoardObserver
from vision.sources import IMAGE_SUFFIXES, has_colour, read_image

DEFAULT_VARIANT = "brazilian"
# Without --variant, a board that is not 8x8 is read as the usual 10x10 game.
VARIANT_OF_GRID = {8: "brazilian", 10: "international"}
# A ChArUco marker's side, as a share of its square's, unless told (as `damas calibrate target`
# prints it).
DEFAULT_MARKER_SHARE = 0.75


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("detect", help="read the pieces on a board from one image")
    p.add_argument("image", metavar="IMAGE")
    p.add_argument("--variant", default=None,
                   help="brazilian (default), international, ...; without it a board that is "
                        "not 8x8 is tried as 10x10, or the calibration file's grid is used")
    p.add_argument("--corners", default=None,
                   help='outer grid corners "x,y x,y x,y x,y" in the order a1, h1, h8, a8')
    p.add_argument("--calibration", default=None, help="calibration file (JSON)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--annotate", default=None, metavar="OUT.png",
                   help="write the image with the grid and the classification drawn on it")
    p.set_defaults(func=cmd_detect)


def register_calibrate(calib_sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    c = calib_sub.add_parser(
        "camera", help="camera intrinsics from photos of a printed chessboard or ChArUco board")
    c.add_argument("images", nargs="+", metavar="IMAGE",
                   help="photos of the target, or a folder of them")
    c.add_argument("--pattern", default="9x6", help="inner corners of the chessboard, e.g. 9x6")
    c.add_argument("--charuco", default=None, metavar="COLSxROWS",
                   help="a ChArUco board of this many squares (e.g. 7x5) instead of a chessboard: "
                        "photos showing only part of it count (see `damas calibrate target`)")
    c.add_argument("--square-mm", type=float, default=None,
                   help="side of one printed square, in mm (default 25; a ChArUco board 30)")
    c.add_argument("--marker-mm", type=float, default=None,
                   help="side of one ChArUco marker, in mm (default 0.75 of the square)")
    c.add_argument("--dictionary", default=DEFAULT_DICTIONARY,
                   help=f"the ChArUco markers' OpenCV dictionary (default {DEFAULT_DICTIONARY})")
    c.add_argument("--output", default="calibration.json")
    c.set_defaults(func=cmd_calibrate_camera)

    t = calib_sub.add_parser("target", help="write a ChArUco board to print, for `damas "
                                            "calibrate camera --charuco`; or the board's corner "
                                            "markers (--board-markers)")
    t.add_argument("output", metavar="OUT.png")
    t.add_argument("--board-markers", action="store_true",
                   help="instead, the four ArUco markers a board may carry beyond its grid's "
                        "corners (found and named by them; --marker-mm default 30)")
    t.add_argument("--charuco", default="7x5", metavar="COLSxROWS",
                   help="squares across and down (default 7x5: 210 x 150 mm, on A4)")
    t.add_argument("--square-mm", type=float, default=30.0)
    t.add_argument("--marker-mm", type=float, default=None,
                   help="side of one marker, in mm (default 0.75 of the square)")
    t.add_argument("--dictionary", default=DEFAULT_DICTIONARY)
    t.add_argument("--dpi", type=float, default=300.0, help="printer pixels per inch (default 300)")
    t.set_defaults(func=cmd_calibrate_target)

    b = calib_sub.add_parser("board", help="locate the board once (fixed camera)")
    b.add_argument("image", metavar="IMAGE")
    b.add_argument("--variant", default="brazilian")
    b.add_argument("--corners", default=None, help='"x,y x,y x,y x,y" (a1, h1, h8, a8)')
    b.add_argument("--square-mm", type=float, default=40.0,
                   help="side of one square, in mm (default 40)")
    b.add_argument("--disc-height-mm", type=float, default=None,
                   help="thickness of one piece, in mm (a king is two): with a calibrated "
                        "camera the king test takes it as given.  Default: measured from the "
                        "start position in the image, else 7")
    b.add_argument("--disc-diameter-mm", type=float, default=30.0,
                   help="diameter of one piece, in mm (default 30)")
    b.add_argument("--output", default="calibration.json")
    b.set_defaults(func=cmd_calibrate_board)


def parse_corners(text: str) -> np.ndarray:
    try:
        pts = [tuple(float(v) for v in item.split(",")) for item in text.split()]
    except ValueError:
        raise ValueError(f"--corners {text!r}: expected four 'x,y' pairs") from None
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise ValueError(f"--corners {text!r}: expected four 'x,y' pairs separated by spaces")
    return np.array(pts, np.float64)


def _variant_for(name: str | None, calibration: Calibration | None) -> Variant:
    """The variant asked for, else the one the calibration's grid implies, else the default.

    A calibration made for another grid size would put the squares in the wrong places:
    refused with both sizes named.
    """
    grid = calibration.board.grid if calibration and calibration.board else None
    if name is None:
        name = VARIANT_OF_GRID.get(grid, DEFAULT_VARIANT) if grid else DEFAULT_VARIANT
    variant = find_variant(name)
    if grid is not None and grid != variant.width:
        raise ValueError(f"the calibration is for a {grid}x{grid} board, but {variant.name} "
                         f"is played on {variant.width}x{variant.width}; give --variant to match")
    return variant


def observe_any_grid(image: np.ndarray, variant: Variant, guess_grid: bool,
                     ) -> BoardObservation:
    """Find the board automatically; when no 8x8 pattern is there, try 10x10: read it when
    `guess_grid` (no --variant given), else name the variant in the refusal.

    Only a board that is *not* found as 8x8 is tried as 10x10, so an 8x8 board is never read
    as part of a larger grid.  The note on stderr says which variant the reading assumes.
    """
    try:
        return BoardObserver(variant).observe(image)
    except BoardNotFound as first:
        for grid, name in VARIANT_OF_GRID.items():
            if grid == variant.width:
                continue
            try:
                obs = BoardObserver(name).observe(image)
            except BoardNotFound:
                continue
            if not guess_grid:
                raise BoardNotFound(f"no {variant.width}x{variant.width} board found, but a "
                                    f"{grid}x{grid} one: give --variant {name}") from None
            print(f"note: no {variant.width}x{variant.width} board found, but a {grid}x{grid} "
                  f"one: read as {name} (--variant chooses)", file=sys.stderr)
            return obs
        raise first


def cmd_detect(args: argparse.Namespace) -> int:
    if args.annotate and not cv2.haveImageWriter(args.annotate):
        raise ValueError(f"--annotate {args.annotate!r}: not an image file name OpenCV can "
                         f"write (use .png or .jpg)")
    if args.annotate and Path(args.annotate).resolve() == Path(args.image).resolve():
        raise ValueError(f"--annotate {args.annotate!r} is the photo itself: drawing on it "
                         f"would replace it; name another file")
    image = read_image(args.image)
    if not has_colour(image):
        print("note: the image has no colour (greyscale): pieces and squares are told apart "
              "by brightness alone, and a dark set on dark squares or one set from the other "
              "may be misread", file=sys.stderr)
    calibration = load_calibration(args.calibration) if args.calibration else None
    corners = parse_corners(args.corners) if args.corners else None
    variant = _variant_for(args.variant, calibration)
    if corners is None and calibration is None:
        obs = observe_any_grid(image, variant, guess_grid=args.variant is None)
    else:
        obs = BoardObserver(variant, calibration=calibration, corners_px=corners).observe(image)
    if args.annotate:
        out = annotate(image, obs)
        if not cv2.imwrite(args.annotate, out):
            raise OSError(f"cannot write {args.annotate!r}")
    if args.json:
        print(json.dumps(obs.to_json_dict()))
    else:
        print(obs.board)
        if obs.occluded:
            names = " ".join(sorted(obs.board.geometry.algebraic(s) for s in obs.occluded))
            print(f"occluded: {names}")
        print(obs.fen())
    return 0


DEFAULT_DISC_HEIGHT_MM = 7.0


def _check_sizes(args: argparse.Namespace) -> None:
    for flag, mm in (("--square-mm", args.square_mm), ("--disc-height-mm", args.disc_height_mm),
                     ("--disc-diameter-mm", args.disc_diameter_mm)):
        if mm is not None and not mm > 0:
            raise ValueError(f"{flag} {mm:g}: a size in mm, above 0")
    if args.disc_diameter_mm >= args.square_mm:
        raise ValueError(f"--disc-diameter-mm {args.disc_diameter_mm:g}: a piece stands inside "
                         f"its square (--square-mm {args.square_mm:g})")


def cmd_calibrate_board(args: argparse.Namespace) -> int:
    _check_sizes(args)
    variant = find_variant(args.variant)
    image = read_image(args.image)
    corners = parse_corners(args.corners) if args.corners else None
    out = Path(args.output)
    cal = load_calibration(out) if out.exists() else Calibration()
    # (The lens, where already calibrated; not the old board, which this one replaces.)
    lens = Calibration(camera=cal.camera)

    def observer_for(disc_height_mm: float, at: np.ndarray | None) -> BoardObserver:
        # (The pieces' size: the start position is read with it, men of taller discs would
        # pass for kings of the default ones.)
        cfg = VisionConfig(pieces=PieceGeometry.from_mm(args.square_mm, args.disc_diameter_mm,
                                                        disc_height_mm))
        return BoardObserver(variant, cfg=cfg, calibration=lens, corners_px=at)

    observer = observer_for(args.disc_height_mm or DEFAULT_DISC_HEIGHT_MM, corners)
    # (A first observation turns a board found without help so that a1 is at White's side,
    # told by the pieces, and onto the squares they stand on; the corners saved are those.)
    observer.observe(image)
    located = observer.locate(image)
    height_mm, how, default = args.disc_height_mm, "", ""
    if height_mm is None:
        # Sets differ in thickness: the start position, every piece a man, measures it.
        try:
            height_mm = observer.measure_disc_height(image) * args.square_mm
            how = ", their height measured from the start position"
            observer = observer_for(height_mm, located.pose.corners_px)
        except ValueError as e:
            height_mm = DEFAULT_DISC_HEIGHT_MM
            default = f"; their height is the default, {e}: give --disc-height-mm"
    h, w = image.shape[:2]
    board = BoardCalibration(variant.width, tuple((float(x), float(y))
                                                  for x, y in located.pose.corners_px),
                             w, h, square_mm=args.square_mm, disc_height_mm=round(height_mm, 1),
                             disc_diameter_mm=args.disc_diameter_mm,
                             lens_k=round(located.pose.lens_k, 5))
    cal = replace_section(cal, board=board)
    note = ""
    try:
        # Pieces in the start position teach the colour model too (see vision.pieces).
        cal = replace_section(cal, colours=observer.learn_colours(image))
        note = ", piece colours learned from the start position"
    except ValueError:
        pass
    save_calibration(cal, out)
    print(f"board saved to {out} (tilt {located.pose.tilt_deg():.0f} deg, discs "
          f"{board.disc_diameter_mm:g} x {board.disc_height_mm:g} mm on "
          f"{board.square_mm:g} mm squares{how}{note}{default})")
    return 0


def _image_files(paths: list[str]) -> list[str]:
    """The image files named, a folder standing for the images in it (sorted by name)."""
    files: list[str] = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            inside = sorted(str(f) for f in p.iterdir()
                            if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES)
            if not inside:
                raise ValueError(f"{path!r}: a folder with no images "
                                 f"({', '.join(IMAGE_SUFFIXES)})")
            files.extend(inside)
        else:
            files.append(path)
    return files


def _write_board_markers(args: argparse.Namespace, out: Path) -> int:
    marker_mm = 30.0 if args.marker_mm is None else args.marker_mm
    if not marker_mm > 0 or not args.dpi > 0:
        raise ValueError(f"--marker-mm {marker_mm:g} --dpi {args.dpi:g}: both must be > 0")
    if not cv2.imwrite(str(out), marker_sheet(marker_mm, args.dpi)):
        raise OSError(f"cannot write {args.output!r}")
    print(f"the board's four markers written to {out}: print at 100% scale ({args.dpi:g} dpi), "
          f"cut each out with its white margin and stick it just beyond the grid's corner its "
          f"label names (0 beyond a8, 1 beyond h8, 2 beyond h1, 3 beyond a1), flat and square "
          f"to the board's edges; damas detect then finds and names the board by them")
    return 0


def _target(args: argparse.Namespace) -> Chessboard | Charuco:
    """The calibration target the flags describe; a bad value is named by its flag."""
    size_flag = "--pattern" if args.charuco is None else "--charuco"
    try:
        if args.charuco is None:
            cols, rows = parse_size(args.pattern, size_flag)
            return Chessboard(cols, rows, 25.0 if args.square_mm is None else args.square_mm)
        return _charuco(args, 30.0)
    except TargetError as e:
        raise ValueError(_flagged(e, args, size_flag)) from None


def _charuco(args: argparse.Namespace, default_square_mm: float) -> Charuco:
    cols, rows = parse_size(args.charuco, "--charuco")
    square = default_square_mm if args.square_mm is None else args.square_mm
    marker = DEFAULT_MARKER_SHARE * square if args.marker_mm is None else args.marker_mm
    return Charuco(cols, rows, square, marker, args.dictionary)


def _flagged(e: TargetError, args: argparse.Namespace, size_flag: str) -> str:
    """The error, led by the flag and value at fault (unless it already names them)."""
    flag, value = {"size": (size_flag, args.charuco or getattr(args, "pattern", None)),
                   "square_mm": ("--square-mm", args.square_mm),
                   "marker_mm": ("--marker-mm", args.marker_mm),
                   "dictionary": ("--dictionary", args.dictionary),
                   "dpi": ("--dpi", getattr(args, "dpi", None))}[e.field]
    text = str(e)
    return text if text.startswith("--") else f"{flag} {value}: {text}"


def cmd_calibrate_camera(args: argparse.Namespace) -> int:
    target = _target(args)
    views = []
    found_in: list[bool] = []
    size = None
    files = _image_files(args.images)
    for i, path in enumerate(files, 1):
        gray = cv2.cvtColor(read_image(path), cv2.COLOR_BGR2GRAY)
        if size is not None and gray.shape[::-1] != size:
            raise ValueError(f"{path!r} is {gray.shape[1]}x{gray.shape[0]} px, the images "
                             f"before it {size[0]}x{size[1]}: one camera at one resolution")
        size = gray.shape[::-1]
        found = find_target(gray, target)
        found_in.append(found is not None)
        if found is not None:
            views.append(found)
        # (Finding the pattern takes a second or so per photo: say how far it has got.)
        kind = "chessboard" if isinstance(target, Chessboard) else "ChArUco board"
        if found is None:
            what = f"no {kind}"
        else:
            # (A ChArUco board may show part of itself: how much.)
            what = f"{kind} found" + ("" if isinstance(target, Chessboard)
                                      else f" ({len(found[0])} corners)")
        print(f"[{i}/{len(files)}] {path}: {what}", file=sys.stderr, flush=True)
    if len(views) < 3 or size is None:
        raise ValueError(f"the {target.name} was found in {len(views)} image(s); need at least 3"
                         + ("" if isinstance(target, Chessboard) or views else
                            f" (are its squares {target.cols}x{target.rows} and its markers "
                            f"from {target.dictionary}?)"))
    result = calibrate_views(views, size)
    cam = result.camera
    out = Path(args.output)
    cal = load_calibration(out) if out.exists() else Calibration()
    save_calibration(replace_section(cal, camera=cam), out)
    print(f"camera saved to {out} (rms {cam.rms_px:.2f} px from {len(views)} images)")
    _say_how_good(result, [f for f, v in zip(files, found_in, strict=True) if v])
    return 0


# A calibration whose photos disagree by more than this (rms, px) is suspect; a photo whose own
# error is this many times the median's is the likely cause.  With the target seen in under
# half the cells of an 8 x 8 division of the image, the lens is measured only where it was.
_SUSPECT_RMS_PX = 1.0
_ODD_VIEW = 2.0
_FEW_CELLS = 0.5


def _say_how_good(result: CalibrationResult, files: list[str]) -> None:
    """Warnings on stderr when the calibration should not be trusted as it stands."""
    rms = result.camera.rms_px or 0.0
    if rms > _SUSPECT_RMS_PX:
        median = float(np.median(result.view_rms_px))
        odd = [f"{f} ({e:.1f} px)" for f, e in zip(files, result.view_rms_px, strict=True)
               if e > max(_ODD_VIEW * median, _SUSPECT_RMS_PX)]
        print(f"warning: the photos disagree (rms {rms:.2f} px; a good calibration is under "
              f"0.5): " + (f"worst {', '.join(odd)}; leave it out or take it again (blurred? "
                           f"the target not flat? another camera or zoom?)" if odd else
                           "is the target flat, and every photo from one camera at one zoom?"),
              file=sys.stderr)
    if result.coverage < _FEW_CELLS:
        print(f"note: the target covered {100 * result.coverage:.0f}% of the image in all the "
              f"photos together; photos with it near the image's edges and corners measure the "
              f"lens better there", file=sys.stderr)


def cmd_calibrate_target(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if out.suffix.lower() not in (".png", ".tif", ".tiff", ".bmp"):
        raise ValueError(f"{args.output!r}: write the target as .png (a lossless image prints "
                         f"its edges sharp)")
    if args.board_markers:
        return _write_board_markers(args, out)
    try:
        target = _charuco(args, args.square_mm)
        image = charuco_image(target, args.dpi)
    except TargetError as e:
        raise ValueError(_flagged(e, args, "--charuco")) from None
    if not cv2.imwrite(str(out), image):
        raise OSError(f"cannot write {args.output!r}")
    square = square_printed_mm(target, args.dpi)
    print(f"{target.name} written to {out}: print it at 100% scale ({args.dpi:g} dpi), flat; "
          f"its squares are then {square:.2f} mm and the board {target.cols * square:.0f} x "
          f"{target.rows * square:.0f} mm.  Measure a square after printing and pass "
          f"--square-mm and --marker-mm if they differ.")
    print(f"then: damas calibrate camera PHOTOS... --charuco {target.cols}x{target.rows} "
          f"--square-mm {target.square_mm:g} --marker-mm {target.marker_mm:g}"
          + ("" if args.dictionary == DEFAULT_DICTIONARY else f" --dictionary {args.dictionary}"))
    return 0
