"""dp-center: public range + square root, minus a mean released by one Gaussian mechanism."""

import math

import numpy as np
import pytest

from dpcda.randomness import SecureRandom
from dpcda.data.dp_normalize import fit_dp_center


def _data(n=400, d=6, seed=0):
    return np.random.default_rng(seed).integers(0, 256, size=(n, d)).astype(np.float32)


def test_transform_is_sqrt_of_the_public_range_minus_the_noisy_mean():
    X = _data()
    norm = fit_dp_center(X, bounds=None, mu=1e6, rng=SecureRandom(1))  # ~no noise
    U = np.sqrt(X / 255.0)
    np.testing.assert_allclose(norm.mean, U.mean(axis=0), atol=1e-4)
    np.testing.assert_allclose(norm.transform(X), U - norm.mean, atol=1e-5)
    np.testing.assert_allclose(norm.inverse_transform(norm.transform(X)), X, atol=1e-2)
    assert norm.uses_private_statistics is False
    assert norm.card()["statistics_mu_gdp"] == 1e6


def test_noise_has_the_stated_scale():
    """Noise std on the mean is sqrt(d) / (mu N): measured over many fits."""
    X = _data(n=200, d=50)
    mu = 0.5
    exact = np.sqrt(X / 255.0).mean(axis=0)
    errs = np.concatenate([fit_dp_center(X, bounds=None, mu=mu, rng=SecureRandom(s)).mean
                           - exact for s in range(40)])
    want = math.sqrt(50) / mu / 200
    inside = np.abs(errs) < 0.9  # away from the [0, 1] clipping of the mean
    assert np.std(errs[inside]) == pytest.approx(want, rel=0.15)


def test_deterministic_given_a_seed_and_different_otherwise():
    X = _data()
    a = fit_dp_center(X, bounds=None, mu=0.2, rng=SecureRandom(7)).mean
    b = fit_dp_center(X, bounds=None, mu=0.2, rng=SecureRandom(7)).mean
    c = fit_dp_center(X, bounds=None, mu=0.2, rng=SecureRandom(8)).mean
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_reads_the_data_only_through_the_clipped_unit_cube():
    """Values outside the public range cannot move the statistic beyond the cube's diagonal:
    a record replaced by an extreme one changes the noiseless sum by at most sqrt(d)."""
    X = _data(n=50, d=8)
    Y = X.copy()
    Y[0] = 1e9  # far outside [0, 255]
    a = fit_dp_center(X, bounds=None, mu=1e9, rng=SecureRandom(0)).mean * 50
    b = fit_dp_center(Y, bounds=None, mu=1e9, rng=SecureRandom(0)).mean * 50
    assert np.linalg.norm(a - b) <= math.sqrt(8) + 1e-6
    Z = X.copy()
    Z[0] = -1e9
    c = fit_dp_center(Z, bounds=None, mu=1e9, rng=SecureRandom(0)).mean * 50
    assert np.linalg.norm(b - c) <= math.sqrt(8) + 1e-6


def test_public_bounds_per_feature_and_one_hot_columns_keep_their_codes():
    X = np.array([[0, 1, 20.0], [1, 0, 60.0], [1, 0, 40.0]], dtype=np.float32)
    norm = fit_dp_center(X, bounds=([0, 0, 0], [1, 1, 100]), mu=1e9,
                         rng=SecureRandom(0))
    Z = norm.transform(X)
    # on 0/1 columns with range [0, 1] the transform is the affine (x - shift) * inv_scale
    np.testing.assert_allclose(Z[:, :2], (X[:, :2] - norm.shift[:2]) * norm.inv_scale[:2],
                               atol=1e-6)
    np.testing.assert_allclose(Z[:, 2], np.sqrt(X[:, 2] / 100) - norm.mean[2], atol=1e-6)


def test_bad_inputs_raise_value_errors_naming_the_parameter():
    X = _data()
    with pytest.raises(ValueError, match="mu"):
        fit_dp_center(X, bounds=None, mu=0.0)
    with pytest.raises(ValueError, match="bounds"):
        fit_dp_center(X, bounds=(1.0, 0.0), mu=0.1)
    norm = fit_dp_center(X, bounds=None, mu=0.1)
    with pytest.raises(ValueError, match="N x 6"):
        norm.transform(X[:, :3])
