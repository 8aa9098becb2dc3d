"""vision.frame_extent on probe colours made up here: where the frame ends is known by
construction, and so is what leans over it (pieces) and what lights it (a lamp by one side)."""

from __future__ import annotations

import numpy as np

from vision.config import VisionConfig
from vision.frame_extent import frame_extent, probe_distances_sq
from vision.king_samples import outside

CFG = VisionConfig()
DIST = probe_distances_sq(CFG)  # 0.06, 0.12, ... 1.2
K = 16  # probes along each side


def _probes(frame_bgr, table_bgr, width_sq) -> np.ndarray:
    """(4, K, D, 3): every side frame `width_sq` wide, then the table."""
    one = np.where((DIST <= width_sq)[:, None], np.asarray(frame_bgr, float),
                   np.asarray(table_bgr, float))
    return np.broadcast_to(one, (4, K, len(DIST), 3)).copy()


def test_the_frame_ends_where_its_colour_does():
    # A 0.5-square frame: the last probe on it is at 0.48, and the extent reaches half a
    # step (0.03) past it.
    ext = frame_extent(_probes((40, 60, 120), (120, 160, 90), 0.5), CFG)
    assert np.allclose(ext, 0.51)


def test_pieces_leaning_over_the_inner_frame_do_not_shorten_it():
    probes = _probes((40, 60, 120), (120, 160, 90), 0.5)
    probes[1, :6, DIST < 0.3] = (20, 20, 20)  # six of 16 probes covered near the grid
    assert np.allclose(frame_extent(probes, CFG), 0.51)


def test_each_side_is_judged_in_its_own_light():
    # A lamp by side 1 adds light to the frame there (a veil no gain of the others' colour
    # explains); its frame is still 0.5 wide, and a narrower frame elsewhere is seen as such.
    probes = _probes((40, 60, 120), (120, 160, 90), 0.5)
    probes[1, :, DIST <= 0.5] = (100, 120, 170)
    probes[3] = _probes((40, 60, 120), (120, 160, 90), 0.25)[3]
    assert np.allclose(frame_extent(probes, CFG), [0.51, 0.51, 0.51, 0.27])


def test_a_table_a_darker_shade_of_the_frame_is_not_frame_but_one_of_its_colour_is():
    darker = frame_extent(_probes((185, 199, 240), (128, 154, 182), 0.5), CFG)
    assert np.allclose(darker, 0.51)
    same = frame_extent(_probes((185, 199, 240), (180, 195, 236), 0.5), CFG)
    assert np.allclose(same, DIST[-1] + 0.03)  # (it reads as the frame does: as board)


def test_points_outside_the_grid_know_how_far_and_past_which_side():
    pts = np.array([(3.5, -0.25), (3.5, 8.4), (-0.1, 2.0), (8.3, 7.0), (4.0, 4.0),
                    (-0.2, -0.5), (8.6, 8.2)])
    dist, side = outside(pts, 8)
    assert np.allclose(dist, [0.25, 0.4, 0.1, 0.3, 0.0, 0.5, 0.6])
    assert side[:4].tolist() == [0, 1, 2, 3] and side[5] == 0 and side[6] == 3
