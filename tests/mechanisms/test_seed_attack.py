"""Issue 17's seed attack at small scale: it works on the legacy generator, not on today's code.

The attack and the legacy kernel (a bit-for-bit copy of fbbefed's) live in ``benchmarks/``
(``seed_attack.py``, ``legacy_release.py``). The seed space is 2^16: the legacy release seeded
below 2^16 is found by brute force and every private row comes back; an unseeded release of
``generate_dpcda`` is matched by no seed of that space (as a torch seed or as a
``SecureRandom(seed)`` key), even with the OS's bytes 2-3 zeroed (the shipped fbbefed code, whose
63-bit seed then keeps 47 random bits but whose MT19937 keeps the low 32 bits, 16 of them random,
is found: this test fails on it), and replaying the best candidates' noise leaves noise-sized
residuals; a release made with ``seed=s`` is found (seeded = reproducible = not private) and
its card says so.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import legacy_release  # noqa: E402
import seed_attack as sa  # noqa: E402

BITS = 16
L = 16
SIGMA = 0.2  # about epsilon 10 at delta 1e-5 for digits, l = 16, T = 2N


@pytest.fixture(scope="module")
def digits():
    from dpcda.data import load_dataset

    ds = load_dataset("digits")
    X, y = ds.X_train, ds.y_train
    counts = np.bincount(y)
    from dpcda.privacy import samples_per_class

    t_k = np.asarray(samples_per_class(2 * len(X), counts, "equal"))
    return X, y, counts, t_k, ds.feature_bounds


def _new_release(digits, seed=None):
    from dpcda.mechanisms import generate_dpcda

    X, y, _, t_k, bounds = digits
    rel = generate_dpcda(X, y, l=L, T=int(t_k.sum()), sigma_x=SIGMA, sigma_y=SIGMA,
                         normalize="scale", bounds=bounds, seed=seed, compare_accountants=False,
                         allocation="equal")  # the old code's split, which the attack replays
    assert rel.card["parameters"]["T_per_class"] == [int(t) for t in t_k]
    return rel


def test_the_enumeration_reproduces_both_generators():
    """The vectorised prefix is torch's randperm (s and s + 2^32 alike: MT19937 keeps 32 bits)
    and the SecureRandom prefix is SecureRandom.permutation."""
    import torch

    from dpcda.randomness import SecureRandom

    seeds = np.array([0, 1, 40_000, 2**32 - 1, 2**32 + 40_000, 2**62 + 5], dtype=np.uint64)
    for n in (25, 2694):
        pre = sa.randperm_prefix(seeds, n, 24)
        for j, s in enumerate(seeds):
            g = torch.Generator()
            g.manual_seed(int(s))
            assert np.array_equal(torch.randperm(n, generator=g).numpy()[:24], pre[:, j])
        assert np.array_equal(pre[:, 2], pre[:, 4])
    for s in (0, 7, 65_535):
        assert np.array_equal(sa.secure_prefix(s, 2694, 24),
                              SecureRandom(seed=s).permutation(2694)[:24])


def test_legacy_release_seed_found_and_every_row_recovered(digits):
    X, y, counts, t_k, bounds = digits
    seed = secrets.randbelow(1 << BITS)
    Xp = legacy_release.preprocess(X, bounds)
    rel = legacy_release.legacy_release(Xp, y, l=L, per_class=t_k, sigma_x=SIGMA, seed=seed)
    found = sa.search_torch_seeds(rel.y, t_k, BITS)
    assert found.found == [seed]
    sol = sa.solve_rows(rel.X, sa.replay_legacy(seed, counts, t_k, L, SIGMA, SIGMA, X.shape[1]),
                        counts, L)
    assert sol.full_rank and sol.residual_rms < 1e-6
    truth = Xp[np.argsort(y, kind="stable")]
    assert np.abs(sol.rows - truth).max() < 1e-6  # every private row, from the release alone


def _os_bytes_with_low_word_weak(real):
    """``os.urandom`` with bytes 2-3 of every draw zeroed: the OS still gives a release plenty
    of entropy (47 of the legacy 63-bit seed's bits, 240 of today's 256-bit key), but the low
    32 bits that MT19937 keeps then hold only 16 random bits."""
    def urandom(n):
        b = bytearray(real(n))
        b[2:4] = bytes(len(b[2:4]))
        return bytes(b)
    return urandom


def test_unseeded_release_matches_no_seed_and_its_noise_is_not_reproducible(digits,
                                                                             monkeypatch):
    import os

    X, y, counts, t_k, _ = digits
    monkeypatch.setattr(os, "urandom", _os_bytes_with_low_word_weak(os.urandom))
    rel = _new_release(digits)  # the shipped fbbefed code: found by the torch-seed search
    monkeypatch.undo()
    d = X.shape[1]
    as_torch = sa.search_torch_seeds(rel.y, t_k, BITS)
    as_key = sa.search_secure_seeds(rel.y, t_k, BITS)
    assert as_torch.found == [] and as_key.found == []
    assert max(as_torch.best_score, as_key.best_score) < sa.MATCH
    # The best candidates' noise, subtracted, leaves residuals of the noise's own size (the
    # right noise leaves float rounding on the legacy kernel, under the grid step today).
    for replay in (sa.replay_legacy(as_torch.best_seed, counts, t_k, L, SIGMA, SIGMA, d),
                   sa.replay_new(as_key.best_seed, counts, t_k, L, SIGMA, SIGMA, d)):
        assert sa.solve_rows(rel.X, replay, counts, L).residual_rms > 0.5 * SIGMA
    # A fresh key per release: the same data and settings give different noise.
    assert not np.array_equal(_new_release(digits).X, rel.X)
    assert rel.card["privacy"]["seeded"] is False


def test_seeded_release_is_found_reproducible_and_marked(digits):
    X, y, counts, t_k, _ = digits
    seed = secrets.randbelow(1 << BITS)
    rel = _new_release(digits, seed=seed)
    assert rel.card["privacy"]["seeded"] is True
    again = _new_release(digits, seed=seed)
    assert np.array_equal(rel.X, again.X) and np.array_equal(rel.y, again.y)
    assert rel.card["privacy"]["seeded"] and "not private" in rel.card["privacy"]["randomness"]
    found = sa.search_secure_seeds(rel.y, t_k, BITS)
    assert found.found == [seed]
    replay = sa.replay_new(seed, counts, t_k, L, SIGMA, SIGMA, X.shape[1])
    gamma = 2.0 ** (np.floor(np.log2(SIGMA)) - 3)  # the public grid of the noise
    assert sa.solve_rows(rel.X, replay, counts, L).residual_rms < gamma
