"""Privacy-loss-distribution (PLD) accounting of DP-CDA as implemented (``class-aware-pld``).

Derivation, validity and error bounds: ``docs/pld.md``. In short, for the label-preserving
replace-one relation one mixture of class k (an l-subset drawn without replacement from N_k
records, sensitivity 2c/l) is dominated for every order alpha >= 1, in both directions, by

    P' = gamma * N(s, 1) + (1 - gamma) * N(0, 1),   Q' = N(0, 1),   s = 2c / (l sigma_x),

``gamma = l / N_k`` (Balle, Barthe & Gaboardi 2018, Theorems 2 and 10; Zhu, Dong & Wang,
AISTATS 2022). For all orders (what composition needs) the accountant uses the *symmetrised*
pair: the positive losses of (P', Q'), mirrored (docs/pld.md §3; Dong, Roth & Su 2022, Thm 4.2).
The per-direction maximum that ``dp_accounting`` computes for this pair is realised by datasets,
so it is a lower bound on Algorithm 1's worst case (:func:`directional_epsilon`, §4).

The loss of one step is put on the grid ``{i h}``: *pessimistically* by splitting each bucket's
mass between its ends ("connect the dots", Doroshenko et al. 2022), an upper bound; and
*optimistically* by contracting each bucket to one loss and rounding down, shifted back by a
Chernoff bound on the total rounding, a lower bound (§5). Both are composed ``T_k`` times by one
FFT power on a window chosen by Chernoff bounds (the mass outside it is added to delta, or
subtracted), and epsilon for ``delta`` is read off the hockey-stick divergence exactly (§6). The
grid step is chosen per setting from the width of that window (:func:`auto_value_intervals`):
the lower bound on the finer grid, the upper bound (second-order error) on one twice as coarse.

Pure numpy/scipy, vectorised over the grid; no torch.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import ndtr, ndtri

#: The previous fixed loss-grid step for one epsilon (now chosen per setting, see
#: :func:`auto_value_intervals`; still the default of :func:`directional_epsilon`), and the
#: coarsest step of the curves (Figure 4), which use ``CURVE`` (that step, doubled for wide
#: windows).
VALUE_INTERVAL = 1e-4
CURVE_VALUE_INTERVAL = 1e-3
CURVE = "curve"
#: Mass allowed outside the one-step grid (and at least this outside the composition window).
TAIL_MASS = 1e-15
#: Mass allowed outside the composition window, each side, as a fraction of delta (it is
#: subtracted from delta for the upper bound and added for the lower one).
TAIL_FRACTION = 1e-5
#: The automatic grid: the lower bound's step is the finest of ``_LADDER`` whose composition
#: window has at most this many points (its error is first order: ~ step * sqrt(T), docs/pld.md
#: §5); the upper bound's is twice that (its error is second order in the step).
LOWER_POINTS = 1 << 17
#: The curve grid: ``CURVE_VALUE_INTERVAL * 2^k``, the smallest with at most this many points.
CURVE_POINTS = 1 << 15
_LAMBDAS = np.geomspace(0.03, 30.0, 16)
_MAX_FFT = 1 << 22
#: At most this many grid points for one step (larger losses: a coarser, still valid grid).
_MAX_STEP = 400_000


@dataclass(frozen=True)
class PLDEpsilon:
    """Epsilon of one setting: ``epsilon`` (upper bound) and ``epsilon_lower`` (lower bound)."""

    epsilon: float
    epsilon_lower: float
    #: The grid step behind ``epsilon_lower`` (behind ``epsilon`` when no lower bound was asked).
    value_interval: float
    #: The grid step behind ``epsilon`` (the automatic choice uses a coarser one there).
    upper_value_interval: float | None = None

    @property
    def width(self) -> float:
        """Discretisation bound: the exact epsilon of the pair lies in ``[lower, epsilon]``."""
        return self.epsilon - self.epsilon_lower


def _interval_mass(lo, hi, shift):
    """``Phi(hi - shift) - Phi(lo - shift)`` without cancellation in the upper tail."""
    a, b = lo - shift, hi - shift
    return np.where(a > 0, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))


def _x_of_loss(loss, s, gamma):
    """Point where ``L(x) = log(1 - gamma + gamma exp(s x - s^2/2))`` reaches ``loss``."""
    loss = np.asarray(loss, dtype=float)
    out = np.full(loss.shape, -np.inf)
    ok = loss > math.log1p(-gamma)
    lv = loss[ok]
    # log(e^L - (1 - gamma)) = L + log1p(-(1 - gamma) e^{-L})
    out[ok] = (lv + np.log1p(-(1.0 - gamma) * np.exp(-lv)) - math.log(gamma)) / s + s / 2.0
    return out


def _loss_of_x(x, s, gamma):
    return np.logaddexp(math.log1p(-gamma), math.log(gamma) + s * x - s * s / 2.0)


def _mix_mass(lo, hi, s, gamma):
    return gamma * _interval_mass(lo, hi, s) + (1.0 - gamma) * _interval_mass(lo, hi, 0.0)


def _z_tail(tail: float = TAIL_MASS) -> float:
    return -float(ndtri(tail))  # Phi(-z) = tail


def _connect_dots(p_int, q_int, a, h):
    """Share of each bucket ``(a, a + h]`` put at ``a + h``: the chord through the exact
    hockey-stick values at ``e^a`` and ``e^{a+h}`` (Doroshenko et al. 2022)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lstar = np.log(p_int) - np.log(q_int)          # the bucket's e^-L-mean loss, in (a, a+h]
        share = -np.expm1(np.minimum(a - lstar, 0.0)) / -math.expm1(-h)
    return np.where(p_int > 0, np.clip(p_int * share, 0.0, p_int), 0.0)


