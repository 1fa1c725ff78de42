"""The four accountants of docs/specification.md §2 (the table), the two conversions, limits,
warnings, validation and the measured claims of docs/specification.md §2 about class-aware vs paper on MNIST.

The subsampled RDP itself (``rdp_subsampled_gaussian``) is checked against dp_accounting, autodp
and mpmath in ``test_rdp.py``; here each accountant's base slope, sampling rate, number of
compositions, orders and conversion are rebuilt from the table of docs/specification.md §2 and compared.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.data.presets import get_preset
from dpcda.privacy import (ACCOUNTANT_INFO, PrivacyParams, compute_epsilon, epsilon_grid,
                           list_accountants, list_conversions, rdp_subsampled_gaussian)
from tests.privacy.privacy_ref import CONVERT, improved, mironov

MNIST = get_preset("mnist").class_counts  # public per-class counts of the MNIST training split
ORDERS2 = np.arange(2, 257)
ORDERS3 = np.arange(3, 257)
CONVERSIONS = ("mironov", "improved")


def params(**kw) -> PrivacyParams:
    base = dict(l=4, sigma_x=0.5, sigma_y=0.5, c=1.0, T=60000, n=60000, delta=1e-5)
    base.update(kw)
    return PrivacyParams(**base)


def best(orders, rdp, delta, conversion):
    e = CONVERT[conversion](orders, rdp, delta)
    i = int(np.argmin(e))
    return max(float(e[i]), 0.0), int(orders[i])


def test_registry_names_and_info():
    assert list_accountants() == ["paper", "class-aware", "dpmix", "dpmix-clipped", "dpmix-low",
                                  "class-aware-pld", "whole-record"]
    # single-release accountants (their generators calibrate directly) are listed on request
    extra = [n for n in list_accountants(every=True) if n not in list_accountants()]
    assert {"gaussian", "dppro"} <= set(extra)
    assert all(not ACCOUNTANT_INFO[n].mixture for n in extra)
    assert list_conversions() == ["mironov", "improved"]
    for name in list_accountants():
        info = ACCOUNTANT_INFO[name]
        assert info.title and len(info.assumptions) > 80
    assert "T" in ACCOUNTANT_INFO["paper"].assumptions
    assert "floor(T/K)" in ACCOUNTANT_INFO["class-aware"].assumptions


def test_dpmix_clipped_is_the_paper_formula_valid_for_dpmix_and_local():
    """DPMix as implemented (clipped, all-N mixing) is what Theorem 1 analyses: same epsilon,
    but registered as a bound for dpmix and local, not for dp-cda."""
    p = PrivacyParams(l=16, sigma_x=0.1, sigma_y=0.1, c=1.0, T=60000, n=60000, delta=1e-5)
    a = compute_epsilon(p, accountant="paper").epsilon
    b = compute_epsilon(p, accountant="dpmix-clipped").epsilon
    assert a == b and math.isfinite(a)
    from dpcda.mechanisms import MECHANISMS

    def bound_for(name):
        return [m for m in MECHANISMS if ACCOUNTANT_INFO[name].supports(MECHANISMS.get(m).event)]

    assert bound_for("dpmix-clipped") == ["dpmix", "local"]
    assert bound_for("paper") == [] and ACCOUNTANT_INFO["paper"].kinds == ()
    with pytest.raises(ValueError, match="one Gaussian release"):
        compute_epsilon(p, accountant="gaussian")


# --------------------------------------------------------------------------------------------
# Each accountant's formula, from the table of docs/specification.md §2.

@pytest.mark.parametrize("conversion", CONVERSIONS)
@pytest.mark.parametrize("l, sx, sy, c, T, n, delta", [
    (4, 0.5, 0.7, 1.3, 30000, 60000, 1e-5),
    (64, 0.1, 0.05, 0.5, 50000, 50000, 1e-6),
    (1, 2.0, 1.0, 1.0, 1797, 1797, 1e-4),
])
def test_paper_formula(l, sx, sy, c, T, n, delta, conversion):
    res = compute_epsilon(params(l=l, sigma_x=sx, sigma_y=sy, c=c, T=T, n=n, delta=delta),
                          accountant="paper", conversion=conversion)
    r = (2 * c ** 2 / sx ** 2 + 1 / sy ** 2) / l ** 2
    expected = T * rdp_subsampled_gaussian(r, l / n, 256)[1:]   # orders 3..256
    assert np.array_equal(res.orders, ORDERS3)
    np.testing.assert_allclose(res.rdp, expected, rtol=1e-12)
    eps, alpha = best(ORDERS3, expected, delta, conversion)
    assert res.epsilon == pytest.approx(eps, rel=1e-12)
    assert res.alpha == alpha
    assert (res.accountant, res.conversion, res.delta, res.max_alpha) == (
        "paper", conversion, delta, 256)
    assert res.private and "T" in res.assumptions


@pytest.mark.parametrize("conversion", CONVERSIONS)
@pytest.mark.parametrize("l, sx, c, T", [(4, 0.5, 1.0, 60000), (16, 0.2, 2.0, 60007),
                                          (1, 3.0, 1.0, 1000)])
def test_class_aware_formula(l, sx, c, T, conversion):
    res = compute_epsilon(params(l=l, sigma_x=sx, sigma_y=sx, c=c, T=T, n=None,
                                 class_counts=MNIST), accountant="class-aware",
                          conversion=conversion)
    r = 2 * c ** 2 / (sx ** 2 * l ** 2)                    # features only: no label term
    per_class = np.array([rdp_subsampled_gaussian(r, l / nk, 256) for nk in MNIST])
    expected = (T // 10) * per_class.max(axis=0)            # floor(T/K), worst class
    # the worst class is the smallest one (rate l/N_k largest)
    np.testing.assert_allclose(expected, (T // 10) * rdp_subsampled_gaussian(
        r, l / min(MNIST), 256), rtol=1e-13)
    assert np.array_equal(res.orders, ORDERS2)
    np.testing.assert_allclose(res.rdp, expected, rtol=1e-12)
    eps, alpha = best(ORDERS2, expected, 1e-5, conversion)
    assert res.epsilon == pytest.approx(eps, rel=1e-12) and res.alpha == alpha


def test_class_aware_ignores_label_noise_and_uses_floor_T_over_K():
    def e(**kw):
        return compute_epsilon(params(n=None, class_counts=MNIST, **kw),
                               accountant="class-aware").epsilon

    assert e(sigma_y=0.5) == e(sigma_y=5.0) == e(sigma_y=0.01)
    assert e(T=60000) == e(T=60009)            # floor(T/10) = 6000 for both
    assert e(T=60010) > e(T=60009)             # 6001 mixtures per class
    # balanced classes: exactly one class size, rate l/6000
    fm = get_preset("fashion-mnist").class_counts
    res = compute_epsilon(params(n=None, class_counts=fm), accountant="class-aware")
    r = 2 / (0.25 * 16)
    np.testing.assert_allclose(res.rdp, 6000 * rdp_subsampled_gaussian(r, 4 / 6000, 256),
                               rtol=1e-12)


@pytest.mark.parametrize("conversion", CONVERSIONS)
def test_dpmix_formula(conversion):
    l, sx, sy, T, n, dx, dy = 8, 0.7, 0.3, 40000, 60000, 784, 10
    res = compute_epsilon(params(l=l, sigma_x=sx, sigma_y=sy, T=T, n=n, d_x=dx, d_y=dy),
                          accountant="dpmix", conversion=conversion)
    r = (dx / sx ** 2 + dy / sy ** 2) / (2 * l ** 2)
    expected = T * rdp_subsampled_gaussian(r, l / n, 256)
    assert np.array_equal(res.orders, ORDERS2)
    np.testing.assert_allclose(res.rdp, expected, rtol=1e-12)
    eps, alpha = best(ORDERS2, expected, 1e-5, conversion)
    assert res.epsilon == pytest.approx(eps, rel=1e-12) and res.alpha == alpha
    # c plays no role (DPMix scales features to [0, 1]); d_x does
    assert compute_epsilon(params(l=l, sigma_x=sx, sigma_y=sy, T=T, c=7.0, d_x=dx, d_y=dy),
                           accountant="dpmix", conversion=conversion).epsilon == res.epsilon
    assert compute_epsilon(params(l=l, sigma_x=sx, sigma_y=sy, T=T, d_x=2 * dx, d_y=dy),
                           accountant="dpmix", conversion=conversion).epsilon > res.epsilon


@pytest.mark.parametrize("l, sigma, T, n, delta", [
    (4, 8.0, 60000, 60000, 1e-5), (64, 1.0, 60000, 60000, 1e-5), (16, 3.0, 20000, 50000, 1e-6)])
def test_dpmix_low_closed_form(l, sigma, T, n, delta):
    dx, dy = 784, 10
    p = params(l=l, sigma_x=sigma, sigma_y=sigma, T=T, n=n, delta=delta, d_x=dx, d_y=dy)
    res = compute_epsilon(p, accountant="dpmix-low", conversion="mironov")
    prob = l / n
    d2 = dx / sigma ** 2 + dy / sigma ** 2                       # Delta^2
    a = 1 + math.sqrt(2 * l ** 2 * math.log(1 / delta) / (T * prob * d2))   # a* of docs/specification.md §2
    eps = a * T * prob * d2 / (2 * l ** 2) + math.log(1 / delta) / (a - 1)
    assert a < 256
    assert res.alpha == pytest.approx(a, rel=1e-12)
    assert res.epsilon == pytest.approx(eps, rel=1e-12)
    # the closed form minimises the same Gaussian curve over real orders: no integer order beats it
    rho = T * prob * d2 / (2 * l ** 2)
    assert res.epsilon <= mironov(ORDERS2, rho * ORDERS2, delta).min() + 1e-12
    # improved conversion: minimised numerically over real orders in (1, 256]
    imp = compute_epsilon(p, accountant="dpmix-low", conversion="improved")
    from scipy.optimize import minimize_scalar

    ref = minimize_scalar(lambda x: improved(x, rho * x, delta), bounds=(1 + 1e-9, 256),
                          method="bounded", options={"xatol": 1e-10}).fun
    assert imp.epsilon == pytest.approx(ref, rel=1e-6)
    assert imp.epsilon <= res.epsilon


# --------------------------------------------------------------------------------------------
# Conversions and monotonicity.

@pytest.mark.parametrize("acc, extra", [("paper", {}), ("class-aware", {"class_counts": MNIST,
                                                                         "n": None}),
                                        ("dpmix", {"d_x": 784, "d_y": 10}),
                                        ("dpmix-low", {"d_x": 784, "d_y": 10})])
def test_improved_never_above_mironov(acc, extra):
    for l in (1, 4, 64):
        for sigma in (0.3, 1.0, 4.0, 30.0):
            p = params(l=l, sigma_x=sigma, sigma_y=sigma, **extra)
            mir = compute_epsilon(p, accountant=acc, conversion="mironov")
            imp = compute_epsilon(p, accountant=acc, conversion="improved")
            assert np.array_equal(mir.rdp, imp.rdp)                 # same RDP curve
            assert imp.epsilon <= mir.epsilon, (l, sigma)
            if acc != "dpmix-low":
                assert imp.epsilon == pytest.approx(
                    best(imp.orders, imp.rdp, 1e-5, "improved")[0], rel=1e-12)


@pytest.mark.parametrize("acc, extra", [("paper", {}), ("class-aware", {"class_counts": MNIST}),
                                        ("dpmix", {"d_x": 784, "d_y": 10}),
                                        ("dpmix-low", {"d_x": 784, "d_y": 10})])
@pytest.mark.parametrize("conversion", CONVERSIONS)
def test_monotone_in_sigma_and_T(acc, extra, conversion):
    sig = np.geomspace(0.02, 50.0, 60)
    kw = dict(T=60000, delta=1e-5, accountant=acc, conversion=conversion, **extra)
    if "class_counts" not in extra:
        kw["n"] = 60000
    eps = epsilon_grid(ls=[1, 4, 64], sigmas=sig, **kw)
    assert (np.diff(eps, axis=1) <= 1e-12 * eps[:, 1:]).all()     # non-increasing in sigma
    assert (eps[:, 0] > 10 * eps[:, -1]).all()
    Ts = [1000, 5000, 20000, 60000, 200000]
    for l in (1, 4, 64):
        for sigma in (0.3, 2.0):
            e = [compute_epsilon(params(l=l, sigma_x=sigma, sigma_y=sigma, T=T,
                                        **({"n": None} | extra if "class_counts" in extra
                                           else extra)),
                                 accountant=acc, conversion=conversion).epsilon for T in Ts]
            assert all(a <= b * (1 + 1e-12) for a, b in zip(e, e[1:])), (l, sigma, e)


# --------------------------------------------------------------------------------------------
# Limits.

@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_sigma_to_zero_gives_huge_then_infinite_epsilon():
    assert compute_epsilon(params(sigma_x=1e-3, sigma_y=1e-3)).epsilon > 1e8
    res = compute_epsilon(params(sigma_x=1e-170, sigma_y=1e-170))   # 1/sigma^2 overflows
    assert math.isinf(res.epsilon) and res.alpha is None
    assert not np.isnan(res.rdp).any()
    for s in (1e-152, 1e-100):                 # r huge but finite: finite RDP, never NaN
        res = compute_epsilon(params(sigma_x=s, sigma_y=s))
        assert res.epsilon > 1e190 and not np.isnan(res.rdp).any()


@pytest.mark.parametrize("conversion", CONVERSIONS)
@pytest.mark.parametrize("max_alpha", [64, 256, 1024])
@pytest.mark.parametrize("acc, extra", [("paper", {}), ("class-aware", {"class_counts": MNIST}),
                                        ("dpmix-low", {"d_x": 784, "d_y": 10})])
def test_sigma_to_infinity_reaches_the_conversion_floor(conversion, max_alpha, acc, extra):
    kw = {"n": None} | extra if "class_counts" in extra else extra
    res = compute_epsilon(params(sigma_x=1e7, sigma_y=1e7, **kw), accountant=acc,
                          conversion=conversion, max_alpha=max_alpha)
    floor = float(CONVERT[conversion](max_alpha, 0.0, 1e-5))
    if conversion == "mironov":
        assert floor == pytest.approx(math.log(1e5) / (max_alpha - 1), rel=1e-15)
    assert res.epsilon == pytest.approx(floor, rel=1e-6) and res.epsilon >= floor
    assert res.at_max_alpha and res.alpha == max_alpha
    assert any("max_alpha" in w for w in res.warnings)
    # a moderate sigma leaves the edge: no warning
    ok = compute_epsilon(params(sigma_x=0.5, sigma_y=0.5, **kw), accountant=acc,
                         conversion=conversion, max_alpha=max_alpha)
    assert not ok.at_max_alpha and not any("max_alpha" in w for w in ok.warnings)


@pytest.mark.parametrize("conversion", CONVERSIONS)
def test_l_equal_n_is_the_unsubsampled_gaussian_composition(conversion):
    n, T, sx, sy, delta = 100, 20, 0.5, 0.4, 1e-6
    r = (2 / sx ** 2 + 1 / sy ** 2) / n ** 2
    res = compute_epsilon(params(l=n, n=n, T=T, sigma_x=sx, sigma_y=sy, delta=delta),
                          conversion=conversion)
    np.testing.assert_allclose(res.rdp, T * r * ORDERS3, rtol=1e-15)
    assert 3 < res.alpha < 256
    assert res.epsilon == pytest.approx(best(ORDERS3, T * r * ORDERS3, delta, conversion)[0],
                                        rel=1e-14)
    # Mironov over real orders has the closed form rho + 2 sqrt(rho log(1/delta)), rho = T r: the
    # integer orders come within a hair of it
    if conversion == "mironov":
        rho = T * r
        closed = rho + 2 * math.sqrt(rho * math.log(1 / delta))
        assert closed - 1e-12 <= res.epsilon <= closed * 1.001


@pytest.mark.parametrize("acc, extra", [("paper", {}), ("class-aware", {"class_counts": MNIST}),
                                        ("dpmix", {"d_x": 784, "d_y": 10}),
                                        ("dpmix-low", {"d_x": 784, "d_y": 10})])
def test_non_private_setting(acc, extra):
    kw = {"n": None} | extra if "class_counts" in extra else extra
    res = compute_epsilon(params(sigma_x=0.0, sigma_y=0.0, **kw), accountant=acc)
    assert math.isinf(res.epsilon) and res.epsilon > 0
    assert not res.private and res.alpha is None and not res.at_max_alpha
    assert any("non-private" in w for w in res.warnings)


def test_delta_not_below_one_over_n_warns():
    warned = compute_epsilon(params(n=1000, T=1000, delta=1e-3))
    assert any("1/N" in w for w in warned.warnings)
    fine = compute_epsilon(params(n=1000, T=1000, delta=9e-4))
    assert not any("1/N" in w for w in fine.warnings)
    assert fine.epsilon > warned.epsilon


# --------------------------------------------------------------------------------------------
# Validation: ValueError naming the parameter, the allowed range and the value given.

@pytest.mark.parametrize("kw, words", [
    (dict(l=0), ["l must be an integer in [1, 60000]", "got l=0"]),
    (dict(l=2.5), ["l must be an integer", "got l=2.5"]),
    (dict(l=60001), ["l must be an integer in [1, 60000]", "n", "got l=60001"]),
    (dict(l=5422, n=None, class_counts=MNIST), ["[1, 5421]", "smallest class", "got l=5422"]),
    (dict(sigma_x=-0.1), ["sigma_x", ">= 0", "got sigma_x=-0.1"]),
    (dict(sigma_y=-2.0), ["sigma_y", ">= 0", "got sigma_y=-2.0"]),
    (dict(sigma_x=float("nan")), ["sigma_x", "got sigma_x=nan"]),
    (dict(sigma_x=0.0), ["sigma_x must be > 0", "sigma_x = sigma_y = 0", "sigma_x=0"]),
    (dict(sigma_y=0.0), ["sigma_y must be > 0", "sigma_x = sigma_y = 0", "sigma_y=0"]),
    (dict(delta=0.0), ["delta", "(0, 1)", "got delta=0.0"]),
    (dict(delta=1.0), ["delta", "(0, 1)", "got delta=1.0"]),
    (dict(delta=1.5), ["delta", "(0, 1)", "got delta=1.5"]),
    (dict(c=0.0), ["c must be", "> 0", "got c=0.0"]),
    (dict(c=-1.0), ["c must be", "got c=-1.0"]),
    (dict(T=0), ["T must be an integer >= 1", "got T=0"]),
    (dict(T=9, n=None, class_counts=MNIST), ["T must be an integer >= 10", "classes", "T=9"]),
    (dict(class_counts=(30000, 30001)), ["class_counts must add up to n=60000", "60001"]),
    (dict(n=None, class_counts=(59000, 1000, 0)), ["class_counts", "positive", "0)"]),
    (dict(n=None, class_counts=(60000,)), ["class_counts", "at least 2"]),
    (dict(n=None), ["give n", "class_counts"]),
    (dict(n=0), ["n must be an integer >= 1", "got n=0"]),
    (dict(d_x=0), ["d_x must be an integer >= 1", "got d_x=0"]),
])
def test_bad_parameters(kw, words):
    with pytest.raises(ValueError) as exc:
        params(**kw)
    for w in words:
        assert w in str(exc.value), (w, str(exc.value))


@pytest.mark.parametrize("acc, kw, words", [
    ("dpmix", dict(d_y=10), ["'dpmix' needs d_x and d_y", "d_x=None"]),
    ("dpmix-low", dict(), ["'dpmix-low' needs d_x and d_y", "d_x=None, d_y=None"]),
    ("class-aware", dict(), ["'class-aware' needs class_counts", "class_counts=None"]),
    ("nope", dict(), ["unknown accountant 'nope'", "paper, class-aware, dpmix, dpmix-clipped, dpmix-low"]),
])
def test_bad_accountant_requests(acc, kw, words):
    with pytest.raises(ValueError) as exc:
        compute_epsilon(params(**kw), accountant=acc)
    for w in words:
        assert w in str(exc.value)


@pytest.mark.parametrize("max_alpha", [2, 1, 0, 2049, 2.5, "x"])
def test_bad_max_alpha(max_alpha):
    with pytest.raises(ValueError, match=r"max_alpha must be an integer in \[3, 2048\], got "
                                         r"max_alpha="):
        compute_epsilon(params(), max_alpha=max_alpha)


def test_bad_conversion_and_params_type():
    with pytest.raises(ValueError, match="unknown conversion 'foo'; known: mironov, improved"):
        compute_epsilon(params(), conversion="foo")
    with pytest.raises(ValueError, match="PrivacyParams"):
        compute_epsilon({"l": 4})


# --------------------------------------------------------------------------------------------
# docs/specification.md §2's measured claims (MNIST: N = T = 60000, c = 1, delta = 1e-5, sigma_x = sigma_y).
# Measured with this implementation (max_alpha = 256), class-aware / paper:
#   sigma:   0.05 0.1  0.2  0.3  0.4  0.5  1    | 1.5  2
#   l = 64:  2.96 2.95 2.92 2.91 2.90 2.89 2.88 | 2.72 2.39
#   l = 512: 3.08 2.98 2.93 2.91 2.90 2.90 2.88 | 2.72 2.39
#   l = 4:   1.013 0.944 0.996 at sigma 0.3 0.4 0.5;  < 0.001-0.04 at sigma <= 0.2
# Above sigma ~ 1.2 the paper's best order reaches max_alpha = 256 and its epsilon sits near
# the conversion floor, so the ratio falls (2.39 at sigma = 2). With max_alpha = 1024 it stays
# 2.88 at sigma 1.5 and 2: the specification's "2.9x at every sigma from 0.05 to 2" needs a larger
# max_alpha than the default.

SIG = np.array([0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0, 2.0])


@pytest.fixture(scope="module")
def mnist_curves():
    kw = dict(ls=[1, 2, 4, 64, 512], sigmas=SIG, T=60000, delta=1e-5, c=1.0, class_counts=MNIST)
    paper, pa = epsilon_grid(accountant="paper", return_alpha=True, **kw)
    aware = epsilon_grid(accountant="class-aware", **kw)
    return paper, pa, aware


def test_spec_claim_large_l_class_aware_about_three_times_paper(mnist_curves):
    paper, alpha, aware = mnist_curves
    ratio = aware / paper
    for i in (3, 4):                                   # l = 64, 512
        interior = alpha[i] < 256
        assert interior[SIG <= 1.0].all()
        assert (ratio[i][interior] > 2.85).all() and (ratio[i][interior] < 3.1).all(), ratio[i]
        assert (ratio[i] > 2.3).all()                    # even where paper is at max_alpha
    # with a larger max_alpha the paper's curve leaves the edge and the ratio is back near 2.9
    kw = dict(sigmas=[2.0], T=60000, delta=1e-5, class_counts=MNIST, max_alpha=640)
    r = (epsilon_grid(ls=[64], accountant="class-aware", **kw)
         / epsilon_grid(ls=[64], accountant="paper", **kw))
    assert 2.85 < float(r[0, 0]) < 2.95


def test_spec_claim_small_l(mnist_curves):
    paper, _, aware = mnist_curves
    ratio = aware / paper
    near = (SIG >= 0.3) & (SIG <= 0.5)
    assert (abs(ratio[2][near] - 1) < 0.07).all(), ratio[2][near]        # l = 4: within ~6%
    for i in (0, 1, 2):                                                  # l = 1, 2, 4
        assert (aware[i][SIG <= 0.2] < paper[i][SIG <= 0.2]).all()       # no label term


MNIST_COUNTS = (5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949)


def _mnist(l, sigma):
    from dpcda.privacy import PrivacyParams

    return PrivacyParams(l=l, sigma_x=sigma, sigma_y=sigma, c=1.0, T=60000, n=60000, delta=1e-5,
                         class_counts=MNIST_COUNTS, allocation="proportional")


def test_no_silent_jump_to_the_rdp_bound_above_its_old_cap():
    """The default used to report the RDP bound wherever that exceeded 50 (MNIST, l = 16,
    sigma = 0.05: 58.8 where its PLD gives 25.4), so epsilon(sigma) jumped and calibration to
    30 or 40 stopped at the jump (sigma 0.0508, epsilon 23.9). Now: one smooth PLD curve."""
    from dpcda.privacy import calibrate, compute_epsilon

    sigmas = np.linspace(0.04, 0.08, 17)
    eps = [compute_epsilon(_mnist(16, s), accountant="class-aware-pld").epsilon for s in sigmas]
    assert all(a > b for a, b in zip(eps, eps[1:]))  # decreasing
    assert max(a / b for a, b in zip(eps, eps[1:])) < 1.4  # no jump (the old one: 2.3x)
    at = compute_epsilon(_mnist(16, 0.05), accountant="class-aware-pld")
    assert 24 < at.epsilon < 27 and at.epsilon_discretisation_lower is not None and not at.warnings
    for target, most in ((30, 0.0485), (40, 0.0450)):
        cal = calibrate(epsilon=target, delta=1e-5, l=16, T=60000, n=60000,
                        class_counts=MNIST_COUNTS, accountant="class-aware-pld",
                        allocation="proportional")
        assert cal.sigma_x < most and target * 0.999 < cal.result.epsilon <= target


def test_where_the_pld_is_out_of_range_the_rdp_bound_is_shown_and_named():
    from dpcda.privacy import compute_epsilon

    r = compute_epsilon(_mnist(4, 0.05), accountant="class-aware-pld")  # epsilon in the 10^5
    assert r.epsilon > 1e4 and r.epsilon_discretisation_lower is None
    assert [w.code for w in r.warnings] == ["pld_rdp_cap"]
