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

from dpcda.privacy.pld_compose import (  # noqa: F401  (re-exported: callers use pld.*)
    _LAMBDAS,
    _MAX_FFT,
    MAX_VALUE_INTERVAL,
    _SPECTRUM_FLOOR,
    _log_mgf,
    _power,
    _TooLarge,
    _window,
    compose,
    delta_for_epsilon,
    epsilon_for_delta,
    rounding_shift,
)
from dpcda.privacy.pld_step import (  # noqa: F401  (re-exported: callers use pld.*)
    TAIL_MASS,
    _connect_dots,
    _interval_mass,
    _loss_of_x,
    _Masses,
    _mix_mass,
    _optimistic,
    _pessimistic,
    _step_masses,
    _x_of_loss,
    _z_tail,
    directional_step,
    symmetric_step,
)

#: The previous fixed loss-grid step for one epsilon (now chosen per setting, see
#: :func:`auto_value_intervals`; still the default of :func:`directional_epsilon`), and the
#: coarsest step of the curves (Figure 4), which use ``CURVE`` (that step, doubled for wide
#: windows).
VALUE_INTERVAL = 1e-4
CURVE_VALUE_INTERVAL = 1e-3
CURVE = "curve"
#: Mass allowed outside the composition window, each side, as a fraction of delta (it is
#: subtracted from delta for the upper bound and added for the lower one).
TAIL_FRACTION = 1e-5
#: The automatic grid: the lower bound's step is the finest of ``_LADDER`` whose composition
#: window has at most this many points (its error is first order: ~ step * sqrt(T), docs/pld.md
#: §5); the upper bound's is twice that (its error is second order in the step).
LOWER_POINTS = 1 << 17
#: The curve grid: ``CURVE_VALUE_INTERVAL * 2^k``, the smallest with at most this many points.
CURVE_POINTS = 1 << 15
#: At most this many grid points for one step (larger losses: a coarser, still valid grid).
_MAX_STEP = 400_000


@dataclass(frozen=True)
class PLDEpsilon:
    """Epsilon of one setting: ``epsilon`` (upper bound) and ``epsilon_discretisation_lower`` (a
    lower bound on the same pair's epsilon: the discretisation interval's lower end)."""

    epsilon: float
    epsilon_discretisation_lower: float
    #: The grid step behind ``epsilon_discretisation_lower`` (behind ``epsilon`` when no lower
    #: bound was asked).
    value_interval: float
    #: The grid step behind ``epsilon`` (the automatic choice uses a coarser one there).
    upper_value_interval: float | None = None

    @property
    def width(self) -> float:
        """Discretisation bound: the exact epsilon of the pair lies in ``[lower, epsilon]``."""
        return self.epsilon - self.epsilon_discretisation_lower


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
    low, h_low = _lower(s, gamma, T, delta, h_low)
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
        low = max(low, b.epsilon_discretisation_lower) if lower else low
        best = b if best is None or b.epsilon > best.epsilon else best
    return dataclasses.replace(best, epsilon_discretisation_lower=low) if lower else best


def pld_bounds(*, s: float, gamma: float, T: int, delta: float,
               value_interval: float | None = None, lower: bool = True) -> PLDEpsilon:
    """Epsilon of ``T`` compositions of the symmetrised pair with ``mu/sigma = s``, rate gamma.

    ``epsilon`` is an upper bound (connect the dots); ``epsilon_discretisation_lower``
    (``lower=True``) a lower bound on the same pair's epsilon: rounded-down contracted losses,
    shifted by a Chernoff bound on the total rounding (docs/pld.md §5). ``s = 0``: no privacy
    loss (0); ``s = inf`` (no noise): infinity. ``value_interval``: the loss-grid step (None:
    chosen per setting, :func:`auto_value_intervals`; ``CURVE``: the curves' grid, upper bound
    only). Where the losses are huge the grid is coarsened (the result names the steps used).
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


#: The last few steps' masses and pessimistic grids (the curve grid of
#: :func:`auto_value_intervals` is often the one evaluated next), and the composition windows
#: it measured.
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
    # always computed on the grid itself (never summed from a finer one that happens to be
    # cached): the same setting gives the same digits whatever was asked before
    return _remember(_RECENT, (s, gamma, h, tail), lambda: _step_masses(s, gamma, h, tail,
                                                                        cut=True))


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
        if h > MAX_VALUE_INTERVAL:  # out of the PLD's numerical range: the trivial bound
            return math.inf, h
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
        if h > MAX_VALUE_INTERVAL:  # out of the PLD's numerical range: the trivial bound
            return 0.0, h
        try:
            i0, pmf, r, w = _optimistic(_masses(s, gamma, h, tail))
            j0, c, inf_T, misplaced = compose(i0, pmf, 0.0, T, h, _tail(delta))
            break
        except _TooLarge:
            h *= 4.0
    shift = rounding_shift(r, w, T, h, eta)
    low = epsilon_for_delta(j0, c, inf_T, h, delta + eta + misplaced, floor=-shift,
                            upper=False)
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
