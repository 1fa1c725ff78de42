"""Rényi-DP upper bound for the whole-record accountant (cross-check, and large epsilon).

Every step of a class touched by a whole-record change is dominated, for every order of the
hockey-stick divergence, by the symmetrised pair ``S(s, gamma)`` of ``class-aware-pld``
(docs/whole-record.md §2–4). By Blackwell's theorem (Dong, Roth & Su 2022, Thm 2.10) the step
is then a post-processing of S, so its Rényi divergences (both directions) are at most
``D_alpha(S)``; Rényi divergences add up under composition, so the release has RDP
``T_k D_alpha(S(gamma_lose_k)) + T_k' D_alpha(S(gamma_gain_k'))``, converted with Balle et al.
2020 (Thm 21), the best integer order in ``2..max_alpha``.

``D_alpha(S)``: with ``rho(x) = 1 - gamma + gamma e^{s x - s^2/2}`` (the likelihood ratio
``dP'/dQ'``, ``Q' = N(0, 1)``), S's privacy loss is ``log rho`` under ``P'`` on ``x > s/2``, its
mirror ``-log rho`` with the ``Q'``-mass on ``x > s/2``, and an atom at 0, so

    e^{(alpha-1) D_alpha(S)} - 1
        = int_{x > s/2} (rho^alpha - rho) dQ'  +  int_{x > s/2} (rho^{1-alpha} - 1) dQ'

(the atom cancels). The first integral is exact for integer alpha (binomial expansion:
``sum_j C(alpha, j) (1-gamma)^{alpha-j} gamma^j e^{j(j-1)s^2/2} Phi(j s - s/2)`` minus
``gamma Phi(s/2) + (1-gamma) Phi(-s/2)``). The second is
``-(alpha-1) gamma (Phi(s/2) - Phi(-s/2))`` (exact) plus the integral of
``r = rho^{1-alpha} - 1 + (alpha-1)(rho - 1) >= 0``, which grows with x: it is bounded above
by a right-endpoint sum on a grid refined until the gap to the left-endpoint sum is at most
``1e-3`` of the total (or 2^15 cells), plus a tail bound. The result is an upper bound
(rigorous up to floating-point rounding), not an approximation.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, log_ndtr, ndtr

from dpcda.privacy.whole_record import (WholeRecordEpsilon, _parts, check_inputs, noise_ratio,
                                        worst_pairs)

_X_SPAN = 15.0          # the grid ends at x = s + 15 (tail bound beyond: ~1e-51)
_REL_GAP = 1e-3
#: Above this ``s`` (sigma ~ 1e-150), ``s^2`` overflows: the divergence is reported as inf.
_S_HUGE = 1e150


def _first_integral(s: float, gamma: float, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(small, log_big)``: ``int_{x>s/2} (rho^a - rho) dQ' = small + exp(log_big)``; ``small``
    holds the j = 0, 1 terms minus the subtracted ones (O(alpha gamma), exact to rounding),
    ``log_big`` the log of the j >= 2 terms (log-sum-exp)."""
    a = alphas.astype(float)
    l1g = math.log1p(-gamma)
    lo, hi = float(ndtr(-s / 2.0)), float(ndtr(s / 2.0))
    small = ((1.0 - gamma) * np.expm1((a - 1.0) * l1g) * lo
             + gamma * np.expm1(np.log(a) + (a - 1.0) * l1g) * hi)
    jmax = int(a.max())
    j = np.arange(2, jmax + 1, dtype=float)
    lj = (j * math.log(gamma) + j * (j - 1.0) * s * s / 2.0 + log_ndtr(j * s - s / 2.0)
          - gammaln(j + 1.0))
    terms = (gammaln(a + 1.0)[:, None] - gammaln(np.maximum(a[:, None] - j[None, :], 0.0) + 1.0)
             + (a[:, None] - j[None, :]) * l1g + lj[None, :])
    terms = np.where(j[None, :] <= a[:, None], terms, -np.inf)
    mx = terms.max(axis=1)
    log_big = mx + np.log(np.exp(terms - mx[:, None]).sum(axis=1))
    return small, log_big


def _second_integral(s: float, gamma: float, alphas: np.ndarray,
                     points: int) -> tuple[np.ndarray, np.ndarray]:
    """``(upper, lower)`` bounds of ``int_{x>s/2} (rho^{1-a} - 1) dQ'``.

    Written as ``-(a-1) int (rho - 1) dQ'`` (exact: ``gamma (Phi(s/2) - Phi(-s/2))``) plus
    ``int r dQ'`` with ``r = rho^{1-a} - 1 + (a-1)(rho - 1) >= 0`` (convexity), which grows with
    rho, so with x: right-endpoint sums bound it above, left-endpoint sums below; beyond the
    grid ``r <= (a-1)(rho - 1)`` gives the tail ``(a-1) gamma Phi(s - X)``."""
    a1 = alphas.astype(float)[:, None] - 1.0
    x = s / 2.0 + np.linspace(0.0, _X_SPAN + s / 2.0, points + 1)
    y = s * x - s * s / 2.0
    log_rho = np.logaddexp(math.log1p(-gamma), math.log(gamma) + y)
    with np.errstate(over="ignore"):
        rho_m1 = gamma * np.expm1(np.minimum(y, 700.0))
    sf = ndtr(-x)
    mass = sf[:-1] - sf[1:]                                    # x > 0: no cancellation
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.expm1(-a1 * log_rho[None, :]) + a1 * rho_m1[None, :]
    r = np.where(np.isfinite(r), r, np.inf)
    first = -a1[:, 0] * gamma * (ndtr(s / 2.0) - ndtr(-s / 2.0))
    tail = a1[:, 0] * gamma * ndtr(s - x[-1])
    with np.errstate(invalid="ignore"):
        upper = first + r[:, 1:] @ mass + tail
        lower = first + r[:, :-1] @ mass
    return upper, lower


