"""Whole-record epsilon with one mu-GDP Gaussian release composed in (``dp-center``): its
discretisation lower bound (docs/whole-record.md §7), against an independent computation."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.special import ndtr

from dpcda.privacy import PrivacyParams
from dpcda.privacy import whole_record_accountant as wra
from dpcda.privacy.whole_record import whole_record_pld

DELTA = 1e-5
MNIST = (5421, 5842, 6000, 6131, 5918)


@pytest.mark.parametrize("sigma, l, mu", [(0.33824, 4, 0.142), (0.19765, 4, 0.5),
                                          (0.11903, 64, 0.142), (0.0269, 64, 1.0)])
def test_the_lower_bound_is_filled_below_epsilon_and_close(sigma, l, mu):
    r = whole_record_pld(sigma=sigma, l=l, lower_counts=MNIST, steps=[6000] * 5, delta=DELTA,
                         extra_mu=mu)
    plain = whole_record_pld(sigma=sigma, l=l, lower_counts=MNIST, steps=[6000] * 5,
                             delta=DELTA)
    assert math.isfinite(r.epsilon_discretisation_lower)
    assert plain.epsilon < r.epsilon  # the statistics cost something
    assert plain.epsilon_discretisation_lower < r.epsilon_discretisation_lower <= r.epsilon
    assert r.epsilon - r.epsilon_discretisation_lower <= 0.025 * r.epsilon   # measured: <= 1.8 %
    up_only = whole_record_pld(sigma=sigma, l=l, lower_counts=MNIST, steps=[6000] * 5,
                               delta=DELTA, extra_mu=mu, lower=False)
    assert up_only.epsilon == r.epsilon and math.isnan(up_only.epsilon_discretisation_lower)


def _sym_pld(s: float, gamma: float, h: float, up: bool):
    """The symmetrised pair's PLD (docs/pld.md §3) written here from its definition, losses
    rounded up (``up``) or down onto ``{k h}``: a dp_accounting PLD (upper or lower bound)."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    z = 9.0                                              # Phi(-9) ~ 1e-19: beyond, tails
    top = math.log1p(gamma * math.expm1(s * (s + z) - s * s / 2.0))
    edges = np.arange(math.ceil(top / h) + 1) * h        # buckets (e_k, e_k+1] of loss > 0
    with np.errstate(over="ignore"):
        xs = (np.log((np.exp(edges) - (1.0 - gamma)) / gamma)) / s + s / 2.0
    sf_q = ndtr(-xs)                                     # Q'(x > x_k), x_k = L^-1(e_k)
    sf_p = gamma * ndtr(s - xs) + (1.0 - gamma) * sf_q
    p, q = -np.diff(sf_p), -np.diff(sf_q)
    k = np.arange(len(p))
    d: dict[int, float] = {}
    for idx, mass in zip(k + 1 if up else k, p):       # positive losses (P')
        d[int(idx)] = d.get(int(idx), 0.0) + float(mass)
    for idx, mass in zip(-k if up else -k - 1, q):     # mirrored: Q' at -loss
        d[int(idx)] = d.get(int(idx), 0.0) + float(mass)
    d[0] = d.get(0, 0.0) + max(0.0, 1.0 - sf_p[0] - sf_q[0])
    if up:                                               # Q' beyond the grid: up to its end
        d[-int(k[-1])] += float(sf_q[-1])
    inf_mass = float(sf_p[-1]) if up else 0.0            # above the grid: +inf, or dropped
    return pldlib.PrivacyLossDistribution.create_from_rounded_probability(
        d, inf_mass, h, pessimistic_estimate=up, symmetric=True)


def _reference(s, gammas_steps, mu, h, up):
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    out = pldlib.from_gaussian_mechanism(1.0 / mu, sensitivity=1.0, pessimistic_estimate=up,
                                         value_discretization_interval=h, use_connect_dots=up)
    for g, t in gammas_steps:
        out = out.compose(_sym_pld(s, g, h, up).self_compose(t))
    return out.get_epsilon_for_delta(DELTA)


