"""Hard cases of the per-square reading on rendered scenes (the renderer's ground truth is the
independent answer): a hand over the board must be reported, not guessed."""

import pytest

from tests.vision.scenes import observe, occupancy_and_colour_errors

HAND_SEEDS = range(101, 111)


def test_a_hand_over_the_board_is_reported_occluded_not_guessed():
    covered = reported = wrongly_hidden = 0
    for seed in HAND_SEEDS:
        frame, obs = observe(seed, hand=True)
        covered += len(frame.occluded)
        reported += len(frame.occluded & obs.occluded)
        # A square the hand does not touch at all must be read, not hidden.
        wrongly_hidden += len(obs.occluded - frame.occluded - frame.partly_occluded)
    assert covered >= 40, "the scenes must have hands over the board"
    # Measured 69 of 80 (before the light field and the corner test: 56 of 80, one false).
    assert reported >= 0.85 * covered
    assert wrongly_hidden == 0


# Black pieces on navy squares (a dark set on dark squares) with a hand over the board.  The
# hand's squares once raised the board's "normal stray" until the black set fell under it
# (seed 111: five black men read as empty), and its colours joined the dark set's (106, 109:
# black men read as empty; 110: the sets swapped).
_NAVY = ((110, 45, 25), (90, 200, 225))
_WOOD_BLACK = ((150, 190, 215), (40, 40, 45))


@pytest.mark.parametrize("seed", range(101, 113))
def test_a_dark_set_on_dark_squares_is_seen_beside_a_hand(seed):
    frame, obs = observe(seed, hand=True, board_bgr=_NAVY, pieces_bgr=_WOOD_BLACK)
    assert occupancy_and_colour_errors(frame, obs) == []
