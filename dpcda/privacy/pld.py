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
Hoeffding bound on the total rounding, a lower bound (§5). Both are composed ``T_k`` times by one
FFT power on a window chosen by Chernoff bounds (the mass outside it is added to delta, or
subtracted), and epsilon for ``delta`` is read off the hockey-stick divergence exactly (§6).

Pure numpy/scipy, vectorised over the grid; no torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import ndtr, ndtri

#: Default loss-grid step for one epsilon, and the coarser step used for curves (Figure 4).
VALUE_INTERVAL = 1e-4
CURVE_VALUE_INTERVAL = 1e-3
#: Mass allowed outside the one-step grid and outside the composition window (each).
TAIL_MASS = 1e-15
_LAMBDAS = np.geomspace(0.03, 30.0, 8)
_MAX_FFT = 1 << 22
#: At most this many grid points for one step (larger losses: a coarser, still valid grid).
_MAX_STEP = 400_000


@dataclass(frozen=True)
class PLDEpsilon:
    """Epsilon of one setting: ``epsilon`` (upper bound) and ``epsilon_lower`` (lower bound)."""

    epsilon: float
    epsilon_lower: float
    value_interval: float

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


def _z_tail() -> float:
    return -float(ndtri(TAIL_MASS))  # Phi(-z) = TAIL_MASS


