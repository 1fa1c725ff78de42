"""dpcda.privacy.rdp against independent references (docs/specification.md §2).

- ``dp_accounting`` (Google) per order and through the epsilon, on 56 settings at realistic
  dataset sizes (N = 60000, 50000, 32561, 1797) with small l, where its float64 forward
  differences are accurate (they agree with ours to ~1e-8; we require 1e-6).
- ``autodp`` end to end (epsilon) on a few settings whose best order is interior and >= 3.
- mpmath, evaluating docs/specification.md §2 literally at high precision: ``log_b_even`` (the
  stable alternating sum, including its quadrature branch) and the bound itself at large sampling rates, where
  dp_accounting's forward differences lose precision (e.g. l = 512, n = 1797, gamma = 0.285:
  already 1e-7 off at alpha = 40, 1e-3 at alpha = 64 and a factor ~70 at alpha >= 128; measured
  while writing these tests).
- Structural properties: never NaN or negative, finite unless the true value overflows,
  non-increasing in sigma, exact limits and input validation.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpcda.privacy import PrivacyParams, compute_epsilon, log_b_even, rdp_subsampled_gaussian
from tests.privacy.privacy_ref import CONVERT, autodp_eps, dpa_rdp, mp_log_b, mp_rdp


def paper_r(l: int, sigma_x: float, sigma_y: float, c: float = 1.0) -> float:
    """The paper accountant's base slope (table of docs/specification.md §2), written out independently."""
    return (2.0 * c * c / sigma_x ** 2 + 1.0 / sigma_y ** 2) / l ** 2


# --------------------------------------------------------------------------------------------
# dp_accounting: 56 settings spread over N, l, sigma, T, delta, c and both conversions.

_SIZES = {60000: (1, 4, 16, 64), 50000: (1, 2, 8, 32), 32561: (1, 4, 16), 1797: (1, 2, 4)}
_SIGMAS = (0.15, 0.4, 1.0, 3.0)


