"""vision.stats against numpy's own median and sum (the references they replace)."""

import warnings

import numpy as np
import pytest

from vision.stats import channel_sum, median, median_of_finite


@pytest.mark.parametrize("shape,axis", [((32, 4, 9, 3), 2), ((32, 6, 3), 1), ((7,), 0),
                                        ((256, 3), 0), ((5, 4), 1), ((1, 3), 0)])
def test_median_matches_numpy(shape, axis):
    x = np.random.default_rng(sum(shape)).normal(100.0, 40.0, shape).astype(np.float32)
    assert np.allclose(median(x, axis=axis), np.median(x, axis=axis), rtol=0, atol=1e-4)


def test_median_of_even_count_is_mean_of_middle_pair():
    assert median(np.array([[4.0, 1.0, 3.0, 10.0]]), axis=1)[0] == pytest.approx(3.5)


def test_median_of_nothing_is_an_error():
    with pytest.raises(ValueError):
        median(np.zeros((0, 3)), axis=0)


def test_channel_sum_matches_numpy():
    x = np.random.default_rng(3).uniform(0, 255, (32, 37, 3)).astype(np.float32)
    assert np.allclose(channel_sum(x), x.sum(axis=-1), rtol=1e-6)


def test_median_of_finite_matches_numpys_nanmedian():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 5))
    x[rng.random(x.shape) < 0.4] = np.nan
    x[0] = np.nan  # (a row with nothing known)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.nanmedian(x, axis=1)
    np.testing.assert_allclose(median_of_finite(x), want, equal_nan=True)
