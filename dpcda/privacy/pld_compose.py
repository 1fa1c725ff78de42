"""Composition of a loss-grid PLD by one FFT power, and epsilon for delta (docs/pld.md §5–6).

The Chernoff window of the T-fold sum, the pruned FFT power, the Chernoff bound on the total
rounding of the optimistic grid, and the exact hockey-stick read-off. Re-exported by
:mod:`dpcda.privacy.pld`.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.privacy.pld_step import TAIL_MASS

_LAMBDAS = np.geomspace(0.03, 30.0, 16)
_MAX_FFT = 1 << 22
#: Largest ``|lam| h j`` inside one block of :func:`_log_mgf` (weights within ``e^{+-50}``).
_BLOCK_SPAN = 50.0
#: Coarsest loss-grid step the compositions coarsen to (``h *= 4`` while the FFT is too
#: large): beyond it the read-off, which clips losses at +-700, means nothing, and the
#: callers return the trivial bounds (``+inf`` above, 0 below) instead of coarsening without
#: end (at T ~ 1e9 the Chernoff window never fit and h ran to 1e300, then overflowed).
MAX_VALUE_INTERVAL = 100.0


def _log_mgf(i0: int, pmf: np.ndarray, h: float, lam: np.ndarray) -> np.ndarray:
    """``log sum_k pmf_k exp(lam L_k)`` for every ``lam`` (either sign), exactly, with few
    exponentials: ``L_k = L_{b0} + j h`` on blocks of B points, so the sum is a log-sum-exp over
    blocks of ``log(P v) + lam L_{b0}`` (no underflowing weights: those make BLAS slow).

    ``B`` is about ``sqrt(len(pmf))``, fewer where ``|lam| h B`` would exceed ``_BLOCK_SPAN``:
    the in-block weights ``e^{lam j h}`` stay in ``[e^-span, e^span]`` (on a coarse grid at
    large ``lam`` they overflowed to ``inf`` and ``0 * inf``, ``inf - inf`` gave NaN; B = 1
    is the plain log-sum-exp)."""
    lam = np.asarray(lam, dtype=float)
    B = max(1, math.isqrt(len(pmf)))
    reach = h * float(np.max(np.abs(lam), initial=0.0))
    if reach * (B - 1) > _BLOCK_SPAN:
        B = max(1, math.floor(_BLOCK_SPAN / reach) + 1)
    m = -(-len(pmf) // B) * B
    P = np.zeros(m)
    P[: len(pmf)] = pmf
    P = P.reshape(-1, B)
    base = (i0 + np.arange(P.shape[0]) * B) * h
    # einsum, not BLAS: a threaded BLAS on a busy machine makes this 100x slower
    W = np.einsum("ib,bl->il", P, np.exp(np.outer(h * np.arange(B), lam)))   # (blocks, lam)
    with np.errstate(divide="ignore"):
        lw = np.log(W) + np.outer(base, lam)
    top = lw.max(axis=0)
    with np.errstate(under="ignore"):
        return top + np.log(np.exp(lw - top).sum(axis=0))


def _window(i0: int, pmf: np.ndarray, T: int, h: float, tail: float = TAIL_MASS):
    """Indices ``[j_lo, j_hi]`` of the T-fold sum holding all but ``tail`` on each side
    (Chernoff: ``P(S > s) <= exp(T log M(lam) - lam s)``, minimised over a grid of ``lam``)."""
    k = np.nonzero(pmf)[0]
    log_m = _log_mgf(i0, pmf, h, np.concatenate([_LAMBDAS, -_LAMBDAS]))
    log_m_up, log_m_dn = log_m[: len(_LAMBDAS)], log_m[len(_LAMBDAS):]
    log_tau = math.log(tail)
    s_hi = float(np.min((T * log_m_up - log_tau) / _LAMBDAS))
    s_lo = float(np.max((log_tau - T * log_m_dn) / _LAMBDAS))
    j_min, j_max = T * (i0 + int(k[0])), T * (i0 + int(k[-1]))
    return max(j_min, math.floor(s_lo / h) - 1), min(j_max, math.ceil(s_hi / h) + 1)


class _TooLarge(ValueError):
    pass


#: Fourier coefficients with ``|z|^T`` below this are set to 0 (each moves at most twice this
#: much mass per grid point; counted in ``misplaced``).
_SPECTRUM_FLOOR = 1e-30
#: Rounding of ``r / h`` onto this many levels (down) before its Chernoff bound.
_R_LEVELS = 4096


def rounding_shift(r: np.ndarray, w: np.ndarray, T: int, h: float, eta: float) -> float:
    """A ``c >= 0`` with ``P(r_1 + ... + r_T < c) <= eta`` for i.i.d. roundings ``r_t`` equal
    to ``r[b]`` with probability ``w[b]`` and 0 otherwise (docs/pld.md §5).

    Chernoff: ``P(sum r < c) <= exp(lam c + T log E e^{-lam r})`` for every ``lam > 0``, so
    ``c(lam) = (log eta - T log E e^{-lam r}) / lam`` is valid for each ``lam``; the best of a
    few ``lam`` around the Bernstein optimum is taken. ``r / h`` is first rounded *down* onto
    ``_R_LEVELS`` levels (smaller roundings: the bound stays valid) so that it costs little.
    """
    if T <= 0 or not len(r):
        return 0.0
    u = np.clip(r / h, 0.0, 1.0)
    idx = np.floor(u * _R_LEVELS).astype(np.int64)
    mass = np.bincount(idx, weights=w, minlength=_R_LEVELS + 1)
    mass[0] += max(0.0, 1.0 - float(mass.sum()))                  # the rest: rounded by 0
    lv = np.arange(_R_LEVELS + 1) / _R_LEVELS
    mean = float(mass @ lv)
    var = max(float(mass @ (lv - mean) ** 2), 1e-30)
    log_eta = math.log(eta)
    lam0 = math.sqrt(2.0 * -log_eta / (T * var))
    lam = lam0 * np.geomspace(0.125, 8.0, 25)
    from scipy.special import logsumexp

    with np.errstate(divide="ignore"):  # log E e^{-lam u}, in log space (no underflow to -inf)
        psi = logsumexp(-np.outer(lam, lv) + np.log(mass)[None, :], axis=1)
    c = (log_eta - T * psi) / lam
    return max(0.0, float(np.max(c))) * h


def _power(z: np.ndarray, T: int) -> np.ndarray:
    """``z ** T`` by repeated squaring (much faster than complex ``pow``)."""
    out = None
    base = z.copy()
    while True:
        if T & 1:
            out = base.copy() if out is None else out * base
        T >>= 1
        if not T:
            return out
        base *= base


def compose(i0: int, pmf: np.ndarray, inf_mass: float, T: int, h: float,
            tail: float = TAIL_MASS, window: tuple[int, int] | None = None):
    """T-fold self-composition by one FFT power: ``(j0, pmf, inf_mass, misplaced)``.

    ``misplaced`` bounds the mass the circular convolution may have moved (the mass outside the
    Chernoff window, each side at most ``tail``, and the dropped Fourier coefficients).
    ``window``: that window if already known (``_window(i0, pmf, T, h, tail)``).
    """
    from scipy import fft as sfft  # lazy: only when a PLD is composed

    inf_T = -math.expm1(T * math.log1p(-inf_mass)) if inf_mass < 1 else 1.0
    if T == 1:
        return i0, pmf, inf_T, 0.0
    j_lo, j_hi = window if window is not None else _window(i0, pmf, T, h, tail)
    n = sfft.next_fast_len(j_hi - j_lo + 1, real=True)
    if n > _MAX_FFT:
        raise _TooLarge(f"value_interval={h:g} needs {n} grid points for T={T} compositions")
    m = len(pmf)
    if m > n:  # fold the one-step pmf modulo n (the circular convolution is unchanged)
        pad = np.zeros(-(-m // n) * n)
        pad[:m] = pmf
        pmf = pad.reshape(-1, n).sum(axis=0)
    z = sfft.rfft(pmf, n)
    # |z_k| <= 1: coefficients whose T-th power is below _SPECTRUM_FLOOR are dropped (the
    # composed PLD is smooth, so most are); that moves at most 2 * floor mass per point.
    a2 = z.real * z.real + z.imag * z.imag
    keep = np.nonzero(a2 > math.exp(2.0 * math.log(_SPECTRUM_FLOOR) / T))[0]
    zt = np.zeros_like(z)
    if len(keep):
        top = int(keep[-1]) + 1
        if len(keep) > top // 2:                     # mostly kept: power the whole low band
            zt[:top] = _power(z[:top], T)
        else:
            zt[keep] = _power(z[keep], T)
    out = sfft.irfft(zt, n)
    k0, size = (j_lo - T * i0) % n, j_hi - j_lo + 1               # the window, read circularly
    out = out[k0:k0 + size] if k0 + size <= n else np.concatenate([out[k0:], out[:k0 + size - n]])
    pruned = 2.0 * n * _SPECTRUM_FLOOR if len(keep) < len(z) else 0.0
    return j_lo, np.clip(out, 0.0, None), inf_T, 2.0 * tail + pruned


#: The read-off clips losses at +-700 (``e^L`` overflows beyond); that lowers the hockey-stick
#: divergence at ``eps`` by at most ``e^{eps - 700}`` of the mass above 700. An upper bound
#: above this is returned as ``+inf`` (below it the error is under ``e^-100``, beneath float
#: round-off of delta); a lower bound stays valid (losses clipped down only lower delta).
CLIP_TRUSTED = 600.0


def epsilon_for_delta(j0: int, pmf: np.ndarray, inf_mass: float, h: float, delta: float,
                      floor: float = 0.0, upper: bool = True) -> float:
    """Smallest ``eps >= floor`` with ``inf_mass + sum_L pmf(L) (1 - e^{eps - L})_+ <= delta``.

    ``upper``: the caller needs an upper bound, so a value above ``CLIP_TRUSTED`` (where the
    clipped read-off could understate it) is ``+inf``; ``upper=False`` for a lower bound."""
    eps = _epsilon_for_delta(j0, pmf, inf_mass, h, delta, floor)
    return math.inf if upper and eps > CLIP_TRUSTED else eps


def _epsilon_for_delta(j0: int, pmf: np.ndarray, inf_mass: float, h: float, delta: float,
                       floor: float) -> float:
    if inf_mass >= delta:
        return math.inf
    if math.isfinite(floor):  # sums from the top: the part below the floor is not needed
        cut = max(0, min(len(pmf) - 1, math.floor(floor / h) - 1 - j0))
        j0, pmf = j0 + cut, pmf[cut:]
    loss = np.clip((j0 + np.arange(len(pmf))) * h, -700.0, 700.0)
    # From the top: S_t = sum_{u >= t} p_u and E_t = sum_{u >= t} p_u e^{-L_u}.
    s = np.cumsum(pmf[::-1])[::-1]
    e = np.cumsum((pmf * np.exp(-loss))[::-1])[::-1]
    # delta(eps = L_t) = inf + S_{t+1} - e^{L_t} E_{t+1}: decreasing in t
    d = inf_mass + np.append(s[1:], 0.0) - np.exp(loss) * np.append(e[1:], 0.0)
    t = int(np.argmax(d <= delta))
    if d[t] > delta:
        return math.inf
    # on (L_{t-1}, L_t] (t = 0: below L_0) delta(eps) = inf + S_t - e^eps E_t exactly
    if inf_mass + s[t] <= delta:
        return floor
    eps = min(math.log((inf_mass + s[t] - delta) / e[t]), float(loss[t]))
    return max(eps, floor)


def delta_for_epsilon(j0: int, pmf: np.ndarray, inf_mass: float, h: float, eps: float) -> float:
    """Hockey-stick divergence ``inf_mass + sum_L pmf(L) (1 - e^{eps - L})_+`` of a grid PLD."""
    loss = (j0 + np.arange(len(pmf))) * h
    keep = loss > eps
    return float(inf_mass + np.dot(pmf[keep], -np.expm1(eps - loss[keep])))
