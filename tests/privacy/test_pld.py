"""The PLD accountant (``class-aware-pld``): bounds, references, calibration, bad input."""

import itertools
import math

import numpy as np
import pytest

from dpcda.privacy import PrivacyParams, calibrate, compute_epsilon, epsilon_grid, pld

COUNTS = (500, 620, 555)          # small classes keep the FFTs small on a shared CPU
H = 1e-3


def params(**kw):
    base = {"l": 4, "sigma_x": 0.5, "sigma_y": 0.5, "T": 1200, "class_counts": COUNTS, "delta": 1e-5}
    base.update(kw)
    return PrivacyParams(**base)


@pytest.mark.parametrize("l", [1, 4, 32])
@pytest.mark.parametrize("sigma", [0.05, 0.3, 2.0])
@pytest.mark.parametrize("T,delta", [(300, 1e-5), (1200, 1e-3), (1200, 1e-6)])
def test_never_above_class_aware_rdp(l, sigma, T, delta):
    p = params(l=l, sigma_x=sigma, sigma_y=sigma, T=T, delta=delta)
    pld_eps = compute_epsilon(p, accountant="class-aware-pld", value_interval=H).epsilon
    rdp = min(compute_epsilon(p, accountant="class-aware", conversion=c).epsilon
              for c in ("mironov", "improved"))
    assert pld_eps <= rdp * (1 + 1e-9)
    if rdp < 20:  # and clearly tighter wherever the privacy is meaningful
        assert pld_eps < 0.95 * rdp


def _sample_pair(s, gamma, n, rng):
    x = rng.standard_normal(n)
    x = x + s * (rng.random(n) < gamma)                  # x ~ P' = gamma N(s,1) + (1-gamma) N(0,1)
    return np.logaddexp(math.log1p(-gamma), math.log(gamma) + s * x - s * s / 2)


@pytest.mark.parametrize("s,gamma,eps", [(2.0, 0.05, 0.5), (4.0, 0.01, 1.0), (1.0, 0.3, 0.2)])
def test_one_step_hockey_stick_matches_monte_carlo(s, gamma, eps):
    rng = np.random.default_rng(0)
    L = _sample_pair(s, gamma, 400_000, rng)
    vals = np.clip(-np.expm1(eps - L), 0.0, None)
    mc, se = vals.mean(), vals.std() / math.sqrt(len(vals))
    h = 1e-3
    i0, pmf, inf_m, _ = pld.symmetric_step(s, gamma, h, pessimistic=True)
    up = pld.delta_for_epsilon(i0, pmf, inf_m, h, eps)
    i0, pmf, inf_m, _ = pld.symmetric_step(s, gamma, h, pessimistic=False)
    lo = pld.delta_for_epsilon(i0, pmf, inf_m, h, eps)
    assert lo <= up
    assert abs(up - mc) <= 4 * se + 1e-4 * up
    assert mc - 4 * se <= up and lo <= mc + 4 * se
    # the pessimistic grid is exact at grid points: equal to the integral to 1e-9
    assert up - lo < 0.02 * up


def test_bounds_bracket_and_shrink_with_the_grid():
    kw = {"s": 2 / (4 * 0.4), "gamma": 4 / 500, "T": 600, "delta": 1e-5}
    coarse = pld.pld_bounds(value_interval=1e-2, **kw)
    fine = pld.pld_bounds(value_interval=1e-3, **kw)
    assert (coarse.epsilon_discretisation_lower <= fine.epsilon_discretisation_lower <= fine.epsilon
            <= coarse.epsilon)
    assert fine.width < coarse.width and fine.width < 0.05 * fine.epsilon


def test_symmetric_pair_at_least_both_directions():
    # the directional pairs are realised by datasets (docs/pld.md §4): a valid bound is above
    for s, gamma in [(2.0, 0.01), (1.0, 0.05)]:
        sym = pld.pld_bounds(s=s, gamma=gamma, T=500, delta=1e-5, value_interval=H).epsilon
        assert sym >= pld.directional_epsilon(s=s, gamma=gamma, T=500, delta=1e-5,
                                              value_interval=H)


@pytest.mark.parametrize("sigma,l,N,T", [(0.5, 4, 600, 600), (0.08, 16, 500, 400),
                                          (1.0, 1, 300, 2000)])
def test_directions_agree_with_dp_accounting(sigma, l, N, T):
    dpa = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution",
                              reason="dp_accounting (test-only reference) is not installed")
    h = 1e-4
    ref = dpa.from_gaussian_mechanism(standard_deviation=sigma, sensitivity=2 / l,
                                      sampling_prob=l / N, value_discretization_interval=h)
    ref_eps = ref.self_compose(T).get_epsilon_for_delta(1e-5)
    ref_opt = dpa.from_gaussian_mechanism(
        standard_deviation=sigma, sensitivity=2 / l, sampling_prob=l / N,
        value_discretization_interval=h, pessimistic_estimate=False
    ).self_compose(T).get_epsilon_for_delta(1e-5)
    mine = pld.directional_epsilon(s=2 / (l * sigma), gamma=l / N, T=T, delta=1e-5,
                                   value_interval=h)
    # both are upper bounds of the same quantity; each within the other's discretisation
    assert ref_opt - 1e-6 <= mine <= ref_eps + max(1e-3 * ref_eps, 1e-6)


