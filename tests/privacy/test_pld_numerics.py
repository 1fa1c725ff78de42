"""The PLD accountants at extreme settings (tiny sigma, huge T): no floating-point warning, and
every upper bound stays an upper bound (docs/pld.md §6, "Extreme settings").

Every test runs under ``warnings.simplefilter("error")``: a RuntimeWarning (overflow, ``inf -
inf``) fails it. The settings are those a search over l, sigma in [1e-3, 10], T up to 1e9 and
delta down to 1e-12 found to warn, raise or understate before the fix."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import log_ndtr, logsumexp

from dpcda.privacy import pld
from dpcda.privacy.composed import class_epsilon
from dpcda.privacy.pld_compose import _LAMBDAS, _log_mgf
from dpcda.privacy.whole_record import whole_record_pld

N = 6000


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def one_step_epsilon(s: float, gamma: float, delta: float) -> float:
    """Exact epsilon at ``delta`` of one step of the pair ``(gamma N(s,1) + (1-gamma) N(0,1),
    N(0,1))`` (= the symmetrised pair for eps >= 0), in log space: no grid, no clipping."""
    def log_delta(eps: float) -> float:
        # L(x) = eps  <=>  x = (eps + log1p(-(1 - gamma) e^-eps) - log gamma) / s + s / 2
        x = (eps + math.log1p(-(1.0 - gamma) * math.exp(-eps)) - math.log(gamma)) / s + s / 2
        terms = [math.log(gamma) + log_ndtr(s - x), math.log1p(-gamma) + log_ndtr(-x),
                 eps + log_ndtr(-x)]
        val, sign = logsumexp(terms, b=[1.0, 1.0, -1.0], return_sign=True)
        return float(val) if sign > 0 else -math.inf

    target = math.log(delta)
    if log_delta(1e-9) <= target:
        return 0.0
    return brentq(lambda e: log_delta(e) - target, 1e-9, s * s + 50.0 * s, xtol=1e-10)


@pytest.mark.parametrize("h", [1e-4, 0.05, 0.5, 8.0])
def test_log_mgf_is_exact_on_every_grid(h):
    """Coarse grids at |lam| = 30 overflowed ``e^{lam j h}`` inside a block (then ``0 * inf``,
    ``inf - inf``: NaN, and a ValueError further on); now exact against a plain log-sum-exp."""
    rng = np.random.default_rng(0)
    pmf = rng.random(20_000) ** 8
    pmf[rng.random(len(pmf)) < 0.3] = 0.0
    pmf /= pmf.sum()
    i0 = -7_000
    lam = np.concatenate([_LAMBDAS, -_LAMBDAS])
    got = _log_mgf(i0, pmf, h, lam)
    nz = np.nonzero(pmf)[0]
    loss = (i0 + nz) * h
    want = logsumexp(np.log(pmf[nz])[:, None] + np.outer(loss, lam), axis=0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# (l, sigma, T, delta): 'inf - inf' in _log_mgf; the grid coarsened without end (h -> 1e300);
# e^{lam j h} overflowed; a one-step grid of 10^8 points (composed with dp-center's Gaussian).
EXTREME = [(64, 0.00316, 10**6, 1e-5), (1, 0.0316, 10**9, 1e-2), (4, 0.1, 10**6, 1e-5),
           (256, 0.001, 10**6, 1e-12), (1, 0.1, 10**6, 1e-12)]


@pytest.mark.parametrize("l, sigma, T, delta", EXTREME)
def test_extreme_settings_give_valid_bounds(l, sigma, T, delta):
    s, gamma = 2.0 / (l * sigma), l / N
    floor = one_step_epsilon(s, gamma, delta)  # T steps spend at least what one does
    r = pld.pld_bounds(s=s, gamma=gamma, T=T, delta=delta)
    assert r.epsilon >= floor and 0.0 <= r.epsilon_discretisation_lower <= r.epsilon
    w = whole_record_pld(sigma=sigma, l=l, lower_counts=[N, N + 421], steps=[T, T], delta=delta)
    assert w.epsilon >= floor and 0.0 <= w.epsilon_discretisation_lower <= w.epsilon
    wm = whole_record_pld(sigma=sigma, l=l, lower_counts=[N, N + 421], steps=[T, T],
                          delta=delta, extra_mu=0.3, lower=False)
    assert wm.epsilon >= w.epsilon


@pytest.mark.slow  # one step's grid of 400,000 points: about 1 s each
@pytest.mark.parametrize("l, sigma, T, delta", EXTREME)
def test_extreme_settings_with_dp_center_class_aware(l, sigma, T, delta):
    s, gamma = 2.0 / (l * sigma), l / N
    assert class_epsilon(s, gamma, min(T, 100), 0.3, delta, 1e-4) >= one_step_epsilon(s, gamma, delta)


@pytest.mark.parametrize("s", [60.0, 200.0])
def test_an_upper_bound_beyond_the_clipped_read_off_is_infinite(s):
    """The read-off clips losses at 700: one step at s = 200 spends about 19,700, which the
    grid read as 699.9 (not an upper bound). Above ``CLIP_TRUSTED`` the upper bound is inf;
    the lower bound (clipping only lowers delta) stays below the exact value."""
    gamma, delta = 1.0 / N, 1e-5
    exact = one_step_epsilon(s, gamma, delta)
    r = pld.pld_bounds(s=s, gamma=gamma, T=1, delta=delta)
    assert r.epsilon_discretisation_lower <= exact <= r.epsilon
    w = whole_record_pld(sigma=2.0 / s, l=1, lower_counts=[N, N], steps=[1, 0], delta=delta)
    assert w.epsilon_discretisation_lower <= exact <= w.epsilon


@pytest.mark.parametrize("s, gamma", [(1.0, 0.01), (5.0, 0.001), (20.0, 0.5)])
def test_one_step_brackets_the_exact_value(s, gamma):
    """Where nothing is extreme the bounds bracket the exact one-step epsilon tightly."""
    exact = one_step_epsilon(s, gamma, 1e-5)
    r = pld.pld_bounds(s=s, gamma=gamma, T=1, delta=1e-5)
    assert r.epsilon_discretisation_lower <= exact <= r.epsilon <= exact + 1e-4 * max(10.0, exact)


def test_rdp_of_a_huge_shift_is_infinite_without_warnings():
    """sigma = 1e-170 (the CLI's curves reach it): s^2 overflowed and ``inf - inf`` warned."""
    from dpcda.privacy.whole_record_rdp import rdp_symmetrised, whole_record_rdp

    assert np.isinf(rdp_symmetrised(5e169, 0.001, [2, 3, 64])).all()
    r = whole_record_rdp(sigma=1e-170, l=4, lower_counts=[N, N], steps=[100, 100], delta=1e-5)
    assert math.isinf(r.epsilon)
    assert np.isfinite(rdp_symmetrised(1e3, 0.001, [2, 3])).all()
