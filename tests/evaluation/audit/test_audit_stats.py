"""The statistics of the audit (dpcda.evaluation.audit.stats) against closed forms and dp_accounting."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcda.evaluation.audit import (
    bounds_from_statistics,
    clopper_pearson_upper,
    epsilon_from_rates,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
)


def test_clopper_pearson_zero_and_all_and_coverage():
    # k = 0: the upper limit solves (1 - p)^n = alpha.
    assert clopper_pearson_upper(0, 100, 0.05) == pytest.approx(1 - 0.05 ** (1 / 100))
    assert clopper_pearson_upper(100, 100, 0.05) == 1.0
    # Coverage: the limit is above the true rate in at least 95% of binomial draws.
    rng = np.random.default_rng(1)
    k = rng.binomial(200, 0.03, size=4000)
    assert np.mean(clopper_pearson_upper(k, 200, 0.05) >= 0.03) >= 0.95


def test_epsilon_from_rates_is_the_dp_inequality():
    # FPR + e^eps FNR >= 1 - delta, tight at the returned eps.
    eps = float(epsilon_from_rates(0.01, 0.2, 1e-5))
    assert eps == pytest.approx(math.log((1 - 1e-5 - 0.2) / 0.01))
    assert float(epsilon_from_rates(0.5, 0.5, 1e-5)) == 0.0  # a coin flip proves nothing


def test_gdp_conversion_matches_dp_accounting_gaussian():
    from dp_accounting.pld import privacy_loss_distribution as pld

    for mu in (0.5, 1.0, 2.0):
        ref = pld.from_gaussian_mechanism(standard_deviation=1.0, sensitivity=mu,
                                          value_discretization_interval=1e-4
                                          ).get_epsilon_for_delta(1e-5)
        assert gdp_epsilon(mu, 1e-5) == pytest.approx(ref, rel=2e-3)
        assert gdp_delta(gdp_epsilon(mu, 1e-5), mu) == pytest.approx(1e-5, rel=1e-6)
    assert gdp_epsilon(0.0, 1e-5) == 0.0


def test_gdp_mu_inverts_the_gaussian_tradeoff():
    mu = 1.3
    fpr = np.array([0.01, 0.1, 0.4])
    fnr = stats.norm.cdf(stats.norm.ppf(1 - fpr) - mu)
    assert gdp_mu(fpr, fnr) == pytest.approx(np.full(3, mu))


def test_bounds_from_gaussian_samples_are_below_and_near_the_truth():
    rng = np.random.default_rng(7)
    mu, n = 1.0, 40000
    s0, s1 = rng.normal(size=n), rng.normal(mu, 1.0, size=n)
    out = bounds_from_statistics(s0, s1, delta=1e-5)
    truth = gdp_epsilon(mu, 1e-5)
    assert 0.4 * truth < out["epsilon_lower"] < truth
    assert out["epsilon_gdp"] == pytest.approx(truth, rel=0.25)
    assert out["trials_evaluation"] == [n // 2, n // 2]
    # Identical arms: no evidence of leakage beyond chance.
    same = bounds_from_statistics(s0, rng.normal(size=n), delta=1e-5)
    assert same["epsilon_lower"] < 0.1
