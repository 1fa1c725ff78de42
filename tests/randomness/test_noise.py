"""Floating-point-safe Gaussian noise: the sampler's law, the public grid and the stated cost."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtri

from normal_law import check_standard_normal

from dpcda.randomness import SecureRandom, add_gaussian, float_cost, grid_for
from dpcda.randomness.noise import NDTRI_REL_ERR, TAIL_B, standard_normal

N_DRAWS = 1_000_000


def test_standard_normals_have_the_normal_law():
    check_standard_normal(standard_normal(SecureRandom(seed=1), N_DRAWS))


def test_grid_rounded_noise_is_the_rounded_gaussian():
    """Released values sit on the public grid; jittered within their cell they follow the cell-
    averaged N(mu, sigma^2) (variance sigma^2 + gamma^2 / 12) for any centre mu."""
    rng = np.random.default_rng(0)
    sigma = 0.37
    mu = rng.uniform(-1, 1, N_DRAWS)
    g = grid_for(sigma, 1.0)
    out = add_gaussian(mu, sigma, SecureRandom(seed=2), bound=1.0)
    k = out / g.gamma
    assert np.array_equal(k, np.round(k))  # on the grid
    assert np.array_equal(out.astype(np.float32).astype(np.float64), out)  # exact in float32
    jitter = rng.uniform(-0.5, 0.5, N_DRAWS) * g.gamma
    check_standard_normal((out + jitter - mu) / sigma, extra_var=(g.gamma / sigma) ** 2 / 12)


def test_the_set_of_possible_outputs_does_not_depend_on_the_input():
    """The float attack reads which outputs are representable: with the grid, neighbouring
    inputs a hair apart land on the very same lattice."""
    sigma = 0.25
    g = grid_for(sigma, 1.0)
    a = add_gaussian(np.full(50_000, 0.1), sigma, SecureRandom(seed=3), bound=1.0)
    b = add_gaussian(np.full(50_000, 0.1 + 1e-12), sigma, SecureRandom(seed=4), bound=1.0)
    for v in (a, b):
        assert np.all(np.mod(v, g.gamma) == 0.0)
    assert g.gamma == 2.0 ** (math.floor(math.log2(sigma)) - 3)  # depends on sigma alone
    assert 8 <= g.s < 16


def test_private_values_must_be_float64():
    with pytest.raises(TypeError, match="float64"):
        add_gaussian(np.zeros(4, dtype=np.float32), 1.0, SecureRandom(seed=1), bound=1.0)


def test_zero_sigma_is_the_identity():
    x = np.linspace(-1, 1, 7)
    assert np.array_equal(add_gaussian(x, 0.0, SecureRandom(seed=1), bound=1.0), x)


def test_the_grid_keeps_eight_to_sixteen_cells_per_sigma_even_for_tiny_sigma():
    """The lemma needs sigma / gamma in [8, 16): the grid is never coarsened for float32 storage
    (a reviewer's sigma_x = 1e-8 made eta explode); a near-noiseless release stores as float32
    by rounding, a post-processing."""
    from dpcda.randomness.noise import float32_exact

    for sigma in (1e-8, 1e-7, 0.25, 3.0):
        g = grid_for(sigma, 1.0)
        assert 8 <= g.s < 16 and 0 < g.eta() < 4e-12
    assert float32_exact(grid_for(0.25, 1.0), 1.0) and not float32_exact(grid_for(1e-8, 1.0), 1.0)
    out = add_gaussian(np.full(1000, 0.3), 1e-8, SecureRandom(seed=1), bound=1.0)
    assert np.all(np.abs(out - 0.3) < 20e-8)
    assert float_cost((1000, grid_for(1e-8, 1.0))).epsilon_added < 1e-8
    with pytest.raises(ValueError, match="sigma"):
        grid_for(0.0, 1.0)
    with pytest.raises(ValueError, match="bound"):
        grid_for(1.0, -1.0)


def test_ndtri_is_as_accurate_as_the_proof_assumes():
    """The proof's one assumption about the float routine: ndtri's relative error on (0, 1/2]
    down to the smallest probability the sampler reaches (2^-192) is below NDTRI_REL_ERR."""
    mpmath.mp.dps = 130  # 1 - 2p keeps its digits down to p = 1e-57
    ps = np.concatenate([np.logspace(-57, math.log10(0.5), 1500),
                         SecureRandom(seed=9).random(500) * 0.5 + 1e-300,
                         # where a reviewer's dense scan found scipy 1.17's peak (1.05e-15)
                         [float.fromhex("0x1.188a7e06aed63p-3"), float.fromhex("0x1.1cc4333aacf1bp-3")],
                         np.linspace(0.1353, 0.142, 300)])
    worst = 0.0
    for p in ps:
        exact = -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(float(p)))
        got = float(ndtri(float(p)))
        if exact != 0:
            worst = max(worst, abs(float((got - exact) / exact)))
    assert worst < NDTRI_REL_ERR, worst


def test_float_cost_is_small_and_grows_with_the_release():
    g = grid_for(0.25, 1.0)
    assert 0 < g.eta() < 4e-12
    mnist = float_cost((60_000 * 784, g), (60_000 * 10, grid_for(0.25, 1.0)))
    digits = float_cost((1_797 * 64, g))
    assert digits.epsilon_added < mnist.epsilon_added < 1e-3
    assert mnist.delta_added(10.0, 1e-5) < 1e-8
    # beyond the bulk the tail is astronomically small
    assert mnist.tail == pytest.approx(2 * stats.norm.sf(TAIL_B - 1), rel=1e-6)
    card = mnist.card(10.0, 1e-5)
    assert card["noisy_values"] == 60_000 * 794 and card["epsilon_added"] == mnist.epsilon_added
    assert float_cost((10, None)).n_values == 0


def test_a_forked_child_can_draw_noise_after_its_parent_did():
    """The thread pool does not survive fork(): the child starts its own (no hang)."""
    import os
    import signal

    if not hasattr(os, "fork"):
        pytest.skip("no fork() on this platform")
    big = 3 * (1 << 20)  # more than one chunk: the pool is used
    add_gaussian(np.zeros(big), 1.0, SecureRandom(seed=1), bound=1.0)
    pid = os.fork()
    if pid == 0:  # child
        signal.alarm(60)
        try:
            out = add_gaussian(np.zeros(big), 1.0, SecureRandom(seed=2), bound=1.0)
            os._exit(0 if out.shape == (big,) else 1)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_the_runtime_ndtri_table_is_right():
    """The shipped reference values (hi + lo) agree with mpmath to ~32 digits, and this scipy's
    error on them is what the docs state (measured 1.05e-15 < 2e-15)."""
    from dpcda.randomness.ndtri_reference import NDTRI_REFERENCE as _NDTRI_REFERENCE, ndtri_error

    mpmath.mp.dps = 130
    for p, hi, lo in _NDTRI_REFERENCE:
        exact = -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(float.fromhex(p)))
        got = mpmath.mpf(float.fromhex(hi)) + mpmath.mpf(float.fromhex(lo))
        assert abs((got - exact) / exact) < 1e-30
    assert len(_NDTRI_REFERENCE) >= 50
    assert 1e-16 < ndtri_error() <= NDTRI_REL_ERR


def test_noise_is_refused_when_ndtri_exceeds_the_proofs_bound(monkeypatch):
    """A scipy whose ndtri is off by 3e-15 (above the 2e-15 the proof uses) draws no noise."""
    import scipy.special

    import dpcda.randomness.noise as noise

    real = scipy.special.ndtri
    monkeypatch.setattr(scipy.special, "ndtri", lambda p, *a, **k: real(p, *a, **k) * (1 + 3e-15))
    monkeypatch.setattr(noise, "_NDTRI_CHECKED", None)
    src = SecureRandom(seed=1)
    with pytest.raises(RuntimeError, match="above the bound 2e-15 that the noise's"):
        add_gaussian(np.zeros(10), 1.0, src, bound=1.0)
    with pytest.raises(RuntimeError, match="ndtri"):
        standard_normal(src, 10)
    assert src.words(1)[0] == SecureRandom(seed=1).words(1)[0]  # nothing was drawn before it
