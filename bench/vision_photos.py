"""Run `damas detect` on the real photographs in /work/shared/photos against labels.json.

Corners come from the hand labels (--corners); prints per-photo square accuracy and the errors.
Usage: python bench/vision_photos.py [PHOTO_DIR]
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

NAMES = {"w": "white_man", "b": "black_man", "W": "white_king", "B": "black_king"}


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/photos")
    labels = json.loads((folder / "labels.json").read_text())
    damas = Path(sys.executable).with_name("damas")
    for mode in ("corners from labels.json", "board found automatically"):
        print(f"-- {mode}")
        run(folder, labels, damas, with_corners=mode.startswith("corners"))
    return 0


def run(folder: Path, labels: dict, damas: Path, with_corners: bool) -> None:
    total = right = 0
    for item in labels["images"]:
        variant = "international" if item["grid"] == 10 else "brazilian"
        cmd = [str(damas), "detect", str(folder / item["file"]), "--variant", variant, "--json"]
        if with_corners:
            cmd += ["--corners", " ".join(f"{x},{y}" for x, y in item["corners"])]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            print(f"{item['file']}: exit {res.returncode}: {res.stderr.strip()}")
            continue
        got = json.loads(res.stdout)["squares"]
        errors = []
        for name, cell in got.items():
            truth = NAMES.get(item["squares"].get(name, ""), "empty")
            if cell["piece"] != truth:
                errors.append(f"{name}:{truth}->{cell['piece']}")
        n = len(got)
        total += n
        right += n - len(errors)
        print(f"{item['file']}: {n - len(errors)}/{n} squares right "
              f"({100 * (n - len(errors)) / n:.1f}%)  errors: {' '.join(errors) or 'none'}")
    if total:
        print(f"all photos: {right}/{total} squares right ({100 * right / total:.1f}%)")


if __name__ == "__main__":
    sys.exit(main())
