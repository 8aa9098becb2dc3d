"""The rendered camera of the simulated table: draws `sim.world.World` in 3D, with ground truth.

A pinhole camera (then lens distortion) looks at the board plane z = 0.  The table and board are
textures warped by the plane's homography; every disc is a cylinder drawn back to front (side
wall facets shaded by their normal, top face with ridges and a specular spot), so pieces lean
away from the camera and a king (two discs) is twice as tall and hides more of the square
behind it.  Light is a directional source plus ambient: soft shadows of the discs on the board,
a colour temperature, an exposure, a brightness gradient, optional glare and a hard shadow band.
A hand/arm can reach in over the board.  Sensor blur, noise and JPEG come last.

Ground truth (`Frame`) holds the placement, the squares the hand covers, the image corners of
the playing grid (a1, h1, h8, a8 order, distorted like the image) and the camera.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.camera import CameraIntrinsics
from game.board import BaseBoard, Color
from game.geometry import geometry
from game.variants import Variant
from sim.scene import CameraSpec, Scene
from sim.world import Disc, World

TEXTURE_PX_PER_MM = 2.0
CIRCLE_SEGMENTS = 48


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR uint8
    placement: BaseBoard  # what stands on the playable squares
    occluded: frozenset[int]  # squares a hand covers at least half of
    partly_occluded: frozenset[int]  # squares a hand touches: either answer is acceptable
    corners_px: np.ndarray  # 4x2: a1, h1, h8, a8 outer grid corners, distorted pixels
    intrinsics: CameraIntrinsics
    rvec: np.ndarray  # board (mm) -> camera
    tvec: np.ndarray
    fully_visible: bool  # the whole playing grid lies inside the image


def camera_pose(scene: Scene) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(R, t, camera centre) with x_cam = R x_board + t, board frame in mm."""
    return camera_pose_of(scene.camera)


def project_points(points_mm: np.ndarray, cam: CameraSpec, r: np.ndarray,
                   t: np.ndarray) -> np.ndarray:
    """Board points (mm) to distorted image pixels of `cam`."""
    k = np.array([[cam.focal_px, 0, cam.width_px / 2], [0, cam.focal_px, cam.height_px / 2],
                  [0, 0, 1]])
    rvec, _ = cv2.Rodrigues(r)
    px, _ = cv2.projectPoints(np.asarray(points_mm, np.float64), rvec, t, k,
                              np.array(cam.dist, np.float64))
    return px.reshape(-1, 2)


