"""Rényi-DP of a Gaussian-type mechanism under subsampling without replacement.

Pure, vectorized numpy functions in log space; no state. Notation follows ``docs/specification.md`` §2.

A base mechanism on ``l`` records has RDP ``eps(alpha) = alpha * r`` (a Gaussian mechanism with
``r = Delta^2 / (2 sigma^2)``). Run on a uniformly random ``l``-subset of ``n`` records
(``gamma = l / n``), it satisfies, for integer ``alpha >= 2``, the bound of Wang, Balle and
Kasiviswanathan (AISTATS 2019, Theorem 27, with the per-term minimum of their Theorem 9; the
same bound is DPMix Theorem 4 and DP-CDA Theorem 1 once the typo ``B(ceil(j/2))`` is read as
``B(2 ceil(j/2))``)::

    eps'(alpha) = 1/(alpha-1) * log( 1
        + gamma^2 C(alpha,2) min(4 (e^{eps(2)} - 1), 2 e^{eps(2)})
        + sum_{j=3..alpha} gamma^j C(alpha,j) min(4 sqrt(B(2 floor(j/2)) B(2 ceil(j/2))),
                                                  2 e^{(j-1) eps(j)}) )
    B(m) = sum_{i=0..m} (-1)^i C(m,i) e^{(i-1) eps(i)} = sum_i (-1)^i C(m,i) e^{r i (i-1)}

``B(m)`` is an alternating sum of huge terms. For the Gaussian it equals the m-th central
moment of the likelihood ratio, ``B(m) = E[(exp(mu Z - r) - 1)^m]`` with ``Z ~ N(0, 1)`` and
``mu = sqrt(2 r)``. We evaluate the alternating sum in log space when its cancellation is mild
(relative error below ~1e-12) and otherwise the integral with the trapezoidal rule on a grid
whose step makes the discretisation error (``2 exp(-2 pi^2 / h^2)`` times the sum of the
absolute terms) negligible: its integrand is positive, so nothing cancels.

The result is additionally capped by the base RDP ``alpha * r`` (subsampling never hurts: Rényi
divergence is jointly quasi-convex), which makes ``gamma = 1`` exact.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

LOG2 = float(np.log(2.0))
LOG4 = float(np.log(4.0))
# Terms of the binomial expansion below exp(_NEGLIGIBLE) (relative to the leading 1) are dropped.
_NEGLIGIBLE = -42.0
# Alternating sums whose cancellation exceeds exp(_MAX_CANCEL) go to quadrature (error < 1e-12).
# The float64 terms carry ~1e-14..1e-13 relative error (log-binomials, r i (i-1) up to ~500), so
# the direct sum's error is about exp(_MAX_CANCEL) times that: e^9 measured 2e-10, e^5 3e-12.
_MAX_CANCEL = 5.0
_CHUNK = 64  # points per batch: bounds memory at chunk * max_alpha^2 floats
_ORDER_BLOCK = 32  # orders per block in the binomial sums
# Beyond this slope the subsampling gain is below float64 resolution (eps' = alpha r to the last
# bit) and r * alpha^2 would overflow: such points get the base alpha * r (inf where it overflows).
_R_HUGE = 1e300


@lru_cache(maxsize=8)
def _log_binom_table(n_max: int) -> np.ndarray:
    """``log C(n, k)`` for ``0 <= k <= n <= n_max``; ``-inf`` for ``k > n`` (read-only)."""
    lf = np.array([math.lgamma(i + 1.0) for i in range(n_max + 1)])  # log i!
    n = np.arange(n_max + 1)[:, None]
    k = np.arange(n_max + 1)[None, :]
    out = np.where(k <= n, lf[n] - lf[k] - lf[np.maximum(n - k, 0)], -np.inf)
    out.setflags(write=False)
    return out


def _logsumexp_signed(a: np.ndarray, sign: np.ndarray, axis: int):
    """Return ``(log|sum|, sign of sum, log sum|.|)`` of ``sign * exp(a)`` along ``axis``."""
    mx = np.max(a, axis=axis, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    e = np.exp(a - mx)
    s = np.sum(sign * e, axis=axis)
    sabs = np.sum(e, axis=axis)
    mx = np.squeeze(mx, axis=axis)
    with np.errstate(divide="ignore"):
        return mx + np.log(np.abs(s)), np.sign(s), mx + np.log(sabs)


def _log_abs_expm1(x: np.ndarray) -> np.ndarray:
    """``log|exp(x) - 1|`` without overflow (``x`` may be large)."""
    big = x > 30.0
    xs = np.where(big, 0.0, x)
    with np.errstate(divide="ignore"):
        small = np.log(np.abs(np.expm1(xs)))
    return np.where(big, x + np.log1p(-np.exp(-np.where(big, x, 31.0))), small)


def _log_b_quadrature(r: np.ndarray, m: np.ndarray, log_sabs: np.ndarray) -> np.ndarray:
    """``log B(m)`` for even ``m`` via ``E[(exp(mu Z - r) - 1)^m]`` (trapezoidal rule).

    ``r``, ``m``, ``log_sabs`` are 1-d arrays of equal length (one entry per pair). The step is
    chosen from a lower bound on ``B(m)`` (``B(2)^(m/2)``, Lyapunov) so that the discretisation
    error is below ``exp(-40)`` times ``B(m)``.
    """
    mu = np.sqrt(2.0 * r)
    log_b2 = _log_abs_expm1(2.0 * r)
    log_ratio = np.maximum(log_sabs - 0.5 * m * log_b2, 0.0)
    h = np.minimum(np.pi * np.sqrt(2.0 / (log_ratio + 40.0 + LOG2)), 0.5)
    lo = -39.0
    hi = m * mu + 39.0
    n_pts = np.ceil((hi - lo) / h).astype(int) + 1
    k = np.arange(int(n_pts.max()))[None, :]
    z = lo + h[:, None] * k
    valid = k < n_pts[:, None]
    log_g = _log_abs_expm1(mu[:, None] * z - r[:, None])
    a = -0.5 * z * z + m[:, None] * log_g
    a = np.where(valid, a, -np.inf)
    mx = np.max(a, axis=1, keepdims=True)
    out = mx[:, 0] + np.log(np.sum(np.exp(a - mx), axis=1))
    return out + np.log(h) - 0.5 * np.log(2.0 * np.pi)


def log_b_even(r: np.ndarray, m_max: int, m_need: np.ndarray | None = None) -> np.ndarray:
    """``log B(m)`` for ``m = 0, 2, 4, ..., m_max`` and each ``r`` (shape ``(P, m_max//2 + 1)``).

    ``B(m) = sum_{i=0..m} (-1)^i C(m, i) exp(r i (i-1))`` (docs/specification.md §2), accurate to
    ~1e-12 relative for every ``r >= 0``; ``B(0) = 1`` and ``B(m) = 0`` (log ``-inf``) when ``r = 0``.
    With ``m_need`` (one bound per ``r``), entries with ``m > m_need`` are not evaluated and come
    back as ``+inf`` (an upper bound: callers use them only inside a minimum).
    """
    r = np.atleast_1d(np.asarray(r, dtype=float))
    m_max = int(m_max) + int(m_max) % 2
    ms = np.arange(0, m_max + 1, 2)
    out = np.full((r.size, ms.size), -np.inf)
    out[:, 0] = 0.0
    if ms.size == 1:
        return out
    pos = r > 0
    with np.errstate(divide="ignore"):
        out[:, 1] = np.where(pos, _log_abs_expm1(2.0 * r), -np.inf)
    if ms.size == 2 or not pos.any():
        return out
    lc = _log_binom_table(m_max)[ms[2:]]  # (M', m_max+1)
    i = np.arange(m_max + 1)
    sign = np.where(i % 2 == 0, 1.0, -1.0)
    rp = r[pos]
    a = lc[None, :, :] + rp[:, None, None] * (i * (i - 1))[None, None, :]
    log_abs, sgn, log_sabs = _logsumexp_signed(a, sign, axis=2)
    bad = (sgn <= 0) | (log_sabs - log_abs > _MAX_CANCEL)
    res = np.where(bad, np.nan, log_abs)
    if m_need is not None:
        skip = ms[None, 2:] > np.asarray(m_need)[pos][:, None]
        res[skip] = np.inf
        bad &= ~skip
    if bad.any():
        pi, mi = np.nonzero(bad)
        res[pi, mi] = _log_b_quadrature(rp[pi], ms[2:][mi].astype(float), log_sabs[pi, mi])
    out[pos, 2:] = res
    return out


def _j_needed(r: np.ndarray, log_gamma: np.ndarray, max_alpha: int) -> np.ndarray:
    """Per point, the largest j whose term can matter (each term is at most
    ``gamma^j C(alpha, j) 2 e^{r j (j-1)}``; later ones stay below ``exp(_NEGLIGIBLE)``)."""
    j_all = np.arange(max_alpha + 1, dtype=float)
    lcmax = _log_binom_table(max_alpha)[max_alpha]
    bound = j_all[None, :] * log_gamma[:, None] + lcmax[None, :] + LOG2 \
        + r[:, None] * (j_all * (j_all - 1))[None, :]
    big = bound > _NEGLIGIBLE
    last = max_alpha - np.argmax(big[:, ::-1], axis=1)
    return np.maximum(np.where(big.any(axis=1), last, 2), 2)


def _rdp_chunk(r: np.ndarray, log_gamma: np.ndarray, max_alpha: int,
               j_need: np.ndarray) -> np.ndarray:
    """WBK bound for a batch of finite ``r > 0`` and ``gamma < 1``: shape ``(P, max_alpha - 1)``."""
    j_max = int(j_need.max())
    j = np.arange(j_max + 1)
    m_need = 2 * ((j_need + 1) // 2)
    lb = log_b_even(r, 2 * ((j_max + 1) // 2), m_need)  # (P, .)
    # log T_j: the bracketed factor of each term (j = 0, 1 unused).
    log_t = np.full((r.size, j_max + 1), -np.inf)
    log_t[:, 2] = np.minimum(LOG4 + _log_abs_expm1(2.0 * r), LOG2 + 2.0 * r)
    if j_max >= 3:
        jj = j[3:]
        b_lo = lb[:, jj // 2]
        b_hi = lb[:, (jj + 1) // 2]
        via_b = LOG4 + 0.5 * (b_lo + b_hi)
        via_e = LOG2 + r[:, None] * (jj * (jj - 1))[None, :]
        log_t[:, 3:] = np.minimum(via_b, via_e)
    w = j[None, :] * log_gamma[:, None] + log_t  # (P, J)
    w[:, :2] = -np.inf
    table = _log_binom_table(max_alpha)
    log_rest = np.empty((r.size, max_alpha - 1))
    # Orders in blocks: C(alpha, j) = 0 for j > alpha, so a block only needs j <= its last order.
    for a0 in range(2, max_alpha + 1, _ORDER_BLOCK):
        a1 = min(a0 + _ORDER_BLOCK - 1, max_alpha)
        jb = min(a1, j_max) + 1
        a = table[a0:a1 + 1, :jb][None, :, :] + w[:, None, :jb]  # (P, block, jb)
        mx = np.max(a, axis=2, keepdims=True)
        mx = np.where(np.isfinite(mx), mx, 0.0)
        log_rest[:, a0 - 2:a1 - 1] = mx[:, :, 0] + np.log(np.sum(np.exp(a - mx), axis=2))
    log_a = np.logaddexp(0.0, log_rest)  # log(1 + rest), accurate when rest is tiny
    orders = np.arange(2, max_alpha + 1, dtype=float)
    return log_a / (orders - 1.0)[None, :]


def rdp_subsampled_gaussian(r, gamma, max_alpha: int = 256) -> np.ndarray:
    """RDP of a subsampled (without replacement) Gaussian-type mechanism at orders 2..max_alpha.

    Parameters: ``r`` — the base mechanism's RDP slope, ``eps(alpha) = alpha * r`` (``0`` means
    no privacy loss, ``inf`` no privacy); ``gamma`` — the sampling rate ``l / n`` in ``(0, 1]``;
    both broadcast to a common shape ``S``. Returns an array of shape ``S + (max_alpha - 1,)``:
    ``eps'(alpha)`` for ``alpha = 2, ..., max_alpha`` (WBK 2019 Theorem 27, see module doc),
    never above the unsubsampled ``alpha * r``. Never NaN, never negative.
    """
    r, gamma = np.broadcast_arrays(np.asarray(r, dtype=float), np.asarray(gamma, dtype=float))
    shape = r.shape
    r = r.ravel()
    gamma = gamma.ravel()
    if np.any(np.isnan(r)) or np.any(r < 0):
        raise ValueError(f"r must be >= 0 (the base RDP slope), got {r[np.isnan(r) | (r < 0)][0]}")
    if np.any(~((gamma > 0) & (gamma <= 1))):
        raise ValueError("gamma must be in (0, 1] (the sampling rate l/n), got "
                         f"{gamma[~((gamma > 0) & (gamma <= 1))][0]}")
    max_alpha = int(max_alpha)
    if max_alpha < 2:
        raise ValueError(f"max_alpha must be an integer >= 2, got max_alpha={max_alpha}")
    orders = np.arange(2, max_alpha + 1, dtype=float)
    with np.errstate(over="ignore"):  # alpha * r overflows only where the true value does
        base = r[:, None] * orders[None, :]
    out = base.copy()  # r = 0 -> 0, r = inf -> inf, gamma = 1 -> base
    todo = np.nonzero((r > 0) & (r < _R_HUGE) & (gamma < 1))[0]
    if todo.size:
        j_need = _j_needed(r[todo], np.log(gamma[todo]), max_alpha)
        order = np.argsort(j_need, kind="stable")  # similar work per chunk
        todo, j_need = todo[order], j_need[order]
    for start in range(0, todo.size, _CHUNK):
        idx, jn = todo[start:start + _CHUNK], j_need[start:start + _CHUNK]
        out[idx] = np.minimum(_rdp_chunk(r[idx], np.log(gamma[idx]), max_alpha, jn), base[idx])
    return out.reshape(shape + (max_alpha - 1,))