def _connect_dots(p_int, q_int, a, h):
    """Share of each bucket ``(a, a + h]`` put at ``a + h``: the chord through the exact
    hockey-stick values at ``e^a`` and ``e^{a+h}`` (Doroshenko et al. 2022)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lstar = np.log(p_int) - np.log(q_int)          # the bucket's e^-L-mean loss, in (a, a+h]
        share = -np.expm1(np.minimum(a - lstar, 0.0)) / -math.expm1(-h)
    return np.where(p_int > 0, np.clip(p_int * share, 0.0, p_int), 0.0)


def symmetric_step(s: float, gamma: float, h: float, pessimistic: bool):
    """One step of the symmetrised dominating pair, discretised on ``{i h}`` (docs/pld.md §3).

    Returns ``(i0, pmf, inf_mass, mean_r)``: grid point ``k`` is loss ``(i0 + k) h``; ``mean_r``
    (optimistic only) is the mean amount by which the contracted losses were rounded down.
    """
    top = float(_loss_of_x(np.array(s + _z_tail()), s, gamma))
    K = max(1, math.ceil(top / h))
    edges = np.arange(K + 1) * h                                   # buckets (e_k, e_k+1], L > 0
    xs = _x_of_loss(edges, s, gamma)                                # >= s/2 > 0: L > 0 <=> x > s/2
    sf0 = np.append(ndtr(-xs), 0.0)                                 # Q'(x > edge), no cancellation
    sf_p = gamma * np.append(ndtr(s - xs), 0.0) + (1.0 - gamma) * sf0
    p_all = sf_p[:-1] - sf_p[1:]                                    # P'(L in bucket); last: tail
    q_all = sf0[:-1] - sf0[1:]                                      # Q'(L in bucket)
    p_int, q_int, p_tail, q_tail = p_all[:-1], q_all[:-1], float(p_all[-1]), float(q_all[-1])
    zero = max(0.0, 1.0 - float(sf_p[0]) - float(sf0[0]))
    pmf = np.zeros(2 * K + 1)                                       # losses -K h .. K h
    mid = K
    a = edges[:-1]
    if pessimistic:
        up = _connect_dots(p_int, q_int, a, h)                      # positive part at (k+1) h
        pmf[mid + 1:] += up
        pmf[mid:-1] += p_int - up
        # mirrored negative part: mass Q' at -L, other side P'; bucket (-(k+1)h, -k h]
        dn = _connect_dots(q_int, p_int, -(a + h), h)               # at -k h
        pmf[mid - np.arange(K)] += dn
        pmf[mid - np.arange(1, K + 1)] += q_int - dn
        pmf[0] += q_tail                                            # rounded up to -K h
        pmf[mid] += zero
        return -K, pmf, p_tail, 0.0
    # optimistic: contract each bucket to l* = log(P/Q) (conditional mean of e^-L), round down
    with np.errstate(divide="ignore", invalid="ignore"):
        lstar = np.log(p_int) - np.log(q_int)
    r_pos = np.where(p_int > 0, np.clip(lstar - a, 0.0, h), 0.0)
    r_neg = np.where(q_int > 0, np.clip(a + h - lstar, 0.0, h), 0.0)
    pmf[mid:-1] += p_int
    pmf[mid - np.arange(1, K + 1)] += q_int
    pmf[mid] += zero
    pmf[-1] += p_tail                                                # rounded down to K h
    mean_r = float(np.dot(p_int, r_pos) + np.dot(q_int, r_neg))
    return -K, pmf, 0.0, mean_r


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
    exponentials: ``L_k = L_{b0} + j h`` on blocks of B points, so the sum is ``u^T P v``."""
    B = max(1, math.isqrt(len(pmf)))
    m = -(-len(pmf) // B) * B
    P = np.zeros(m)
    P[: len(pmf)] = pmf
    P = P.reshape(-1, B)
    base = (i0 + np.arange(P.shape[0]) * B) * h
    out = np.empty(len(lam))
    for i, a in enumerate(lam):
        ref = base[-1] if a > 0 else base[0]                         # u <= 1: no overflow
        u = np.exp(a * (base - ref))
        v = np.exp(a * h * np.arange(B))
        out[i] = math.log(float(u @ (P @ v))) + a * ref
    return out


def _window(i0: int, pmf: np.ndarray, T: int, h: float):
    """Indices ``[j_lo, j_hi]`` of the T-fold sum holding all but ``TAIL_MASS`` on each side
    (Chernoff: ``P(S > s) <= exp(T log M(lam) - lam s)``, minimised over a grid of ``lam``)."""
    k = np.nonzero(pmf)[0]
    log_m = _log_mgf(i0, pmf, h, np.concatenate([_LAMBDAS, -_LAMBDAS]))
    log_m_up, log_m_dn = log_m[: len(_LAMBDAS)], log_m[len(_LAMBDAS):]
    log_tau = math.log(TAIL_MASS)
    s_hi = float(np.min((T * log_m_up - log_tau) / _LAMBDAS))
    s_lo = float(np.max((log_tau - T * log_m_dn) / _LAMBDAS))
    j_min, j_max = T * (i0 + int(k[0])), T * (i0 + int(k[-1]))
    return max(j_min, math.floor(s_lo / h) - 1), min(j_max, math.ceil(s_hi / h) + 1)


class _TooLarge(ValueError):
    pass


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


def compose(i0: int, pmf: np.ndarray, inf_mass: float, T: int, h: float):
    """T-fold self-composition by one FFT power: ``(j0, pmf, inf_mass, misplaced)``.

    ``misplaced`` bounds the mass the circular convolution may have moved (the mass outside the
    Chernoff window, each side at most ``TAIL_MASS``).
    """
    from scipy import fft as sfft  # lazy: only when a PLD is composed

    inf_T = -math.expm1(T * math.log1p(-inf_mass)) if inf_mass < 1 else 1.0
    if T == 1:
        return i0, pmf, inf_T, 0.0
    j_lo, j_hi = _window(i0, pmf, T, h)
    n = sfft.next_fast_len(j_hi - j_lo + 1, real=True)
    if n > _MAX_FFT:
        raise _TooLarge(f"value_interval={h:g} needs {n} grid points for T={T} compositions")
    m = len(pmf)
    if m > n:  # fold the one-step pmf modulo n (the circular convolution is unchanged)
        pad = np.zeros(-(-m // n) * n)
        pad[:m] = pmf
        pmf = pad.reshape(-1, n).sum(axis=0)
    out = sfft.irfft(_power(sfft.rfft(pmf, n), T), n)
    out = np.roll(out, -((j_lo - T * i0) % n))[: j_hi - j_lo + 1]
    return j_lo, np.clip(out, 0.0, None), inf_T, 2.0 * TAIL_MASS


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
    check_value_interval(h)


def class_bounds(s: float, gamma: float, T: int, delta: float, value_interval: float,
                 lower: bool) -> PLDEpsilon:
    """Cached :func:`pld_bounds` (pages and calibration ask for the same point repeatedly)."""
    upper, h = _upper(float(s), float(gamma), int(T), float(delta), float(value_interval))
    low = _lower(float(s), float(gamma), int(T), float(delta), h, upper) if lower else math.nan
    return PLDEpsilon(upper, low, h)


def pld_bounds(*, s: float, gamma: float, T: int, delta: float,
               value_interval: float = VALUE_INTERVAL, lower: bool = True) -> PLDEpsilon:
    """Epsilon of ``T`` compositions of the symmetrised pair with ``mu/sigma = s``, rate gamma.

    ``epsilon`` is an upper bound (connect the dots); ``epsilon_lower`` (``lower=True``) a lower
    bound on the same pair's epsilon: rounded-down contracted losses, shifted by a Hoeffding
    bound on the total rounding (docs/pld.md §5). ``s = 0``: no privacy loss (0); ``s = inf``
    (no noise): infinity. Where the losses are huge the grid is coarsened (``value_interval``
    of the result: the step used).
    """
    h = check_value_interval(value_interval)
    _check(s, gamma, T, delta, h)
    return class_bounds(s, gamma, T, delta, h, lower)


@lru_cache(maxsize=4096)
def _upper(s: float, gamma: float, T: int, delta: float, h: float) -> tuple[float, float]:
    if not s > 0:
        return 0.0, h
    if not math.isfinite(s):
        return math.inf, h
    gamma = min(gamma, 1.0 - 1e-12)
    top = float(_loss_of_x(np.array(s + _z_tail()), s, gamma))
    h = max(h, top / _MAX_STEP)
    while True:  # a coarser grid is still a valid bound; used where the losses are huge
        try:
            i0, pmf, inf_m, _ = symmetric_step(s, gamma, h, pessimistic=True)
            j0, c, inf_T, misplaced = compose(i0, pmf, inf_m, T, h)
            break
        except _TooLarge:
            h *= 4.0
    return epsilon_for_delta(j0, c, inf_T, h, delta - misplaced), h


@lru_cache(maxsize=4096)
def _lower(s: float, gamma: float, T: int, delta: float, h: float, upper: float) -> float:
    if not s > 0 or not math.isfinite(s):
        return upper
    gamma = min(gamma, 1.0 - 1e-12)
    eta = 1e-3 * delta
    i0, pmf, _, mean_r = symmetric_step(s, gamma, h, pessimistic=False)
    try:
        j0, c, inf_T, misplaced = compose(i0, pmf, 0.0, T, h)
    except _TooLarge:
        return 0.0
    shift = max(0.0, T * mean_r - h * math.sqrt(T * math.log(1.0 / eta) / 2.0))
    low = epsilon_for_delta(j0, c, inf_T, h, delta + eta + misplaced, floor=-math.inf)
    return min(max(low + shift, 0.0), upper)


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