def camera_pose_of(cam: CameraSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tilt, az = math.radians(cam.tilt_deg), math.radians(cam.azimuth_deg)
    look = np.array([cam.look_at_mm[0], cam.look_at_mm[1], 0.0])
    back = np.array([math.sin(az), -math.cos(az), 0.0])  # towards White's side
    centre = look + cam.distance_mm * np.array([math.sin(tilt) * back[0],
                                                math.sin(tilt) * back[1], math.cos(tilt)])
    z = look - centre
    z /= np.linalg.norm(z)
    forward = -back
    y = -forward - float(np.dot(-forward, z)) * z
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    roll = math.radians(cam.roll_deg)
    x, y = math.cos(roll) * x + math.sin(roll) * y, -math.sin(roll) * x + math.cos(roll) * y
    r = np.stack([x, y, z])
    t = -r @ centre
    return r, t, centre


def intrinsics_of(scene: Scene) -> CameraIntrinsics:
    c = scene.camera
    return CameraIntrinsics(c.width_px, c.height_px, c.focal_px, c.focal_px, c.width_px / 2,
                            c.height_px / 2, tuple(c.dist))


def _project_ideal(points: np.ndarray, r: np.ndarray, t: np.ndarray, k: np.ndarray) -> np.ndarray:
    cam = points @ r.T + t
    z = np.maximum(cam[:, 2:3], 1e-6)
    uv = cam[:, :2] / z
    return uv * np.array([k[0, 0], k[1, 1]]) + np.array([k[0, 2], k[1, 2]])


def _plane_homography(r: np.ndarray, t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Board plane (x_mm, y_mm, 1) -> ideal image pixels."""
    h = k @ np.column_stack([r[:, 0], r[:, 1], t])
    return h / h[2, 2]


def _board_texture(scene: Scene, world: World, rng: np.random.Generator) -> np.ndarray:
    spec, style = world.spec, scene.board
    ppm = TEXTURE_PX_PER_MM
    size_mm = spec.grid * spec.square_mm + 2 * spec.border_mm
    n_px = int(round(size_mm * ppm))
    tex = np.empty((n_px, n_px, 3), np.float32)
    tex[:] = style.frame_bgr
    sq_px = spec.square_mm * ppm
    off = spec.border_mm * ppm
    for rank in range(spec.grid):
        for file in range(spec.grid):
            colour = style.dark_bgr if (file + rank) % 2 == 0 else style.light_bgr
            x0 = int(round(off + file * sq_px))
            x1 = int(round(off + (file + 1) * sq_px))
            # Texture rows run from a8 (top) to a1 (bottom) like a picture of the board.
            y1 = int(round(n_px - off - rank * sq_px))
            y0 = int(round(n_px - off - (rank + 1) * sq_px))
            tex[y0:y1, x0:x1] = colour
    if style.grain > 0:
        if style.kind == "wood":
            # Grain: streaks along one axis, direction alternating by square like inlay.
            streak = rng.normal(0, 1, (1, n_px)).astype(np.float32)
            streak = cv2.GaussianBlur(streak, (0, 0), 2.0)
            grain_v = np.repeat(streak, n_px, axis=0)
            grain_h = grain_v.T
            checker = np.zeros((n_px, n_px), np.float32)
            for rank in range(spec.grid):
                for file in range(spec.grid):
                    if (file + rank) % 2:
                        x0 = int(off + file * sq_px)
                        y0 = int(n_px - off - (rank + 1) * sq_px)
                        checker[y0:y0 + int(sq_px) + 1, x0:x0 + int(sq_px) + 1] = 1
            grain = np.where(checker > 0, grain_h, grain_v)
            tex *= (1 + 0.08 * style.grain * grain)[..., None]
        else:
            paper = cv2.GaussianBlur(rng.normal(0, 1, (n_px, n_px)).astype(np.float32),
                                     (0, 0), 1.5)
            tex *= (1 + 0.05 * style.grain * paper)[..., None]
    # Thin grid lines on printed boards.
    if style.kind == "printed":
        for i in range(spec.grid + 1):
            p = int(round(off + i * sq_px))
            cv2.line(tex, (p, int(off)), (p, int(n_px - off)), (30, 30, 30), 1)
            cv2.line(tex, (int(off), p), (int(n_px - off), p), (30, 30, 30), 1)
    if style.markers:
        _draw_markers(tex, int(off))
    return tex


# Marker ids in the texture's corners (top left = beyond a8, as the board is printed).
_MARKER_IDS = {(0, 0): 0, (0, 1): 1, (1, 1): 2, (1, 0): 3}  # (row, column) -> id


def _draw_markers(tex: np.ndarray, border_px: int) -> None:
    """ArUco markers (`DICT_4X4_50`) on a white ground filling each corner square of the
    frame, four fifths of its side."""
    n_px = tex.shape[0]
    side = int(0.8 * border_px)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for (row, col), marker_id in _MARKER_IDS.items():
        y0, x0 = row * (n_px - border_px), col * (n_px - border_px)
        tex[y0:y0 + border_px, x0:x0 + border_px] = 255.0
        code = cv2.aruco.generateImageMarker(dictionary, marker_id, side).astype(np.float32)
        m = (border_px - side) // 2
        tex[y0 + m:y0 + m + side, x0 + m:x0 + m + side] = code[..., None]


def _texture_to_board_mm(world: World) -> np.ndarray:
    """Texture pixel (u, v) -> board mm (x, y)."""
    spec = world.spec
    ppm = TEXTURE_PX_PER_MM
    size_mm = spec.grid * spec.square_mm + 2 * spec.border_mm
    return np.array([[1 / ppm, 0, -spec.border_mm], [0, -1 / ppm, size_mm - spec.border_mm],
                     [0, 0, 1]])


def _light_vector(scene: Scene) -> np.ndarray:
    az, el = math.radians(scene.light.azimuth_deg), math.radians(scene.light.elevation_deg)
    return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


def _disc_rings(x: float, y: float, z0: float, z1: float, r_mm: float) -> tuple[np.ndarray, ...]:
    a = np.linspace(0, 2 * math.pi, CIRCLE_SEGMENTS, endpoint=False)
    ring = np.stack([x + r_mm * np.cos(a), y + r_mm * np.sin(a)], axis=1)
    bottom = np.column_stack([ring, np.full(len(a), z0)])
    top = np.column_stack([ring, np.full(len(a), z1)])
    return a, bottom, top


def _poly(p: np.ndarray) -> np.ndarray:
    return np.round(p * 16).astype(np.int32).reshape(-1, 1, 2)


def render(world: World, scene: Scene, variant: Variant, seed: int = 0) -> Frame:
    """Draw `world` as `scene`'s camera sees it; `variant` names the playable squares."""
    rng = np.random.default_rng(seed)
    cam = scene.camera
    w, h = cam.width_px, cam.height_px
    k = intrinsics_of(scene).matrix
    r, t, centre = camera_pose(scene)
    spec = world.spec
    light = _light_vector(scene)
    lit = scene.light

    # -- the plane: table, then board ------------------------------------------------------
    hp = _plane_homography(r, t, k)
    img = np.empty((h, w, 3), np.float32)
    img[:] = tuple(0.8 * c for c in scene.table_bgr)  # the far wall beyond the table
    table_mm = 2400.0
    table_tex = np.empty((240, 240, 3), np.float32)
    table_tex[:] = scene.table_bgr
    table_tex *= (1 + 0.06 * cv2.GaussianBlur(rng.normal(0, 1, (240, 240)).astype(np.float32),
                                              (0, 0), 3))[..., None]
    tab_to_mm = np.array([[table_mm / 240, 0, -table_mm / 2 + spec.grid * spec.square_mm / 2],
                          [0, table_mm / 240, -table_mm / 2 + spec.grid * spec.square_mm / 2],
                          [0, 0, 1]])
    cv2.warpPerspective(table_tex, hp @ tab_to_mm, (w, h), dst=img, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)
    btex = _board_texture(scene, world, rng)
    cv2.warpPerspective(btex, hp @ _texture_to_board_mm(world), (w, h), dst=img,
                        flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)

    # -- light on the plane: gradient, glare, shadows ---------------------------------------
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = lit.gradient
    field = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    vign = 1 - 0.25 * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2)
    field *= vign
    direct = (1 - lit.ambient) * max(0.0, light[2])
    shadow = np.zeros((h, w), np.float32)
    r_mm = spec.disc_diameter_mm / 2
    for d in world.discs:
        z0 = d.level * spec.disc_height_mm
        _, bottom, top = _disc_rings(d.x_mm, d.y_mm, z0, z0 + spec.disc_height_mm, r_mm)
        pts = np.vstack([bottom, top])
        flat = pts[:, :2] - pts[:, 2:3] * (light[:2] / light[2])
        flat3 = np.column_stack([flat, np.zeros(len(flat))])
        hull = cv2.convexHull(_project_ideal(flat3, r, t, k).astype(np.float32))
        cv2.fillPoly(shadow, [_poly(hull.reshape(-1, 2))], 1.0, cv2.LINE_AA, shift=4)
    hand_mask = None
    if scene.hand is not None:
        hand_mask, hand_poly_shadow = _hand_masks(scene, r, t, k, light)
        shadow = np.maximum(shadow, hand_poly_shadow)
    soft = lit.shadow_softness_px
    shadow = cv2.GaussianBlur(shadow, (0, 0), soft)
    plane_light = (lit.ambient + direct * (1 - 0.85 * shadow)) * field
    if lit.hard_shadow is not None:
        hs = np.zeros((h, w), np.float32)
        poly = np.array([(fx * w, fy * h) for fx, fy in lit.hard_shadow], np.float32)
        cv2.fillPoly(hs, [_poly(poly)], 1.0, cv2.LINE_AA, shift=4)
        hs = cv2.GaussianBlur(hs, (0, 0), 1.0)
        plane_light *= 1 - lit.hard_shadow_depth * hs
    else:
        hs = None
    gains = np.array(lit.gains_bgr, np.float32) * lit.exposure
    img *= plane_light[..., None] * gains * 1.15
    if lit.glare is not None:
        gx_mm, gy_mm, sig_mm, strength = lit.glare
        c = _project_ideal(np.array([[gx_mm, gy_mm, 0.0]]), r, t, k)[0]
        sig_px = sig_mm * cam.focal_px / cam.distance_mm
        blob = np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * sig_px ** 2))
        img += (255 * strength * blob)[..., None]

    out = np.clip(img, 0, 255).astype(np.uint8)

    # -- discs, back to front -----------------------------------------------------------------
    # A crown sits up to a millimetre off its base: it is drawn right after the base it stands
    # on (by the base's distance), or the base's top face would be painted over its wall.
    def _far_first(d: Disc) -> tuple[float, int]:
        base = _stack_base(world, d, spec.disc_diameter_mm / 2)
        return (-float(np.linalg.norm(np.array([base.x_mm, base.y_mm, 0.0]) - centre)),
                d.level)

    order = sorted(world.discs, key=_far_first)
    field_light = lit.ambient + direct
    style = scene.pieces
    for d in order:
        base = np.array(style.white_bgr if d.color is Color.WHITE else style.black_bgr,
                        np.float32)
        pc = _project_ideal(np.array([[d.x_mm, d.y_mm, 0.0]]), r, t, k)[0]
        ix, iy = int(min(w - 1, max(0, pc[0]))), int(min(h - 1, max(0, pc[1])))
        local = float(field[iy, ix]) * gains
        if hs is not None:
            local = local * (1 - lit.hard_shadow_depth * float(hs[iy, ix]))
        _draw_disc(out, d, base, local, light, lit.ambient, field_light, centre, r, t, k,
                   spec.disc_height_mm, r_mm, style.ridges, style.gloss, rng)

    if hand_mask is not None:
        skin = np.array(scene.hand.skin_bgr, np.float32) * gains * (lit.ambient + direct)  # type: ignore[union-attr]
        shade = (0.85 + 0.15 * cv2.GaussianBlur(hand_mask, (0, 0), 9))[..., None]
        hand_img = np.clip(skin * shade, 0, 255).astype(np.uint8)
        m = cv2.GaussianBlur(hand_mask, (0, 0), 1.0)[..., None]
        out = (out * (1 - m) + hand_img * m).astype(np.uint8)

    # -- lens, sensor, file -------------------------------------------------------------------
    intr = intrinsics_of(scene)
    if any(abs(c) > 1e-9 for c in intr.dist):
        mx, my = _distortion_maps(w, h, cam.focal_px, tuple(intr.dist))
        out = cv2.remap(out, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if hand_mask is not None:
            hand_mask = cv2.remap(hand_mask, mx, my, cv2.INTER_LINEAR)
    if scene.blur_sigma_px > 0:
        out = cv2.GaussianBlur(out, (0, 0), scene.blur_sigma_px)
    if scene.noise_sigma > 0:
        noise = rng.normal(0, scene.noise_sigma, out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)

    # -- ground truth -------------------------------------------------------------------------
    n_mm = spec.grid * spec.square_mm
    corners3 = np.array([[0, 0, 0], [n_mm, 0, 0], [n_mm, n_mm, 0], [0, n_mm, 0]], np.float64)
    rvec, _ = cv2.Rodrigues(r)
    corners_px, _ = cv2.projectPoints(corners3, rvec, t, k, intr.dist_array)
    corners_px = corners_px.reshape(4, 2)
    board = BaseBoard.empty(variant)
    placement = world.placement(board)
    occluded, partly = _occlusion_truth(hand_mask, variant, spec, rvec, t, k, intr)
    inside = bool(np.all((corners_px >= 0) & (corners_px <= [w - 1, h - 1])))
    return Frame(out, placement, occluded, partly, corners_px, intr, rvec.reshape(3),
                 t.reshape(3), inside)


def _stack_base(world: World, d: Disc, r_mm: float) -> Disc:
    """The disc at the foot of `d`'s stack (`d` itself when it stands on the board)."""
    if d.level == 0:
        return d
    below = [b for b in world.discs
             if b.level == 0 and math.hypot(b.x_mm - d.x_mm, b.y_mm - d.y_mm) <= r_mm]
    return min(below, key=lambda b: math.hypot(b.x_mm - d.x_mm, b.y_mm - d.y_mm), default=d)


def _draw_disc(out: np.ndarray, d: object, base: np.ndarray, local: np.ndarray,
               light: np.ndarray, ambient: float, field_light: float, centre: np.ndarray,
               r: np.ndarray, t: np.ndarray, k: np.ndarray, height_mm: float, r_mm: float,
               ridges: int, gloss: float, rng: np.random.Generator) -> None:
    z0 = d.level * height_mm  # type: ignore[attr-defined]
    x, y = d.x_mm, d.y_mm  # type: ignore[attr-defined]
    a, bottom, top = _disc_rings(x, y, z0, z0 + height_mm, r_mm)
    pb = _project_ideal(bottom, r, t, k)
    pt = _project_ideal(top, r, t, k)
    direct = 1 - ambient

    def colour(normal_light: float, factor: float = 1.0) -> tuple[float, ...]:
        c = base * local * (ambient + direct * max(0.0, normal_light)) * factor * 1.15
        return tuple(float(v) for v in np.clip(c, 0, 255))

    n = len(a)
    for i in range(n):
        j = (i + 1) % n
        mid = (a[i] + a[j]) / 2
        normal = np.array([math.cos(mid), math.sin(mid), 0.0])
        p = np.array([x + r_mm * math.cos(mid), y + r_mm * math.sin(mid), z0 + height_mm / 2])
        if float(np.dot(normal, centre - p)) <= 0:
            continue
        quad = np.array([pb[i], pb[j], pt[j], pt[i]])
        cv2.fillPoly(out, [_poly(quad)], colour(float(normal @ light), 0.8), cv2.LINE_AA, 4)
    # Ridges on the wall and the seam at its foot (visible half only).
    vis = [i for i in range(n) if float(np.dot([math.cos(a[i]), math.sin(a[i]), 0.0],
                                               centre - bottom[i])) > 0]
    if vis:
        for frac in (0.0, 0.35, 0.7) if ridges else (0.0,):
            ring = bottom.copy()
            ring[:, 2] = z0 + frac * height_mm
            pr = _project_ideal(ring, r, t, k)
            seg = _visible_runs(vis, n)
            for run in seg:
                cv2.polylines(out, [_poly(pr[run])], False, colour(0.3, 0.55), 1, cv2.LINE_AA, 4)
    cv2.fillPoly(out, [_poly(pt)], colour(float(light[2])), cv2.LINE_AA, 4)
    cv2.polylines(out, [_poly(pt)], True, colour(float(light[2]), 0.75), 1, cv2.LINE_AA, 4)
    for q in range(ridges):
        rr = r_mm * (0.85 - 0.2 * q)
        if rr <= 2:
            break
        _, _, ring = _disc_rings(x, y, z0, z0 + height_mm, rr)
        pr = _project_ideal(ring, r, t, k)
        cv2.polylines(out, [_poly(pr)], True, colour(float(light[2]), 0.85), 1, cv2.LINE_AA, 4)
    if gloss > 0.05:
        # A specular spot on the top face, displaced towards the light.
        spot = np.array([[x + 0.4 * r_mm * light[0], y + 0.4 * r_mm * light[1],
                          z0 + height_mm]])
        ps = _project_ideal(spot, r, t, k)[0]
        rad = max(1.5, 0.12 * float(np.linalg.norm(pt[0] - pt[n // 2])))
        overlay = out.copy()
        cv2.circle(overlay, (int(ps[0] * 16), int(ps[1] * 16)), int(rad * 16),
                   (255, 255, 255), -1, cv2.LINE_AA, 4)
        cv2.addWeighted(overlay, 0.5 * gloss, out, 1 - 0.5 * gloss, 0, dst=out)


def _visible_runs(vis: list[int], n: int) -> list[list[int]]:
    """Consecutive runs of visible ring indices (wrapping), each extended by one point."""
    s = set(vis)
    starts = [i for i in vis if (i - 1) % n not in s]
    runs = []
    for st in starts:
        run = [st]
        i = st
        while (i + 1) % n in s and len(run) < n:
            i = (i + 1) % n
            run.append(i)
        run.append((i + 1) % n)
        runs.append(run)
    return runs


def _hand_masks(scene: Scene, r: np.ndarray, t: np.ndarray, k: np.ndarray,
                light: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    hand = scene.hand
    assert hand is not None
    w, h = scene.camera.width_px, scene.camera.height_px
    tip3 = np.array([[hand.tip_mm[0], hand.tip_mm[1], hand.height_mm]])
    tip = _project_ideal(tip3, r, t, k)[0]
    scale = float(np.linalg.norm(_project_ideal(tip3 + [[hand.width_mm, 0, 0]], r, t, k)[0]
                                 - tip))
    entry = np.array([hand.entry[0] * w, hand.entry[1] * h])
    mask = np.zeros((h, w), np.float32)
    thick = max(3, int(scale * 0.9))
    cv2.line(mask, tuple(int(v) for v in entry), tuple(int(v) for v in tip), 1.0, thick,
             cv2.LINE_AA)
    cv2.circle(mask, tuple(int(v) for v in tip), int(scale * 0.7), 1.0, -1, cv2.LINE_AA)
    # Fingers reaching beyond the palm.
    direction = (tip - entry) / max(1.0, float(np.linalg.norm(tip - entry)))
    side = np.array([-direction[1], direction[0]])
    for f in (-0.45, -0.15, 0.15, 0.45):
        a = tip + side * f * scale
        b = a + direction * scale * 0.9
        cv2.line(mask, tuple(int(v) for v in a), tuple(int(v) for v in b), 1.0,
                 max(2, int(scale * 0.2)), cv2.LINE_AA)
    # Shadow: the same shape, shifted as the hand's height and the light direction say.
    shift3 = tip3.copy()
    shift3[0, :2] -= hand.height_mm * light[:2] / light[2]
    shift3[0, 2] = 0
    dv = _project_ideal(shift3, r, t, k)[0] - tip
    m = np.float32([[1, 0, dv[0]], [0, 1, dv[1]]])
    shadow = cv2.warpAffine(mask, m, (w, h)) * 0.8
    return mask, shadow


@lru_cache(maxsize=16)
def _distortion_maps(w: int, h: int, focal: float,
                     dist: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For each distorted output pixel, where to read the ideal (undistorted) image."""
    k = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]])
    step = 8
    gy, gx = np.mgrid[0:h + step:step, 0:w + step:step].astype(np.float32)
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, k, np.array(dist), P=k).reshape(gy.shape + (2,))
    # Bilinear interpolation of the coarse grid at x/step, y/step (grid node i is pixel i*step;
    # cv2.resize would shift it by half a cell).
    fy, fx = np.mgrid[0:h, 0:w].astype(np.float32)
    mx = cv2.remap(und[..., 0].astype(np.float32), fx / step, fy / step, cv2.INTER_LINEAR)
    my = cv2.remap(und[..., 1].astype(np.float32), fx / step, fy / step, cv2.INTER_LINEAR)
    return mx.astype(np.float32), my.astype(np.float32)


def _occlusion_truth(hand_mask: np.ndarray | None, variant: Variant, spec: object,
                     rvec: np.ndarray, t: np.ndarray, k: np.ndarray,
                     intr: CameraIntrinsics) -> tuple[frozenset[int], frozenset[int]]:
    if hand_mask is None:
        return frozenset(), frozenset()
    geo = geometry(variant.width, variant.height)
    s = spec.square_mm  # type: ignore[attr-defined]
    hgt = spec.disc_height_mm  # type: ignore[attr-defined]
    g = (np.arange(5) + 0.5) / 5
    occ, part = set(), set()
    h, w = hand_mask.shape
    for sq, (f, rk) in enumerate(geo.coords):
        pts = [((f + u) * s, (rk + v) * s, z) for u in g for v in g for z in (0.0, 2 * hgt)]
        px, _ = cv2.projectPoints(np.array(pts, np.float64), rvec, t, k, intr.dist_array)
        px = px.reshape(-1, 2)
        xi = np.clip(px[:, 0].astype(int), 0, w - 1)
        yi = np.clip(px[:, 1].astype(int), 0, h - 1)
        cover = float(np.mean(hand_mask[yi, xi] > 0.5))
        if cover >= 0.5:
            occ.add(sq)
        elif cover > 0.0:
            part.add(sq)
    return frozenset(occ), frozenset(part)
