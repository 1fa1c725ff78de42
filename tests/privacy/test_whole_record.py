"""The whole-record accountant (docs/whole-record.md): bounds, references, exact 1-D check."""

import math

import numpy as np
import pytest
from scipy.special import ndtr

from dpcda.privacy import pld
from dpcda.privacy import whole_record as wr
from dpcda.privacy import whole_record_rdp as wrr
from dpcda.privacy import whole_record_calibration as wrc

COUNTS = (500, 620, 555)          # small classes keep the FFTs small
STEPS = (400, 400, 400)
DELTA = 1e-5


def _class_aware(sigma, l, counts=COUNTS, steps=STEPS, delta=DELTA):
    """Today's class-aware-pld epsilon (maximum over classes of one class's symmetrised pair)."""
    s = 2.0 / (l * sigma)
    return max(pld.pld_bounds(s=s, gamma=l / n, T=t, delta=delta, lower=False).epsilon
               for n, t in zip(counts, steps))


# ---------------------------------------------------------------- structure and public inputs

def test_served_classes_and_refusal():
    assert list(wr.served_classes(4, [4, 5, 100])) == [False, True, True]
    with pytest.raises(ValueError, match="must not be served"):
        wr.whole_record_pld(sigma=1.0, l=4, lower_counts=[4, 50], steps=[10, 10], delta=DELTA)
    # skipping the small class (T_k = 0) is accepted; only the served class counts
    r = wr.whole_record_pld(sigma=1.0, l=4, lower_counts=[4, 50], steps=[0, 10], delta=DELTA)
    assert r.pair == (1, None)
    with pytest.raises(ValueError, match="one entry per class"):
        wr.whole_record_pld(sigma=1.0, l=4, lower_counts=[50, 50], steps=[10], delta=DELTA)


def test_candidates_are_the_two_smallest_classes_with_equal_steps():
    counts = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
    assert sorted(wr.candidate_classes(counts, [6000] * 10)) == [4, 5]
    assert sorted(wr.worst_pairs(counts, [6000] * 10)) == [(4, 5), (5, 4)]


def test_candidate_reduction_equals_the_maximum_over_all_pairs():
    counts, steps, l, sigma = (300, 420, 310, 500), (200, 300, 100, 300), 4, 0.7
    s = 2.0 / (l * sigma)
    g_lose, g_gain = wr.class_rates(l, counts)
    every = max(wr.parts_bounds(s, [(g_lose[a], steps[a]), (g_gain[b], steps[b])], DELTA,
                                1e-3, lower=False)[0]
                for a in range(4) for b in range(4) if a != b)
    got = wr.whole_record_pld(sigma=sigma, l=l, lower_counts=counts, steps=steps, delta=DELTA,
                              value_interval=1e-3, lower=False).epsilon
    assert got == pytest.approx(every, rel=1e-12)


# ---------------------------------------------------------------- (a) it protects more

@pytest.mark.parametrize("l,sigma", [(4, 0.5), (16, 0.2), (64, 0.05)])
def test_whole_record_is_at_least_class_aware(l, sigma):
    whole = wr.whole_record_pld(sigma=sigma, l=l, lower_counts=COUNTS, steps=STEPS, delta=DELTA)
    ca = _class_aware(sigma, l)
    assert whole.epsilon >= ca
    assert whole.epsilon_discretisation_lower <= whole.epsilon
    assert whole.epsilon - whole.epsilon_discretisation_lower < 0.02 * whole.epsilon + 0.01
    # and it is a genuine composition of two classes, not a copy of one
    assert whole.epsilon > 1.05 * ca


def test_monotone_in_the_public_bound_and_in_sigma():
    kw = dict(l=8, steps=STEPS, delta=DELTA, lower=False)
    e1 = wr.whole_record_pld(sigma=0.3, lower_counts=COUNTS, **kw).epsilon
    e2 = wr.whole_record_pld(sigma=0.3, lower_counts=tuple(n - 100 for n in COUNTS), **kw).epsilon
    e3 = wr.whole_record_pld(sigma=0.4, lower_counts=COUNTS, **kw).epsilon
    assert e2 > e1 > e3


