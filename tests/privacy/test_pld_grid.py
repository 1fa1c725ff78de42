"""The PLD accountant's automatic grid and its approximations (docs/pld.md §5–6): each must keep
epsilon an upper bound, with a lower bound beside it that still holds."""

import math

import numpy as np
import pytest

from dpcda.privacy import PrivacyParams, compute_epsilon, pld

# (s, gamma, T): small classes and T keep the fine reference grids cheap on a shared CPU
SETTINGS = [(2 / (4 * 0.3), 4 / 500, 600), (2 / (16 * 0.08), 16 / 500, 400),
            (2 / (1 * 1.0), 1 / 300, 2000), (2 / (64 * 0.02), 64 / 800, 800)]


@pytest.mark.parametrize("s,gamma,T", SETTINGS)
@pytest.mark.parametrize("delta", [1e-5, 1e-7])
def test_auto_grid_brackets_the_fine_grid(s, gamma, T, delta):
    # the exact epsilon of the pair lies in both intervals, so they must overlap: the fine
    # grid's upper bound is never below the automatic lower bound, and vice versa
    auto = pld.pld_bounds(s=s, gamma=gamma, T=T, delta=delta)
    fine = pld.pld_bounds(s=s, gamma=gamma, T=T, delta=delta, value_interval=5e-5)
    assert auto.epsilon_discretisation_lower <= fine.epsilon + 1e-9
    assert fine.epsilon_discretisation_lower <= auto.epsilon + 1e-9
    assert 0 <= auto.epsilon_discretisation_lower <= auto.epsilon
    # upper bounds agree closely (second order in the step); the interval is narrow
    assert auto.epsilon <= fine.epsilon + 0.01 * fine.epsilon + 1e-6
    assert auto.width <= 0.03 * auto.epsilon + 0.01


@pytest.mark.parametrize("s,gamma,T", SETTINGS)
def test_grids_nest_so_curves_bound_one_epsilon(s, gamma, T):
    h_up, h_low, h_curve = pld.auto_value_intervals(s, gamma, T, 1e-5)
    for coarse, fine in ((h_curve, h_up), (h_up, h_low)):
        ratio = coarse / fine
        assert abs(ratio - round(ratio)) < 1e-9 and round(ratio) >= 1
    one = pld.pld_bounds(s=s, gamma=gamma, T=T, delta=1e-5, lower=False).epsilon
    curve = pld.pld_bounds(s=s, gamma=gamma, T=T, delta=1e-5, value_interval=pld.CURVE,
                           lower=False).epsilon
    assert one <= curve + 1e-12


def test_rounding_shift_is_a_valid_tail_bound_and_beats_hoeffding():
    rng = np.random.default_rng(1)
    h, T, eta = 1e-3, 200, 0.01
    r = rng.uniform(0, h, 50)
    w = rng.dirichlet(np.ones(50)) * 0.4          # 60% of the mass is rounded by 0
    c = pld.rounding_shift(r, w, T, h, eta)
    # Monte Carlo of the sum of T i.i.d. roundings: P(sum < c) must be at most eta
    vals = np.append(r, 0.0)
    probs = np.append(w, 1 - w.sum())
    sums = rng.choice(vals, size=(20_000, T), p=probs).sum(axis=1)
    assert np.mean(sums < c) <= eta + 3 * math.sqrt(eta / 20_000)
    mean = T * float(w @ r)
    hoeffding = mean - h * math.sqrt(T * math.log(1 / eta) / 2)
    assert hoeffding <= c <= mean


def test_pruned_spectrum_matches_direct_convolution():
    s, gamma, h, T = 1.5, 0.05, 1e-2, 30
    i0, pmf, inf_m, _ = pld.symmetric_step(s, gamma, h, pessimistic=True)
    j0, got, inf_T, misplaced = pld.compose(i0, pmf, inf_m, T, h, tail=1e-12)
    ref = pmf.copy()
    for _ in range(T - 1):
        ref = np.convolve(ref, pmf)
    # the window holds all but 2 * tail; compare on it
    sl = slice(j0 - T * i0, j0 - T * i0 + len(got))
    assert np.max(np.abs(got - ref[sl])) < 1e-12
    assert ref.sum() - ref[sl].sum() <= misplaced


