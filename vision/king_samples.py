"""Where to look for a piece's height: a grid on the playing surface around every square.

Seen from a camera at height Zc, a point at height z over the plane projects onto the plane
(from the camera centre) pushed away from the camera by d*z/(Zc - z), d its horizontal distance
from the camera's foot.  So, on the plane, the silhouette of a disc stack k discs high is its
base disc swept away from the camera by `lam[k]` (the top face also looks `rho[k]` times
larger).  That is why the grid follows each square's own view direction: lines *along* it
(at offsets `b` across) cross the base's near edge and the top face's far edge, whose distance
tells one disc from two; lines *across* it (at `t_across`) give the piece's width and its
off-centre shift sideways.  A polar grid around each square serves the shadow test
(vision.shadows).  All of it depends only on the pose: computed once, reused per frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.config import VisionConfig
from vision.geometry import BoardPose, segment_dist2


@dataclass(frozen=True)
class KingSamples:
    along_xy: np.ndarray  # (S, J, T, 2) image x, y of the lines along the view
    along_kind: np.ndarray  # (S, J, T) 0 dark square, 1 light square, 2 frame
    # Near a grid line the image blurs the two squares (or square and frame) into each other:
    # the kind across the nearest line for samples within `edge_mix_px` of it, else the own.
    along_mix: np.ndarray  # (S, J, T)
    t: np.ndarray  # (T,) position along the view, squares from the square's centre
    b: np.ndarray  # (J,) offset of each along line across the view (squares)
    across_xy: np.ndarray  # (S, A, U, 2) lines across the view
    across_kind: np.ndarray  # (S, A, U)
    across_mix: np.ndarray  # (S, A, U)
    u: np.ndarray  # (U,) position across the view
    t_across: np.ndarray  # (S, A) where each across line crosses the view direction
    lam: np.ndarray  # (S, 2) plane shift of the top face of a stack 1 and 2 discs high
    rho: np.ndarray  # (S, 2) apparent scale of that top face (>= 1)
    dist: np.ndarray  # (S,) horizontal distance from the camera's foot (squares)
    zc: float  # the camera's height over the board (squares)
    step_sq: float  # sample spacing along the lines along the view (squares; u's is its own)
    square_px: float
    # For the shadow test (vision.shadows): each square's centre and view direction on the
    # plane (S, 2), and a polar grid of points around every square's centre: offsets (A, R, 2)
    # from the centre, their image x, y (S, A, R, 2), kind and mixed kind as above.
    centres: np.ndarray
    away: np.ndarray
    ring_off: np.ndarray
    ring_xy: np.ndarray
    ring_kind: np.ndarray
    ring_mix: np.ndarray
    diagonal: np.ndarray  # (S, 4) the squares diagonally beside each (-1 off the board)
    # (S, 4, A, R) squared distance from each polar grid point to the silhouette's axis of a
    # king on each diagonal neighbour (its base's centre swept by its lean; inf: no neighbour)
    ring_neighbour_d2: np.ndarray
    # A calibrated lens: the leans are as computed.  Otherwise (focal length guessed or
    # estimated from the board itself) every lean may be off by one factor, and in a nearly
    # vertical view, where one view of a plane hardly fixes the focal length, neither the
    # camera's height nor where its foot is are known: `leans_known` is False.
    calibrated: bool = True
    leans_known: bool = True
    # How far each sample along the view lies outside the grid (S, J, T; squares, 0 on it),
    # and on which side (as `outside`): past the frame the table says nothing.
    along_out: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), np.float32))
    along_side: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), np.int8))


def build_king_samples(pose: BoardPose, square_px: float, cfg: VisionConfig) -> KingSamples:
    n = pose.grid
    k = cfg.kings
    rad = cfg.pieces.radius_sq * k.radius_range[1]
    hgt = cfg.pieces.height_sq
    cam = pose.camera_centre()
    calibrated = pose.lens_calibrated
    # Only with a lens not calibrated is the disc height measured (vision.kings.fit_height).
    tallest = 1.0 if calibrated or not k.measure_height else k.height_range[1]
    zc = max(float(cam[2]), 4 * hgt * tallest)
    playable = [(f, r) for r in range(n) for f in range(n) if (f + r) % 2 == 0]
    step = k.step_px / max(square_px, 8.0)
    centres = np.array([(f + 0.5, r + 0.5) for f, r in playable])
    away = centres - cam[:2]
    dist = np.linalg.norm(away, axis=1)
    away = np.where(dist[:, None] > 1e-6, away / np.maximum(dist, 1e-6)[:, None], (0.0, 1.0))
    side = np.stack([-away[:, 1], away[:, 0]], axis=1)
    heights = np.array([hgt, 2 * hgt])
    longest = heights * tallest  # the tallest stacks looked for
    reach = dist[:, None] * longest[None, :] / (zc - longest[None, :])
    margin = k.margin_sq + cfg.max_offset_sq
    t = np.arange(-rad - margin, rad * zc / (zc - longest[1]) + float(reach.max()) + margin,
                  step)
    lam = dist[:, None] * heights[None, :] / (zc - heights[None, :])
    rho = np.broadcast_to(zc / (zc - heights), lam.shape).copy()
    b = np.array(k.lines_sq)
    step_u = k.across_step_px / max(square_px, 8.0)
    u = np.arange(-rad - margin, rad + margin + step_u / 2, step_u)
    t_across = np.stack([np.full(len(playable), -0.1), 0.5 * lam[:, 1],
                         lam[:, 1] + 0.1], axis=1)
    # Plane points (S, J, T, 2) and (S, A, U, 2).
    along_pts = (centres[:, None, None, :] + t[None, None, :, None] * away[:, None, None, :]
                 + b[None, :, None, None] * side[:, None, None, :])
    across_pts = (centres[:, None, None, :] + t_across[:, :, None, None] * away[:, None, None, :]
                  + u[None, None, :, None] * side[:, None, None, :])
    along_xy = _project(pose, along_pts)
    across_xy = _project(pose, across_pts)
    sh = cfg.shadows
    angles = np.linspace(0.0, 2 * np.pi, sh.angles, endpoint=False)
    radii = np.arange(sh.radii_sq[0], sh.radii_sq[1], sh.step_px / max(square_px, 8.0))
    ring_off = (radii[None, :, None] * np.stack([np.cos(angles), np.sin(angles)], axis=1)[:, None]
                ).astype(np.float32)
    ring_pts = centres[:, None, None, :] + ring_off[None].astype(np.float64)
    ring_xy = _project(pose, ring_pts)
    diagonal = _diagonal(playable, n)
    known = calibrated or pose.tilt_deg() >= k.uncalibrated_min_tilt_deg
    near_sq = k.edge_mix_px / max(square_px, 8.0)
    return KingSamples(along_xy, _kind(along_pts, n), _kind_across_line(along_pts, n, near_sq),
                       t, b, across_xy, _kind(across_pts, n),
                       _kind_across_line(across_pts, n, near_sq), u, t_across, lam, rho, dist,
                       zc, float(step), float(square_px), centres, away, ring_off, ring_xy,
                       _kind(ring_pts, n), _kind_across_line(ring_pts, n, near_sq),
                       diagonal, _neighbour_d2(ring_pts, centres, away, lam, diagonal),
                       calibrated, known, *outside(along_pts, n))


def _diagonal(playable: list[tuple[int, int]], n: int) -> np.ndarray:
    at = {sq: i for i, sq in enumerate(playable)}
    return np.array([[at.get((f + df, r + dr), -1) if 0 <= f + df < n and 0 <= r + dr < n
                      else -1 for df, dr in ((-1, -1), (1, -1), (-1, 1), (1, 1))]
                     for f, r in playable], np.intp)


def diagonal_marked(diagonal: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(N, 4) bool: which of the squares diagonally beside each of N squares (`diagonal`, (N, 4)
    rows of `KingSamples.diagonal`, -1 off the board) are marked in `mask` (S,)."""
    return (diagonal >= 0) & mask[np.maximum(diagonal, 0)]


