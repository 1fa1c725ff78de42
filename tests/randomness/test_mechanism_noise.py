"""Every mechanism's private noise: >= 10^6 draws against N(0, sigma^2), float64 at the kernel,
and no torch (MT19937, float32) draw on a private path."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from normal_law import check_standard_normal

import dpcda.mechanisms.baselines as baselines
import dpcda.mechanisms.dp_merf as dp_merf
import dpcda.randomness as randomness
import dpcda.randomness.noise as noise
from dpcda.data.dp_normalize import fit_dp_center
from dpcda.mechanisms import generate_random_projection
from dpcda.mechanisms.baselines import generate_dpmix_traced
from dpcda.mechanisms.dp_cda import generate_dpcda_traced
from dpcda.mechanisms.mixing import shrink_factor
from dpcda.randomness import SecureRandom, grid_for

NONE = dict(normalize="none")


def _residuals(out, centre, sigma, bound):
    """(out - centre) / sigma, jittered uniformly within the grid cell (see test_noise)."""
    g = grid_for(sigma, bound)
    jitter = np.random.default_rng(0).uniform(-0.5, 0.5, np.shape(out)) * g.gamma
    r = ((np.asarray(out, dtype=np.float64) + jitter - centre) / sigma).ravel()
    return r, (g.gamma / sigma) ** 2 / 12


def _classes(K, n, d, seed=0):
    V = np.random.default_rng(seed).uniform(-1, 1, (K, d))
    y = np.repeat(np.arange(K), n).astype(np.int64)
    return V[y].astype(np.float32), y, V.astype(np.float32).astype(np.float64)


def test_dpcda_feature_noise():
    X, y, V = _classes(K=2, n=20, d=100)
    sigma, l = 0.5, 3
    rel, tr = generate_dpcda_traced(X, y, l=l, T=10_000, sigma_x=sigma, sigma_y=sigma, c=100.0,
                                    allocation="equal", seed=1, **NONE)
    assert rel.X.size >= 1_000_000
    check_standard_normal(*_residuals(rel.X, V[tr.source] * shrink_factor(l), sigma, 100.0))


def test_dpcda_label_noise():
    X, y, _ = _classes(K=10, n=4, d=2)
    sigma = 0.8
    rel, tr = generate_dpcda_traced(X, y, l=2, T=100_000, sigma_x=sigma, sigma_y=sigma, c=100.0,
                                    allocation="equal", seed=2, **NONE)
    assert rel.y_soft.size >= 1_000_000
    check_standard_normal(*_residuals(rel.y_soft, np.eye(10)[tr.source], sigma, 1.0))


@pytest.mark.parametrize("l", [1, 4])  # local perturbation is DPMix with l = 1
def test_dpmix_and_local_noise(l):
    rng = np.random.default_rng(3)
    x0 = rng.uniform(0, 1, 100)
    y = rng.integers(0, 4, 400)
    X = np.tile(x0, (400, 1)).astype(np.float32)
    sx, sy = 0.3, 0.6
    rel, tr = generate_dpmix_traced(X, y, l=l, T=10_000, sigma_x=sx, sigma_y=sy, c=100.0,
                                    seed=4, return_indices=True, **NONE)
    s = shrink_factor(l)
    check_standard_normal(*_residuals(rel.X, x0.astype(np.float32).astype(np.float64) * s,
                                      sx, 100.0))
    labels = np.eye(4)[y[tr.indices]].mean(axis=1) * s  # 4 x 10^4 draws; 10^6 below
    check_standard_normal(*_residuals(rel.y_soft, labels, sy, 1.0))


def test_dpmix_label_noise_on_a_million_draws():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 10, 300)
    X = np.full((300, 1), 0.5, dtype=np.float32)
    sy = 0.6
    rel, tr = generate_dpmix_traced(X, y, l=2, T=100_000, sigma_x=0.3, sigma_y=sy, c=100.0,
                                    seed=7, return_indices=True, **NONE)
    assert rel.y_soft.size >= 1_000_000
    labels = np.eye(10)[y[tr.indices]].mean(axis=1) * shrink_factor(2)
    check_standard_normal(*_residuals(rel.y_soft, labels, sy, 1.0))


def test_random_projection_noise():
    rng = np.random.default_rng(8)
    X = rng.uniform(-0.05, 0.05, (10_000, 100)).astype(np.float32)
    y = rng.integers(0, 3, 10_000)
    rel = generate_random_projection(X, y, epsilon=2.0, c=1.0, seed=9, **NONE)
    R = rel.extras["projection"].astype(np.float64)
    centre = (X.astype(np.float64) * (1.0 - 2.0 ** -20)) @ R.T  # margin 2^-20 at d = p = 100
    std = rel.card["parameters"]["noise_std"]
    bound = rel.card["parameters"]["spectral_norm_R"] * 1.0
    assert rel.X.size >= 1_000_000
    check_standard_normal(*_residuals(rel.X, centre, std, bound))


class _Spy:
    """Records every call of add_gaussian (input dtype, sigma, input, output)."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def __call__(self, values, sigma, source, **kw):
        out = self.real(values, sigma, source, **kw)
        self.calls.append((np.asarray(values).dtype, sigma, np.array(values), out, kw))
        return out


@pytest.fixture
def spy(monkeypatch):
    s = _Spy(noise.add_gaussian)
    for mod in (noise, randomness, baselines, dp_merf):
        monkeypatch.setattr(mod, "add_gaussian", s)
    return s


def test_dp_merf_embedding_and_count_noise(spy):
    rng = np.random.default_rng(10)
    X = rng.uniform(0, 255, (200, 4)).astype(np.float32)
    y = np.repeat(np.arange(10), 20)
    dp_merf.generate_dp_merf(X, y, epsilon=1.0, n_features=100_000, steps=1, batch_size=20,
                             T=20, hidden=(8,), seed=11)
    (emb, counts) = spy.calls
    assert emb[0] == np.float64 and counts[0] == np.float64
    assert emb[2].size >= 1_000_000
    check_standard_normal(*_residuals(emb[3], emb[2], emb[1], 1.0))
    assert counts[2].tolist() == [20.0] * 10


def test_dp_center_statistics_noise(spy):
    X = np.random.default_rng(12).uniform(0, 255, (2, 1_000_000)).astype(np.float32)
    fit_dp_center(X, bounds=None, mu=50.0, rng=SecureRandom(13))
    ((dtype, sigma, total, out, kw),) = spy.calls
    assert dtype == np.float64 and kw["bound"] == 2.0  # n rows of values in [0, 1]
    check_standard_normal(*_residuals(out, total, sigma, 2.0))


def test_private_paths_draw_nothing_from_torch_and_only_float64_noise(spy, monkeypatch):
    """The kernels refuse float32 private values (test_noise); here: every noise call of each
    mechanism gets float64, and torch's generators are never asked for a private draw."""

    def forbidden(*a, **k):
        raise AssertionError("torch random draw on a private path")

    for name in ("randn", "rand", "randint", "randperm", "normal"):
        monkeypatch.setattr(torch, name, forbidden)
    X, y, _ = _classes(K=3, n=30, d=8)
    generate_dpcda_traced(X, y, l=4, T=300, sigma_x=0.4, c=10.0, **NONE)
    generate_dpmix_traced(X, y, l=4, T=300, sigma_x=0.4, c=10.0, **NONE)
    # dp-cda: one feature call per class and one for the labels; dpmix: features and labels
    assert len(spy.calls) == 3 + 1 + 2 and all(c[0] == np.float64 for c in spy.calls)
