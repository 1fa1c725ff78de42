"""Uniform l-subsets: every algorithm path of ``sample_subsets`` against exact distributions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
from scipy import stats

from dpcda.mechanisms._torch import resolve_device
from dpcda.mechanisms.sampling import sample_subsets, subset_method
from dpcda.randomness import SecureRandom

P_MIN = 1e-4  # a correct sampler fails one of these checks with probability ~1e-4 per test


def _draw(n, l, m, seed=0):
    idx = sample_subsets(n, l, m, generator=SecureRandom(seed)).numpy()
    assert idx.shape == (m, l) and idx.dtype == np.int64
    assert idx.min() >= 0 and idx.max() < n
    srt = np.sort(idx, axis=1)
    assert (np.diff(srt, axis=1) > 0).all(), "indices within a sample must be distinct"
    return srt


@pytest.mark.parametrize("n,l,method", [(10, 1, "single"), (60, 2, "rejection"),
                                        (8, 3, "floyd"), (8, 6, "floyd"), (7, 7, "floyd")])
def test_each_subset_equally_likely(n, l, method):
    """Chi-square over all C(n, l) subsets (the ``l > n/2`` row exercises the complement)."""
    assert subset_method(n, l) == method
    subsets = {s: i for i, s in enumerate(itertools.combinations(range(n), l))}
    m = 40 * len(subsets)
    srt = _draw(n, l, m, seed=n * 100 + l)
    counts = np.bincount([subsets[tuple(r)] for r in srt], minlength=len(subsets))
    if len(subsets) == 1:
        assert counts[0] == m
        return
    assert stats.chisquare(counts).pvalue > P_MIN


@pytest.mark.parametrize("bound", [3, 5, 6000, 2 ** 33 + 7])
def test_secure_integers_below_a_bound_are_exactly_uniform(bound):
    """Rejection on masked words: no modulo bias even where the bound is just above a power of
    two (the mask then rejects almost half the words)."""
    rng = SecureRandom(bound)
    v = rng.below(bound, 200_000)
    assert v.dtype == np.int64 and v.min() >= 0 and v.max() < bound
    bins = min(bound, 64)
    counts = np.bincount((v * bins // bound).astype(np.int64), minlength=bins)
    expected = np.diff(np.ceil(np.arange(bins + 1) * bound / bins)) / bound * len(v)
    assert stats.chisquare(counts, expected).pvalue > P_MIN


@pytest.mark.parametrize("n,l", [(6000, 3), (6000, 20), (300, 64), (300, 250)])
def test_each_index_selected_with_frequency_l_over_n(n, l):
    m = max(2000, 30 * n // l)
    srt = _draw(n, l, m, seed=l)
    counts = np.bincount(srt.ravel(), minlength=n)
    assert counts.sum() == m * l
    assert stats.chisquare(counts).pvalue > P_MIN  # expected m * l / n each


def test_pairs_within_a_sample_are_uniform():
    """Joint law within a sample: each pair {i, j} appears with frequency l(l-1)/(n(n-1))."""
    n, l, m = 12, 5, 30000
    assert subset_method(n, l) == "floyd"
    srt = _draw(n, l, m, seed=3)
    pair = np.zeros((n, n), dtype=np.int64)
    for a, b in itertools.combinations(range(l), 2):
        np.add.at(pair, (srt[:, a], srt[:, b]), 1)
    obs = pair[np.triu_indices(n, 1)]
    assert stats.chisquare(obs).pvalue > P_MIN
    assert obs.mean() == pytest.approx(m * l * (l - 1) / 2 / math.comb(n, 2))


def test_samples_are_independent_draws():
    """Overlap of consecutive samples is hypergeometric: mean l^2/n (not 0, not l)."""
    n, l, m = 100, 10, 20000
    srt = _draw(n, l, m, seed=4)
    a = np.zeros((m, n), dtype=bool)
    a[np.arange(m)[:, None], srt] = True
    overlap = (a[1:] & a[:-1]).sum(axis=1)
    expected = stats.hypergeom(n, l, l)
    assert abs(overlap.mean() - expected.mean()) < 5 * expected.std() / math.sqrt(m - 1)


def test_chunked_floyd_matches_shape_and_law(monkeypatch):
    """Force several memory chunks: rows must still be distinct and uniform."""
    import dpcda.mechanisms.sampling as sampling

    monkeypatch.setattr(sampling, "CHUNK_BYTES", (50 + 16 * 20) * 30)  # 30 rows per chunk
    srt = _draw(50, 20, 3000, seed=5)
    assert stats.chisquare(np.bincount(srt.ravel(), minlength=50)).pvalue > P_MIN


def test_seeded_generator_is_reproducible_and_unseeded_is_not():
    a = sample_subsets(1000, 8, 50, generator=SecureRandom(7))
    b = sample_subsets(1000, 8, 50, generator=SecureRandom(7))
    c = sample_subsets(1000, 8, 50, generator=SecureRandom())
    d = sample_subsets(1000, 8, 50, generator=SecureRandom())
    assert torch.equal(a, b)
    assert not torch.equal(c, d)


@pytest.mark.parametrize("kw,match", [(dict(n=5, l=6, m=3), "l must be an integer in"),
                                      (dict(n=5, l=0, m=3), "l must be an integer"),
                                      (dict(n=5, l=2.5, m=3), "l must be an integer"),
                                      (dict(n=5, l=2, m=-1), "m must be an integer")])
def test_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        sample_subsets(generator=SecureRandom(0), **kw)


def test_zero_samples_and_device_resolution():
    out = sample_subsets(5, 2, 0, generator=SecureRandom(0))
    assert tuple(out.shape) == (0, 2)
    assert resolve_device("cpu").type == "cpu"
    assert resolve_device(None).type in ("cpu", "cuda", "mps")
    with pytest.raises(ValueError, match="device"):
        resolve_device("not-a-device")
    with pytest.raises(ValueError, match="seed"):
        SecureRandom(-1)


@pytest.mark.parametrize("l", [1, 3, 32, 33, 64, 200])
def test_neighbouring_means_move_only_where_the_record_is_and_at_most_2c_over_l(l):
    """What the accountants assume of the computed means (docs/security.md, section 1): a bag
    without the replaced record is bitwise the same, and one with it moves by at most 2c/l
    after the public shrink, rounding included (rows of norm exactly c, the record flipped)."""
    from dpcda.data.preprocess import clip_rows
    from dpcda.mechanisms.mixing import bag_means, private_table

    rng = np.random.default_rng(l)
    n, d, c = 400, 97, 1.0
    X = clip_rows(rng.normal(size=(n, d)) * 10, c)
    Y = X.copy()
    Y[7] = -X[7]  # the farthest replacement: ||x - x'|| = 2c
    idx = sample_subsets(n, l, 3000, generator=SecureRandom(l))
    a = bag_means(private_table(X, l, "cpu"), idx).numpy()
    b = bag_means(private_table(Y, l, "cpu"), idx).numpy()
    assert a.dtype == np.float64
    has = (idx == 7).any(dim=1).numpy()
    assert has.any() and (~has).any()
    assert np.array_equal(a[~has], b[~has])
    assert np.linalg.norm(a[has] - b[has], axis=1).max() <= 2 * c / l
