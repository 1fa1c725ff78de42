"""Independent references for the privacy tests (imported as ``tests.privacy.privacy_ref``).

Nothing here imports :mod:`dpcda`: these are the yardsticks the library is measured against.

- :func:`mp_log_b` / :func:`mp_rdp` evaluate docs/specification.md §2 (Wang, Balle, Kasiviswanathan 2019,
  Theorem 27 with the per-term minimum of their Theorem 9) literally, term by term, in mpmath.
  The alternating sum ``B(m)`` needs no special care once enough digits are carried; both
  functions check themselves by evaluating twice at different precisions.
- :func:`dpa_rdp` wraps Google's ``dp_accounting`` (the same bound; forward differences in
  float64, accurate at small sampling rates, not at large ones) and :func:`autodp_eps` autodp's
  analytical moments accountant. Both packages are test-only dependencies.
- :func:`mironov` / :func:`improved`: the two RDP -> (epsilon, delta) conversions, written out.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np


def _alt_sum_b(r, m: int):
    """``B(m) = sum_i (-1)^i C(m,i) e^{r i (i-1)}`` at the current mpmath precision."""
    return mpmath.fsum((-1) ** i * mpmath.binomial(m, i) * mpmath.exp(r * i * (i - 1))
                       for i in range(m + 1))


def mp_log_b(r: float, m: int):
    """``log B(m)`` (an mpf) exact to ~1e-30, raising the precision until two evaluations agree.

    Also returns ``log(sum |terms| / B(m))``: how much the float64 alternating sum cancels.
    """
    dps = 40
    prev = None
    while dps <= 4000:
        with mpmath.workdps(dps):
            s = _alt_sum_b(mpmath.mpf(r), m)
            if s > 0:
                val = mpmath.log(s)
                if prev is not None and abs(val - prev) < mpmath.mpf(10) ** -30 * (1 + abs(val)):
                    r_ = mpmath.mpf(r)
                    sabs = mpmath.fsum(mpmath.binomial(m, i) * mpmath.exp(r_ * i * (i - 1))
                                       for i in range(m + 1))
                    return val, float(mpmath.log(sabs) - val)
                prev = val
        dps *= 2
    raise ArithmeticError(f"mp_log_b did not converge for r={r}, m={m}")


def _mp_rdp_at(r, gamma, alpha: int, dps: int):
    with mpmath.workdps(dps):
        r_ = mpmath.mpf(r)
        g = mpmath.mpf(gamma)
        eps = lambda a: a * r_  # noqa: E731 - the base mechanism's RDP, eps(alpha) = alpha r
        cache = {}

        def big_b(m):
            if m not in cache:
                cache[m] = mpmath.fsum((-1) ** i * mpmath.binomial(m, i)
                                       * mpmath.exp((i - 1) * eps(i)) for i in range(m + 1))
                if cache[m] <= 0:  # B(m) > 0 for even m: cancellation beat the precision
                    raise ArithmeticError(f"B({m}) <= 0 at dps={dps}, r={r}: raise dps")
            return cache[m]

        total = 1 + g ** 2 * mpmath.binomial(alpha, 2) * min(
            4 * (mpmath.exp(eps(2)) - 1), 2 * mpmath.exp(eps(2)))
        for j in range(3, alpha + 1):
            lo, hi = big_b(2 * (j // 2)), big_b(2 * ((j + 1) // 2))
            total += g ** j * mpmath.binomial(alpha, j) * min(
                4 * mpmath.sqrt(lo * hi), 2 * mpmath.exp((j - 1) * eps(j)))
        return mpmath.log(total) / (alpha - 1)


def mp_rdp(r: float, gamma: float, alpha: int, dps: int = 300) -> float:
    """The ``eps'(alpha)`` of docs/specification.md §2 for base RDP ``alpha * r`` at rate
    ``gamma``, as a float.

    Evaluated at ``dps`` and ``dps + 40`` digits; raises if the two differ (too few digits).
    """
    a = _mp_rdp_at(r, gamma, alpha, dps)
    b = _mp_rdp_at(r, gamma, alpha, dps + 40)
    with mpmath.workdps(dps):
        if not abs(a - b) <= mpmath.mpf(10) ** -25 * abs(b):
            raise ArithmeticError(f"mp_rdp not converged at dps={dps}: r={r}, gamma={gamma}, "
                                  f"alpha={alpha}")
    return float(b)


def dpa_rdp(r: float, gamma: float, orders) -> np.ndarray:
    """dp_accounting's WBK Theorem 27 for base RDP ``alpha * r`` (noise multiplier 1/sqrt(2r))."""
    from dp_accounting.rdp import rdp_privacy_accountant as rpa

    return np.asarray(rpa._compute_rdp_sample_wor_gaussian(
        gamma, 1.0 / math.sqrt(2.0 * r), [int(a) for a in orders]), dtype=float)


def autodp_eps(r: float, gamma: float, T: int, delta: float) -> float:
    """autodp's epsilon (Mironov conversion; orders from 2, doubled beyond 256 if needed) for
    ``T`` compositions of the subsampled (without replacement) mechanism with base RDP
    ``alpha * r``."""
    from autodp import rdp_acct

    acct = rdp_acct.anaRDPacct(m=256)
    acct.compose_subsampled_mechanism(lambda a: a * r, gamma, coeff=T, improved_bound_flag=True)
    return float(acct.get_eps(delta))


def mironov(orders, rdp, delta: float) -> np.ndarray:
    """Mironov 2017, Prop. 3: ``rdp + log(1/delta)/(alpha-1)`` at each order."""
    orders = np.asarray(orders, dtype=float)
    return np.asarray(rdp, dtype=float) + math.log(1.0 / delta) / (orders - 1.0)


def improved(orders, rdp, delta: float) -> np.ndarray:
    """Balle et al. 2020 (dp_accounting's ``compute_epsilon`` without its KL shortcut)."""
    orders = np.asarray(orders, dtype=float)
    return (np.asarray(rdp, dtype=float) + np.log1p(-1.0 / orders)
            - np.log(delta * orders) / (orders - 1.0))


CONVERT = {"mironov": mironov, "improved": improved}