@pytest.mark.slow  # a few seconds
def test_the_bounds_bracket_an_independent_fine_grid_computation():
    """dp_accounting composes the same product (the two classes' symmetrised pairs, built here
    from their definition, and its own Gaussian mechanism) on a grid 10x finer, losses rounded
    up and down: the exact epsilon lies between those, so our lower bound must be below the
    rounded-up value and our upper bound above the rounded-down one."""
    l, sigma, mu = 4, 0.5, 0.3
    counts, steps = (400, 450), (300, 200)
    s = 2.0 / (l * sigma)
    ours = whole_record_pld(sigma=sigma, l=l, lower_counts=counts, steps=steps, delta=DELTA,
                            extra_mu=mu)
    assert ours.pair == (0, 1)                           # gammas l/400 and l/(450 + 1)
    parts = [(l / counts[0], steps[0]), (l / (counts[1] + 1), steps[1])]
    hi = _reference(s, parts, mu, 2e-5, up=True)
    lo = _reference(s, parts, mu, 2e-5, up=False)
    assert lo <= hi <= lo + 0.01 * hi                    # the reference itself is tight
    assert ours.epsilon_discretisation_lower <= hi       # a true lower bound ...
    assert ours.epsilon >= lo                            # ... and a true upper bound
    # measured: ours [1.8904, 1.8956], the reference [1.8924, 1.8986]
    assert hi - ours.epsilon_discretisation_lower <= 0.01 * hi   # and both close to it
    assert ours.epsilon - lo <= 0.01 * hi


def test_the_accountant_reports_the_composed_bounds():
    p = PrivacyParams(l=8, sigma_x=0.3, sigma_y=0.3, T=1500, class_counts=(500, 620, 555),
                      delta=DELTA)
    eps, low, step = wra.composed_bounds(p, mu=0.3)
    assert eps == wra.composed_epsilon(p, mu=0.3)
    assert low is not None and 0.0 < low <= eps and step > 0
    inf = wra.composed_bounds(dataclasses.replace(p, sigma_x=0.0, sigma_y=0.0), mu=0.3)
    assert math.isinf(inf[0]) and inf[1] is None


@pytest.mark.slow  # a few seconds
def test_a_dp_center_release_card_states_the_lower_bound():
    from dpcda.mechanisms import generate_dpcda

    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, size=(450, 12)).astype(np.float32)
    y = np.repeat(np.arange(3), 150)
    for kw in (dict(epsilon=3.0), dict(sigma_x=0.5)):
        priv = generate_dpcda(X, y, l=4, T=450, normalize="dp-center", **kw).card["privacy"]
        assert priv["accountant"] == wra.NAME and "composed_with" in priv
        low = priv["epsilon_discretisation_lower"]
        assert 0.98 * priv["epsilon"] < low <= priv["epsilon"]
        assert priv["discretisation_bound"] == pytest.approx(priv["epsilon"] - low)


@pytest.mark.parametrize("target", [0.5, 1.0])
def test_a_composed_calibration_lands_near_its_target_not_far_below(target):
    """The coarse grid's bound can be loose (MNIST, l = 16, ε = 0.5 once stated 0.476): the
    calibration comes down on the fine grid until it states the target within 0.5 %."""
    from dpcda.privacy import whole_record_accountant as wr
    from dpcda.privacy.composed import stats_mu

    counts = (5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949)
    sx, sy, eps = wr.calibrate_composed(epsilon=target, mu=stats_mu(0.1 * target, 1e-5), l=16,
                                        T=60000, class_counts=counts, n=60000, delta=1e-5)
    assert 0.995 * target <= eps <= target and sx == sy


def test_a_target_the_statistics_alone_spend_is_refused_with_what_to_do():
    from dpcda.privacy import whole_record_accountant as wr
    from dpcda.privacy.composed import stats_mu

    with pytest.raises(ValueError, match=r"epsilon=1e-09 cannot be reached with normalize='dp-center'"
                                         r".*larger epsilon or normalize='scale'"):
        wr.calibrate_composed(epsilon=1e-9, mu=stats_mu(1e-10, 1e-5), l=4, T=600,
                              class_counts=(200, 200, 200), n=600, delta=1e-5)
