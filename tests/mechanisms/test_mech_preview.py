"""The preview of a DP-CDA release (dpcda.mechanisms.preview): the samples of the full release, a few."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.mechanisms import fit_preprocessor, generate_dpcda
from dpcda.mechanisms.preview import MAX_PER_CLASS, preview_dpcda


def _data(n_per=(40, 30, 50), d=6, seed=0):
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.full(n, k) for k, n in enumerate(n_per)])
    X = rng.uniform(0, 255, size=(len(y), d)) + 60.0 * y[:, None]  # classes apart
    return X, y


def _pre(X, c=1.0, normalize="scale"):
    return fit_preprocessor(X, normalize, c=c, bounds=(np.zeros(X.shape[1]), np.full(X.shape[1], 400.0)))


def test_noiseless_preview_sample_is_a_mean_of_l_distinct_rows_of_its_class():
    X, y = _data()
    pre = _pre(X)
    P = pre(X).astype(np.float64)
    prev = preview_dpcda(X, y, l=3, per_class=5, sigma_x=0.0, sigma_y=0.0, preprocess=pre,
                         n_classes=3, c=1.0, seed=1)
    assert prev.X.shape == (15, 6) and np.bincount(prev.y, minlength=3).tolist() == [5, 5, 5]
    for x, k in zip(prev.X, prev.y):
        rows = P[y == k]
        # some 3 distinct rows of class k average to x: solve by brute force over triples
        n = len(rows)
        found = any(np.allclose(rows[[a, b, c]].mean(0), x, atol=1e-5)
                    for a in range(n) for b in range(a + 1, n) for c in range(b + 1, n))
        assert found, k


def test_preview_matches_the_release_in_distribution():
    """Mean and spread of the features per class agree with the full release's (both at the
    same noise), so the preview shows what the release will look like."""
    X, y = _data(n_per=(200, 200), d=4)
    pre = _pre(X, c=2.0)
    sigma = 0.3
    prev = [preview_dpcda(X, y, l=4, per_class=MAX_PER_CLASS, sigma_x=sigma, sigma_y=sigma,
                          preprocess=pre, n_classes=2, c=2.0, seed=s) for s in range(6)]
    rel = generate_dpcda(X, y, l=4, T=768, c=2.0, sigma_x=sigma, sigma_y=sigma, normalize=pre.normalizer,
                         accountant="class-aware-pld", seed=7, compare_accountants=False)
    for k in range(2):
        a = np.concatenate([p.X[p.y == k] for p in prev]).astype(np.float64)
        b = np.asarray(rel.X, dtype=np.float64)[rel.y == k]
        se = np.sqrt(a.var(0) / len(a) + b.var(0) / len(b))
        assert np.all(np.abs(a.mean(0) - b.mean(0)) < 5 * se)
        assert np.allclose(a.std(0), b.std(0), rtol=0.15)
        assert np.all(a.std(0) > 0.9 * sigma)  # the noise is there


def test_label_noise_moves_labels_and_rows_are_shuffled():
    X, y = _data(n_per=(50, 50, 50))
    pre = _pre(X)
    prev = preview_dpcda(X, y, l=2, per_class=MAX_PER_CLASS, sigma_x=0.1, sigma_y=5.0,
                         preprocess=pre, n_classes=3, c=1.0, seed=3)
    counts = np.bincount(prev.y, minlength=3)
    assert counts.sum() == 3 * MAX_PER_CLASS and counts.tolist() != [MAX_PER_CLASS] * 3
    clean = preview_dpcda(X, y, l=2, per_class=8, sigma_x=0.0, sigma_y=0.0, preprocess=pre,
                          n_classes=3, c=1.0, seed=3)
    assert clean.y.tolist() != sorted(clean.y.tolist())  # not grouped by class
    assert clean.card == {"preview": True, "data": {"class_names": ["0", "1", "2"]}}


def test_noise_on_the_public_grid_and_secure_by_default():
    X, y = _data()
    pre = _pre(X)
    a = preview_dpcda(X, y, l=2, per_class=4, sigma_x=0.5, sigma_y=0.5, preprocess=pre,
                      n_classes=3, c=1.0)
    b = preview_dpcda(X, y, l=2, per_class=4, sigma_x=0.5, sigma_y=0.5, preprocess=pre,
                      n_classes=3, c=1.0)
    assert not np.array_equal(a.X, b.X)  # no fixed seed
    from dpcda.randomness.noise import grid_for

    g = grid_for(0.5, 1.0).gamma
    q = a.X.astype(np.float64) / g
    assert np.allclose(q, np.round(q))
    assert math.isfinite(float(np.abs(a.X).max()))


@pytest.mark.parametrize("kw, name", [
    (dict(l=41), "l"), (dict(per_class=0), "per_class"), (dict(per_class=MAX_PER_CLASS + 1), "per_class"),
    (dict(sigma_x=-1.0), "sigma_x"), (dict(sigma_y=float("nan")), "sigma_y"), (dict(sigma_y=0.0), "sigma_y"),
    (dict(c=2.0), "preprocess"),
])
def test_bad_input_names_the_parameter(kw, name):
    X, y = _data()
    args = dict(l=2, per_class=4, sigma_x=0.5, sigma_y=0.5, preprocess=_pre(X), n_classes=3, c=1.0)
    with pytest.raises(ValueError, match=name):
        preview_dpcda(X, y, **{**args, **kw})


def test_l_above_a_class_is_refused_in_words_that_name_no_class_size():
    """The class sizes of the previewed data are private: two neighbouring datasets (one record more
    in the smallest class) give the same message, naming l and no count."""
    messages = []
    for n_per in ((40, 30, 50), (40, 31, 50), (41, 30, 50)):
        X, y = _data(n_per)
        with pytest.raises(ValueError) as err:
            preview_dpcda(X, y, l=45, per_class=4, sigma_x=0.5, sigma_y=0.5, preprocess=_pre(X),
                          n_classes=3, c=1.0)
        messages.append(str(err.value))
    assert messages[0] == messages[1] == messages[2]
    assert "l=45" in messages[0]
    assert not any(str(n) in messages[0] for n in (30, 31, 40, 41, 50))
