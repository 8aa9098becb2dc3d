"""Where to look in the image for each square: computed once per board pose, reused per frame.

For a fixed camera the pose does not change between frames, so all projection work (including
lens distortion) happens here once; a frame then costs a blur and a few thousand pixel reads.

Per playable square:
- `base`: a disc around the square's centre on the playing surface.  Any piece standing there
  hides it, whatever the viewing angle (the ray to it enters the piece's cylinder first).
- `ref`: patches just inside the four corners, which no centred round piece covers: the
  square's own colour under the local light.
- `kings`: lines along and across each square's view direction, for the king stage
  (`vision.king_samples`).
Per light square: `probe` points on its half away from the camera (pieces lean away from the
camera, into the near half of the light square behind them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.frame_extent import probe_distances_sq
from vision.geometry import BoardPose, segment_dist2
from vision.king_samples import KingSamples, build_king_samples
from vision.light import LightPlan, plan_light
from vision.rims import rim_grid


@dataclass(frozen=True)
class SquareSamples:
    grid: int
    image_size: tuple[int, int]
    playable: tuple[tuple[int, int], ...]  # (file, rank) per playable square, internal order
    light: tuple[tuple[int, int], ...]
    base: np.ndarray  # (S, P) flat pixel indices
    ref: np.ndarray  # (S, R)
    frame: np.ndarray  # flat pixel indices of points on the frame just outside the grid
    probe: np.ndarray  # (L, Q)
    light_neighbours: tuple[tuple[int, ...], ...]  # per playable square: indices into `light`
    corner_dark: np.ndarray  # (C, 2, K) pixels of the two dark quadrants at each grid corner
    corner_light: np.ndarray  # (C, 2, K) the two light quadrants
    square_corners: tuple[tuple[int, ...], ...]  # per playable square: its interior corners
    square_px: float  # typical side of a square in pixels
    kings: KingSamples  # where the king stage looks (vision.king_samples)
    # (C, 2, S) bool: the corner quadrants (as `corner_dark`, `corner_light`) that a piece on
    # playable square s may hide, leaning over them (see `_hidable`).
    corner_dark_hidable: np.ndarray
    corner_light_hidable: np.ndarray
    light_plan: LightPlan  # where the bare-board references are (see vision.light)
    # (S, K) flat pixel indices of a small disc on the top face of a king (two discs high)
    # centred on each square: a king's colour is read there (in an oblique view the `base`
    # disc sees much of its two shaded walls).
    king_top: np.ndarray
    # (x0, y0, x1, y1): the part of the image any of the above reads, with a margin for the
    # blur; a frame is blurred only there.
    roi: tuple[int, int, int, int] = (0, 0, 0, 0)
    # (4, K, D) probes past the grid on each side (as vision.king_samples.outside), at K
    # places along it and the distances of vision.frame_extent.probe_distances_sq: how far
    # the frame reaches.  (Read from the image as it is, unblurred: `roi` leaves them out,
    # since reaching out that far on every side would blur much more of the image.)
    frame_out: np.ndarray = field(default_factory=lambda: np.zeros((4, 0, 0), np.int64))
    # (S, N, N, 2) image x, y of a grid over each playable square on the plane of a man's top
    # face, for the rim test (vision.rims).
    rim_xy: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0, 2), np.float32))
    # (S, N, N) bool: those of its points that lie on a grid line.
    rim_line: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), bool))

    @cached_property
    def light_incidence(self) -> np.ndarray:
        """(S, L) bool: light square j is beside playable square i (`light_neighbours`)."""
        return _incidence(self.light_neighbours, len(self.light))

    @cached_property
    def rim_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """`rim_xy` as OpenCV's fixed-point maps ((S, N, N, 2) int16, (S, N, N) uint16):
        remapped twice as fast."""
        s, n = self.rim_xy.shape[:2]
        m1, m2 = cv2.convertMaps(self.rim_xy[..., 0].reshape(s * n, n),
                                 self.rim_xy[..., 1].reshape(s * n, n), cv2.CV_16SC2)
        return m1.reshape(s, n, n, 2), m2.reshape(s, n, n)

    @cached_property
    def corner_incidence(self) -> np.ndarray:
        """(S, C) bool: interior grid corner c is a corner of playable square i."""
        return _incidence(self.square_corners, len(self.corner_dark))


def _incidence(rows: tuple[tuple[int, ...], ...], columns: int) -> np.ndarray:
    out = np.zeros((len(rows), columns), bool)
    for i, cols in enumerate(rows):
        out[i, list(cols)] = True
    return out


def _disc(radius: float, rings: int = 3) -> np.ndarray:
    pts = [(0.0, 0.0)]
    for i in range(1, rings + 1):
        r = radius * i / rings
        n = 6 * i
        for k in range(n):
            a = 2 * np.pi * (k + 0.5 * (i % 2)) / n
            pts.append((r * np.cos(a), r * np.sin(a)))
    return np.array(pts)


def _flat_index(px: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    x = np.clip(np.round(px[..., 0]), 0, w - 1).astype(np.int64)
    y = np.clip(np.round(px[..., 1]), 0, h - 1).astype(np.int64)
    return y * w + x


def build_samples(pose: BoardPose, image_size: tuple[int, int],
                  cfg: VisionConfig) -> SquareSamples:
    n = pose.grid
    geo_playable = [(f, r) for r in range(n) for f in range(n) if (f + r) % 2 == 0]
    # Internal order of game.geometry: rank by rank, file ascending over playable squares.
    light = [(f, r) for r in range(n) for f in range(n) if (f + r) % 2 == 1]
    rad = cfg.pieces.radius_sq
    disc = _disc(cfg.centre_radius_frac * rad)
    inset, patch = cfg.corner_inset_sq, cfg.corner_patch_sq
    g = np.linspace(0, patch, 3)
    corner_offsets = []
    for cu, su in ((0.0, 1), (1.0, -1)):
        for cv, sv in ((0.0, 1), (1.0, -1)):
            for a in g:
                for b in g:
                    corner_offsets.append((cu + su * (inset + a), cv + sv * (inset + b)))
    corner_offsets_arr = np.array(corner_offsets)
    cam = pose.camera_centre()

    # The centre is read where a man's wall is half as high: a piece is judged by its top face
    # and wall.  Read on the board, a tall king in an oblique view hides that spot behind its
    # two walls, which in the shade can pass for the bare square.
    lift = cfg.centre_height_share * cfg.pieces.height_sq
    base_pts, ref_pts = [], []
    for f, r in geo_playable:
        cu, cv = f + 0.5, r + 0.5
        d = disc + (cu, cv)
        base_pts.append(np.column_stack([d, np.full(len(d), lift)]))
        ref_pts.append(np.column_stack([corner_offsets_arr + (f, r),
                                        np.zeros(len(corner_offsets_arr))]))
    s_count = len(geo_playable)
    all_pts = np.vstack(base_pts + ref_pts)
    px = pose.project(all_pts)
    pb = len(disc)
    base_px = px[:s_count * pb].reshape(s_count, pb, 2)
    ref_px = px[s_count * pb:].reshape(s_count, -1, 2)

    side_px = float(np.mean([np.linalg.norm(pose.corners_px[i] - pose.corners_px[(i + 1) % 4])
                             for i in range(4)])) / n

    probes = []
    q = np.linspace(-0.2, 0.2, 3)
    for f, r in light:
        c = np.array([f + 0.5, r + 0.5])
        away = c - cam[:2]
        norm = float(np.linalg.norm(away))
        away = away / norm if norm > 1e-6 else np.array([0.0, 1.0])
        side = np.array([-away[1], away[0]])
        pts = [c + 0.22 * away + a * side + b * away for a in q for b in (-0.05, 0.1)]
        probes.append(np.column_stack([np.array(pts), np.zeros(len(pts))]))
    probe_px = pose.project(np.vstack(probes)).reshape(len(light), -1, 2)

    # The frame around the grid (pieces on the edge rows lean over it).
    ring = []
    for k in np.linspace(0.25, n - 0.25, 4 * n):
        for d in (0.12, 0.22):
            ring += [(k, -d), (k, n + d), (-d, k), (n + d, k)]
    frame_idx = _flat_index(pose.project(np.column_stack([np.array(ring), np.zeros(len(ring))])),
                            image_size)
    along = np.linspace(0.25, n - 0.25, 2 * n)[:, None]
    out = probe_distances_sq(cfg)[None, :]
    k_grid, d_grid = np.broadcast_arrays(along, out)
    sides = [(k_grid, -d_grid), (k_grid, n + d_grid), (-d_grid, k_grid), (n + d_grid, k_grid)]
    out_pts = np.stack([np.stack([x, y], axis=-1) for x, y in sides]).reshape(-1, 2)
    frame_out = _flat_index(pose.project(np.column_stack([out_pts, np.zeros(len(out_pts))])),
                            image_size).reshape(4, *k_grid.shape)

    # Interior grid corners: four squares meet, two dark and two light; pieces stand in the
    # middle of squares and lean away, so the corners stay visible unless something covers them.
    corners_list, dark_pts, light_pts = [], [], []
    q = cfg.corner_probe_sq
    jitter = np.array([(0.0, 0.0), (0.03, 0.0), (0.0, 0.03)])
    for y in range(1, n):
        for x in range(1, n):
            corners_list.append((x, y))
            for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
                cell = (x + (dx - 1) // 2, y + (dy - 1) // 2)
                pts = np.array([x + dx * q, y + dy * q]) + jitter * (dx, dy)
                (dark_pts if (cell[0] + cell[1]) % 2 == 0 else light_pts).append(pts)
    k = len(jitter)
    cpx = _flat_index(pose.project(np.column_stack([np.vstack(dark_pts + light_pts),
                                                    np.zeros(2 * len(dark_pts) * k)])),
                      image_size)
    half = len(dark_pts) * k
    corner_dark = cpx[:half].reshape(len(corners_list), 2, k)
    corner_light = cpx[half:].reshape(len(corners_list), 2, k)
    corner_index = {c: i for i, c in enumerate(corners_list)}
    square_corners = tuple(tuple(corner_index[(f + a, r + b)] for a in (0, 1) for b in (0, 1)
                                 if (f + a, r + b) in corner_index) for f, r in geo_playable)

    probe_uv = np.array([p[:, :2].mean(axis=0) for p in probes])
    # Centres of the four corner patches of each playable square, in `ref` order.
    patch_centres = np.array([(cu + su * (inset + patch / 2), cv + sv * (inset + patch / 2))
                              for cu, su in ((0.0, 1), (1.0, -1)) for cv, sv in ((0.0, 1),
                                                                                  (1.0, -1))])
    square_uv = np.array([(f, r) for f, r in geo_playable], np.float64)
    light_plan = plan_light(square_uv[:, None, :] + patch_centres[None],
                            probe_uv, square_uv[:, None, :] + 0.5 + disc[None],
                            square_uv + 0.5, np.array(corners_list, np.float64),
                            cfg.light_sigma_sq)

    light_index = {fr: i for i, fr in enumerate(light)}
    neighbours = []
    for f, r in geo_playable:
        nb = [light_index[(f + df, r + dr)] for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))
              if (f + df, r + dr) in light_index]
        neighbours.append(tuple(nb))

    base_idx, ref_idx = _flat_index(base_px, image_size), _flat_index(ref_px, image_size)
    top = _disc(cfg.king_top_radius_frac * rad, rings=2)
    top_pts = np.vstack([np.column_stack([top + (f + 0.5, r + 0.5),
                                          np.full(len(top), 2 * cfg.pieces.height_sq)])
                         for f, r in geo_playable])
    top_idx = _flat_index(pose.project(top_pts).reshape(s_count, len(top), 2), image_size)
    probe_idx = _flat_index(probe_px, image_size)
    kings = build_king_samples(pose, side_px, cfg)
    dark_hidable = _hidable(np.array(dark_pts).reshape(len(corners_list), 2, k, 2), kings, cfg)
    light_hidable = _hidable(np.array(light_pts).reshape(len(corners_list), 2, k, 2), kings, cfg)
    flat = np.concatenate([a.ravel() for a in (base_idx, ref_idx, frame_idx, probe_idx,
                                               corner_dark, corner_light, top_idx)])
    xy = np.vstack([np.column_stack([flat % image_size[0], flat // image_size[0]]),
                    kings.along_xy.reshape(-1, 2), kings.across_xy.reshape(-1, 2)])
    roi = _region(xy, image_size, margin_px=cfg.blur_px + 2)
    g = rim_grid(cfg.rims.size_sq, cfg.rims.step_sq)
    gu, gv = np.meshgrid(g, g)
    rim_pts = np.concatenate([np.column_stack([gu.ravel() + f + 0.5, gv.ravel() + r + 0.5,
                                               np.full(gu.size, cfg.pieces.height_sq)])
                              for f, r in geo_playable])
    rim_xy = pose.project(rim_pts).astype(np.float32).reshape(s_count, len(g), len(g), 2)
    # (Where the grid's lines cross that plane as the camera sees them: from the camera's
    # centre, a point of the plane at height h lies over the board's point scaled away from
    # the camera's foot by zc / (zc - h).)
    zc = max(float(cam[2]), 2 * cfg.pieces.height_sq)
    on_board = cam[:2] + (rim_pts[:, :2] - cam[:2]) * zc / (zc - cfg.pieces.height_sq)
    to_line = np.abs(on_board - np.round(on_board)).min(axis=1)
    rim_line = (to_line < max(cfg.rims.line_sq, cfg.rims.line_px / max(side_px, 1.0))
                ).reshape(s_count, len(g), len(g))
    return SquareSamples(n, image_size, tuple(geo_playable), tuple(light), base_idx, ref_idx,
                         frame_idx, probe_idx, tuple(neighbours), corner_dark, corner_light,
                         square_corners, side_px, kings, dark_hidable, light_hidable,
                         light_plan, top_idx, roi, frame_out, rim_xy, rim_line)


def _hidable(points: np.ndarray, kings: KingSamples, cfg: VisionConfig) -> np.ndarray:
    """(..., S) bool: of the points (..., K, 2) on the board (squares), some may be hidden by
    a piece on playable square s: they lie within the silhouette of the tallest stack looked
    for, standing up to `max_offset_sq` off its square's centre.

    A grid corner's quadrants sit clear of a piece's base, but in an oblique view a king leans
    away from the camera over the corner beyond it (and a lens not calibrated may make every
    lean longer, up to the heights measured then)."""
    tallest = 1.0 if kings.calibrated or not cfg.kings.measure_height \
        else cfg.kings.height_range[1]
    lean = kings.lam[:, 1] * tallest  # (S,)
    reach = cfg.pieces.radius_sq * kings.rho[:, 1] + cfg.max_offset_sq
    q = points[..., None, :] - kings.centres  # (..., K, S, 2)
    d2 = segment_dist2(q[..., 0], q[..., 1], lean * kings.away[:, 0], lean * kings.away[:, 1])
    return (d2 < reach ** 2).any(axis=-2)


def _region(xy: np.ndarray, image_size: tuple[int, int], margin_px: int,
            ) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1), x1 and y1 exclusive: the pixels around points xy (N, 2), in the image."""
    w, h = image_size
    x0, y0 = np.floor(np.nanmin(xy, axis=0)).astype(int) - margin_px
    x1, y1 = np.ceil(np.nanmax(xy, axis=0)).astype(int) + margin_px + 1
    return max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))