@pytest.mark.parametrize("s,gamma", [(2.0, 0.01), (0.8, 0.05)])
def test_cut_step_only_moves_mass_the_safe_way(s, gamma):
    # the automatic grid cuts one step where the tails leave at most `tail`: up for the
    # pessimistic grid (larger epsilon), dropped for the optimistic one (smaller)
    h, T, delta = 1e-3, 500, 1e-5
    tail = pld._step_tail(T, delta)
    full = pld._step_masses(s, gamma, h, 1e-15, cut=False)
    cut = pld._step_masses(s, gamma, h, tail, cut=True)
    assert len(cut.q) <= len(full.q) and cut.q_tail <= tail and cut.p_tail <= tail
    eps = []
    for m in (full, cut):
        i0, pmf, inf_m = pld._pessimistic(m)
        j0, c, inf_T, mis = pld.compose(i0, pmf, inf_m, T, h)
        eps.append(pld.epsilon_for_delta(j0, c, inf_T, h, delta - mis))
    assert eps[0] - 1e-9 <= eps[1] <= eps[0] + 1e-3 * eps[0]
    # the lower bound's roundings: in [0, h], and 0 where the mirrored side was cut (its l* is
    # unknown there; a larger rounding would shift the lower bound up without proof)
    _, _, r, w = pld._optimistic(cut)
    K_p, K_n = len(cut.p), len(cut.q)
    assert np.all((0 <= r) & (r <= h)) and np.all(r[K_n:K_p] == 0)
    assert w.sum() <= 1 + 1e-12


def test_same_setting_same_digits_whatever_was_cached():
    # results must not depend on what was computed before (the CLI and a page must agree)
    kw = {"s": 2 / (4 * 0.3), "gamma": 4 / 500, "T": 600, "delta": 1e-5}
    first = pld.pld_bounds(**kw)
    pld._upper.cache_clear()
    pld._lower.cache_clear()
    pld.auto_value_intervals.cache_clear()
    pld._RECENT.clear()
    pld._WINDOWS.clear()
    pld.pld_bounds(lower=False, **kw)  # upper first this time, then both
    pld._upper.cache_clear()
    again = pld.pld_bounds(**kw)
    assert (again.epsilon, again.epsilon_discretisation_lower) == (first.epsilon,
                                                                    first.epsilon_discretisation_lower)


def test_max_over_classes_skips_only_classes_that_cannot_win():
    s, delta = 2 / (4 * 0.3), 1e-5
    rates = [(4 / n, t) for n, t in ((500, 500), (620, 620), (555, 555), (900, 900))]
    got = pld.max_over_classes(s, rates, delta, None, True)
    each = [pld.pld_bounds(s=s, gamma=g, T=t, delta=delta) for g, t in rates]
    assert got.epsilon == max(b.epsilon for b in each)
    assert got.epsilon_discretisation_lower == max(b.epsilon_discretisation_lower for b in each)


def test_reported_step_is_the_one_used():
    p = PrivacyParams(l=4, sigma_x=0.3, sigma_y=0.3, T=1200, class_counts=(500, 620, 555),
                      delta=1e-5)
    r = compute_epsilon(p, accountant="class-aware-pld")
    b = pld.pld_bounds(s=2 / (4 * 0.3), gamma=4 / 500, T=400, delta=1e-5)
    assert r.value_interval == b.value_interval
    assert r.epsilon == b.epsilon and r.epsilon_discretisation_lower == b.epsilon_discretisation_lower


@pytest.mark.parametrize("l,target", [(4, 1.0), (16, 8.0), (64, 0.5)])
def test_start_noise_is_a_reasonable_guess(l, target):
    from dpcda.privacy import calibrate

    counts = (500, 620, 555)
    cal = calibrate(epsilon=target, delta=1e-5, l=l, T=1200, class_counts=counts,
                    accountant="class-aware-pld")
    s = pld.start_noise(target, 1e-5, [(l / min(counts), 400)])
    guess = 2 / (l * s)
    assert cal.epsilon <= target
    assert 0.3 * cal.sigma_x <= guess <= 3 * cal.sigma_x


def test_pld_calibration_has_no_rdp_floor():
    # epsilon = 0.02 is below what any RDP accountant reaches at delta = 1e-5 (0.045 with
    # orders up to 256); the PLD accountant reaches it with enough noise
    from dpcda.privacy import calibrate

    kw = {"delta": 1e-5, "l": 8, "T": 1200, "class_counts": (500, 620, 555)}
    cal = calibrate(epsilon=0.02, accountant="class-aware-pld", **kw)
    assert 0.98 * 0.02 <= cal.epsilon <= 0.02
    with pytest.raises(ValueError, match="cannot be reached"):
        calibrate(epsilon=0.02, accountant="class-aware", **kw)