# ---------------------------------------------------------------- (b) PLD <= RDP

@pytest.mark.parametrize("l,sigma", [(4, 0.4), (32, 0.06), (8, 2.0)])
def test_pld_at_most_rdp(l, sigma):
    kw = dict(sigma=sigma, l=l, lower_counts=COUNTS, steps=STEPS, delta=DELTA)
    p = wr.whole_record_pld(**kw).epsilon
    r = wrr.whole_record_rdp(**kw).epsilon
    assert p <= r
    assert r < 1.6 * p + 0.5        # the same pair, bounded less tightly, not wildly


def test_rdp_of_the_symmetrised_pair_bounds_dp_accounting_rdp():
    """D_alpha(S) >= D_alpha(P'||Q') (S dominates the remove direction), which dp_accounting
    computes for the Poisson-subsampled Gaussian; and it is close to it for tiny gamma * alpha."""
    from dp_accounting import dp_event
    from dp_accounting import rdp as drdp

    orders = np.arange(2, 33)
    for s, g in [(2.0, 0.01), (0.5, 0.05), (1.0, 0.002), (4.0, 0.001)]:
        mine = wrr.rdp_symmetrised(s, g, orders)
        acc = drdp.RdpAccountant(orders=[float(a) for a in orders])
        acc.compose(dp_event.PoissonSampledDpEvent(g, dp_event.GaussianDpEvent(1.0 / s)))
        ref = np.asarray(acc._rdp)
        assert np.all(mine >= ref * (1 - 1e-9))
        assert np.all(mine <= 2.0 * ref + 1e-12)   # measured: at most 1.7x (s = 1, gamma = 0.002)


@pytest.mark.parametrize("s,gamma,a", [(1.0, 0.002, 2), (0.5, 0.05, 5), (2.0, 0.01, 2),
                                       (1.0, 0.002, 20)])
def test_rdp_of_the_symmetrised_pair_by_quadrature(s, gamma, a):
    """The grid bound is above, and within 1e-3 of, adaptive quadrature of the definition."""
    from scipy.integrate import quad
    from scipy.stats import norm

    def rho(x):
        return 1 - gamma + gamma * math.exp(s * x - s * s / 2)

    i1 = quad(lambda x: (rho(x) ** a - rho(x)) * norm.pdf(x), s / 2, 30, epsabs=1e-16,
              epsrel=1e-12)[0]
    i2 = quad(lambda x: (rho(x) ** (1 - a) - 1) * norm.pdf(x), s / 2, 30, epsabs=1e-16,
              epsrel=1e-12)[0]
    exact = math.log1p(i1 + i2) / (a - 1)
    got = float(wrr.rdp_symmetrised(s, gamma, [a])[0])
    assert exact * (1 - 1e-9) <= got <= exact * (1 + 1e-3)


# ---------------------------------------------------------------- (c) against dp_accounting

