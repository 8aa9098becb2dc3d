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

    thick = max(1, int(round(max(out.shape[:2]) / 600)))
    for i in range(n + 1):
        cv2.line(out, px(i, 0), px(i, n), (0, 255, 255), thick, cv2.LINE_AA)
        cv2.line(out, px(0, i), px(n, i), (0, 255, 255), thick, cv2.LINE_AA)
    cv2.putText(out, "a1", px(0.1, 0.3), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * thick, (0, 0, 255),
                thick, cv2.LINE_AA)
    geo = obs.board.geometry
    for sq in obs.board.squares:
        f, r = geo.coords[sq]
        label = obs.label(sq)
        c = px(f + 0.5, r + 0.5)
        if label == "empty":
            cv2.circle(out, c, 3 * thick, _COLOURS[label], -1)
            continue
        colour = _COLOURS[label]
        cv2.circle(out, c, 9 * thick, colour, 2 * thick, cv2.LINE_AA)
        if label.endswith("king"):
            cv2.putText(out, "K", (c[0] - 5 * thick, c[1] + 5 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                        0.5 * thick, (0, 0, 255), thick, cv2.LINE_AA)
        if label == "occluded":
            cv2.putText(out, "?", (c[0] - 5 * thick, c[1] + 5 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                        0.5 * thick, (0, 0, 255), thick, cv2.LINE_AA)
    return out