@dataclass(frozen=True)
class _Masses:
    """One step's masses on the grid ``{k h}``: bucket ``k`` is ``(k h, (k+1) h]`` of positive
    loss, with ``p[k] = P'(L in it)`` for ``k < K_p`` and ``q[k] = Q'(L in it)`` for
    ``k < K_n`` (the mirrored negative side, cut at ``-K_n h``); ``p_tail = P'(L > K_p h)``,
    ``q_tail = Q'(L > K_n h)``, ``zero`` the symmetrised PLD's atom at 0."""

    h: float
    p: np.ndarray
    q: np.ndarray
    p_tail: float
    q_tail: float
    zero: float


def _step_masses(s: float, gamma: float, h: float, tail: float, cut: bool) -> _Masses:
    """Bucket masses of one step (docs/pld.md §5). ``cut``: the grid ends where ``P'`` (top) and
    ``Q'`` (mirrored bottom) leave at most ``tail`` each; else both sides end at ``s + z``."""
    z = _z_tail(tail)
    x_top = s + z
    if cut and gamma < 0.5:  # P'(x > x_top) <= gamma Phi(s - x_top) + Phi(-x_top) <= tail
        x_top = max(s + _z_tail(tail / (2.0 * gamma)), _z_tail(tail / 2.0))
    K_p = max(1, math.ceil(float(_loss_of_x(np.array(x_top), s, gamma)) / h))
    K_n = max(1, min(K_p, math.ceil(float(_loss_of_x(np.array(z), s, gamma)) / h))) if cut else K_p
    edges = np.arange(K_p + 1) * h                                  # buckets (e_k, e_k+1], L > 0
    xs = _x_of_loss(edges, s, gamma)                                # >= s/2 > 0: L > 0 <=> x > s/2
    sf0 = ndtr(-xs)                                                 # Q'(x > edge), no cancellation
    sf_p = gamma * ndtr(s - xs) + (1.0 - gamma) * sf0
    p = sf_p[:-1] - sf_p[1:]
    q = sf0[:K_n] - sf0[1:K_n + 1]
    zero = max(0.0, 1.0 - float(sf_p[0]) - float(sf0[0]))
    return _Masses(h, p, q, float(sf_p[-1]), float(sf0[K_n]), zero)


