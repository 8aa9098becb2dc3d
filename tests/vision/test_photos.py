"""Real photographs with hand labels (an independent source), corners given as in labels.json."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.vision_photos import CHANGES  # (the photos as other cameras and rooms take them)
from calibration.store import BoardCalibration, Calibration
from vision.pipeline import BoardObserver

PHOTOS = Path("/work/shared/photos")
NAMES = {"w": "white_man", "b": "black_man", "W": "white_king", "B": "black_king"}


def _items():
    path = PHOTOS / "labels.json"
    if not path.exists():
        return []
    return json.loads(path.read_text())["images"]


@pytest.mark.skipif(not _items(), reason="the shared photographs are not available")
@pytest.mark.parametrize("item", _items(), ids=lambda it: it["file"])
def test_photo_with_given_corners(item):
    image = cv2.imread(str(PHOTOS / item["file"]))
    variant = "international" if item["grid"] == 10 else "brazilian"
    obs = BoardObserver(variant, corners_px=np.array(item["corners"])).observe(image)
    labels = obs.labels()
    wrong = [name for name, got in labels.items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    # Every piece set and board differs; allow a few squares (pieces half off their square).
    assert len(wrong) <= 0.1 * len(labels), wrong


def _si3p():
    return next((it for it in _items() if it["file"].startswith("si3p")), None)


@pytest.mark.skipif(_si3p() is None, reason="the shared photographs are not available")
@pytest.mark.parametrize("change", ["darker_midtones", "warm_light", "washed_out"])
def test_a_photo_in_other_light_keeps_its_two_sets(change):
    """si3p-mat.jpg (tan wooden men against red men on a black and cream board) as a darker
    camera or a warmer lamp would take it: the two sets come closer in lightness than the
    board's contrast asks of two sets, and were taken for one (the darker wooden men read
    black, or red men white).  Their hues still differ: every square is read as labelled.

    Washed out (saturation 0.4 of its own, as a photo editor's slider takes it), the red
    men turn a greyish pink as light as the greyish tan ones, 13 apart on a*, b*: the two
    were taken for one set in two lights, the pink 9.4% of its size off a shade of the tan
    (within 10%), and the twelve red men read white.  A set's lit and shaded pieces lie
    within 2% of a shade of each other on the rendered scenes; now within 5%."""
    item = _si3p()
    image = cv2.imread(str(PHOTOS / item["file"])).astype(np.float64)
    if change == "darker_midtones":
        image = 255.0 * (image / 255.0) ** 1.8
    elif change == "warm_light":
        image = image * np.array([0.75, 0.95, 1.15])
    else:
        hsv = cv2.cvtColor(image.astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.float64)
        hsv[..., 1] *= 0.4
        image = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float64)
    image = np.clip(image, 0, 255).astype(np.uint8)
    obs = BoardObserver("brazilian", corners_px=np.array(item["corners"])).observe(image)
    wrong = [name for name, got in obs.labels().items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert wrong == []


def _fhgr():
    return next((it for it in _items() if it["file"].startswith("fhgr")), None)


@pytest.mark.skipif(_fhgr() is None, reason="the shared photographs are not available")
def test_a_darker_photo_with_corners_a_pixel_off():
    """fhgr-board-v2.jpg (black and one tan piece, tall, on green and dark blue squares) as a
    darker camera takes it, with the corners the board finder gives there (1-1.5 px off the
    hand labels): one bare blue square left a little lighter than the rest was taken for a
    piece set, and 18 of the 32 squares were read wrong."""
    item = _fhgr()
    image = cv2.imread(str(PHOTOS / item["file"])).astype(np.float64)
    image = np.clip(255.0 * (image / 255.0) ** 1.8, 0, 255).astype(np.uint8)
    corners = np.array([[378.7, 835.4], [1126.6, 813.2], [974.4, 429.4], [422.1, 428.5]])
    assert np.abs(corners - np.array(item["corners"])).max() < 2.0
    obs = BoardObserver("brazilian", corners_px=corners).observe(image)
    wrong = [name for name, got in obs.labels().items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert wrong == []


@pytest.mark.skipif(_si3p() is None, reason="the shared photographs are not available")
def test_a_photo_taken_small_keeps_its_red_men_on_black_squares():
    """si3p-mat.jpg at a quarter of its size (160 x 120, squares of 14 px): the first look,
    its bar raised by the blurred corner patches, missed six red men on the black squares.
    The second look found them by their set's colour, and then dropped them: within
    `VisionConfig.shade_within` of its distance, the nearly black square is a shade of red,
    and a set that is a shade of its squares claims no square the first look saw bare (lest
    a hand's finger shadows on red squares be a set).  That test now asks for nearly a shade,
    within `there_within`."""
    item = _si3p()
    image = cv2.imread(str(PHOTOS / item["file"]))
    small = cv2.resize(image, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    corners = 0.25 * np.array(item["corners"])
    obs = BoardObserver("brazilian", corners_px=corners).observe(small)
    wrong = [name for name, got in obs.labels().items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert wrong == []


@pytest.mark.skipif(not _items(), reason="the shared photographs are not available")
@pytest.mark.parametrize("item", _items(), ids=lambda it: it["file"])
def test_a_keystoned_photo_is_read_where_its_corners_are(item):
    """No camera centred on the image sees the board of a keystoned photo where it is: with
    the focal length guessed, the grid's pose missed its corners by most of a square, every
    sample landed on the wrong place, and every square was reported occluded (ensiss-33.jpg)
    or nearly every one (si3p-mat.jpg).  The principal point is now looked for too."""
    image = cv2.imread(str(PHOTOS / item["file"]))
    image, corners = CHANGES["keystone 0.15"](image, np.array(item["corners"], np.float64))
    variant = "international" if item["grid"] == 10 else "brazilian"
    obs = BoardObserver(variant, corners_px=corners).observe(image)
    labels = obs.labels()
    wrong = [name for name, got in labels.items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert not obs.occluded
    assert len(wrong) <= 0.1 * len(labels), wrong


@pytest.mark.skipif(_fhgr() is None, reason="the shared photographs are not available")
def test_a_shadow_band_over_a_photo_does_not_turn_the_board_found():
    """fhgr-board-v2.jpg with a hard shadow across a third of the board, halving the light: the
    shadow's edges crossing light squares made five of them look occupied (their middles
    differ from their corners), against one piece seen on the dark squares (tall black pieces
    on dark blue hardly show), and the board found was turned a quarter as if played on the
    light squares.  A middle that is a shade of its corners is no piece."""
    item = _fhgr()
    c = np.array(item["corners"], np.float64)
    image, _ = CHANGES["hard shadow band"](cv2.imread(str(PHOTOS / item["file"])), c)
    obs = BoardObserver("brazilian").observe(image)
    assert np.abs(np.array(obs.corners_px) - c).max() < 5.0


@pytest.mark.skipif(not _items(), reason="the shared photographs are not available")
@pytest.mark.parametrize("given", [True, False], ids=["given corners", "found"])
@pytest.mark.parametrize("item", _items(), ids=lambda it: it["file"])
def test_a_photo_through_a_wide_lens_is_read_to_its_edges(item, given):
    """A wide lens not calibrated bends the grid (barrel distortion); the lattice fitted to the
    grid measures the bend, and the pose now bends every square's samples with it.  Before,
    a pinhole put the squares near the image's edges off their places: si3p-mat.jpg read its
    near row's men as empty (8/32 right), ensiss-33.jpg six or seven near squares as occluded."""
    image, corners = CHANGES["wide lens (barrel 0.08)"](cv2.imread(str(PHOTOS / item["file"])),
                                                        np.array(item["corners"], np.float64))
    variant = "international" if item["grid"] == 10 else "brazilian"
    obs = BoardObserver(variant, corners_px=corners if given else None).observe(image)
    wrong = [name for name, got in obs.labels().items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert wrong == []


@pytest.mark.skipif(_si3p() is None, reason="the shared photographs are not available")
def test_a_board_saved_through_a_wide_lens_keeps_its_lens():
    """The board's calibration (as `damas calibrate board` saves it) keeps the lens term its
    grid showed: a camera not calibrated reads every square through it, where it was saved.
    Without it (before) the saved grid missed the squares near the image's edges, the grid
    check took the board for moved, and it had to be found again in every session (where a
    hand or pieces hide its pattern, it is not)."""
    item = _si3p()
    image, _ = CHANGES["wide lens (barrel 0.08)"](cv2.imread(str(PHOTOS / item["file"])),
                                                  np.array(item["corners"], np.float64))
    finder = BoardObserver("brazilian")
    finder.observe(image)  # (which corner is a1: the pieces say)
    located = finder.locate(image)
    assert located.pose.lens_k < -0.03
    h, w = image.shape[:2]
    corners = tuple((float(x), float(y)) for x, y in located.pose.corners_px)

    def read(lens_k):
        board = BoardCalibration(8, corners, w, h, lens_k=lens_k)
        observer = BoardObserver("brazilian", calibration=Calibration(board=board))
        obs = observer.observe(image)
        return observer.relocations, [name for name, got in obs.labels().items()
                                      if got != NAMES.get(item["squares"].get(name, ""),
                                                          "empty")]

    assert read(located.pose.lens_k) == (0, [])
    assert read(0.0)[0] == 1


@pytest.mark.skipif(not _items(), reason="the shared photographs are not available")
@pytest.mark.parametrize("item", _items(), ids=lambda it: it["file"])
def test_clicked_corners_through_a_wider_lens_find_the_bent_grid(item):
    """Through a wider lens the clicks' plain homography put the inner corners near the
    image's edges too far off for the checker test, and the corners left, near the middle or
    found beside their places, showed no bend a lattice would keep: si3p-mat.jpg read 8/32
    with its corners given, ensiss-33.jpg 32/50 (both read right found without them).  The
    clicks are now also looked through a few lenses, and the one whose corners one lattice
    explains the most of is kept."""
    image, corners = CHANGES["wider lens (barrel 0.12)"](cv2.imread(str(PHOTOS / item["file"])),
                                                         np.array(item["corners"], np.float64))
    variant = "international" if item["grid"] == 10 else "brazilian"
    obs = BoardObserver(variant, corners_px=corners).observe(image)
    wrong = [name for name, got in obs.labels().items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert wrong == []


@pytest.mark.skipif(not _items(), reason="the shared photographs are not available")
@pytest.mark.parametrize("given", [True, False], ids=["given corners", "found"])
@pytest.mark.parametrize("item", _items(), ids=lambda it: it["file"])
def test_a_photo_cropped_to_its_grid_is_read(item, given):
    """Cropped to the grid's outer corners (as a user trims a photo to the board), each photo
    puts a corner or two on the image's edge, under a pixel past its last pixel's centre: all
    three were refused as partly out of view.  Now read as labelled, but for a king on the
    far rank of fhgr-board-v2.jpg whose upper disc the crop cuts off (a man, unsure)."""
    image = cv2.imread(str(PHOTOS / item["file"]))
    c = np.array(item["corners"], np.float64)
    (x0, y0), (x1, y1) = c.min(axis=0).astype(int), c.max(axis=0).astype(int)
    variant = "international" if item["grid"] == 10 else "brazilian"
    corners = c - (x0, y0) if given else None
    obs = BoardObserver(variant, corners_px=corners).observe(image[y0:y1, x0:x1])
    labels = obs.labels()
    wrong = [name for name, got in labels.items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert len(labels) == item["grid"] ** 2 // 2
    assert wrong == (["h8"] if item["file"].startswith("fhgr") else []), wrong


@pytest.mark.skipif(_si3p() is None, reason="the shared photographs are not available")
@pytest.mark.parametrize("given", [True, False], ids=["given corners", "found"])
@pytest.mark.parametrize("change", ["hard shadow band", "glare spot"])
def test_si3p_under_a_hard_shadow_or_a_glare_spot_reads_as_labelled(change, given):
    """si3p-mat.jpg (tan men against dark red ones on black and cream squares):

    - with a hard shadow across a third of the board, halving the light, the light model,
      smooth, left the tan man at c1, where the shadow's edge runs, nearly as dark as the red
      set, and lightness outweighed his hue (he read black).  His hue is the tan set's at a
      third of its light.
    - with a lamp's reflection (grey light, a Gaussian an eighth of the board wide) over the
      bare black square e5, e5 looked a light piece by its colour, and its fall-off, noisy,
      no softer than the men's edges by the measure glare is told by.  Its colour is the
      black square under a grey veil, and neither set's at any light a man there could be in.

    Every square as labelled."""
    item = _si3p()
    c = np.array(item["corners"], np.float64)
    image, corners = CHANGES[change](cv2.imread(str(PHOTOS / item["file"])), c)
    obs = BoardObserver("brazilian", corners_px=corners if given else None).observe(image)
    wrong = [name for name, got in obs.labels().items()
             if got != NAMES.get(item["squares"].get(name, ""), "empty")]
    assert wrong == []
