"""Independent references for the privacy tests (imported as ``tests.privacy.privacy_ref``).

- :func:`mp_log_b` / :func:`mp_rdp` evaluate SPEC §2 (WBK 2019 Theorem 27 with the per-term
  minimum of their Theorem 9) literally, term by term, in mpmath at high precision: the
  alternating sum ``B(m)`` needs no special care once enough digits are carried.
- :func:`dpa_rdp` wraps Google's ``dp_accounting`` (the same bound, forward differences in
  float64); :func:`autodp_eps` wraps autodp's analytical moments accountant.
Both third-party packages are test-only dependencies.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np


def mp_log_b(r, m: int, dps: int):
    """``log B(m)`` with ``B(m) = sum_i (-1)^i C(m,i) e^{r i (i-1)}``, at ``dps`` digits."""
    with mpmath.workdps(dps):
        r = mpmath.mpf(r)
        s = mpmath.fsum((-1) ** i * mpmath.binomial(m, i) * mpmath.exp(r * i * (i - 1))
                        for i in range(m + 1))
        if s <= 0:
            raise ArithmeticError(f"B({m}) = {s} <= 0 at r={r}: raise dps")
        return mpmath.log(s)


def mp_digits_needed(r: float, m: int) -> int:
    """Digits that make the alternating sum exact to ~1e-30 relative (a generous estimate).

    The largest term is at most ``2^m e^{r m (m-1)}``; ``B(m) >= B(2)^(m/2)`` (Lyapunov), so the
    cancellation is at most their ratio.
    """
    log_terms = m * math.log(2.0) + r * m * (m - 1)
    log_b2 = math.log(math.expm1(2.0 * r))
    cancel = max(log_terms - 0.5 * m * log_b2, 0.0) / math.log(10.0)
    return int(cancel) + 40


def mp_rdp(r: float, gamma: float, alpha: int, dps: int | None = None):
    """SPEC §2's ``eps'(alpha)`` for base RDP ``alpha * r`` at rate ``gamma`` (an mpf)."""
    if dps is None:
        dps = mp_digits_needed(r, alpha + 1)
    with mpmath.workdps(dps):
        r_ = mpmath.mpf(r)
        g = mpmath.mpf(gamma)
        eps = lambda a: a * r_  # noqa: E731 - base RDP
        b_cache = {}

        def big_b(m):
            if m not in b_cache:
                b_cache[m] = mpmath.fsum((-1) ** i * mpmath.binomial(m, i)
                                         * mpmath.exp((i - 1) * eps(i)) for i in range(m + 1))
            return b_cache[m]

        total = 1 + g ** 2 * mpmath.binomial(alpha, 2) * min(
            4 * (mpmath.exp(eps(2)) - 1), 2 * mpmath.exp(eps(2)))
        for j in range(3, alpha + 1):
            lo, hi = big_b(2 * (j // 2)), big_b(2 * ((j + 1) // 2))
            total += g ** j * mpmath.binomial(alpha, j) * min(
                4 * mpmath.sqrt(lo * hi), 2 * mpmath.exp((j - 1) * eps(j)))
        return mpmath.log(total) / (alpha - 1)


def dpa_rdp(r: float, gamma: float, orders) -> np.ndarray:
    """dp_accounting's WBK Theorem 27 for base RDP ``alpha * r`` (noise multiplier 1/sqrt(2r))."""
    from dp_accounting.rdp import rdp_privacy_accountant as rpa

    return np.asarray(rpa._compute_rdp_sample_wor_gaussian(gamma, 1.0 / math.sqrt(2.0 * r),
                                                            list(orders)), dtype=float)


def autodp_eps(r: float, gamma: float, T: int, delta: float) -> float:
    """autodp's epsilon (Mironov conversion, orders from 2) for T subsampled compositions."""
    from autodp import rdp_acct

    acct = rdp_acct.anaRDPacct(m=256)
    acct.compose_subsampled_mechanism(lambda a: a * r, gamma, coeff=T, improved_bound_flag=True)
    return float(acct.get_eps(delta))


def mironov(orders, rdp, delta):
    orders = np.asarray(orders, dtype=float)
    return np.asarray(rdp) + math.log(1.0 / delta) / (orders - 1.0)


def improved(orders, rdp, delta):
    orders = np.asarray(orders, dtype=float)
    return (np.asarray(rdp) + np.log1p(-1.0 / orders)
            - (math.log(delta) + np.log(orders)) / (orders - 1.0))