def _coarsen(m: _Masses, k: int) -> _Masses:
    """The same masses on the grid of step ``k h`` (sums of k buckets; the negative side's
    partial last group joins its tail). Only for the pessimistic grid (rounding up is valid)."""
    if k == 1:
        return m
    K_p = -(-len(m.p) // k)
    p = np.zeros(K_p * k)
    p[:len(m.p)] = m.p
    K_n = len(m.q) // k
    q = m.q[:K_n * k].reshape(K_n, k).sum(axis=1)
    q_tail = m.q_tail + float(m.q[K_n * k:].sum())
    return _Masses(m.h * k, p.reshape(K_p, k).sum(axis=1), q, m.p_tail, q_tail, m.zero)


def _pessimistic(m: _Masses):
    """Connect the dots (Doroshenko et al. 2022): each bucket's mass split between its ends so
    that the hockey-stick curve is the chord through the exact values at the grid points."""
    h, p, q = m.h, m.p, m.q
    K_p, K_n = len(p), len(q)
    k_big = min(K_p, math.floor(600.0 / h))                         # e^a overflows beyond
    ea = np.exp(np.arange(k_big) * h)                               # e^a, a the bucket's bottom
    c = 1.0 / -math.expm1(-h)
    eq = np.zeros(K_p)                                              # e^a q (<= p: l* > a)
    n = min(K_n, k_big)
    eq[:n] = ea[:n] * q[:n]
    if K_n > k_big:
        with np.errstate(divide="ignore", invalid="ignore"):
            big = np.arange(k_big, K_n)
            eq[big] = np.where(q[big] > 0, np.exp(big * h + np.log(q[big])), 0.0)
    up = np.clip((p - eq) * c, 0.0, p)                              # positive part at (k+1) h
    # mirrored bucket (-(k+1)h, -k h]: mass q there, the other side p; its part at -k h:
    with np.errstate(over="ignore", under="ignore"):
        e_neg = np.exp(-(np.arange(K_n) + 1.0) * h)
    dn = np.clip((q - p[:K_n] * e_neg) * c, 0.0, q)
    pmf = np.zeros(K_n + K_p + 1)                                   # losses -K_n h .. K_p h
    mid = K_n
    pmf[mid + 1:] += up
    pmf[mid:-1] += p - up
    pmf[1:mid + 1] += dn[::-1]
    pmf[:mid] += (q - dn)[::-1]
    pmf[0] += m.q_tail                                              # rounded up to -K_n h
    pmf[mid] += m.zero
    return -K_n, pmf, m.p_tail


def _optimistic(m: _Masses):
    """Each bucket contracted to ``l* = log(p/q)`` (the conditional mean of e^-L) and rounded
    down; returns ``(i0, pmf, r, w)``: the roundings ``r`` with their masses ``w``."""
    h, p, q = m.h, m.p, m.q
    K_p, K_n = len(p), len(q)
    a = np.arange(K_p) * h
    with np.errstate(divide="ignore", invalid="ignore"):
        lstar = np.log(p) - np.log(np.append(q, np.zeros(K_p - K_n)))
    r_pos = np.where(p > 0, np.clip(lstar - a, 0.0, h), 0.0)
    r_neg = np.where(q > 0, np.clip(a[:K_n] + h - lstar[:K_n], 0.0, h), 0.0)
    pmf = np.zeros(K_n + K_p + 1)
    mid = K_n
    pmf[mid:-1] += p
    pmf[:mid] += q[::-1]
    pmf[mid] += m.zero
    pmf[-1] += m.p_tail                                             # rounded down to K_p h
    return -K_n, pmf, np.concatenate([r_pos, r_neg]), np.concatenate([p, q])


def symmetric_step(s: float, gamma: float, h: float, pessimistic: bool, rounding: bool = False,
                   tail: float = TAIL_MASS):
    """One step of the symmetrised dominating pair, discretised on ``{i h}`` (docs/pld.md §3).

    Returns ``(i0, pmf, inf_mass, mean_r)``: grid point ``k`` is loss ``(i0 + k) h``; ``mean_r``
    (optimistic only) is the mean amount by which the contracted losses were rounded down, or
    with ``rounding=True`` the pair ``(r, w)``: the roundings and their masses (the rest of the
    mass is rounded by 0), for a tail bound on their sum (:func:`rounding_shift`). Losses
    beyond ``x = s + z`` with ``Phi(-z) = tail`` are the ``+inf`` loss (pessimistic; at most
    ``tail`` mass) or rounded down to the top (optimistic).
    """
    m = _step_masses(s, gamma, h, tail, cut=False)
    if pessimistic:
        i0, pmf, inf_mass = _pessimistic(m)
        return i0, pmf, inf_mass, 0.0
    i0, pmf, r, w = _optimistic(m)
    return i0, pmf, 0.0, ((r, w) if rounding else float(np.dot(r, w)))


def directional_step(s: float, gamma: float, h: float, direction: str):
    """Pessimistic (connect-the-dots) PLD of one direction of the pair: ``"remove"`` is
    ``log P'/Q'`` under ``P'``, ``"add"`` ``log Q'/P'`` under ``Q'``. ``(i0, pmf, inf_mass)``.

    The maximum over both directions is what ``dp_accounting`` reports for this pair; it is a
    lower bound on what Algorithm 1 can spend, not an upper bound (docs/pld.md §4).
    """
    z_t = _z_tail()
    lo_loss = math.log1p(-gamma)
    if direction == "remove":
        top = float(_loss_of_x(np.array(s + z_t), s, gamma))
        i_lo, i_hi = math.floor(lo_loss / h), math.ceil(top / h)
        edges = np.arange(i_lo, i_hi + 1) * h
        xs = np.append(_x_of_loss(edges, s, gamma), np.inf)
        p_int = _mix_mass(xs[:-1], xs[1:], s, gamma)
        q_int = _interval_mass(xs[:-1], xs[1:], 0.0)
        inf_mass, low_tail = float(p_int[-1]), 0.0
        p_int, q_int = p_int[:-1], q_int[:-1]
    elif direction == "add":
        bottom = -float(_loss_of_x(np.array(z_t), s, gamma))
        i_lo, i_hi = math.floor(bottom / h), math.ceil(-lo_loss / h)
        edges = np.arange(i_lo, i_hi + 1) * h                      # -L in (e_k, e_k+1]
        xs = _x_of_loss(-edges, s, gamma)                          # decreasing
        p_int = _interval_mass(xs[1:], xs[:-1], 0.0)
        q_int = _mix_mass(xs[1:], xs[:-1], s, gamma)
        inf_mass, low_tail = 0.0, float(ndtr(-xs[0]))
    else:
        raise ValueError(f"direction must be one of remove, add, got direction={direction!r}")
    pmf = np.zeros(len(edges))
    up = _connect_dots(p_int, q_int, edges[:-1], h)
    pmf[1:] += up
    pmf[:-1] += p_int - up
    pmf[0] += low_tail
    return i_lo, pmf, inf_mass


def _log_mgf(i0: int, pmf: np.ndarray, h: float, lam: np.ndarray) -> np.ndarray:
    """``log sum_k pmf_k exp(lam L_k)`` for every ``lam`` (either sign), exactly, with few
    exponentials: ``L_k = L_{b0} + j h`` on blocks of B points, so the sum is a log-sum-exp over
    blocks of ``log(P v) + lam L_{b0}`` (no underflowing weights: those make BLAS slow)."""
    B = max(1, math.isqrt(len(pmf)))
    m = -(-len(pmf) // B) * B
    P = np.zeros(m)
    P[: len(pmf)] = pmf
    P = P.reshape(-1, B)
    base = (i0 + np.arange(P.shape[0]) * B) * h
    lam = np.asarray(lam, dtype=float)
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
    with np.errstate(over="ignore"):
        psi = np.log(np.einsum("lu,u->l", np.exp(-np.outer(lam, lv)), mass))  # log E e^{-lam u}
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


def epsilon_for_delta(j0: int, pmf: np.ndarray, inf_mass: float, h: float, delta: float,
                      floor: float = 0.0) -> float:
    """Smallest ``eps >= floor`` with ``inf_mass + sum_L pmf(L) (1 - e^{eps - L})_+ <= delta``."""
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


def _tail(delta: float) -> float:
    return max(TAIL_MASS, TAIL_FRACTION * delta)


#: Steps of the automatic grid: divisors of ``CURVE_VALUE_INTERVAL`` (each grid contains the
#: curve grid, so its connect-the-dots epsilon is never above the curve's), then multiples.
_LADDER = tuple(CURVE_VALUE_INTERVAL / d for d in (40, 20, 10, 8, 4, 2))


def _doubled(h: float, needed: float) -> float:
    """``h * 2^k`` for the smallest ``k >= 0`` with ``h * 2^k >= needed``."""
    return h if needed <= h else h * 2.0 ** math.ceil(math.log2(needed / h) - 1e-12)


@lru_cache(maxsize=4096)
def auto_value_intervals(s: float, gamma: float, T: int, delta: float) -> tuple[float, float, float]:
    """``(h_upper, h_lower, h_curve)``: the grid steps of the automatic choice for one setting.

    The composition window (Chernoff, as in :func:`compose`) is measured on the curve grid;
    ``h_lower`` is the finest step of ``_LADDER`` that keeps it (and one step's grid) within
    ``LOWER_POINTS`` points, ``h_upper = 2 h_lower`` (the upper bound's error is second order in
    the step, the lower bound's first order), ``h_curve`` the finest ``1e-3 * 2^k`` within
    ``CURVE_POINTS``. Every grid contains the coarser ones (so a coarser grid's epsilon is never
    below a finer one's): up to 5e-4 / 1e-3 the steps divide 1e-3, beyond they double.
    """
    if not (s > 0 and math.isfinite(s)):
        return CURVE_VALUE_INTERVAL, CURVE_VALUE_INTERVAL, CURVE_VALUE_INTERVAL
    gamma = min(gamma, 1.0 - 1e-12)
    h = _doubled(CURVE_VALUE_INTERVAL, _top(s, gamma) / _MAX_STEP)
    i0, pmf, _ = _pess(s, gamma, h, _step_tail(T, delta))
    j_lo, j_hi = _window(i0, pmf, T, h, _tail(delta))
    _remember(_WINDOWS, (s, gamma, T, delta, h), lambda: (j_lo, j_hi))
    span = max(j_hi - j_lo + 1, len(pmf)) * h
    curve = _doubled(h, span / CURVE_POINTS)
    for step in _LADDER:
        if span / step <= LOWER_POINTS:
            return 2.0 * step, step, curve
    step = _doubled(_LADDER[-1], span / LOWER_POINTS)
    return 2.0 * step, step, curve


def check_value_interval(value_interval) -> float:
    """The loss-grid step: a number in [1e-6, 0.1]."""
    try:
        h = float(value_interval)
    except (TypeError, ValueError):
        h = math.nan
    if not (1e-6 <= h <= 0.1):
        raise ValueError(f"value_interval must be a number in [1e-6, 0.1] (the privacy-loss grid "
                         f"step), got value_interval={value_interval!r}")
    return h


def _check(s, gamma, T, delta, h):
    if isinstance(T, bool) or not (isinstance(T, (int, np.integer)) and T >= 1):
        raise ValueError(f"T must be an integer >= 1, got T={T!r}")
    if not (0.0 < gamma <= 1.0):
        raise ValueError(f"gamma must be in (0, 1] (l / N_k), got gamma={gamma!r}")
    if not (0.0 < delta < 1.0):
        raise ValueError(f"delta must be in (0, 1), got delta={delta!r}")
    if not s >= 0:
        raise ValueError(f"s must be >= 0 (sensitivity / sigma), got s={s!r}")
    if h is not None:
        check_value_interval(h)


def class_bounds(s: float, gamma: float, T: int, delta: float, value_interval: float | None,
                 lower: bool) -> PLDEpsilon:
    """Cached :func:`pld_bounds` (pages and calibration ask for the same point repeatedly);
    ``value_interval=None``: the automatic grids (:func:`auto_value_intervals`)."""
    s, gamma, T, delta = float(s), float(gamma), int(T), float(delta)
    if value_interval == CURVE:
        upper, h = _upper(s, gamma, T, delta, auto_value_intervals(s, gamma, T, delta)[2])
        return PLDEpsilon(upper, math.nan, h, h)
    if value_interval is not None:
        upper, h = _upper(s, gamma, T, delta, float(value_interval))
        if not lower:
            return PLDEpsilon(upper, math.nan, h, h)
        low, h_low = _lower(s, gamma, T, delta, h)
        return PLDEpsilon(upper, min(low, upper), h_low, h)
    h_up, h_low, _ = auto_value_intervals(s, gamma, T, delta)
    if not lower:
        upper, h = _upper(s, gamma, T, delta, h_up)
        return PLDEpsilon(upper, math.nan, h, h)
    low, h_low = _lower(s, gamma, T, delta, h_low)  # first: _upper reuses its step masses
    upper, h = _upper(s, gamma, T, delta, h_up)
    return PLDEpsilon(upper, min(low, upper), h_low, h)


def max_over_classes(s: float, rates, delta: float, value_interval: float | str | None,
                     lower: bool) -> PLDEpsilon:
    """:func:`class_bounds` of the class with the largest epsilon, over ``rates`` (the
    ``(gamma, T)`` of every class; the release's epsilon is the maximum, docs/pld.md §1).

    Exactly the maximum of the upper bounds and of the lower bounds, without computing every
    class on the fine grid: each class's curve-grid epsilon (an upper bound of its fine one) is
    computed first, the classes are taken from the largest, and a class is skipped once that
    bound is at most the maximum found (and, with ``lower``, below the largest lower bound):
    neither maximum can come from it. ``value_interval`` of the result: the worst class's."""
    rates = sorted({(float(g), int(t)) for g, t in rates})
    if len(rates) == 1 or value_interval == CURVE:
        best = None
        for g, t in rates:
            b = class_bounds(s, g, t, delta, value_interval, lower)
            best = b if best is None or b.epsilon > best.epsilon else best
        return best
    coarse = sorted(((class_bounds(s, g, t, delta, CURVE, False).epsilon, g, t)
                     for g, t in rates), reverse=True)
    best, low = None, -math.inf
    for bound, g, t in coarse:
        if best is not None and bound <= best.epsilon and (not lower or bound < low):
            continue
        b = class_bounds(s, g, t, delta, value_interval, lower)
        low = max(low, b.epsilon_lower) if lower else low
        best = b if best is None or b.epsilon > best.epsilon else best
    return dataclasses.replace(best, epsilon_lower=low) if lower else best


def pld_bounds(*, s: float, gamma: float, T: int, delta: float,
               value_interval: float | None = None, lower: bool = True) -> PLDEpsilon:
    """Epsilon of ``T`` compositions of the symmetrised pair with ``mu/sigma = s``, rate gamma.

    ``epsilon`` is an upper bound (connect the dots); ``epsilon_lower`` (``lower=True``) a lower
    bound on the same pair's epsilon: rounded-down contracted losses, shifted by a Chernoff
    bound on the total rounding (docs/pld.md §5). ``s = 0``: no privacy loss (0); ``s = inf``
    (no noise): infinity. ``value_interval``: the loss-grid step (None: chosen per setting,
    :func:`auto_value_intervals`; ``CURVE``: the curves' grid, upper bound only). Where the
    losses are huge the grid is coarsened (the result names the steps used).
    """
    h = None if value_interval in (None, CURVE) else check_value_interval(value_interval)
    _check(s, gamma, T, delta, h)
    return class_bounds(s, gamma, T, delta, value_interval if h is None else h, lower)


def _top(s: float, gamma: float) -> float:
    return float(_loss_of_x(np.array(s + _z_tail()), s, gamma))


def _step_tail(T: int, delta: float) -> float:
    """Mass each side of one step may leave off its grid: ``T`` steps leave ``TAIL_FRACTION``
    of delta (as +inf loss or rounded up for the upper bound; dropped for the lower one)."""
    return max(TAIL_MASS, TAIL_FRACTION * delta / T)


#: The last few steps' masses, so that the upper bound reuses the lower bound's (its grid is
#: twice as coarse: :func:`_coarsen`), and the composition windows measured by
#: :func:`auto_value_intervals` (the curve's pessimistic grid is often the same).
_RECENT: dict = {}
_WINDOWS: dict = {}
_LOCK = threading.Lock()


def _remember(store: dict, key, make, size: int = 8):
    """``store[key]``, made by ``make()`` if absent; the oldest entries beyond ``size`` go."""
    got = store.get(key)
    if got is None:
        got = make()
        with _LOCK:  # pages call from several threads
            store[key] = got
            while len(store) > size:
                store.pop(next(iter(store)))
    return got


def _pess(s: float, gamma: float, h: float, tail: float):
    """:func:`_pessimistic` of :func:`_masses`, remembered with them."""
    return _remember(_RECENT, ("pess", s, gamma, h, tail),
                     lambda: _pessimistic(_masses(s, gamma, h, tail)))


def _masses(s: float, gamma: float, h: float, tail: float) -> _Masses:
    def make():
        half = _RECENT.get((s, gamma, h / 2.0, tail))
        return _coarsen(half, 2) if half is not None else _step_masses(s, gamma, h, tail,
                                                                       cut=True)
    return _remember(_RECENT, (s, gamma, h, tail), make)


@lru_cache(maxsize=4096)
def _upper(s: float, gamma: float, T: int, delta: float, h: float) -> tuple[float, float]:
    if not s > 0:
        return 0.0, h
    if not math.isfinite(s):
        return math.inf, h
    gamma = min(gamma, 1.0 - 1e-12)
    h = _doubled(h, _top(s, gamma) / _MAX_STEP)
    tail = _step_tail(T, delta)
    while True:  # a coarser grid is still a valid bound; used where the losses are huge
        try:
            i0, pmf, inf_m = _pess(s, gamma, h, tail)
            j0, c, inf_T, misplaced = compose(i0, pmf, inf_m, T, h, _tail(delta),
                                              _WINDOWS.get((s, gamma, T, delta, h)))
            break
        except _TooLarge:
            h *= 4.0
    return epsilon_for_delta(j0, c, inf_T, h, delta - misplaced), h


@lru_cache(maxsize=4096)
def _lower(s: float, gamma: float, T: int, delta: float, h: float) -> tuple[float, float]:
    if not s > 0:
        return 0.0, h
    if not math.isfinite(s):
        return math.inf, h
    gamma = min(gamma, 1.0 - 1e-12)
    eta = 1e-3 * delta
    h = _doubled(h, _top(s, gamma) / _MAX_STEP)
    tail = _step_tail(T, delta)
    while True:  # a coarser grid is still a valid (wider) bound
        try:
            i0, pmf, r, w = _optimistic(_masses(s, gamma, h, tail))
            j0, c, inf_T, misplaced = compose(i0, pmf, 0.0, T, h, _tail(delta))
            break
        except _TooLarge:
            h *= 4.0
    shift = rounding_shift(r, w, T, h, eta)
    low = epsilon_for_delta(j0, c, inf_T, h, delta + eta + misplaced, floor=-shift)
    return max(low + shift, 0.0), h


def start_noise(epsilon: float, delta: float, rates) -> float:
    """A starting point for calibration, not a bound: the ``s = mu / sigma`` at which the central
    limit theorem for subsampled Gaussians (Bu, Dong, Long & Su 2020: ``T`` steps at rate gamma
    are close to ``mu``-GDP with ``mu = gamma sqrt(T (e^{s^2} - 1))``) gives ``epsilon`` at
    ``delta``; ``rates``: the ``(gamma, T)`` of every class (the largest ``gamma^2 T`` counts)."""
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    eps = float(epsilon)

    def excess(mu: float) -> float:  # delta(eps) of mu-GDP, minus delta (increasing in mu)
        return (math.exp(float(log_ndtr(-eps / mu + mu / 2)))
                - math.exp(eps + float(log_ndtr(-eps / mu - mu / 2))) - delta)

    lo, hi = 1e-3, 60.0
    mu = lo if excess(lo) >= 0 else hi if excess(hi) <= 0 else brentq(excess, lo, hi, xtol=1e-6)
    g2t = max(g * g * t for g, t in rates)
    return math.sqrt(math.log1p(mu * mu / g2t))


def directional_epsilon(*, s: float, gamma: float, T: int, delta: float,
                        value_interval: float = VALUE_INTERVAL,
                        directions: tuple[str, ...] = ("remove", "add")) -> float:
    """Max over ``directions`` of the composed one-direction epsilon (what ``dp_accounting``'s
    ``from_gaussian_mechanism(sampling_prob=gamma)`` gives); a lower bound for Algorithm 1."""
    h = check_value_interval(value_interval)
    _check(s, gamma, T, delta, h)
    out = 0.0
    for d in directions:
        i0, pmf, inf_m = directional_step(s, gamma, h, d)
        j0, c, inf_T, misplaced = compose(i0, pmf, inf_m, T, h)
        out = max(out, epsilon_for_delta(j0, c, inf_T, h, delta - misplaced))
    return out