def rdp_symmetrised(s: float, gamma: float, alphas) -> np.ndarray:
    """Upper bound on the Rényi divergence ``D_alpha(S(s, gamma))`` of one step's symmetrised
    pair at integer orders ``alphas >= 2`` (``s = 0``: 0; ``s = inf``: inf)."""
    alphas = np.asarray(alphas, dtype=np.int64)
    if alphas.ndim != 1 or np.any(alphas < 2):
        raise ValueError(f"alphas must be integers >= 2, got {alphas!r}")
    if not (0.0 < gamma <= 1.0):
        raise ValueError(f"gamma must be in (0, 1], got gamma={gamma!r}")
    if not s > 0:
        return np.zeros(len(alphas))
    if not s < _S_HUGE:  # s^2 overflows (inf - inf in the integrals): the trivial bound
        return np.full(len(alphas), np.inf)
    gamma = min(float(gamma), 1.0 - 1e-15)
    small, log_big = _first_integral(s, gamma, alphas)
    points = 1 << 12
    while True:
        up, lo = _second_integral(s, gamma, alphas, points)
        rest = small + up                                      # O(alpha gamma) parts, summed
        total_lo = np.exp(np.minimum(log_big, 700.0)) + small + lo
        if np.all(up - lo <= _REL_GAP * np.maximum(total_lo, 1e-300)) or points >= 1 << 15:
            break
        points *= 2
    with np.errstate(over="ignore", invalid="ignore"):
        big = log_big > 30.0
        direct = np.log1p(np.exp(np.minimum(log_big, 30.0)) + rest)
        # rest >= -1: where log_big > 30, log(1 + e^B + rest) = B + log1p((1 + rest) e^-B)
        huge = log_big + np.log1p(np.clip(1.0 + rest, 0.0, None)
                                  * np.exp(-np.maximum(log_big, 30.0)))
        log_m = np.where(big, huge, direct)
    return np.maximum(log_m, 0.0) / (alphas - 1.0)


def _improved(alphas: np.ndarray, rdp: np.ndarray, delta: float) -> np.ndarray:
    """Balle et al. 2020, Thm 21 (dpcda.privacy.conversion's ``improved``)."""
    a = alphas.astype(float)
    return rdp + np.log1p(-1.0 / a) - (math.log(delta) + np.log(a)) / (a - 1.0)


def whole_record_rdp(*, sigma: float, l: int, lower_counts, steps, delta: float,
                     c: float = 1.0, max_alpha: int = 64,
                     extra_mu: float = 0.0) -> WholeRecordEpsilon:
    """RDP upper bound on the whole-record epsilon (same inputs as
    :func:`dpcda.privacy.whole_record.whole_record_pld`); ``value_interval`` of the result holds
    the best order. Always at least the PLD epsilon of the same pair (it bounds the same pair
    less tightly). ``extra_mu``: one ``extra_mu``-GDP Gaussian release composed in (RDP
    ``alpha mu^2 / 2`` at order alpha)."""
    l, n, T = check_inputs(l, lower_counts, steps, delta)
    if isinstance(max_alpha, bool) or not isinstance(max_alpha, (int, np.integer)) \
            or not 2 <= max_alpha <= 1024:
        raise ValueError(f"max_alpha must be an integer in [2, 1024], got {max_alpha!r}")
    s = noise_ratio(float(sigma), l, float(c))
    alphas = np.arange(2, int(max_alpha) + 1)
    best = None
    for pair in worst_pairs(n, T):
        with np.errstate(over="ignore"):
            rdp = sum(t * rdp_symmetrised(s, g, alphas) for g, t in _parts(l, n, T, pair))
        rdp = rdp + alphas * float(extra_mu) ** 2 / 2.0
        eps = _improved(alphas, rdp, float(delta))
        eps = np.where(np.isnan(eps), np.inf, eps)
        i = int(np.argmin(eps))
        val = max(float(eps[i]), 0.0)
        if best is None or val > best.epsilon:
            best = WholeRecordEpsilon(val, math.nan, pair, "rdp", float(alphas[i]))
    return best


def rdp_curve(*, sigma: float, l: int, lower_counts, steps, c: float = 1.0,
              max_alpha: int = 64) -> dict:
    """``{pair: RDP at orders 2..max_alpha}`` for every pair :func:`whole_record_rdp` considers
    (for cross-checks against other RDP accountants)."""
    l, n, T = check_inputs(l, lower_counts, steps)
    s = noise_ratio(float(sigma), l, float(c))
    alphas = np.arange(2, int(max_alpha) + 1)
    return {pair: sum(t * rdp_symmetrised(s, g, alphas) for g, t in _parts(l, n, T, pair))
            for pair in worst_pairs(n, T)}
