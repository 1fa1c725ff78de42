"""Composition of the DP normalisation statistics (one Gaussian) with DP-CDA's class PLD."""

import math

import numpy as np
import pytest

from dpcda.privacy import PrivacyParams, compute_epsilon
from dpcda.privacy.composed import (calibrate_composed, class_epsilon, composed_epsilon,
                                    gaussian_pld, stats_mu)
from dpcda.privacy.gaussian import gaussian_delta, gaussian_epsilon
from dpcda.privacy.pld import epsilon_for_delta

COUNTS = (300, 250, 280)
BASE = dict(l=4, c=1.0, T=830, delta=1e-5, n=830, class_counts=COUNTS, allocation="proportional")


def _params(sigma: float) -> PrivacyParams:
    return PrivacyParams(sigma_x=sigma, sigma_y=sigma, **BASE)


@pytest.mark.parametrize("mu", [0.05, 0.5, 2.0])
def test_gaussian_pld_alone_matches_balle_wang_from_above(mu):
    """The grid PLD of one Gaussian gives an epsilon at or just above the exact one."""
    i0, pmf, inf_m = gaussian_pld(mu, 1e-4)
    assert abs(pmf.sum() + inf_m - 1.0) < 1e-9
    eps = epsilon_for_delta(i0, pmf, inf_m, 1e-4, 1e-5)
    exact = gaussian_epsilon(1.0 / mu, 1e-5)
    assert exact - 1e-9 <= eps <= exact + 2e-3
    assert gaussian_delta(eps, mu) <= 1e-5 * (1 + 1e-6)


def test_stats_mu_is_the_gaussian_that_spends_exactly_the_share():
    mu = stats_mu(0.5, 1e-5)
    assert gaussian_epsilon(1.0 / mu, 1e-5) == pytest.approx(0.5, rel=1e-6)


def test_composition_costs_more_than_either_part_and_less_than_their_sum():
    p = _params(0.4)
    alone = compute_epsilon(p, accountant="class-aware-pld").epsilon
    mu = stats_mu(0.3, 1e-5)
    both = composed_epsilon(p, mu=mu)
    assert both > alone + 1e-3          # the statistics are not free ...
    assert both < alone + 0.3           # ... but cost less than their standalone epsilon
    assert both > gaussian_epsilon(1.0 / mu, 1e-5)


def test_vanishing_statistics_noise_budget_gives_the_plain_pld_epsilon():
    p = _params(0.4)
    alone = compute_epsilon(p, accountant="class-aware-pld").epsilon
    assert composed_epsilon(p, mu=1e-6) == pytest.approx(alone, abs=2e-3)


def test_monotone_in_mu_and_sigma():
    e = [composed_epsilon(_params(0.4), mu=m) for m in (0.01, 0.1, 0.5)]
    assert e[0] < e[1] < e[2]
    assert composed_epsilon(_params(0.8), mu=0.1) < e[1]


def test_max_over_classes_is_the_smallest_class_at_equal_steps():
    s = 2.0 / (4 * 0.4)
    small = class_epsilon(s, 4 / 250, 300, 0.1, 1e-5, 1e-3)
    large = class_epsilon(s, 4 / 300, 300, 0.1, 1e-5, 1e-3)
    assert small > large


def test_calibration_meets_the_target_without_overshooting():
    mu = stats_mu(0.2, 1e-5)
    sx, sy, eps = calibrate_composed(epsilon=2.0, mu=mu, ratio=1.0, **BASE)
    assert eps <= 2.0
    assert eps > 1.99
    assert sy == sx
    assert composed_epsilon(_params(sx * 0.99), mu=mu) > 2.0
    plain = compute_epsilon(_params(sx), accountant="class-aware-pld").epsilon
    assert plain < eps


def test_calibration_refuses_a_target_the_statistics_alone_exceed():
    with pytest.raises(ValueError, match="statistics"):
        calibrate_composed(epsilon=0.1, mu=stats_mu(0.5, 1e-5), **BASE)


def test_needs_class_counts():
    p = PrivacyParams(l=4, sigma_x=0.4, sigma_y=0.4, c=1.0, T=800, delta=1e-5, n=800)
    with pytest.raises(ValueError, match="class_counts"):
        composed_epsilon(p, mu=0.1)


def test_non_private_is_infinite():
    assert math.isinf(composed_epsilon(_params(0.0), mu=0.1))
    assert np.isfinite(composed_epsilon(_params(0.4), mu=0.1))