def test_proportional_allocation_is_max_over_classes():
    p = params(l=4, sigma_x=0.3, sigma_y=0.3, T=1500, allocation="proportional")
    got = compute_epsilon(p, accountant="class-aware-pld", value_interval=H)
    per = [pld.pld_bounds(s=2 / (4 * 0.3), gamma=4 / n, T=t, delta=1e-5, value_interval=H)
           for n, t in zip(COUNTS, p.samples_per_class)]
    assert got.epsilon == pytest.approx(max(b.epsilon for b in per), rel=1e-12)
    assert got.epsilon_discretisation_lower == pytest.approx(
        max(b.epsilon_discretisation_lower for b in per), rel=1e-12)
    eq = compute_epsilon(params(l=4, sigma_x=0.3, sigma_y=0.3, T=1500),
                         accountant="class-aware-pld", value_interval=H)
    assert eq.epsilon != got.epsilon


def test_result_reports_bound_and_no_order():
    r = compute_epsilon(params(), accountant="class-aware-pld")  # grid chosen per setting
    assert r.alpha is None and r.conversion is None
    assert 1e-5 <= r.value_interval <= 1e-3  # the step behind the lower bound
    assert compute_epsilon(params(), accountant="class-aware-pld",
                           value_interval=2e-4).value_interval == 2e-4
    assert 0 <= r.epsilon_discretisation_lower <= r.epsilon
    assert r.discretisation_bound == pytest.approx(r.epsilon - r.epsilon_discretisation_lower)
    assert r.discretisation_bound < 0.01 * r.epsilon
    off = compute_epsilon(params(sigma_x=0.0, sigma_y=0.0), accountant="class-aware-pld")
    assert off.epsilon == math.inf and not off.private


def test_epsilon_decreases_in_sigma_and_curves_bound_it():
    sig = np.array([0.1, 0.2, 0.4, 0.8])
    g = epsilon_grid(ls=[4, 16], sigmas=sig, T=1200, class_counts=COUNTS, delta=1e-5,
                     accountant="class-aware-pld")
    assert np.all(np.diff(g, axis=1) < 0)
    for i, l in enumerate([4, 16]):
        for j, s in enumerate(sig):
            one = compute_epsilon(params(l=l, sigma_x=s, sigma_y=s), accountant="class-aware-pld")
            assert one.epsilon <= g[i, j] <= one.epsilon * 1.03 + 1e-9


def test_calibration_never_overshoots_and_is_monotone():
    sigmas = []
    for target in (0.5, 1.0, 2.0, 4.0):
        cal = calibrate(epsilon=target, delta=1e-5, l=8, T=1200, class_counts=COUNTS,
                        accountant="class-aware-pld")
        assert cal.epsilon <= target and cal.epsilon >= 0.98 * target
        assert cal.alpha is None and cal.result.epsilon_discretisation_lower <= cal.epsilon
        sigmas.append(cal.sigma_x)
    assert all(a > b for a, b in itertools.pairwise(sigmas))


@pytest.mark.parametrize("kw,name", [
    ({"value_interval": 0.0}, "value_interval"), ({"value_interval": "x"}, "value_interval"),
    ({"gamma": 0.0}, "gamma"), ({"T": 0}, "T"), ({"delta": 1.0}, "delta"),
    ({"s": -1.0}, "s")])
def test_bad_input_names_the_parameter(kw, name):
    base = {"s": 1.0, "gamma": 0.01, "T": 10, "delta": 1e-5, "value_interval": 1e-3}
    base.update(kw)
    with pytest.raises(ValueError, match=name):
        pld.pld_bounds(**base)


def test_needs_class_counts():
    with pytest.raises(ValueError, match="class_counts"):
        compute_epsilon(PrivacyParams(l=4, sigma_x=1, sigma_y=1, T=100, n=1000, delta=1e-5),
                        accountant="class-aware-pld")
    with pytest.raises(ValueError, match="value_interval"):
        compute_epsilon(params(), accountant="class-aware-pld", value_interval=5.0)


def test_default_accountant_is_whole_record_and_class_aware_pld_the_tightest_features_only():
    """The default protects a whole record (label included): valid for DP-CDA, and above the
    features-only class-aware-pld at the same noise (it protects more); class-aware-pld stays
    the tightest of the features-only (label kept) valid bounds."""
    from dpcda.privacy import ACCOUNTANTS, CLASS_MIXTURE, DEFAULT_ACCOUNTANT

    assert DEFAULT_ACCOUNTANT == "whole-record"
    assert ACCOUNTANTS[DEFAULT_ACCOUNTANT].supports(CLASS_MIXTURE)
    assert "label" in ACCOUNTANTS[DEFAULT_ACCOUNTANT].relation
    p = params(l=16, sigma_x=0.2, sigma_y=0.2)
    whole = compute_epsilon(p, accountant=DEFAULT_ACCOUNTANT).epsilon
    mine = compute_epsilon(p, accountant="class-aware-pld").epsilon
    assert whole > 1.05 * mine
    for name, acc in ACCOUNTANTS.items():
        if acc.supports(CLASS_MIXTURE) and name not in (DEFAULT_ACCOUNTANT, "class-aware-pld"):
            assert mine < compute_epsilon(p, accountant=name, conversion="improved").epsilon


def test_calibrate_on_curve_never_overshoots():
    from dpcda.privacy import calibrate_on_curve

    sig = np.geomspace(0.05, 2.0, 15)
    setting = {"T": 1200, "class_counts": COUNTS, "delta": 1e-5, "accountant": "class-aware-pld"}
    curve = epsilon_grid(ls=[8], sigmas=sig, **setting)[0]
    for target in (0.7, 2.0):
        s, e = calibrate_on_curve(epsilon=target, sigmas=sig, curve=curve, l=8, **setting)
        assert e <= target
        exact = calibrate(epsilon=target, l=8, **setting).sigma_x
        assert exact * (1 - 1e-3) <= s <= exact * 1.3  # at most one grid step above
    assert calibrate_on_curve(epsilon=1e-4, sigmas=sig, curve=curve, l=8, **setting) is None
