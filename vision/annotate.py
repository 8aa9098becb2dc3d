"""Draw the grid and the classification on an image (`damas detect --annotate`)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.observation import BoardObservation

_COLOURS = {"white_man": (255, 255, 255), "white_king": (255, 255, 255),
            "black_man": (0, 0, 0), "black_king": (0, 0, 0), "occluded": (0, 0, 255),
            "empty": (0, 200, 0)}


def annotate(image_bgr: np.ndarray, obs: BoardObservation) -> np.ndarray:
    out = image_bgr.copy()
    corners = np.array(obs.corners_px, np.float64)
    n = obs.board.geometry.width
    plane = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    hom, _ = cv2.findHomography(plane, corners)

    def px(u: float, v: float) -> tuple[int, int]:
        p = cv2.perspectiveTransform(np.array([[[u, v]]], np.float64), hom)[0, 0]
        return int(round(p[0])), int(round(p[1]))

    # Marks sized by each square as the image shows it, not by the image: a far board in a
    # large photo was buried under its own circles.  An oblique view squashes the squares
    # along the view, so their smaller side counts.
    def side_px(u: float, v: float) -> float:
        a, b, c = (np.array(px(*p), np.float64) for p in ((u, v), (u + 1, v), (u, v + 1)))
        return float(min(np.linalg.norm(b - a), np.linalg.norm(c - a)))

    sides = {(i, j): side_px(i, j) for i in range(n) for j in range(n)}
    line = max(1, int(round(float(np.median(list(sides.values()))) / 40)))
    for i in range(n + 1):
        cv2.line(out, px(i, 0), px(i, n), (0, 255, 255), line, cv2.LINE_AA)
        cv2.line(out, px(0, i), px(n, i), (0, 255, 255), line, cv2.LINE_AA)
    geo = obs.board.geometry
    for sq in obs.board.squares:
        f, r = geo.coords[sq]
        label = obs.label(sq)
        c = px(f + 0.5, r + 0.5)
        side = max(sides[(f, r)], 6.0)
        thick = max(1, int(round(side / 20)))
        if label == "empty":
            cv2.circle(out, c, max(1, int(round(0.1 * side))), _COLOURS[label], -1)
            continue
        cv2.circle(out, c, int(round(0.38 * side)), _COLOURS[label], thick, cv2.LINE_AA)
        mark = "K" if label.endswith("king") else "?" if label == "occluded" else ""
        if mark:
            _centred_text(out, mark, c, 0.4 * side, thick)
    _centred_text(out, "a1", px(0.5, 0.5), 0.3 * sides[(0, 0)], line, below=0.3 * sides[(0, 0)])
    return out


def _centred_text(out: np.ndarray, text: str, centre: tuple[int, int], height_px: float,
                  thick: int, below: float = 0.0) -> None:
    """`text` in red, `height_px` tall, centred on `centre` (or `below` pixels under it)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = max(0.25, height_px / max(h, 1))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (int(round(centre[0] - w / 2)), int(round(centre[1] + h / 2 + below)))
    cv2.putText(out, text, org, font, scale, (0, 0, 255), thick, cv2.LINE_AA)
