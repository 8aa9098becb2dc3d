"""`damas detect` and `damas calibrate camera|board`: the vision pipeline from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics
from calibration.store import (
    BoardCalibration,
    Calibration,
    load_calibration,
    replace_section,
    save_calibration,
)
from game.variants import Variant, find_variant
from vision.annotate import annotate
from vision.config import PieceGeometry, VisionConfig
from vision.errors import BoardNotFound
from vision.observation import BoardObservation
from vision.pipeline import BoardObserver
from vision.sources import IMAGE_SUFFIXES, has_colour, read_image

DEFAULT_VARIANT = "brazilian"
# Without --variant, a board that is not 8x8 is read as the usual 10x10 game.
VARIANT_OF_GRID = {8: "brazilian", 10: "international"}


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
    c = calib_sub.add_parser("camera", help="camera intrinsics from images of a printed chessboard")
    c.add_argument("images", nargs="+", metavar="IMAGE",
                   help="photos of the chessboard, or a folder of them")
    c.add_argument("--pattern", default="9x6", help="inner corners of the chessboard, e.g. 9x6")
    c.add_argument("--square-mm", type=float, default=25.0)
    c.add_argument("--output", default="calibration.json")
    c.set_defaults(func=cmd_calibrate_camera)

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


def cmd_calibrate_camera(args: argparse.Namespace) -> int:
    try:
        cols, rows = (int(v) for v in args.pattern.lower().split("x"))
    except ValueError:
        raise ValueError(f"--pattern {args.pattern!r}: expected e.g. 9x6") from None
    if cols < 2 or rows < 2:
        raise ValueError(f"--pattern {args.pattern!r}: a chessboard has at least 2x2 inner corners")
    if not args.square_mm > 0:
        raise ValueError(f"--square-mm {args.square_mm}: the printed squares' side, in mm (> 0)")
    obj = np.zeros((rows * cols, 3), np.float32)
    obj[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * args.square_mm
    obj_pts, img_pts = [], []
    size = None
    files = _image_files(args.images)
    for i, path in enumerate(files, 1):
        gray = cv2.cvtColor(read_image(path), cv2.COLOR_BGR2GRAY)
        if size is not None and gray.shape[::-1] != size:
            raise ValueError(f"{path!r} is {gray.shape[1]}x{gray.shape[0]} px, the images "
                             f"before it {size[0]}x{size[1]}: one camera at one resolution")
        size = gray.shape[::-1]
        ok, corners = cv2.findChessboardCornersSB(gray, (cols, rows), flags=cv2.CALIB_CB_ACCURACY)
        if ok:
            obj_pts.append(obj)
            img_pts.append(corners)
        # (Finding the pattern takes a second or so per photo: say how far it has got.)
        print(f"[{i}/{len(files)}] {path}: {'chessboard found' if ok else 'no chessboard'}",
              file=sys.stderr, flush=True)
    if len(obj_pts) < 3 or size is None:
        raise ValueError(f"the {cols}x{rows} chessboard was found in {len(obj_pts)} image(s); "
                         f"need at least 3")
    # (k3 fixed at 0: a handful of photos cannot pin a sixth-order term, which then bends the
    # image edges; k1, k2 describe ordinary lenses well.)
    rms, k, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None,
                                             flags=cv2.CALIB_FIX_K3)
    cam = CameraIntrinsics(size[0], size[1], float(k[0, 0]), float(k[1, 1]), float(k[0, 2]),
                           float(k[1, 2]), tuple(float(v) for v in dist.ravel()[:5]), float(rms))
    out = Path(args.output)
    cal = load_calibration(out) if out.exists() else Calibration()
    save_calibration(replace_section(cal, camera=cam), out)
    print(f"camera saved to {out} (rms {rms:.2f} px from {len(obj_pts)} images)")
    return 0
