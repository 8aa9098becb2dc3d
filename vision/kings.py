"""Tell a stacked king from a man: which height explains the piece's silhouette?

With the calibrated pose, a stack k discs high covers, on the playing surface as the camera
sees it, its base disc swept away from the camera by `lam[k]` (see vision.king_samples).  On a
line along the view at offset b across, that is the interval

    [o - c(b),  o + lam[k] + rho[k] * c(b)],   c(b) = sqrt(R^2 - (b - o_side)^2)

for a piece of radius R standing off-centre by (o, o_side).  Each sample on the line says how
much it looks like the piece rather than the board under it (a soft score in -1..1); a
hypothesis is scored by the samples it calls piece minus those it calls board, each at its own
best shift o.  One disc against two: the difference, divided by the most it could be, is near
+1 for a king and -1 for a man.  The radius comes from the piece set's width across the view
(all pieces of a set have one size); the side shift from each piece's own across lines.

The silhouette's far edge can vanish (a white top face against a white square, both
clipped), and then one disc and two explain it alike.  The wall backs it there: along the
view, the top face begins `lam[k]` beyond the base's near edge, and the band between the two
heights' beginnings is top face for a man and (darker) wall for a king (`wall_preference`).
That test reads the band at the shift the silhouette chose; the wall's length is also measured
edge to edge, from the base's near edge to where the top face begins, which needs no shift
(`wall_length_preference`).

The cue fades with the lean: a piece under a camera looking straight down shows no wall at all,
and when a man and a king differ by less than `min_step_px` in the image the stage says man
with confidence 0.5 (it cannot tell).  Where the lean is small, the pieces' shadows on the board
speak instead, under a lamp (vision.shadows): a king's is twice as long.

Pixels are compared with the piece's own colour and the board's colour under them, each
allowed to vary in brightness (shading of the wall, shadows): a colour c is near a base colour
b if it is near some a*b, a in a range.  Nothing depends on one piece set's colours.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.config import KingConfig, VisionConfig
from vision.king_samples import KingSamples
from vision.light import LocalLight
from vision.shadows import ShadowReading, read_shadows
from vision.stats import channel_sum, median, median_of_finite


def _ray_distance(x: np.ndarray, b: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Distance from colours x (..., 3) to the segments {a*b : lo <= a <= hi}; b broadcasts."""
    # From dot products: numpy reduces a length-3 axis slowly.
    x = np.asarray(x, np.float64)
    b = np.asarray(b, np.float64)
    return _ray_distance_rows(np.einsum("...i,...i->...", x, x),
                              np.einsum("...i,...i->...", x, b),
                              np.einsum("...i,...i->...", b, b), lo, hi)


def _ray_distance_rows(xx: np.ndarray, xb: np.ndarray, bb: np.ndarray,
                       lo: float, hi: float | np.ndarray) -> np.ndarray:
    """`_ray_distance` from precomputed dot products (x.x, x.b, b.b), all (N,); `hi` may be one
    per column of b."""
    a = np.clip(xb / np.maximum(bb, 1e-6), lo, hi)
    return np.sqrt(np.maximum(xx - 2 * a * xb + a * a * bb, 0.0))


def piece_likeness(x: np.ndarray, piece: np.ndarray, per: np.ndarray, board: np.ndarray,
                   kind: np.ndarray, board_shade: tuple[float, float],
                   piece_shade: tuple[float, float], mix: np.ndarray | None = None,
                   faint_apart: float = 0.0, piece_veil: np.ndarray | None = None,
                   ) -> np.ndarray:
    """-1 (board) .. +1 (piece) for N colours x (N x 3) seen where piece[per] might stand on
    board[kind]: the distance to (any shade of) the board minus that to the piece, relative to
    how far apart the two are.  Where `mix` (N,) names another kind (a sample by a grid line),
    any blend of the two board colours counts as board.

    Relative to how far apart they are, a board colour close to the piece's is told from it
    by noise: over light squares and the frame (kinds 1 and up), a colour `faint_apart` or
    less from the piece's says that much less (a white frame behind a white man on the far
    rank read as his king's top).  Not over the dark squares: a set of their colour is told
    from them by nothing else.

    `piece_veil` (P,): the veil (over the gain) taken off the colours x and the pieces'
    colours alike, which a piece does not show: glare is the board's own reflection, and a
    piece standing in it hides it.  With it given back, a shade of the piece is a shade of
    its colour, not of its colour less the veil."""
    d_board, d_piece, apart_x, _ = likeness_distances(x, piece, per, board, kind, board_shade,
                                                      piece_shade, mix, piece_veil)
    return likeness(d_board, d_piece, apart_x, kind, faint_apart)


