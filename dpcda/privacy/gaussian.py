"""One Gaussian release: the exact (epsilon, delta) curve and calibration (pure numpy/scipy).

For a Gaussian mechanism with L2 sensitivity ``Delta`` and noise std ``sigma`` (``mu =
Delta/sigma``), Balle & Wang (ICML 2018, "Improving the Gaussian mechanism", Theorem 8) give
the exact, tight privacy profile

    delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),

evaluated here in log space (``log_ndtr``). It is increasing in ``mu``, so the smallest
``sigma`` meeting a target ``(eps, delta)`` is found by bisection on ``log mu``. Used for
mechanisms that release each record once (DPPro's projection) where a classical closed form
such as ``sigma = Delta sqrt(2 log(1.25/delta))/eps`` is only proven for ``eps < 1``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr

from dpcda.util.checks import check_delta, check_float


def gaussian_delta(epsilon, mu):
    """Exact delta of a Gaussian mechanism with ``mu = Delta/sigma`` at ``epsilon`` (arrays)."""
    eps = np.asarray(epsilon, dtype=float)
    mu = np.asarray(mu, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = log_ndtr(mu / 2.0 - eps / mu)
        b = eps + log_ndtr(-mu / 2.0 - eps / mu)
        out = np.exp(a) * -np.expm1(np.minimum(b - a, 0.0))
    return np.where(mu > 0, np.maximum(out, 0.0), 0.0)


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest noise std for which one Gaussian release of L2 ``sensitivity`` is
    ``(epsilon, delta)``-DP (exact, Balle & Wang 2018, Theorem 8; bisection to 1e-12 rel.)."""
    eps = check_float("epsilon", epsilon, lo=0.0, lo_open=True)
    delta = check_delta(delta)
    sens = check_float("sensitivity", sensitivity, lo=0.0, lo_open=True)
    lo, hi = -20.0, 10.0  # log mu: delta(mu = e^-20) ~ 0, delta(mu = e^10) ~ 1
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gaussian_delta(eps, np.exp(mid)) <= delta:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return float(sens / np.exp(lo))


def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest epsilon with ``delta(eps) <= delta`` for one Gaussian release (bisection)."""
    sigma = check_float("sigma", sigma, lo=0.0, lo_open=True)
    delta = check_delta(delta)
    mu = check_float("sensitivity", sensitivity, lo=0.0, lo_open=True) / sigma
    lo, hi = 0.0, 1.0
    while gaussian_delta(hi, mu) > delta:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gaussian_delta(mid, mu) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(hi, 1.0):
            break
    return float(hi)