def _dpa_points():
    pts = []
    sizes = [(n, l) for n, ls in _SIZES.items() for l in ls]
    for k, ((n, l), sigma) in enumerate(itertools.product(sizes, _SIGMAS)):
        T = (n, n // 3, 4 * n, 1000)[k % 4]
        delta = (1e-5, 1e-6, 1e-8, 1e-4)[(k // 4) % 4]
        c = (1.0, 0.5, 2.0)[k % 3]
        conversion = ("mironov", "improved")[(k // 2) % 2]
        pts.append((n, l, sigma, T, delta, c, conversion))
    return pts


DPA_POINTS = _dpa_points()
DPA_ORDERS = np.array([3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64])


def test_dpa_points_are_spread():
    assert len(DPA_POINTS) >= 50
    for i in range(7):
        assert len({p[i] for p in DPA_POINTS}) >= 2


@pytest.mark.parametrize("n, l, sigma, T, delta, c, conversion", DPA_POINTS)
def test_matches_dp_accounting(n, l, sigma, T, delta, c, conversion):
    r, gamma = paper_r(l, sigma, sigma, c), l / n
    # Per order, where dp_accounting's value is below the unsubsampled alpha * r.
    ours = rdp_subsampled_gaussian(r, gamma, 64)[DPA_ORDERS - 2]
    ref = dpa_rdp(r, gamma, DPA_ORDERS)
    base = DPA_ORDERS * r
    below = ref < base
    assert below.sum() >= 3
    np.testing.assert_allclose(ours[below], ref[below], rtol=1e-6, atol=0)
    assert np.all(ours <= base)
    # End to end: the library's epsilon equals dp_accounting's RDP (composed T times and
    # converted) minimised over the orders around the library's choice.
    p = PrivacyParams(l=l, sigma_x=sigma, sigma_y=sigma, c=c, T=T, n=n, delta=delta)
    res = compute_epsilon(p, accountant="paper", conversion=conversion)
    a = res.alpha
    window = np.arange(max(3, a - 2), min(256, a + 2) + 1)
    eps_ref = CONVERT[conversion](window, T * dpa_rdp(r, gamma, window), delta)
    assert res.epsilon == pytest.approx(eps_ref.min(), rel=1e-6)
    assert window[np.argmin(eps_ref)] == a


# --------------------------------------------------------------------------------------------
# autodp: the whole accountant (orders, composition, Mironov conversion, minimisation).
# autodp optimises over orders from 2 (and real orders between integers); these settings have
# their best order interior and >= 3, so the paper accountant's orders 3..256 find the same.

@pytest.mark.parametrize("n, l, sigma, T, delta", [
    (60000, 4, 0.5, 60000, 1e-5),     # MNIST scale, best order 12
    (32561, 16, 0.1, 32561, 1e-5),    # UCI Adult size, best order 6
    (1797, 2, 2.0, 5000, 1e-4),       # digits size, larger T
])
def test_matches_autodp(n, l, sigma, T, delta):
    p = PrivacyParams(l=l, sigma_x=sigma, sigma_y=sigma, T=T, n=n, delta=delta)
    res = compute_epsilon(p, accountant="paper", conversion="mironov")
    r = paper_r(l, sigma, sigma)
    # The precondition: order 2 would not win, and the best order is not at the edge.
    curve2 = T * rdp_subsampled_gaussian(r, l / n, 256)
    orders2 = np.arange(2, 257)
    assert orders2[np.argmin(CONVERT["mironov"](orders2, curve2, delta))] == res.alpha
    assert 3 <= res.alpha < 200 and not res.at_max_alpha
    assert res.epsilon == pytest.approx(autodp_eps(r, l / n, T, delta), rel=1e-6)


# --------------------------------------------------------------------------------------------
# mpmath: log B(m) and the bound itself, evaluated at high precision from the formula of
# docs/specification.md §2.

LOG_B_R = (1e-6, 1e-4, 3e-3, 0.0102, 0.3, 2.0, 10.0)
LOG_B_M = (2, 4, 8, 32, 128, 200, 256)


def test_log_b_even_matches_mpmath():
    got = {r: log_b_even(r, 256)[0] for r in LOG_B_R}
    cancellations = []
    for r, m in itertools.product(LOG_B_R, LOG_B_M):
        if r <= 1e-4 and m > 128:
            continue  # 600+ digits: slow in mpmath; r = 1e-4 and 1e-6 are covered up to m = 128
        ref, log_cancel = mp_log_b(r, m)
        cancellations.append(log_cancel)
        ref = float(ref)
        # relative 1e-10 in B(m), i.e. absolute in log B(m); plus float64's own resolution of a
        # huge log (log B(256) = 6.5e5 at r = 10 has an ulp of 1.2e-10).
        assert abs(got[r][m // 2] - ref) <= 1e-10 + 4e-16 * abs(ref), (r, m, got[r][m // 2], ref)
    # Just below the old switch to quadrature (cancellation e^8.7 and e^8.5 with the switch at e^9)
    # the direct float64 sum was 1.2e-10 and 2.0e-10 off; the switch is now at e^5.
    for r, m in [(0.007997160662999825, 256), (0.00984807478395476, 192)]:
        ref, log_cancel = mp_log_b(r, m)
        assert 8.0 < log_cancel < 9.0
        assert abs(log_b_even(r, m)[0][m // 2] - float(ref)) <= 1e-10 + 4e-16 * abs(float(ref))
    # The set covers both branches: mild cancellation (direct log-space sum) and catastrophic
    # cancellation (sum |terms| / B(m) > e^9: the quadrature branch) up to 1e60 and beyond.
    assert min(cancellations) < 1.0 and max(cancellations) > 140.0
    assert sum(1 for c in cancellations if 5.0 < c < 9.0) >= 2  # near the branch switch


def test_log_b_even_small_cases():
    r = np.array([0.0, 1e-3, 1.0])
    out = log_b_even(r, 4)
    assert out.shape == (3, 3)
    assert np.all(out[:, 0] == 0.0)                      # B(0) = 1
    assert np.all(np.isneginf(out[0, 1:]))               # r = 0: B(m) = 0
    np.testing.assert_allclose(out[1:, 1], np.log(np.expm1(2 * r[1:])), rtol=1e-14)  # B(2)
    b4 = 1 - 4 + 6 * np.exp(2 * r[2]) - 4 * np.exp(6 * r[2]) + np.exp(12 * r[2])
    assert out[2, 2] == pytest.approx(np.log(b4), rel=1e-13)


# Large sampling rates, where dp_accounting is not a reliable yardstick.
HIGH_GAMMA = [
    (512, 1797, 0.5),    # gamma = 0.285
    (256, 1797, 0.3),    # gamma = 0.142
    (128, 1000, 1.5),    # gamma = 0.128
    (2, 10, 0.8),        # gamma = 0.2 with a large base slope (r = 1.17)
]


@pytest.mark.parametrize("l, n, sigma", HIGH_GAMMA)
def test_high_sampling_rate_matches_mpmath(l, n, sigma):
    r, gamma = paper_r(l, sigma, sigma), l / n
    ours = rdp_subsampled_gaussian(r, gamma, 40)
    for alpha in (3, 10, 25, 40):
        ref = mp_rdp(r, gamma, alpha, dps=300)
        assert ours[alpha - 2] == pytest.approx(ref, rel=1e-10), alpha


def test_tiny_rates_and_slopes_match_mpmath():
    """Relative accuracy when eps' is tiny (1 + rest with rest ~ 1e-20): nothing lost to the 1."""
    for r, gamma in [(1e-8, 1e-5), (1e-3, 1e-6), (5e-7, 0.01)]:
        ours = rdp_subsampled_gaussian(r, gamma, 40)
        for alpha in (2, 3, 7, 40):
            assert ours[alpha - 2] == pytest.approx(mp_rdp(r, gamma, alpha, dps=300), rel=1e-9)


# --------------------------------------------------------------------------------------------
# Structural properties.

GAMMAS = (1e-6, 1.0 / 60000, 4.0 / 1797, 0.05, 0.285, 0.9, 0.999999)


def _check_sane(r, gamma, max_alpha):
    out = rdp_subsampled_gaussian(r, gamma, max_alpha)
    assert out.shape == (r.size, max_alpha - 1)
    assert not np.isnan(out).any(), gamma
    assert (out >= 0).all(), gamma
    with np.errstate(over="ignore"):  # alpha * r may overflow: then the true value does too
        base = r[:, None] * np.arange(2, max_alpha + 1)[None, :]
    assert np.array_equal(np.isinf(out), np.isinf(base)), gamma
    assert (out <= base).all(), gamma


def test_never_nan_never_negative_finite_unless_overflow():
    r = np.concatenate([[0.0, 1e-30], np.geomspace(1e-12, 1e6, 25),
                        [1e12, 1e100, 1e299, 1e300, 1e305, 1e307, 1.7e308, np.inf]])
    for gamma in GAMMAS:
        _check_sane(r, gamma, 256)
    # subnormal and near-underflow slopes (slow quadrature grids: a short order range)
    _check_sane(np.array([5e-324, 1e-300, 1e-200]), 0.285, 64)


def test_non_increasing_in_sigma_on_a_dense_grid():
    sig = np.geomspace(0.01, 100.0, 400)
    for l, n in [(1, 60000), (4, 60000), (64, 60000), (16, 1797), (512, 1797)]:
        r = paper_r(l, sig, sig)
        out = rdp_subsampled_gaussian(r, l / n, 128)        # rows: increasing sigma
        d = np.diff(out, axis=0)
        assert (d <= 1e-12 * out[:-1]).all(), (l, n, d.max())
        assert (out[0] > out[-1]).all()


def test_non_decreasing_in_sampling_rate():
    gam = np.geomspace(1e-5, 0.999, 200)
    for r in (1e-5, 1e-2, 0.5, 5.0):
        out = rdp_subsampled_gaussian(r, gam, 64)
        assert (np.diff(out, axis=0) >= -1e-12 * out[1:]).all(), r


def test_exact_limits():
    orders = np.arange(2, 257)
    # r = 0: no privacy loss at all.
    assert np.array_equal(rdp_subsampled_gaussian(0.0, 0.3, 256), np.zeros(255))
    # gamma = 1: no subsampling, exactly the base mechanism alpha * r.
    for r in (1e-7, 0.01, 3.0, 1e50):
        assert np.array_equal(rdp_subsampled_gaussian(r, 1.0, 256), r * orders)
    # r = inf (sigma = 0): infinite at every order.
    assert np.isposinf(rdp_subsampled_gaussian(np.inf, 0.01, 256)).all()


def test_broadcasting_shapes():
    out = rdp_subsampled_gaussian(np.array([[1e-3], [1e-2]]), np.array([0.01, 0.1, 1.0]), 10)
    assert out.shape == (2, 3, 9)
    for i, r in enumerate((1e-3, 1e-2)):
        for j, g in enumerate((0.01, 0.1, 1.0)):
            assert np.array_equal(out[i, j], rdp_subsampled_gaussian(r, g, 10))


@pytest.mark.parametrize("r, gamma, max_alpha, word", [
    (-1.0, 0.1, 10, "r must be >= 0"),
    (np.nan, 0.1, 10, "r must be >= 0"),
    (1.0, 0.0, 10, "gamma must be in (0, 1]"),
    (1.0, 1.5, 10, "gamma must be in (0, 1]"),
    (1.0, -0.2, 10, "gamma must be in (0, 1]"),
    (1.0, np.nan, 10, "gamma must be in (0, 1]"),
    (1.0, 0.1, 1, "max_alpha must be an integer >= 2"),
])
def test_input_validation(r, gamma, max_alpha, word):
    with pytest.raises(ValueError) as exc:
        rdp_subsampled_gaussian(r, gamma, max_alpha)
    assert word in str(exc.value)