def _neighbour_d2(ring_pts: np.ndarray, centres: np.ndarray, away: np.ndarray,
                  lam: np.ndarray, diagonal: np.ndarray) -> np.ndarray:
    j = np.maximum(diagonal, 0)  # (S, 4)
    rel = ring_pts[:, None] - centres[j][:, :, None, None, :]  # (S, 4, A, R, 2)
    v = (lam[j, 1, None] * away[j])[:, :, None, None, :]  # (S, 4, 1, 1, 2)
    d2 = segment_dist2(rel[..., 0], rel[..., 1], v[..., 0], v[..., 1]).astype(np.float32)
    d2[diagonal < 0] = np.inf
    return d2


def _project(pose: BoardPose, pts: np.ndarray) -> np.ndarray:
    flat = pts.reshape(-1, 2)
    px = pose.project(np.column_stack([flat, np.zeros(len(flat))]))
    return px.reshape(pts.shape).astype(np.float32)


def outside(pts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(distance, side) of plane points (..., 2) outside an n-square grid: how far (squares,
    0 on the grid) and past which side, 0 before the first rank (y < 0), 1 past the last,
    2 before the first file (x < 0), 3 past the last."""
    x, y = pts[..., 0], pts[..., 1]
    excess = np.stack([-y, y - n, -x, x - n], axis=-1)
    return (np.maximum(excess.max(axis=-1), 0.0).astype(np.float32),
            np.argmax(excess, axis=-1).astype(np.int8))


def _kind(pts: np.ndarray, n: int) -> np.ndarray:
    """0 on a dark square, 1 on a light square, 2 outside the grid (the frame)."""
    cells = np.floor(pts).astype(int)
    kind = (cells.sum(axis=-1) % 2).astype(np.int8)
    outside = (pts[..., 0] < 0) | (pts[..., 0] >= n) | (pts[..., 1] < 0) | (pts[..., 1] >= n)
    kind[outside] = 2
    return kind


def _kind_across_line(pts: np.ndarray, n: int, near_sq: float) -> np.ndarray:
    """The kind on the other side of the nearest grid line, for points within `near_sq` of
    it; elsewhere the point's own kind."""
    line = np.round(pts)
    d = pts - line  # signed distance to the nearest line, per axis
    axis = np.argmin(np.abs(d), axis=-1)[..., None]
    d_near = np.take_along_axis(d, axis, axis=-1)
    other = pts.copy()
    np.put_along_axis(other, axis, np.take_along_axis(line, axis, axis=-1)
                      + np.where(d_near < 0, 0.25, -0.25), axis=-1)
    return np.where(np.abs(d_near[..., 0]) <= near_sq, _kind(other, n),
                    _kind(pts, n)).astype(np.int8)
