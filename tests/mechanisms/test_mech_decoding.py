"""One-hot decoders: the calibrated posterior keeps a rare category rare; argmax inflates it."""

import numpy as np
import pytest

from dpcda.mechanisms.decoding import (
    amplitude,
    check_decoder,
    choose_codes,
    marginal_estimate,
)
from dpcda.mechanisms.segments import snap_segments


def noisy_segment(shares, n, m, sigma, seed=0):
    rng = np.random.default_rng(seed)
    cat = rng.choice(len(shares), size=n, p=shares)
    s = m * np.eye(len(shares))[cat] + rng.normal(0, sigma, (n, len(shares)))
    return s, cat


def test_amplitude_and_marginal_from_column_means():
    # rows 0.5 * e_J exactly (scale: shift 0): m = 0.5 and shares read off the means
    s = 0.5 * np.eye(2)[[0, 0, 0, 1]]
    m = amplitude(s, np.zeros(2), fallback=0.1)
    assert m == pytest.approx(0.5)
    assert marginal_estimate(s, np.zeros(2), m) == pytest.approx([0.75, 0.25])
    # z-score shifts sum to 1: the segment sums to 0 and the public fallback is used
    assert amplitude(s - 0.5 * np.array([0.75, 0.25]), np.array([0.75, 0.25]), 0.1) == 0.1


def test_posterior_keeps_rare_category_rare_where_argmax_inflates_it():
    shares = np.array([0.9, 0.09, 0.01])
    s, _ = noisy_segment(shares, 20000, m=0.3, sigma=0.4)
    kw = {"sigma": 0.4, "fallback_m": 0.3, "rng": np.random.default_rng(1)}
    arg = np.bincount(choose_codes(s, np.zeros(3), np.ones(3), decoder="argmax", **kw),
                      minlength=3) / len(s)
    post = np.bincount(choose_codes(s, np.zeros(3), np.ones(3), decoder="posterior", **kw),
                       minlength=3) / len(s)
    assert arg[2] > 0.15                     # noise makes the 1% category win often
    assert np.abs(post - shares).max() < 0.02


def test_sample_without_noise_is_unbiased_for_mixtures():
    # each row the average of 4 one-hots (l = 4), no noise: sampling keeps the shares
    rng = np.random.default_rng(0)
    cats = rng.choice(3, size=(30000, 4), p=[0.7, 0.2, 0.1])
    s = np.eye(3)[cats].mean(axis=1) * 0.5
    codes = choose_codes(s, np.zeros(3), np.ones(3), decoder="sample", sigma=0.0,
                         fallback_m=0.5, rng=np.random.default_rng(2))
    assert np.bincount(codes, minlength=3) / len(s) == pytest.approx([0.7, 0.2, 0.1], abs=0.01)
    # argmax of the same rows favours the majority
    arg = np.bincount(np.argmax(s, axis=1), minlength=3) / len(s)
    assert arg[0] > 0.8


def test_snap_reencodes_exact_codes_and_rejects_unknown_decoder():
    s, _ = noisy_segment([0.5, 0.5], 500, m=0.5, sigma=0.1)
    Z = np.hstack([np.full((500, 1), 0.25), s]).astype(np.float32)
    out = snap_segments(Z, [(1, 3)], np.zeros(3), np.ones(3), decode="posterior", sigma=0.1,
                        rng=np.random.default_rng(0))
    assert np.all(out[:, 0] == 0.25)          # numeric column untouched
    assert np.all(out[:, 1:].sum(axis=1) == 1) and set(np.unique(out[:, 1:])) == {0.0, 1.0}
    with pytest.raises(ValueError, match="decode must be one of argmax, sample, posterior"):
        check_decoder("mode")


def test_noise_free_rows_keep_their_category_under_a_zscore_shift():
    # z-score-like shift (the category shares) and per-row clip factors 0.1..0.9, l = 1
    mu = np.array([0.6, 0.3, 0.1])
    cats = np.array([0, 1, 2, 2, 1, 0])
    cf = np.linspace(0.1, 0.9, len(cats))[:, None]
    s = cf * (np.eye(3)[cats] - mu)
    for dec in ("sample", "posterior"):
        codes = choose_codes(s, mu, np.ones(3), decoder=dec, sigma=0.0, fallback_m=0.5,
                             rng=np.random.default_rng(0))
        assert codes.tolist() == cats.tolist()