def _dp_acc_pld(s, gamma, h, T):
    """dp_accounting PLD of our one-step symmetrised grid (its own composition and read-off)."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    i0, pmf, inf_m, _ = pld.symmetric_step(s, gamma, h, pessimistic=True)
    d = {int(i0 + k): float(v) for k, v in enumerate(pmf) if v > 0}
    one = pldlib.PrivacyLossDistribution.create_from_rounded_probability(
        d, inf_m, h, pessimistic_estimate=True, symmetric=True)
    return one.self_compose(T)


def test_two_class_composition_matches_dp_accounting():
    l, sigma, h = 4, 0.5, 1e-3
    s = 2.0 / (l * sigma)
    ta, tb = 300, 200
    ref = _dp_acc_pld(s, l / 400, h, ta).compose(_dp_acc_pld(s, l / 451, h, tb))
    want = ref.get_epsilon_for_delta(DELTA)
    got = wr.whole_record_pld(sigma=sigma, l=l, lower_counts=(400, 450), steps=(ta, tb),
                              delta=DELTA, value_interval=h, lower=False)
    # pair (0 loses, 1 gains): gammas 4/400 and 4/451; the other order is smaller here
    assert got.pair == (0, 1)
    assert got.epsilon == pytest.approx(want, abs=2e-3)
    delta = wr.whole_record_delta(epsilon=want, sigma=sigma, l=l, lower_counts=(400, 450),
                                  steps=(ta, tb), value_interval=h)
    assert delta == pytest.approx(ref.get_delta_for_epsilon(want), rel=1e-3)


def test_upper_bounds_dp_accounting_per_direction_pair():
    """dp_accounting's Poisson pair (both directions, maximum) is dominated by ours."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    l, sigma, h = 8, 0.25, 1e-3
    counts, steps = (300, 350), (250, 250)
    ref = None
    for a, b in [(0, 1), (1, 0)]:
        p = pldlib.from_gaussian_mechanism(sigma, sensitivity=2.0 / l, sampling_prob=l / counts[a],
                                           value_discretization_interval=h).self_compose(steps[a])
        q = pldlib.from_gaussian_mechanism(sigma, sensitivity=2.0 / l,
                                           sampling_prob=l / (counts[b] + 1),
                                           value_discretization_interval=h).self_compose(steps[b])
        e = p.compose(q).get_epsilon_for_delta(DELTA)
        ref = e if ref is None else max(ref, e)
    got = wr.whole_record_pld(sigma=sigma, l=l, lower_counts=counts, steps=steps, delta=DELTA)
    assert got.epsilon >= ref - 5e-3
    assert got.epsilon <= 1.35 * ref


# ---------------------------------------------------------------- (d) exact 1-D distributions

def _mixture_cells(points, l, sigma, edges):
    """Cell masses of the output law of one step: the mean of a uniform l-subset of ``points``
    (1-D) plus N(0, sigma^2), on the cells between ``edges``."""
    import itertools

    means = [np.mean(c) for c in itertools.combinations(points, l)]
    cdf = np.mean([ndtr((edges - m) / sigma) for m in means], axis=0)
    return np.diff(cdf)


def _loss_pmf(a, b, h):
    """PLD of the quantised pair (a, b) with losses rounded *down* onto {i h}: composing it and
    reading off delta gives a lower bound on the true delta (data processing + monotonicity)."""
    keep = a > 0
    with np.errstate(divide="ignore"):
        L = np.log(a[keep]) - np.log(b[keep])
    finite = np.isfinite(L)
    inf_mass = float(a[keep][~finite].sum())
    idx = np.floor(L[finite] / h).astype(int)
    i0 = int(idx.min())
    pmf = np.bincount(idx - i0, weights=a[keep][finite])
    return i0, pmf, inf_mass


def _true_delta_lower(pairs, eps, h=2e-3):
    """Lower bound on delta(eps) of the product of the given 1-D step pairs."""
    i0, pmf, keep = 0, np.array([1.0]), 1.0
    for a, b in pairs:
        j0, q, m = _loss_pmf(a, b, h)
        i0, pmf, keep = i0 + j0, np.convolve(pmf, q), keep * (1 - m)
    loss = (i0 + np.arange(len(pmf))) * h
    return (1 - keep) + float(np.sum(pmf * np.clip(-np.expm1(eps - loss), 0.0, None)))


def _datasets():
    """(class k in D, class k in D', class k' in D, class k' in D'): record -1 of class k moves
    to class k' as -1 (the adversarial case), and a random one."""
    rng = np.random.default_rng(3)
    yield [-1, 1, 1, 1], [1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1, -1]
    yield [1, -1, -1, -1], [-1, -1, -1], [-1, -1, -1, -1], [-1, -1, -1, -1, 1]
    pts = list(rng.uniform(-1, 1, 7))
    yield pts[:4], pts[1:4], pts[4:8] + [0.3], pts[4:8] + [0.3, -0.9]


