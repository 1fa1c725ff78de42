"""Normalizers and row clipping (dataset checks on tiny files, and on the real ones where
DPCDA_DATA_DIR holds them)."""

import numpy as np
import pytest

from dpcda.data import clip_rows, fit_dataset_normalizer, fit_normalizer, load_dataset, normalize_and_clip


def test_zscore_population_std_and_constant_columns():
    rng = np.random.default_rng(0)
    X = rng.normal(5, 3, size=(200, 5)).astype(np.float32)
    X[:, 1] = 0.1  # constant and not exactly representable: must still map to 0
    X[:, 3] = 7.0
    norm = fit_normalizer(X, "zscore")
    Z = norm.transform(X)
    assert Z.dtype == np.float32 and np.isfinite(Z).all()
    assert (Z[:, [1, 3]] == 0).all() and norm.n_constant == 2
    X64 = X.astype(np.float64)
    expect = (X64[:, [0, 2, 4]] - X64[:, [0, 2, 4]].mean(0)) / X64[:, [0, 2, 4]].std(0, ddof=0)
    np.testing.assert_allclose(Z[:, [0, 2, 4]], expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(Z[:, [0, 2, 4]].std(0), 1, rtol=1e-5)
    assert norm.uses_private_statistics and norm.method == "zscore"
    card = norm.card()
    assert card["uses_private_statistics"] is True and card["n_constant_features"] == 2
    assert not any(isinstance(v, np.ndarray) for v in card.values())  # no statistics exported
    np.testing.assert_allclose(norm.inverse_transform(Z)[:, [0, 2, 4]], X[:, [0, 2, 4]], rtol=1e-5)


@pytest.fixture(params=["tiny", "real"])
def datasets_dir(request, tiny_data_dir, real_data):
    """A datasets folder holding mnist/ and adult/: the tiny files, then the real ones (or a skip)."""
    if request.param == "real":
        real_data("mnist")
        return real_data("adult")
    return tiny_data_dir


def test_zscore_on_mnist_border_pixels(datasets_dir):
    ds = load_dataset("mnist", data_dir=datasets_dir)
    norm = fit_normalizer(ds.X_train, "zscore")
    Z = norm.transform(ds.X_train[:1000])
    assert np.isfinite(Z).all() and norm.n_constant > 0
    assert (Z[:, ds.X_train.min(0) == ds.X_train.max(0)] == 0).all()


def test_scale_is_data_independent():
    X = np.array([[0, 255, 51], [255, 0, 102]], np.float32)
    norm = fit_normalizer(X, "scale")
    np.testing.assert_allclose(norm.transform(X), X / 255)
    assert not norm.uses_private_statistics
    other = fit_normalizer(np.full((3, 3), 7, np.float32), "scale")  # fitted data does not matter
    np.testing.assert_array_equal(other.transform(X), norm.transform(X))
    with pytest.raises(ValueError, match=r"assumes pixel values in \[0, 255\].*bounds="):
        fit_normalizer(X * 10, "scale")
    b = fit_normalizer(X * 10, "scale", bounds=(np.zeros(3), np.full(3, 2550.0)))
    np.testing.assert_allclose(b.transform(X * 10), X / 255, rtol=1e-6)


def test_scale_with_adult_public_bounds(datasets_dir):
    ds = load_dataset("adult", data_dir=datasets_dir)
    norm = fit_dataset_normalizer(ds, "scale")
    Z = norm.transform(ds.X_test)
    onehot = np.zeros(ds.d_x, bool)
    for s in ds.segments:
        onehot[s.start:s.stop] = True
    np.testing.assert_array_equal(Z[:, onehot], ds.X_test[:, onehot])  # one-hot left as 0/1
    assert 0 <= Z.min() and Z.max() <= 1.0 + 1e-6  # real values inside the documented ranges
    digits = load_dataset("digits")
    np.testing.assert_allclose(fit_dataset_normalizer(digits, "scale").transform(digits.X_test),
                               digits.X_test / 16)


def test_clip_rows_norms():
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(1000, 50)) * rng.exponential(3, size=(1000, 1))).astype(np.float32)
    X[0] = 0
    for c in (0.1, 1.0, 3.0):
        Y = clip_rows(X, c)
        n_in = np.linalg.norm(X.astype(np.float64), axis=1)
        n_out = np.linalg.norm(Y.astype(np.float64), axis=1)
        assert (n_out <= c).all() and Y.dtype == np.float32
        small = n_in <= c
        np.testing.assert_array_equal(Y[small], X[small])  # untouched below the norm
        np.testing.assert_allclose(n_out[~small], c, rtol=1e-6)  # scaled exactly onto the sphere
        cos = (Y[~small] * X[~small]).sum(1) / (n_out[~small] * n_in[~small])
        np.testing.assert_allclose(cos, 1, rtol=1e-5)  # direction kept
    assert not np.shares_memory(clip_rows(X, 1.0), X)


@pytest.mark.parametrize("c", [0, -1.0, float("nan"), float("inf"), "1", True])
def test_clip_rows_bad_c(c):
    with pytest.raises(ValueError, match="c must be a finite number > 0"):
        clip_rows(np.ones((2, 2)), c)


def test_same_transform_on_test_split():
    ds = load_dataset("digits")
    Xtr, Xte, norm = normalize_and_clip(ds.X_train, ds.X_test, "zscore", c=1.0)
    np.testing.assert_array_equal(Xte, clip_rows(norm.transform(ds.X_test), 1.0))
    mean = ds.X_train.astype(np.float64).mean(0)
    std = ds.X_train.astype(np.float64).std(0)
    safe = np.where(std > 0, std, 1)
    expect = clip_rows(np.where(std > 0, (ds.X_test - mean) / safe, 0), 1.0)
    np.testing.assert_allclose(Xte, expect, rtol=1e-5, atol=1e-6)
    assert (np.linalg.norm(Xtr, axis=1) <= 1).all() and (np.linalg.norm(Xte, axis=1) <= 1).all()
    # the test split does not influence the statistics
    _, Xte2, _ = normalize_and_clip(ds.X_train, ds.X_test * 2, "zscore", c=1.0)
    assert not np.allclose(Xte2, Xte)


def test_bad_normalizer_arguments():
    X = np.ones((3, 2), np.float32)
    with pytest.raises(ValueError, match="method must be one of zscore, scale, got method='minmax'"):
        fit_normalizer(X, "minmax")
    with pytest.raises(ValueError, match="X_train must be a non-empty 2-D array"):
        fit_normalizer(np.ones(3), "zscore")
    with pytest.raises(ValueError, match="finite"):
        fit_normalizer(np.array([[1.0, np.nan]]), "zscore")
    with pytest.raises(ValueError, match="bounds must be"):
        fit_normalizer(X, "scale", bounds=(1.0, 1.0))
    with pytest.raises(ValueError, match="bounds applies to method='scale' only"):
        fit_normalizer(X, "zscore", bounds=(0, 1))
    with pytest.raises(ValueError, match=r"X must be N x 2"):
        fit_normalizer(X, "zscore").transform(np.ones((3, 3)))