def likeness_distances(x: np.ndarray, piece: np.ndarray, per: np.ndarray, board: np.ndarray,
                       kind: np.ndarray, board_shade: tuple[float, float],
                       piece_shade: tuple[float, float], mix: np.ndarray | None = None,
                       piece_veil: np.ndarray | None = None,
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What `piece_likeness` weighs, each (N,): the distances to (any shade of) the board and
    to the piece, how far apart the two colours are, and the shade of the piece each colour
    is (its projection on the piece's colour: 1 the colour itself, 0.3 a wall in shade)."""
    # (Row gathers by np.take: fancy indexing of rows is several times slower.)
    xx = channel_sum(x * x)
    x_boards = x @ board.T  # (N, kinds)
    n_kinds = len(board)
    xb = np.take(x_boards.reshape(-1), np.arange(len(x)) * n_kinds + kind)
    bb = board @ board.T  # (kinds, kinds)
    d_board = _ray_distance_rows(xx, xb, np.take(np.diag(bb), kind), *board_shade)
    if mix is not None:
        edge = np.flatnonzero(mix != kind)
        if len(edge):
            # Blends (1 - s) * own + s * other: their dot products follow from the two colours'.
            k, m = kind[edge], mix[edge]
            share = np.array([0.25, 0.5, 0.75, 1.0])[:, None]
            xe = xx[edge].astype(np.float64)
            x_blend = (1 - share) * x_boards[edge, k] + share * x_boards[edge, m]
            bb_blend = ((1 - share) ** 2 * bb[k, k] + 2 * share * (1 - share) * bb[k, m]
                        + share ** 2 * bb[m, m])
            d_board[edge] = np.minimum(d_board[edge], _ray_distance_rows(
                xe, x_blend, bb_blend, *board_shade).min(axis=0))
    # (x . piece and piece . piece serve the piece's shades and the shade each colour is.)
    xp = channel_sum(x * np.take(piece, per, axis=0))
    pp = np.take(channel_sum(piece * piece), per)
    if piece_veil is not None:
        lifted = piece + piece_veil[:, None]
        xl = x + np.take(piece_veil, per)[:, None]
        d_piece = _ray_distance_rows(channel_sum(xl * xl),
                                     channel_sum(xl * np.take(lifted, per, axis=0)),
                                     np.take(channel_sum(lifted * lifted), per), *piece_shade)
    else:
        d_piece = _ray_distance_rows(xx, xp, pp, *piece_shade)
    apart = np.linalg.norm(piece[:, None, :] - board[None, :, :], axis=2)  # (P, kinds)
    apart_x = np.take(apart.reshape(-1), per * n_kinds + kind)
    return d_board, d_piece, apart_x, xp / np.maximum(pp, 1e-6)


def likeness(d_board: np.ndarray, d_piece: np.ndarray, apart: np.ndarray, kind: np.ndarray,
             faint_apart: float = 0.0) -> np.ndarray:
    """-1 (board) .. +1 (piece) from `likeness_distances`: the two distances' difference
    relative to `apart`, how far apart the colours are taken to be (see `piece_likeness`)."""
    like = np.clip((d_board - d_piece) / (0.35 * np.maximum(apart, 10.0)), -1.0, 1.0)
    if faint_apart > 0:
        like = np.where(kind >= 1, like * np.clip(apart / faint_apart, 0.0, 1.0), like)
    return like


def shade_apart(d_board: np.ndarray, d_piece: np.ndarray, apart: np.ndarray,
                shade: np.ndarray, near: float, dark_shade: float) -> np.ndarray:
    """How far apart piece and board are taken to be (for `likeness`) at a sample that is a
    dark shade of the piece (below `dark_shade` of its colour): at most `near` times its two
    distances together.  A piece's wall in shade lies where the two colours' shades are far
    closer than the lit colours are (an orange man's wall in a lamp's shade is within 20 of
    walnut's colour, his top face 170 from it): relative to the lit colours' distance it said
    hardly anything, and nearer one of them by a factor of several it is that one."""
    return np.where(shade < dark_shade, np.minimum(apart, near * (d_board + d_piece)), apart)


def _sample(image: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Bilinear colours (N x 3 float32) at the N sub-pixel points xy (N x 2)."""
    n = len(xy)
    width = 256
    rows = -(-n // width)
    pad = np.zeros((rows * width, 2), np.float32)
    pad[:n] = xy
    pad = pad.reshape(rows, width, 2)
    out = cv2.remap(image, pad[..., 0], pad[..., 1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(-1, 3)[:n].astype(np.float32)


def _cumulative(p: np.ndarray) -> np.ndarray:
    """Prefix sums along the last axis with a leading zero: c[..., i] = sum(p[..., :i])."""
    c = np.zeros(p.shape[:-1] + (p.shape[-1] + 1,), np.float32)
    np.cumsum(p, axis=-1, out=c[..., 1:])
    return c


def _steps(cum: np.ndarray) -> np.ndarray:
    """cum[:, i + 1] - cum[:, i] at column i (the last column is never read)."""
    steps = np.zeros_like(cum)
    np.subtract(cum[:, 1:], cum[:, :-1], out=steps[:, :-1])
    return steps


def _at(cum: np.ndarray, pos: np.ndarray, steps: np.ndarray | None = None) -> np.ndarray:
    """cum (R x (T+1)) read at fractional sample boundaries pos (R x ...), interpolated;
    `steps` is `_steps(cum)` when already at hand."""
    rows, width = cum.shape
    if steps is None:
        steps = _steps(cum)
    # The row's offset in the flat array joins the position before it is split into whole
    # and fraction (in float64, exact enough): one integer array fewer.
    x = np.clip(pos, 0.0, width - 1.000001, out=np.empty(pos.shape))
    x += (np.arange(rows) * width).reshape((rows,) + (1,) * (pos.ndim - 1))
    j = x.astype(np.intp)
    f = (x - j).astype(np.float32)
    return np.take(cum.reshape(-1), j) + f * np.take(steps.reshape(-1), j)


def _at_rows(cum_t: np.ndarray, steps_t: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """`_at` for positions pos (K,) shared by every line, with the prefix sums and their
    steps transposed ((T+1) x R): (K, R).  (Whole rows are copied: reading the same columns
    of every row is several times slower.)"""
    x = np.clip(pos, 0.0, cum_t.shape[0] - 1.000001)
    i = x.astype(np.intp)
    f = (x - i).astype(np.float32)[:, None]
    return np.take(cum_t, i, axis=0) + f * np.take(steps_t, i, axis=0)


def interval_scores(cum: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Sum inside [start, end) minus sum outside, for prefix sums cum (R x (T+1)).

    `start` and `end` are fractional sample boundaries (R x ...; `start` may broadcast against
    `end`, and is read only at its own size); an empty interval scores minus the whole line.
    """
    total = cum[:, -1].reshape((cum.shape[0],) + (1,) * (end.ndim - 1))
    steps = _steps(cum)
    inside = np.where(end >= start, _at(cum, end, steps) - _at(cum, start, steps), 0.0)
    return 2.0 * inside - total


def fit_width(p: np.ndarray, step: float, u0: float, max_shift: float, widths: np.ndarray,
              free_shift: float = np.inf, shift_cost: float = 0.0,
              ) -> tuple[np.ndarray, np.ndarray]:
    """(width, centre) of the piece on each line across the view (p: R x U likeness).

    The interval [centre - width/2, centre + width/2] that best separates piece from board,
    the centre within +-max_shift of the square's centre line; one past `free_shift` costs
    `shift_cost` for each sample's length beyond it, as in `height_scores`.
    """
    # Every line tries the same intervals: the prefix sums are read along the lines' length,
    # once per interval (the sum outside is the line's total minus the sum inside, the same
    # for all), so they are laid out with that position first.
    cum_t = np.ascontiguousarray(_cumulative(p).T)  # (U+1, R)
    steps_t = np.zeros_like(cum_t)
    np.subtract(cum_t[1:], cum_t[:-1], out=steps_t[:-1])
    centres = np.linspace(-max_shift, max_shift, 13)
    lo = (centres[:, None] - widths[None, :] / 2 - u0) / step + 0.5
    hi = (centres[:, None] + widths[None, :] / 2 - u0) / step + 0.5
    inside = (_at_rows(cum_t, steps_t, hi.ravel())
              - _at_rows(cum_t, steps_t, np.minimum(lo, hi).ravel()))  # (intervals, lines)
    cost = shift_cost * np.maximum(np.abs(centres) - free_shift, 0.0) / step  # (centres,)
    if cost.any():
        inside = inside - np.repeat(cost, len(widths))[:, None]
    best = np.argmax(inside, axis=0)
    ci, wi = np.unravel_index(best, lo.shape)
    return widths[wi], centres[ci]


def height_scores(p: np.ndarray, step: float, t0: float, b: np.ndarray, radius: np.ndarray,
                  side_shift: np.ndarray, lam: np.ndarray, rho: np.ndarray, max_shift: float,
                  shifts: int, free_shift: float = np.inf, shift_cost: float = 0.0,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How well one disc and two discs explain each piece's lines along the view.

    p: (P, J, T) likeness on the lines along the view at offsets b (J,); G variants of the
    geometry to try: radius (P, G), lam and rho (P, 2, G) for one and two discs; side_shift
    (P,).  Each height is fitted at its best shift along the view, within +-max_shift; a shift
    beyond `free_shift` costs `shift_cost` on every line for each sample's length past it
    (pieces stand near their squares' centres: see `KingConfig.free_shift_sq`).  Returns
    (scores (P, G, 2), most (P, G), shift (P, G, 2)): `most` is the largest difference the two
    could show (the band of length lam[1] - lam[0] on every line that crosses the piece, piece
    for one and board for the other); `shift` is each height's best shift (squares along the
    view).
    """
    n_p, n_j, _ = p.shape
    n_g = radius.shape[1]
    cum = _cumulative(p.reshape(n_p * n_j, -1))
    rel = b[None, None, :] - side_shift[:, None, None]  # (P, 1, J)
    r2 = radius[:, :, None] ** 2  # (P, G, 1)
    chord = np.sqrt(np.maximum(r2 - rel ** 2, 0.0))  # (P, G, J)
    # Lines grazing the piece's side say little (a steep chord): weigh them down.
    weight = np.clip((r2 - rel ** 2) / (0.5 * r2), 0.0, 1.0)
    to_idx = 1.0 / step
    # Sample boundaries, built in the layout of cum's rows (P*J): start at shift o is
    # o - chord, end is o + lam + rho * chord (in samples from the line's first).
    o_sq = np.linspace(-max_shift, max_shift, shifts)
    o_idx = (o_sq - t0) * to_idx + 0.5  # (O,)
    chord_pj = np.moveaxis(chord, 2, 1) * to_idx  # (P, J, G)
    s_idx = o_idx - chord_pj[:, :, None, :, None]  # (P, J, 1, G, O)
    e_idx = o_idx + (lam[:, None, :, :] * to_idx + rho[:, None, :, :]
                     * chord_pj[:, :, None, :])[..., None]  # (P, J, 2, G, O)
    # Both heights share each start: read it once.
    line = interval_scores(cum, s_idx.reshape(n_p * n_j, 1, n_g, shifts),
                           e_idx.reshape(n_p * n_j, 2, n_g, shifts)).reshape(
        n_p, n_j, 2, n_g, shifts)
    total = (line * np.moveaxis(weight, 2, 1)[:, :, None, :, None]).sum(axis=1)  # (P,2,G,O)
    cost = shift_cost * np.maximum(np.abs(o_sq) - free_shift, 0.0) * to_idx  # (O,)
    if cost.any():
        total = total - cost * weight.sum(axis=2)[:, None, :, None]
    best = np.moveaxis(total.max(axis=3), 1, 2)  # (P, G, 2)
    shift = o_sq[np.moveaxis(total.argmax(axis=3), 1, 2)]
    most = 2.0 * (lam[:, 1] - lam[:, 0]) * to_idx * weight.sum(axis=2)
    return best, np.maximum(most, 1e-6), shift


def _chords(b: np.ndarray, side_shift: np.ndarray, radius: np.ndarray,
            ) -> tuple[np.ndarray, np.ndarray]:
    """(rel, chord), both (P, J): each line's offset from the piece's middle (lines at offsets
    b (J,), pieces shifted sideways by side_shift (P,)) and the half-length of the piece's
    disc (radius (P,)) on it, 0 where the line misses it."""
    rel = b[None, :] - side_shift[:, None]
    return rel, np.sqrt(np.maximum(radius[:, None] ** 2 - rel ** 2, 0.0))


def board_beyond(p: np.ndarray, step: float, t0: float, b: np.ndarray, radius: np.ndarray,
                 side_shift: np.ndarray, lam: np.ndarray, rho: np.ndarray, max_shift: float,
                 open_board: np.ndarray, beyond_sq: float = 0.2) -> np.ndarray:
    """0..1 per piece: how far the silhouette test may be trusted, from how much the board
    just past a king's far edge (`beyond_sq` long, past the farthest shift tried) looks like
    board.

    The band between the two heights' far edges tells them apart only against board: a light
    set before light squares or a frame of its own colour (or a glare spot there) reads as
    piece all along, and would pass for the taller piece.  A line whose board beyond reads as
    piece by a likeness s > 0 counts 1 - s.  p (P, J, T) as in `height_scores`, radius (P,),
    lam and rho (P, 2).  Only samples on `open_board` (P, J, T: light squares and the frame,
    where no other piece stands) are read; lines with none there (the view along a diagonal,
    towards the next playable square) keep their full weight."""
    n_p, n_j, n_t = p.shape
    m = open_board.reshape(n_p * n_j, n_t).astype(np.float32)
    cum = _cumulative(p.reshape(n_p * n_j, n_t) * m)
    cum_m = _cumulative(m)
    rel, chord = _chords(b, side_shift, radius)
    far_sq = max_shift + lam[:, 1, None] + rho[:, 1, None] * chord
    far = ((far_sq - t0) / step + 1.5).reshape(-1, 1)
    end = np.minimum(far + beyond_sq / step, n_t)
    seen = _at(cum_m, end) - _at(cum_m, far)
    beyond = np.where(seen >= 2.0, (_at(cum, end) - _at(cum, far)) / np.maximum(seen, 1e-3),
                      -1.0).reshape(n_p, n_j)
    weight = np.clip((radius[:, None] ** 2 - rel ** 2) / (0.5 * radius[:, None] ** 2), 0.0, 1.0)
    clear = np.clip(1.0 - beyond, 0.0, 1.0)
    return (clear * weight).sum(axis=1) / np.maximum(weight.sum(axis=1), 1e-6)


def height_preference(p: np.ndarray, step: float, t0: float, b: np.ndarray, radius: np.ndarray,
                      side_shift: np.ndarray, lam: np.ndarray, rho: np.ndarray,
                      max_shift: float, shifts: int, free_shift: float = np.inf,
                      shift_cost: float = 0.0) -> np.ndarray:
    """-1 (one disc) .. +1 (two discs) for pieces of known radius (P,); see `height_scores`."""
    best, most, _ = height_scores(p, step, t0, b, radius[:, None], side_shift, lam[..., None],
                                  rho[..., None], max_shift, shifts, free_shift, shift_cost)
    return (best[:, 0, 1] - best[:, 0, 0]) / most[:, 0]


def set_preference(best: np.ndarray, most: np.ndarray, group: np.ndarray, scales: np.ndarray,
                   prior: float, free: float, prior_weight: float,
                   trusted: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(-1..+1 per piece, the index of the radius chosen for it): each set at the radius (of
    those tried) that explains it best.

    All pieces of a set have one radius, and each is one disc or two: the radius (a scale of
    the measured one, `scales`) is the one whose best explanation of every piece, summed over
    the set, is highest.  This absorbs what the image does to every edge of the set alike
    (blur, a bright set bleeding over its edges).  A set of kings only could pass for men a
    little wider, so scales more than `free` away from `prior` pay `prior_weight` of each
    piece's largest difference per 0.02 of scale beyond.  Only `trusted` pieces (P,) choose
    the radius, where a set has any.
    """
    pref = np.empty(len(best))
    chosen = np.zeros(len(best), np.intp)
    cost = prior_weight * np.maximum(np.abs(scales - prior) - free, 0.0) / 0.02
    for g in np.unique(group):
        m = group == g
        fit = m & trusted if trusted is not None and (m & trusted).any() else m
        total = best[fit].max(axis=2).sum(axis=0) - most[fit].sum(axis=0) * cost
        gi = int(np.argmax(total))
        chosen[m] = gi
        pref[m] = (best[m, gi, 1] - best[m, gi, 0]) / most[m, gi]
    return pref, chosen


def set_radius(width: np.ndarray, group: np.ndarray, w_min: float, w_max: float,
               nominal: float, min_pieces: int = 3, trusted: np.ndarray | None = None,
               min_own: int = 1) -> np.ndarray:
    """Radius of each piece: half the median width of its set (all pieces of a set match).

    Widths at the ends of the searched range are no measurement (a piece of the wrong colour,
    something that is not a piece), nor are those of pieces not `trusted` (P,).  A set with a
    good width, even one (`min_own`), is sized by its own: the image makes one set wider than
    the other (a bright set bleeds over its edges), and a lone white man sized by the black men
    looked long for his width, a king (rendered scenes, seeds 1, 7 and 30: 28 fewer men and
    kings misread of 830).  A set with none takes all pieces' median, from `min_pieces` good
    widths, else the configured radius.
    """
    good = (width > w_min + 1e-9) & (width < w_max - 1e-9)
    if trusted is not None:
        good &= trusted
    fallback = 0.5 * float(median(width[good], axis=0)) if good.sum() >= min_pieces else nominal
    radius = np.full(len(width), fallback)
    for g in np.unique(group):
        members = (group == g) & good
        if members.sum() >= min_own:
            radius[group == g] = 0.5 * float(median(width[members], axis=0))
    return radius


def leans(ks: KingSamples, idx: np.ndarray, height: float) -> tuple[np.ndarray, np.ndarray]:
    """(lam, rho), each (P, 2): plane shift and scale of the top of 1 and 2 discs `height` high."""
    z = np.array([height, 2 * height])
    below = np.maximum(ks.zc - z, 1e-6)
    lam = ks.dist[idx, None] * z[None, :] / below[None, :]
    return lam, np.broadcast_to(ks.zc / below, lam.shape)


def fit_height(p: np.ndarray, ks: KingSamples, idx: np.ndarray, radius: np.ndarray,
               side_shift: np.ndarray, cfg: VisionConfig, discs: np.ndarray | None = None,
               steps: int | None = None) -> float:
    """The disc height (squares) that best explains all pieces, each one disc or two.

    Piece sets differ in thickness, and a pose estimated without a calibrated lens misjudges
    every lean alike: both scale all leans by one factor, which the pieces in view fix - men
    at one height, kings at two.  Every king costs `king_cost` of its largest difference, so
    when all pieces look alike they are taken for men (the start of a game), not for kings
    of half the height.  Where each piece's number of discs is known (`discs` (P,), 1 or 2: a
    known position, the start of a game) each is read at its own, and nothing is guessed;
    there every disc's lean costs `KingConfig.known_length_cost` of it.
    `steps` heights are tried over `KingConfig.height_range` (by default `KingConfig.heights`).
    """
    kc = cfg.kings
    lo, hi = kc.height_range
    heights = cfg.pieces.height_sq * np.geomspace(lo, hi, steps or kc.heights)
    lam = np.stack([leans(ks, idx, h)[0] for h in heights], axis=2)  # (P, 2, H)
    rho = np.stack([leans(ks, idx, h)[1] for h in heights], axis=2)
    best, most, _ = height_scores(p, ks.step_sq, float(ks.t[0]), ks.b,
                                  np.repeat(radius[:, None], len(heights), axis=1), side_shift,
                                  lam, rho, cfg.max_offset_sq, kc.shifts, kc.free_shift_sq,
                                  kc.shift_cost)
    if discs is not None:
        # (A silhouette whose far edge says little, against a board near its colour, is
        # explained as well by any taller stack: each disc's length is paid for, and the
        # least that explains it wins.)
        k = np.asarray(discs)
        explained = np.take_along_axis(best, (k - 1)[:, None, None], axis=2)[..., 0] \
            - kc.known_length_cost * most * (0.5 * k)[:, None]
    else:
        explained = np.maximum(best[:, :, 0], best[:, :, 1] - kc.king_cost * most)
    return float(heights[int(np.argmax(explained.sum(axis=0)))])


def king_split(step_px: np.ndarray, kc: KingConfig, veil: np.ndarray | float = 0.0,
               ) -> np.ndarray:
    """The preference a piece must beat to be called a king, for man-to-king image differences
    step_px.  The smaller the difference, the weaker the evidence and the more the prior counts:
    men outnumber kings, so below `weak_step_px` a king must win by up to `weak_split` more.
    Under a glare `veil` (0..255, over the piece's square) the board beyond the piece, lit past
    what the smooth light model follows, passes for more piece: up to `veil_split` more."""
    return kc.split + kc.weak_split * np.clip(
        (kc.weak_step_px - step_px) / max(kc.weak_step_px - kc.min_step_px, 1e-6), 0.0, 1.0) \
        + kc.veil_split * np.clip(np.asarray(veil) / kc.veil_full, 0.0, 1.0)


def unlike_a_piece(p_along: np.ndarray, p_across: np.ndarray, t: np.ndarray, u: np.ndarray,
                   shift: np.ndarray, radius: np.ndarray, side_shift: np.ndarray,
                   lam: np.ndarray, rho: np.ndarray, widest: np.ndarray, kc: KingConfig,
                   beside_hand: np.ndarray | None = None) -> np.ndarray:
    """(P,) bool: what was taken for a piece is not shaped like one.

    A piece ends where its silhouette does, a king's at the furthest.  Something that spans
    the widest width tried across the view (`widest`, P) and goes on looking like the piece
    well beyond where a king would end, on `kc.beyond_sides` of the three sides the lines
    reach (beyond the far edge and the near edge along the view, beyond either side across
    it), is bigger than any piece: a hand the colour of a set, or a glare spot.  Beside a
    hand (`beside_hand`, P; where given) `kc.hand_beyond_sides` sides looking like the piece
    more than `kc.hand_beyond_likeness` are enough: its edge over the square's far part, where
    a king's top would be, or across it.

    p_along (P, J, T) and p_across (P, K, U): likeness on the lines along and across the view
    at positions t (T,) and u (U,); shift (P,) the piece's shift along the view as a king;
    radius, side_shift (P,); lam, rho (P, 2) as in `height_scores`.
    """
    m = kc.beyond_sq
    far = t[None, :] > (shift + lam[:, 1] + rho[:, 1] * radius + m)[:, None]  # (P, T)
    near = t[None, :] < (shift - radius - m)[:, None]
    side = np.abs(u[None, :] - side_shift[:, None]) > (rho[:, 1] * radius + m)[:, None]

    def beyond(p: np.ndarray, mask: np.ndarray) -> np.ndarray:
        n = mask.sum(axis=1) * p.shape[1]
        return (p * mask[:, None, :]).sum(axis=(1, 2)) / np.maximum(n, 1)

    likeness = np.stack([beyond(p_along, far), beyond(p_along, near),
                         beyond(p_across, side)])  # (3, P): far, near, across
    unlike = (likeness > kc.beyond_likeness).sum(axis=0) >= kc.beyond_sides
    if beside_hand is not None:
        unlike |= beside_hand & (
            (likeness > kc.hand_beyond_likeness).sum(axis=0) >= kc.hand_beyond_sides)
    return widest & unlike


def read_kings(image: np.ndarray, ks: KingSamples, idx: np.ndarray, light: LocalLight,
               piece_bgr: np.ndarray, background_bgr: np.ndarray, group: np.ndarray,
               cfg: VisionConfig, trusted: np.ndarray | None = None,
               occupied: np.ndarray | None = None, frame_sq: np.ndarray | None = None,
               known_discs: np.ndarray | None = None, beside_hand: np.ndarray | None = None,
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """(is_king, confidence, preference, not a piece, disc height in squares) for the occupied
    squares `idx` (internal order); see `unlike_a_piece` for the fourth.

    `piece_bgr` (P x 3): each piece's colour; `background_bgr` (3 x 3): dark square, light
    square, frame; `group` (P,): the piece set of each (sets may differ in size).  Only the
    `trusted` pieces (P,; all when None) measure what a set shares, its radius and its discs'
    height: a hand over squares, taken for pieces there, is neither.  `occupied` (S,): every
    square with something on it (the shadow test keeps off them; by default `idx`).
    `frame_sq` (4,): how far the frame reaches past each side of the grid (vision.frame_extent;
    by default as far as the lines): the table beyond it says nothing.
    `known_discs` (P,), where given: how many discs each piece is (a known position): the
    disc height is measured from them, finely, whether the lens is calibrated or not.
    `beside_hand` (P,), where given: the pieces diagonally beside a square read as under a
    hand, for which one side going on like the piece is enough to be none (`unlike_a_piece`).
    """
    if trusted is not None and not trusted.any():
        trusted = None
    kc = cfg.kings
    n_p = len(idx)
    if n_p == 0:
        return np.zeros(0, bool), np.zeros(0), np.zeros(0), np.zeros(0, bool), \
            cfg.pieces.height_sq
    along = ks.along_xy[idx]
    across = ks.across_xy[idx]
    pts = np.concatenate([along.reshape(-1, 2), across.reshape(-1, 2)])
    cols = _sample(image, pts)
    gain = light.light_gain_of(idx).astype(np.float32)
    off = light.offset[idx].astype(np.float32)
    n_along = along.shape[1] * along.shape[2]
    per = np.concatenate([np.repeat(np.arange(n_p), n_along),
                          np.repeat(np.arange(n_p), across.shape[1] * across.shape[2])])
    # (per piece by broadcasting: the samples come piece by piece, along lines then across)
    n_al = n_p * n_along
    cols[:n_al] = ((cols[:n_al].reshape(n_p, n_along, 3) - off[:, None]) / gain[:, None, None]
                   ).reshape(-1, 3)
    cols[n_al:] = ((cols[n_al:].reshape(n_p, -1, 3) - off[:, None]) / gain[:, None, None]
                   ).reshape(-1, 3)
    kind = np.concatenate([ks.along_kind[idx].reshape(-1), ks.across_kind[idx].reshape(-1)])
    mix = np.concatenate([ks.along_mix[idx].reshape(-1), ks.across_mix[idx].reshape(-1)])
    board = background_bgr.astype(np.float32)
    piece = piece_bgr.astype(np.float32)
    # (A negative veil is no glare but a fit across a shadow's edge: not given back.  With it,
    # seed 1 read 7 squares fewer wrong, and a man beside a shadow band's edge as a king.)
    d_board, d_piece, apart, shade = likeness_distances(
        cols, piece, per, board, kind, kc.board_shade, kc.piece_shade, mix,
        np.maximum(off.mean(axis=1), 0.0) / gain if kc.pieces_unveiled else None)
    p = likeness(d_board, d_piece, apart, kind, kc.faint_apart)
    # The fits along the view (the height, the board beyond the far edge, the wall's length)
    # read a dark shade of the piece (its wall) fully, as piece or board, whichever it is
    # several times nearer (`shade_apart`).  (Not the width fit across, nor the disc height's
    # measure: there it only moved the fits, the height measured 15% long.)
    al = slice(0, n_p * n_along)
    p_near = likeness(d_board[al], d_piece[al],
                      shade_apart(d_board[al], d_piece[al], apart[al], shade[al], kc.near_apart,
                                  kc.near_dark_shade), kind[al], kc.faint_apart)
    # Past the image's edge nothing is seen (the sampler repeats the edge's pixels there: a
    # piece on the far row, its top cut off by a photo framed tight on the board, read as a
    # king).
    h, w = image.shape[:2]
    unseen = (pts[:, 0] < 0) | (pts[:, 0] > w - 1) | (pts[:, 1] < 0) | (pts[:, 1] > h - 1)
    p[unseen] = 0.0
    p_near[unseen[al]] = 0.0
    # A specular spot (lighter than both the piece and the board, nearly grey) says nothing.
    c0, c1, c2 = cols.T  # (column by column: numpy reduces a length-3 axis slowly)
    lum = (c0 + c1 + c2) / 3.0
    chroma = np.maximum(np.maximum(c0, c1), c2) - np.minimum(np.minimum(c0, c1), c2)
    brighter = np.maximum(np.take(piece.mean(axis=1), per),
                          np.take(board.mean(axis=1), kind)) + kc.spot_delta
    spot = (lum > brighter) & (chroma < 0.35 * lum)
    p[spot] = 0.0
    p_near[spot[al]] = 0.0
    p_along = p[:n_p * n_along].reshape(along.shape[:3])
    p_near = p_near.reshape(along.shape[:3])
    # (Past the frame the table, of no known colour: nothing.  The test for something bigger
    # than a piece still reads it, a hand reaching in over the table.)
    p_seen = p_along
    past = np.zeros(p_along.shape, bool)
    if frame_sq is not None and len(ks.along_out):
        past = ks.along_out[idx] > np.asarray(frame_sq)[ks.along_side[idx]]
        p_along = np.where(past, np.float32(0.0), p_along)
        p_near = np.where(past, np.float32(0.0), p_near)
    p_across = p[n_p * n_along:].reshape(across.shape[:3])

    r0 = cfg.pieces.radius_sq
    lo, hi = kc.radius_range
    widths = 2 * r0 * np.linspace(lo, hi, kc.width_steps)
    w, c = fit_width(p_across.reshape(-1, p_across.shape[2]), float(ks.u[1] - ks.u[0]),
                     float(ks.u[0]), cfg.max_offset_sq, widths, kc.free_shift_sq, kc.shift_cost)
    w = w.reshape(n_p, -1)
    c = c.reshape(n_p, -1)
    width = w.max(axis=1)
    side_shift = median(c, axis=1)
    radius = set_radius(width, group, widths[0], widths[-1], r0, trusted=trusted)
    t0 = float(ks.t[0])
    height = cfg.pieces.height_sq
    fit = np.ones(n_p, bool) if trusted is None else trusted
    if known_discs is not None and fit.any():
        height = fit_height(p_along[fit], ks, idx[fit], radius[fit] * kc.radius_prior,
                            side_shift[fit], cfg, np.asarray(known_discs)[fit],
                            kc.known_heights)
    elif kc.measure_height and not ks.calibrated and fit.sum() >= kc.min_pieces_for_height:
        height = fit_height(p_along[fit], ks, idx[fit], radius[fit] * kc.radius_prior,
                            side_shift[fit], cfg)
    lam, rho = leans(ks, idx, height)
    # (Only where a king's top stands well clear of a man's: where the two differ by a pixel
    # or three, it moved as many calls one way as the other.)
    near = (lam[:, 0] * ks.square_px >= kc.near_min_step_px) & (kc.near_apart > 0)
    p_near = np.where(near[:, None, None], p_near, p_along)
    lo_fit, hi_fit, n_fit = kc.radius_fit
    scales = np.linspace(lo_fit, hi_fit, n_fit)
    grid = radius[:, None] * scales[None, :]
    lam_fit = np.repeat(lam[..., None], n_fit, axis=2)
    rho_fit = np.repeat(rho[..., None], n_fit, axis=2)
    best, most, shift = height_scores(p_near, ks.step_sq, t0, ks.b, grid, side_shift, lam_fit,
                                      rho_fit, cfg.max_offset_sq, kc.shifts, kc.free_shift_sq,
                                      kc.shift_cost)
    pref, chosen = set_preference(best, most, group, scales, kc.radius_prior, kc.radius_free,
                                  kc.radius_prior_weight, trusted)
    rows = np.arange(n_p)
    # (Only as far as the board past the far edge reads as board: light squares and the
    # frame hold no piece, so what looks like one there is the board in the piece's colour.)
    pref = pref * board_beyond(p_near, ks.step_sq, t0, ks.b, grid[rows, chosen], side_shift,
                               lam, rho, cfg.max_offset_sq,
                               (ks.along_kind[idx] != 0) & ~past)
    silhouette = pref
    step_px = lam[:, 0] * ks.square_px
    # Backed by the wall: where the silhouette hardly decides (a far edge over a square of the
    # piece's own colour), where the wall ends and the top face begins still does.
    # (A specular spot on the top face would pass for a bright top: it counts as the piece's
    # own brightness.  Not so a bright run as long as a top face: an over-exposed white top,
    # clipped all over, is the top, and as the set's mean colour it looked like wall.)
    spot_al = short_runs(spot[:n_al].reshape(-1, along.shape[2]),
                         kc.spot_max_sq / ks.step_sq).reshape(-1)
    lum_al = np.where(spot_al, np.take(piece.mean(axis=1), per[:n_al]), lum[:n_al])
    lum_al = lum_al.reshape(along.shape[:3])
    wall = wall_preference(lum_al, ks.step_sq, t0, ks.b, grid[rows, chosen], side_shift, lam, rho,
                           shift[rows, chosen, (pref > 0).astype(np.intp)], kc)
    length = wall_length_preference(p_near, lum_al, ks.step_sq, t0, ks.b, grid[rows, chosen],
                                    side_shift, lam, rho, kc)
    pref = pref + (kc.wall_weight * wall + kc.edge_weight * length) * (
        step_px >= kc.wall_min_step_px)
    if not ks.leans_known:
        step_px = np.zeros_like(step_px)  # nothing decided, and the confidence says so
    # And by the shadow (vision.shadows), which does not fade as the view turns vertical.  It
    # counts where the lean is small, and not where the silhouette is sure (there it would only
    # add noise), nor under a glare veil, lit past what the smooth light model follows (there
    # the board beyond a piece is no measure of its shadow).
    sc = cfg.shadows
    veil = off.mean(axis=1)
    fade_lean = 1.0 - np.clip((step_px - sc.fade_px[0]) / (sc.fade_px[1] - sc.fade_px[0]),
                              0.0, 1.0)
    fade = fade_lean * (1.0 - np.clip(veil / kc.veil_full, 0.0, 1.0))
    shadow_pref = shadow_px = np.zeros(n_p)
    # (Only where the leans are known: the test must leave out each piece's own wall, as dark
    # as a shadow, and in a steep view through a lens not calibrated it does not know where
    # that ends.  On real photographs so taken, men read as kings.)
    if ks.leans_known and (fade > 0).any():
        along_shift = shift[rows, chosen, (pref > 0).astype(np.intp)]
        away = ks.away[idx]
        offset_sq = away * along_shift[:, None] + np.stack([-away[:, 1], away[:, 0]], axis=1) \
            * side_shift[:, None]
        shadows = _shadows(image, ks, idx, gain, off, board, offset_sq, grid[rows, chosen],
                           occupied, cfg, veil <= sc.max_voter_veil)
        shadow_pref = shadows.preference * fade
        shadow_px = shadows.evidence_px * (fade > 0)
    # (A silhouette differing by a pixel or two says little.)
    pref = pref * np.clip(step_px / kc.weak_step_px, 0.0, 1.0) + sc.weight * shadow_pref
    # (A shadow's length is less sure a measure than a lean: it counts half for the confidence.)
    sure = np.clip((np.maximum(step_px, 0.5 * shadow_px) - kc.min_step_px)
                   / max(kc.full_step_px - kc.min_step_px, 1e-6), 0.0, 1.0)
    # (Where the lean is past the shadows' fade and the silhouette hardly decides, the wall
    # alone did: less sure.)
    wall_alone = (1.0 - fade_lean) * (1.0 - np.clip(np.abs(silhouette) / kc.sure_silhouette,
                                                    0.0, 1.0))
    sure = sure * (1.0 - (1.0 - kc.wall_alone_sure) * wall_alone)
    step_px = np.maximum(step_px, shadow_px)
    split = king_split(step_px, kc, veil)
    # Where the image's edge cuts off the part of a piece that would make it a king, it cannot
    # be one seen: a man, as where the lean is too small, and the confidence says so.  (A man
    # whose own silhouette ends in view, the board beyond it, stays sure.)
    cut = _cut_by_the_edge(unseen[:n_al].reshape(along.shape[:3]), ks.t,
                           lam[:, 1] + rho[:, 1] * grid[rows, chosen] + cfg.max_offset_sq)
    decided = (step_px >= kc.min_step_px) & ~(cut & (pref > split))
    king = (pref > split) & decided
    conf = 0.5 + 0.5 * sure * np.tanh(np.abs(pref - split) / kc.clear_preference)
    conf = np.where(decided, conf, 0.5)
    widest = width >= widths[-1] - 1e-9
    unlike = unlike_a_piece(p_seen, p_across, ks.t, ks.u, shift[rows, chosen, 1],
                            grid[rows, chosen], side_shift, lam, rho, widest, kc, beside_hand)
    return king, conf, pref, unlike, height


def _cut_by_the_edge(unseen: np.ndarray, t: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """(P,) pieces with a sample on their lines along the view (`unseen`: P x J x T, past the
    image's edge) no farther out than `reach` (P,): where a king's top face could end."""
    return (unseen & (t[None, None, :] <= reach[:, None, None])).any(axis=(1, 2))


def short_runs(mask: np.ndarray, max_len: float) -> np.ndarray:
    """mask (R x T bool) kept only in its runs along each row no longer than max_len samples."""
    rows, n = mask.shape
    padded = np.zeros((rows, n + 1), np.int8)  # (a gap after every row: no run spans two)
    padded[:, :n] = mask
    edges = np.diff(padded.reshape(-1), prepend=0)
    start, end = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    keep = end - start <= max_len
    marks = np.zeros(padded.size + 1, np.int32)
    marks[start[keep]] += 1
    marks[end[keep]] -= 1
    return np.cumsum(marks[:-1]).reshape(rows, n + 1)[:, :n] > 0


def _shadows(image: np.ndarray, ks: KingSamples, idx: np.ndarray, gain: np.ndarray,
             off: np.ndarray, board: np.ndarray, offset_sq: np.ndarray, radius: np.ndarray,
             occupied: np.ndarray | None, cfg: VisionConfig, vote: np.ndarray,
             ) -> ShadowReading:
    """`vision.shadows.read_shadows` for the pieces `idx`, their samples read here."""
    ring = ks.ring_xy[idx]
    # (The veil adds the same to every channel.)
    mean = _sample(image, ring.reshape(-1, 2)) @ np.full(3, 1 / 3, np.float32)
    lum = (mean.reshape(ring.shape[:3]) - off.mean(axis=1)[:, None, None]) \
        / gain[:, None, None]
    board_lum = board.mean(axis=1)[ks.ring_kind[idx]]
    if occupied is None:
        occupied = np.zeros(len(ks.centres), bool)
        occupied[idx] = True
    return read_shadows(lum, board_lum, ks, idx, offset_sq, radius, occupied, cfg.shadows,
                        vote)


def _mean_between(cum: np.ndarray, steps: np.ndarray, start: np.ndarray, end: np.ndarray,
                  ) -> np.ndarray:
    """Mean over [start, end) (fractional sample boundaries, R x ...) from prefix sums cum and
    their `_steps`."""
    return (_at(cum, end, steps) - _at(cum, start, steps)) / np.maximum(end - start, 1e-3)


def wall_preference(lum: np.ndarray, step: float, t0: float, b: np.ndarray, radius: np.ndarray,
                    side_shift: np.ndarray, lam: np.ndarray, rho: np.ndarray, shift: np.ndarray,
                    kc: KingConfig) -> np.ndarray:
    """-1 (one disc) .. +1 (two discs) from where the piece's wall ends and its top face begins.

    On a line along the view through the piece, the wall runs from the base's near edge to the
    top face's near edge, `lam[k]` further for k discs.  The band between the two heights'
    top edges is top face for a man and wall for a king: its brightness against the wall below
    it (wall for both) and the top beyond it (top for both) says which.  The silhouette's far
    edge can vanish (a white piece against a white square, both clipped); this edge is on the
    piece itself.  Nothing is said (0) where the wall does not look darker than the top face
    (light from the camera's side): the test fades in over `kc.wall_contrast`.

    lum: (P, J, T) brightness on the lines along the view (offsets b (J,)); radius (P,),
    side_shift (P,), lam and rho (P, 2) as in `height_scores`; shift (P,) the piece's shift
    along the view.
    """
    n_p, n_j, n_t = lum.shape
    cum = _cumulative(lum.reshape(n_p * n_j, n_t))
    steps = _steps(cum)
    rel, chord = _chords(b, side_shift, radius)
    o = shift[:, None]

    def idx(x_sq: np.ndarray) -> np.ndarray:
        return ((x_sq - t0) / step + 0.5).reshape(-1)

    pad = 1.0 / kc.step_px  # samples kept off each edge: a pixel (blur)
    base = idx(o - chord) + pad
    top0 = idx(o + lam[:, 0, None] - rho[:, 0, None] * chord)
    top1 = idx(o + lam[:, 1, None] - rho[:, 1, None] * chord)
    wall = _mean_between(cum, steps, base, np.maximum(top0 - pad, base + pad))
    band = _mean_between(cum, steps, top0 + pad, np.maximum(top1 - pad, top0 + 2 * pad))
    top = _mean_between(cum, steps, top1 + pad, top1 + pad + kc.wall_top_sq / step)
    central = (np.abs(rel) <= kc.wall_lines_sq).astype(np.float32)
    n_central = np.maximum(central.sum(axis=1), 1.0)

    def mean(v: np.ndarray) -> np.ndarray:
        return (v.reshape(n_p, n_j) * central).sum(axis=1) / n_central

    wall_m, band_m, top_m = mean(wall), mean(band), mean(top)
    contrast = top_m - wall_m
    lo, hi = kc.wall_contrast
    sure = np.clip((contrast - lo) / (hi - lo), 0.0, 1.0) * (central.sum(axis=1) > 0)
    share = (top_m - band_m) / np.maximum(contrast, 1.0)  # 0 a man's top .. 1 a king's wall
    return np.clip(2.0 * share - 1.0, -1.0, 1.0) * sure


def _rising_edge(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(position, rise) of the steepest rise of each row of x (R x T) between the fractional
    sample indices lo and hi (R,): the position (samples, refined between samples by the
    parabola through the three differences around the best) and the rise over two samples
    there; NaN and 0 where the window holds no sample."""
    n_r, n_t = x.shape
    rise = np.zeros((n_r, n_t), np.float32)
    rise[:, 1:-1] = x[:, 2:] - x[:, :-2]
    i = np.arange(n_t)[None, :]
    inside = (i >= np.maximum(np.ceil(lo), 1)[:, None]) & (i <= np.minimum(np.floor(hi),
                                                                             n_t - 2)[:, None])
    masked = np.where(inside, rise, -np.inf)
    best = np.argmax(masked, axis=1)
    ok = inside.any(axis=1)
    rows = np.arange(n_r)
    a = rise[rows, np.maximum(best - 1, 0)]
    b = rise[rows, best]
    c = rise[rows, np.minimum(best + 1, n_t - 1)]
    curve = a - 2 * b + c
    frac = np.where(curve < 0, 0.5 * (a - c) / np.where(curve < 0, curve, -1.0), 0.0)
    return np.where(ok, best + np.clip(frac, -0.5, 0.5), np.nan), np.where(ok, b, 0.0)


def wall_length_preference(p: np.ndarray, lum: np.ndarray, step: float, t0: float,
                           b: np.ndarray, radius: np.ndarray, side_shift: np.ndarray,
                           lam: np.ndarray, rho: np.ndarray, kc: KingConfig) -> np.ndarray:
    """-1 (one disc) .. +1 (two discs) from the wall's length, measured edge to edge.

    On a line along the view through the piece, the silhouette begins at the base's near edge
    (board turning to piece) and the top face where the darker wall turns bright: `lam[k]`
    further for k discs (less the top face's larger look).  Both edges are found where they
    are steepest, so unlike `wall_preference` this needs no shift along the view, which the
    silhouette fit gets from the far edge and a hypothesis of height.  Lines whose top face
    does not begin with a rise of `kc.edge_rise` (a wall no darker than the top, a blurred
    or tiny one) say nothing.  p and lum (P, J, T) as in `height_scores` and
    `wall_preference`; radius, side_shift (P,); lam, rho (P, 2).
    """
    n_p, n_j, n_t = p.shape
    rel, chord = _chords(b, side_shift, radius)  # (P, J)
    central = (np.abs(rel) <= kc.wall_lines_sq) & (chord > 0)
    if not central.any():
        return np.zeros(n_p)
    pi, ji = np.nonzero(central)
    c = chord[pi, ji]

    def idx(x_sq: np.ndarray) -> np.ndarray:
        return (x_sq - t0) / step

    near, _ = _rising_edge(p[pi, ji], idx(-c - kc.edge_near_sq), idx(-c + kc.edge_near_sq))
    near_sq = t0 + near * step
    d0 = lam[pi, 0] - (rho[pi, 0] - 1) * c
    d1 = lam[pi, 1] - (rho[pi, 1] - 1) * c
    # (The top face's edge is looked for from well past the near edge, clear of its blur, to
    # half a man-to-king step past where a king's would be.)
    top, rise = _rising_edge(lum[pi, ji], idx(near_sq + 0.4 * d0),
                             idx(near_sq + d1 + 0.5 * (d1 - d0)))
    length = (top - near) * step
    val = (length - 0.5 * (d0 + d1)) / np.maximum(0.5 * (d1 - d0), 1e-6)
    good = np.isfinite(val) & (rise >= kc.edge_rise)
    out = np.full((n_p, n_j), np.nan)
    out[pi[good], ji[good]] = np.clip(val[good], -1.0, 1.0)
    med = median_of_finite(out)  # (over each piece's lines read)
    return np.where(np.isfinite(med), med, 0.0)
