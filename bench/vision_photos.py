"""Run `damas detect` on the real photographs in /work/shared/photos against labels.json.

Corners come from the hand labels (--corners) or are found automatically; prints per-photo
square accuracy and the errors.  With --perturbed, each photo is also read as other cameras
and rooms would take it (smaller and larger, turned, darker, warmer, blurred, noisier, more
compressed, unevenly lit, through a wide lens, the corners clicked a little off): a photo
already read right says little about the next board unless it stays right under such changes.

Usage: python bench/vision_photos.py [PHOTO_DIR] [--perturbed]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

NAMES = {"w": "white_man", "b": "black_man", "W": "white_king", "B": "black_king"}

Change = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _scaled(f: float) -> Change:
    def change(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        interp = cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC
        return cv2.resize(img, None, fx=f, fy=f, interpolation=interp), corners * f
    return change


def _farther(f: float) -> Change:
    """As a camera `1/f` times as far away takes it: the photo shrunk about its centre (where
    the lens's axis stays) on a canvas of its own size, the rest a plain table."""
    def change(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, w = img.shape[:2]
        small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        table = np.array([60.0, 90.0, 120.0]) + np.random.default_rng(2).normal(0, 8, img.shape)
        out = np.clip(table, 0, 255).astype(np.uint8)
        y0, x0 = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
        out[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
        return out, corners * f + np.array([x0, y0])
    return change


def _barrel(share: float) -> Change:
    """As a wide lens not corrected takes it (a webcam's, a Pi camera's): barrel distortion
    about the image's centre pulling each point in by `share` of its distance times its
    squared distance in half the image's longer side (the image's corners by up to about a
    tenth of that distance at 0.08), its edges repeated."""
    def change(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, w = img.shape[:2]
        c, unit = np.array([w / 2, h / 2]), max(w, h) / 2
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
        q = (np.stack([xx, yy], axis=-1) - c) / unit
        # (Each pixel out takes the photo's at the radius the lens bent in to it.)
        src = c + q * (1 + share * np.sum(q * q, axis=-1, keepdims=True)) * unit
        out = cv2.remap(img, src[..., 0].astype(np.float32), src[..., 1].astype(np.float32),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        moved = []
        for p in (np.asarray(corners, np.float64) - c) / unit:
            r_src, r = float(np.linalg.norm(p)), float(np.linalg.norm(p))
            for _ in range(50):  # r (1 + share r^2) = r_src
                r = r_src / (1 + share * r * r)
            moved.append(c + p * (r / max(r_src, 1e-12)) * unit)
        return out, np.array(moved)
    return change


def _gain(per_pixel: Callable[[np.ndarray], np.ndarray]) -> Change:
    def change(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.clip(per_pixel(img.astype(np.float64)), 0, 255).astype(np.uint8), corners
    return change


def _turned_half(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h, w = img.shape[:2]
    return cv2.rotate(img, cv2.ROTATE_180), np.array([[w - 1 - x, h - 1 - y] for x, y in corners])


def _turned_quarter(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = img.shape[0]
    return cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE), np.array([[h - 1 - y, x] for x, y in corners])


def _jpeg(quality: int) -> Change:
    def change(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1]
        return cv2.imdecode(buf, cv2.IMREAD_COLOR), corners
    return change


def _vignette(img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    r2 = (((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2) / 2
    return img * (1 - 0.5 * r2)[..., None]


def _side_light(img: np.ndarray) -> np.ndarray:
    w = img.shape[1]
    return img * (1.2 - 0.6 * np.arange(w) / w)[None, :, None]


def _rotated(deg: float) -> Change:
    """Turned by `deg` about the centre, on a canvas grown to hold all of it."""
    def change(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, w = img.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
        cos, sin = abs(m[0, 0]), abs(m[0, 1])
        nw, nh = int(h * sin + w * cos), int(h * cos + w * sin)
        m[0, 2] += nw / 2 - w / 2
        m[1, 2] += nh / 2 - h / 2
        out = cv2.warpAffine(img, m, (nw, nh), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
        return out, np.column_stack([corners, np.ones(len(corners))]) @ m.T
    return change


def _keystoned(share: float) -> Change:
    """As a more oblique camera, or a shifted lens, takes it: the top edge pulled in by
    `share` of the width at each side, and down (no camera centred on the image fits it)."""
    def change(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, w = img.shape[:2]
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[w * share, h * share * 0.8], [w * (1 - share), h * share * 0.8],
                          [w, h], [0, h]])
        m = cv2.getPerspectiveTransform(src, dst)
        out = cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
        moved = cv2.perspectiveTransform(np.asarray(corners, np.float64).reshape(-1, 1, 2), m)
        return out, moved.reshape(-1, 2)
    return change


def _shadow_band(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A hard shadow (an arm's, a lamp's edge) across the board, a third of it wide, halving
    the light."""
    c = np.asarray(corners, np.float64)
    a, b = c[0] + 0.3 * (c[1] - c[0]), c[3] + 0.5 * (c[2] - c[3])
    d = 0.3 * (c[1] - c[0])
    mask = np.zeros(img.shape[:2], np.float32)
    cv2.fillPoly(mask, [np.array([a, a + d, b + d, b]).astype(np.int32)], 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), 3)
    out = img.astype(np.float64) * (1 - 0.5 * mask[..., None])
    return np.clip(out, 0, 255).astype(np.uint8), corners


def _glare_spot(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A lamp's reflection: grey light added, a Gaussian an eighth of the board wide."""
    c = np.asarray(corners, np.float64)
    centre = c.mean(axis=0) + 0.15 * (c[1] - c[0])
    sigma = 0.12 * float(np.linalg.norm(c[1] - c[0]))
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]]
    spot = np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * sigma ** 2))
    return np.clip(img + 110 * spot[..., None], 0, 255).astype(np.uint8), corners


def _clicked(share: float) -> Change:
    """The corners clicked in a hurry: each `share` of the board's side off, in its own
    direction (outwards, inwards, along an edge); the image as it is."""
    def change(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = np.asarray(corners, np.float64)
        off = np.array([[-1.0, 0.6], [0.8, -1.0], [-0.6, -0.8], [1.0, 0.7]])
        side = float(np.linalg.norm(c[0] - c[1]))
        return img, c + share * side * off / np.linalg.norm(off, axis=1)[:, None]
    return change


CHANGES: dict[str, Change] = {
    "scale 0.25": _scaled(0.25), "scale 0.5": _scaled(0.5), "scale 2": _scaled(2.0),
    "turned 180": _turned_half, "turned 90": _turned_quarter,
    "half exposure": _gain(lambda x: 0.5 * x), "over-exposed 1.3x": _gain(lambda x: 1.3 * x),
    "darker midtones (gamma 1.8)": _gain(lambda x: 255 * (x / 255) ** 1.8),
    "warm lamp": _gain(lambda x: x * np.array([0.75, 0.95, 1.15])),
    "blur 2 px": lambda img, c: (cv2.GaussianBlur(img, (0, 0), 2.0), c),
    "noise 8": _gain(lambda x: x + np.random.default_rng(0).normal(0, 8, x.shape)),
    "jpeg 40": _jpeg(40), "vignette": _gain(_vignette), "side light": _gain(_side_light),
    "clicks 0.5% of the board off": _clicked(0.005), "clicks 1% off": _clicked(0.01),
    "rotated 12": _rotated(12.0), "rotated -33": _rotated(-33.0),
    "keystone 0.15": _keystoned(0.15), "hard shadow band": _shadow_band,
    "glare spot": _glare_spot, "cool lamp": _gain(lambda x: x * np.array([1.2, 1.0, 0.8])),
    "lighter midtones (gamma 0.55)": _gain(lambda x: 255 * (x / 255) ** 0.55),
    "twice as far": _farther(0.5),
    "dim and noisy": _gain(lambda x: 0.4 * x + np.random.default_rng(1).normal(0, 6, x.shape)),
    "wide lens (barrel 0.08)": _barrel(0.08), "wider lens (barrel 0.12)": _barrel(0.12),
}


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    folder = Path(args[0] if args else "/work/shared/photos")
    labels = json.loads((folder / "labels.json").read_text())
    damas = Path(sys.executable).with_name("damas")
    for mode in ("corners from labels.json", "board found automatically"):
        print(f"-- {mode}")
        run(folder, labels, damas, with_corners=mode.startswith("corners"))
    if "--perturbed" in sys.argv[1:]:
        perturbed(folder, labels, damas)
    return 0


def _read(damas: Path, path: Path, item: dict, corners: np.ndarray | None,
          ) -> tuple[int, list[str]] | str:
    """(squares read, the wrong ones) or the error line."""
    variant = "international" if item["grid"] == 10 else "brazilian"
    cmd = [str(damas), "detect", str(path), "--variant", variant, "--json"]
    if corners is not None:
        cmd += ["--corners", " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        return f"exit {res.returncode}: {res.stderr.strip()}"
    got = json.loads(res.stdout)["squares"]
    errors = []
    for name, cell in got.items():
        truth = NAMES.get(item["squares"].get(name, ""), "empty")
        if cell["piece"] != truth:
            errors.append(f"{name}:{truth}->{cell['piece']}")
    return len(got), errors


def run(folder: Path, labels: dict, damas: Path, with_corners: bool) -> None:
    total = right = 0
    for item in labels["images"]:
        corners = np.array(item["corners"], float) if with_corners else None
        out = _read(damas, folder / item["file"], item, corners)
        if isinstance(out, str):
            print(f"{item['file']}: {out}")
            continue
        n, errors = out
        total += n
        right += n - len(errors)
        print(f"{item['file']}: {n - len(errors)}/{n} squares right "
              f"({100 * (n - len(errors)) / n:.1f}%)  errors: {' '.join(errors) or 'none'}")
    if total:
        print(f"all photos: {right}/{total} squares right ({100 * right / total:.1f}%)")


def _variants(folder: Path, labels: dict) -> Iterator[tuple[str, dict, np.ndarray, np.ndarray]]:
    for item in labels["images"]:
        img = cv2.imread(str(folder / item["file"]))
        for name, change in CHANGES.items():
            changed, corners = change(img, np.array(item["corners"], float))
            yield name, item, changed, corners


def perturbed(folder: Path, labels: dict, damas: Path) -> None:
    print(f"-- perturbed ({len(CHANGES)} changes per photo; given corners | found board)")
    totals = {True: [0, 0], False: [0, 0]}
    with tempfile.TemporaryDirectory() as tmp:
        for name, item, img, corners in _variants(folder, labels):
            path = Path(tmp) / "photo.png"
            cv2.imwrite(str(path), img)
            cells = []
            for with_corners in (True, False):
                out = _read(damas, path, item, corners if with_corners else None)
                if isinstance(out, str):
                    cells.append(out)
                    continue
                n, errors = out
                totals[with_corners][0] += n - len(errors)
                totals[with_corners][1] += n
                cells.append(f"{n - len(errors)}/{n} {' '.join(errors[:4])}".rstrip())
            print(f"{item['file']} {name}: {' | '.join(cells)}", flush=True)
    for with_corners, (right, total) in totals.items():
        label = "given corners" if with_corners else "board found"
        if total:
            print(f"perturbed, {label}: {right}/{total} squares right "
                  f"({100 * right / total:.1f}%)")


if __name__ == "__main__":
    sys.exit(main())