@pytest.mark.parametrize("T", [1, 2, 3])
def test_bound_covers_the_exact_distributions_in_1d(T):
    """l = 2, N = 4 (class k, which loses a record) and 4 (class k', which gains one), c = 1:
    the true hockey-stick divergence of the T-step release (both orders of the neighbours),
    computed on fine cells, is below our delta(eps) for every eps tried; and a wrong shift c/l
    instead of 2c/l would be caught by the same computation."""
    l, sigma = 2, 1.0
    edges = np.concatenate([[-np.inf], np.arange(-12.0, 13.0, 2e-3), [np.inf]])
    for kD, kD2, jD, jD2 in _datasets():
        A_k, B_k = (_mixture_cells(p, l, sigma, edges) for p in (kD, kD2))
        A_j, B_j = (_mixture_cells(p, l, sigma, edges) for p in (jD, jD2))
        for eps in (0.0, 0.3, 0.8, 1.5):
            true = max(_true_delta_lower([(A_k, B_k)] * T + [(A_j, B_j)] * T, eps),
                       _true_delta_lower([(B_k, A_k)] * T + [(B_j, A_j)] * T, eps))
            ours = wr.whole_record_delta(epsilon=eps, sigma=sigma, l=l, lower_counts=(4, 4),
                                         steps=(T, T), value_interval=2e-3)
            assert true <= ours + 1e-9
    # the adversarial dataset is nearly tight, and a half shift (c/l) would not cover it
    kD, kD2, jD, jD2 = next(_datasets())
    A_k, B_k = (_mixture_cells(p, l, sigma, edges) for p in (kD, kD2))
    A_j, B_j = (_mixture_cells(p, l, sigma, edges) for p in (jD, jD2))
    true = _true_delta_lower([(A_k, B_k)] * T + [(A_j, B_j)] * T, 0.3)
    ours = wr.whole_record_delta(epsilon=0.3, sigma=sigma, l=l, lower_counts=(4, 4),
                                 steps=(T, T), value_interval=2e-3)
    half = wr.whole_record_delta(epsilon=0.3, sigma=2 * sigma, l=l, lower_counts=(4, 4),
                                 steps=(T, T), value_interval=2e-3)
    assert true > 0.8 * ours
    assert true > half


# ---------------------------------------------------------------- (e) calibration

@pytest.mark.parametrize("target", [1.0, 8.0])
def test_calibration_round_trip(target):
    kw = dict(l=8, lower_counts=COUNTS, steps=STEPS, delta=DELTA)
    sigma, res = wrc.calibrate_whole_record(epsilon=target, **kw)
    assert res.epsilon <= target
    assert wr.whole_record_pld(sigma=sigma, **kw).epsilon == pytest.approx(res.epsilon)
    assert wr.whole_record_pld(sigma=sigma * (1 - 2e-3), **kw).epsilon > target * (1 - 0.02)
    assert res.epsilon > target * (1 - 0.02)


def test_rdp_calibration_round_trip():
    kw = dict(l=8, lower_counts=COUNTS, steps=STEPS, delta=DELTA, max_alpha=32)
    sigma, res = wrc.calibrate_whole_record(epsilon=4.0, method="rdp", **kw)
    assert res.epsilon <= 4.0 and res.epsilon > 3.99
    sigma_pld, _ = wrc.calibrate_whole_record(epsilon=4.0, l=8, lower_counts=COUNTS, steps=STEPS,
                                             delta=DELTA)
    assert sigma_pld < sigma        # the tighter bound needs less noise


def test_large_epsilon_falls_back_to_rdp_and_edges():
    r = wrc.whole_record_epsilon(sigma=0.002, l=4, lower_counts=COUNTS, steps=STEPS, delta=DELTA)
    assert r.method == "rdp" and r.epsilon > 50 and math.isfinite(r.epsilon)
    assert wr.whole_record_pld(sigma=0.0, l=4, lower_counts=COUNTS, steps=STEPS,
                               delta=DELTA).epsilon == math.inf
    with pytest.raises(ValueError):
        wrc.calibrate_whole_record(epsilon=-1, l=4, lower_counts=COUNTS, steps=STEPS, delta=DELTA)
