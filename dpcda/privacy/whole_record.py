"""Whole-record accounting of DP-CDA: one record ``(x, y)`` replaced by any ``(x', y')``.

Derivation and proofs: ``docs/whole-record.md``. In short (``s = 2c / (l sigma_x)``):

* a step of a class that **loses** a record (the label moves away) is the pair
  ``(gamma A_1 + (1 - gamma) R, R)`` with ``R`` the mechanism on the class without the record and
  ``gamma = l / N_k``; a class that **gains** one is the mirror image (``gamma = l / (N_k + 1)``);
  a record replaced **inside** its class is today's ``class-aware-pld`` step (``gamma = l / N_k``);
* all three are dominated, for every order, by the symmetrised pair of ``class-aware-pld``
  (:func:`dpcda.privacy.pld_step.symmetric_step`) at the same ``s`` and a ``gamma`` no smaller;
* a label change touches two classes, whose outputs are independent: the release is dominated by
  ``S(gamma_lose_k)^{T_k} (x) S(gamma_gain_k')^{T_k'}``; the label-kept case by the first factor
  alone, so the release epsilon is the maximum over ordered pairs of classes ``k != k'``.

The class sizes ``N_k`` are private under this relation: the accountant takes only public facts,
the per-class step counts ``T_k`` and public lower bounds ``n_k <= N_k``, and uses
``gamma_lose_k = l / n_k``, ``gamma_gain_k = l / (n_k + 1)`` (valid: the pair grows with gamma).
A class with ``n_k <= l`` must not be served (``T_k = 0``): the mechanism decides this from the
public ``n_k`` only (:func:`served_classes`).

Pure numpy/scipy; reuses the one-step grids of :mod:`dpcda.privacy.pld_step` and the FFT and
read-off helpers of :mod:`dpcda.privacy.pld_compose`. The RDP cross-check is
:mod:`dpcda.privacy.whole_record_rdp`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcda.privacy.pld import (_doubled, _step_tail, _tail, _top, auto_value_intervals)
from dpcda.privacy.pld_compose import (_LAMBDAS, _MAX_FFT, _SPECTRUM_FLOOR, MAX_VALUE_INTERVAL,
                                       _log_mgf, _power, _TooLarge, epsilon_for_delta,
                                       rounding_shift)
from dpcda.privacy.pld_step import _optimistic, _pessimistic, _step_masses

#: Above this the PLD is not trusted (composed losses are clipped at +-700 in the read-off);
#: :func:`whole_record_epsilon` reports the RDP bound there.
PLD_TRUSTED_MAX = 500.0
#: Coarsest-first grid for calibration (its epsilon is an upper bound of the finer grids').
CURVE = "curve"


@dataclass(frozen=True)
class WholeRecordEpsilon:
    """Epsilon of a DP-CDA release under whole-record neighbours.

    ``epsilon``: an upper bound (valid for every dataset consistent with the public inputs);
    ``epsilon_discretisation_lower``: a lower bound on the epsilon of the same dominating pair (``nan`` if not
    asked, or for the RDP method), so ``epsilon - epsilon_discretisation_lower`` bounds the discretisation
    error; ``pair``: the worst ``(losing class, gaining class)`` (``gaining = None``: only one
    class is served, the label-kept case); ``method``: ``"pld"`` or ``"rdp"``;
    ``value_interval``: the loss-grid step of ``epsilon`` (PLD), or the best RDP order.
    """

    epsilon: float
    epsilon_discretisation_lower: float
    pair: tuple[int, int | None]
    method: str
    value_interval: float


# ----------------------------------------------------------------------------------------------
# Public inputs


def _ints(name: str, values, lo: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or np.any(arr < lo):
        raise ValueError(f"{name} must be a non-empty sequence of integers >= {lo}, got "
                         f"{name}={values!r}")
    return arr.astype(np.int64)


def served_classes(l: int, lower_counts) -> np.ndarray:
    """Which classes the mechanism may serve (boolean array): ``n_k >= l + 1``.

    Decided from the public lower bounds only. With ``n_k >= l + 1`` every dataset within one
    record of a dataset that meets the bounds holds at least ``l`` records of class k, so the
    mechanism draws its l-subsets on both neighbours. A class with ``n_k <= l`` must get no
    samples (``T_k = 0``): skipping it reveals nothing private (docs/whole-record.md §6).
    """
    n = _ints("lower_counts", lower_counts, 0)
    return n >= int(l) + 1


def check_inputs(l, lower_counts, steps, delta=None) -> tuple[int, np.ndarray, np.ndarray]:
    """``(l, n, T)`` validated: ``T_k = 0`` wherever ``n_k <= l`` (see :func:`served_classes`)."""
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ValueError(f"l must be an integer >= 1, got l={l!r}")
    n = _ints("lower_counts", lower_counts, 0)
    T = _ints("steps", steps, 0)
    if len(n) != len(T):
        raise ValueError(f"lower_counts and steps must have one entry per class, got {len(n)} "
                         f"and {len(T)}")
    bad = np.nonzero((T > 0) & ~served_classes(int(l), n))[0]
    if len(bad):
        k = int(bad[0])
        raise ValueError(f"class {k} has the public lower bound n_k={int(n[k])} <= l={int(l)}: it "
                         f"must not be served (T_k = 0), got T_k={int(T[k])}")
    if not T.any():
        raise ValueError("no class is served (every T_k = 0)")
    if delta is not None and not (0.0 < float(delta) < 1.0):
        raise ValueError(f"delta must be in (0, 1), got delta={delta!r}")
    return int(l), n, T


def class_rates(l: int, lower_counts) -> tuple[np.ndarray, np.ndarray]:
    """``(gamma_lose, gamma_gain)`` per class: ``l / n_k`` and ``l / (n_k + 1)`` (capped at 1)."""
    n = np.asarray(lower_counts, dtype=float)
    with np.errstate(divide="ignore"):
        return np.minimum(1.0, l / n), np.minimum(1.0, l / (n + 1.0))


def candidate_classes(lower_counts, steps) -> list[int]:
    """Served classes among which the worst ordered pair lies (docs/whole-record.md §5).

    Class j *dominates* k when ``n_j <= n_k``, ``T_j >= T_k`` and ``(n_j, -T_j, j)`` comes
    before ``(n_k, -T_k, k)`` (a strict order, no cycles). The pair bound grows with each
    class's gamma and T, and a class with two dominators can be replaced by one of them that
    differs from the other class of the pair; so only classes with at most one dominator are
    needed. With equal ``T_k`` these are the two smallest classes.
    """
    n, T = np.asarray(lower_counts), np.asarray(steps)
    idx = [k for k in range(len(n)) if T[k] > 0]
    key = {k: (int(n[k]), -int(T[k]), k) for k in idx}
    out = []
    for k in idx:
        dom = sum(1 for j in idx if j != k and n[j] <= n[k] and T[j] >= T[k] and key[j] < key[k])
        if dom <= 1:
            out.append(k)
    return out


def worst_pairs(lower_counts, steps) -> list[tuple[int, int | None]]:
    """Ordered ``(losing, gaining)`` pairs to evaluate; ``[(k, None)]`` if one class is served."""
    cand = candidate_classes(lower_counts, steps)
    if len(cand) == 1:
        return [(cand[0], None)]
    return [(a, b) for a in cand for b in cand if a != b]


def _parts(l, n, T, pair):
    """``[(gamma, T)]`` of the classes a pair touches (losing side first)."""
    g_lose, g_gain = class_rates(l, n)
    a, b = pair
    out = [(float(g_lose[a]), int(T[a]))]
    if b is not None:
        out.append((float(g_gain[b]), int(T[b])))
    return out


# ----------------------------------------------------------------------------------------------
# Composition of several symmetrised pairs


def compose_parts(parts, h: float, tail: float):
    """Composition of several grid PLDs by one FFT: ``parts`` is ``[(i0, pmf, inf_mass, T)]``.

    Returns ``(j0, pmf, inf_mass, misplaced)`` as :func:`dpcda.privacy.pld_compose.compose`:
    the window of the total loss comes from the Chernoff bound with the summed log-MGF
    (each side at most ``tail``), Fourier coefficients whose product is below
    ``_SPECTRUM_FLOOR`` are dropped (at most ``2 n _SPECTRUM_FLOOR`` per point, counted).
    """
    from scipy import fft as sfft

    parts = [p for p in parts if p[3] > 0]
    lam = np.concatenate([_LAMBDAS, -_LAMBDAS])
    log_m = np.zeros(len(lam))
    j_min = j_max = 0
    inf_keep = 0.0                                   # log P(no +inf loss)
    for i0, pmf, inf_m, t in parts:
        log_m += t * _log_mgf(i0, pmf, h, lam)
        k = np.nonzero(pmf)[0]
        j_min += t * (i0 + int(k[0]))
        j_max += t * (i0 + int(k[-1]))
        inf_keep += t * math.log1p(-inf_m) if inf_m < 1 else -math.inf
    inf_T = -math.expm1(inf_keep) if math.isfinite(inf_keep) else 1.0
    nl = len(_LAMBDAS)
    log_tau = math.log(tail)
    s_hi = float(np.min((log_m[:nl] - log_tau) / _LAMBDAS))
    s_lo = float(np.max((log_tau - log_m[nl:]) / _LAMBDAS))
    j_lo = max(j_min, math.floor(s_lo / h) - 1)
    j_hi = min(j_max, math.ceil(s_hi / h) + 1)
    n = sfft.next_fast_len(j_hi - j_lo + 1, real=True)
    if n > _MAX_FFT:
        raise _TooLarge(f"value_interval={h:g} needs {n} grid points")
    log_a = None
    spectra = []
    for _i0, pmf, _, t in parts:
        m = len(pmf)
        if m > n:  # fold modulo n (the circular convolution is unchanged)
            pad = np.zeros(-(-m // n) * n)
            pad[:m] = pmf
            pmf = pad.reshape(-1, n).sum(axis=0)
        z = sfft.rfft(pmf, n)
        with np.errstate(divide="ignore"):
            la = t * np.log(z.real * z.real + z.imag * z.imag)
        log_a = la if log_a is None else log_a + la
        spectra.append((z, t))
    keep = np.nonzero(log_a > 2.0 * math.log(_SPECTRUM_FLOOR))[0]
    zt = np.zeros(n // 2 + 1, dtype=complex)
    if len(keep):
        prod = np.ones(len(keep), dtype=complex)
        for z, t in spectra:
            prod *= _power(z[keep], t)
        zt[keep] = prod
    out = sfft.irfft(zt, n)
    shift = sum(t * i0 for i0, _, _, t in parts)
    k0, size = (j_lo - shift) % n, j_hi - j_lo + 1
    out = out[k0:k0 + size] if k0 + size <= n else np.concatenate([out[k0:], out[:k0 + size - n]])
    pruned = 2.0 * n * _SPECTRUM_FLOOR if len(keep) < len(zt) else 0.0
    return j_lo, np.clip(out, 0.0, None), inf_T, 2.0 * tail + pruned


def _grid(s: float, rates, delta: float, value_interval) -> tuple[float, float]:
    """``(h_upper, h_lower)``: the automatic grid of ``class-aware-pld`` for the largest gamma
    and the total number of steps (``value_interval=CURVE``: its curve grid for both)."""
    g = max(r[0] for r in rates)
    t_all = sum(r[1] for r in rates)
    if value_interval is None or value_interval == CURVE:
        h_up, h_low, h_curve = auto_value_intervals(s, min(g, 1.0 - 1e-12), t_all, delta)
        if value_interval == CURVE:
            return h_curve, h_curve
        return h_up, h_low
    h = float(value_interval)
    if not (1e-6 <= h <= 0.1):
        raise ValueError(f"value_interval must be in [1e-6, 0.1], got {value_interval!r}")
    return h, h


def parts_bounds(s: float, rates, delta: float, value_interval=None,
                 lower: bool = True, extra_mu: float = 0.0) -> tuple[float, float, float]:
    """``(upper, lower, h)``: epsilon of the product of ``S(s, gamma)^{T}`` over ``rates``
    (``[(gamma, T)]``), upper bound by connect-the-dots, lower bound by rounded-down contracted
    losses shifted by Chernoff bounds on each factor's rounding (union bound, ``eta = 1e-3 delta``
    split equally). ``s = 0``: 0; ``s = inf``: inf.

    ``extra_mu > 0``: the product also holds one ``extra_mu``-GDP Gaussian release (DP
    normalisation statistics, DP class counts: one Gaussian pair ``(N(mu, 1), N(0, 1))``,
    symmetric, put on the grid with its losses rounded up, :func:`dpcda.privacy.composed.gaussian_pld`;
    for the lower bound rounded down, docs/whole-record.md §7)."""
    rates = [(min(float(g), 1.0 - 1e-12), int(t)) for g, t in rates if t > 0]
    if not s > 0:
        if extra_mu > 0:
            from dpcda.privacy.gaussian import gaussian_epsilon

            return gaussian_epsilon(1.0 / float(extra_mu), float(delta)), math.nan, math.nan
        return 0.0, 0.0, math.nan
    if not math.isfinite(s):
        return math.inf, math.inf, math.nan
    h_up, h_low = _grid(s, rates, delta, value_interval)
    g_max = max(g for g, _ in rates)
    t_all = sum(t for _, t in rates)
    tail = _step_tail(t_all, delta)
    h = _doubled(h_up, _top(s, g_max) / 400_000)
    while True:
        if h > MAX_VALUE_INTERVAL:  # out of the PLD's numerical range: the trivial bounds
            return math.inf, (math.nan if not lower else 0.0), h
        try:
            parts = [(*_pessimistic(_step_masses(s, g, h, tail, cut=True)), t) for g, t in rates]
            if extra_mu > 0:
                from dpcda.privacy.composed import gaussian_pld

                parts.append((*gaussian_pld(float(extra_mu), h), 1))
            j0, c, inf_T, misplaced = compose_parts(parts, h, _tail(delta))
            break
        except _TooLarge:
            h *= 4.0
    upper = epsilon_for_delta(j0, c, inf_T, h, delta - misplaced)
    if not lower:
        return upper, math.nan, h
    eta = 1e-3 * delta
    hl = _doubled(h_low, _top(s, g_max) / 400_000)
    while True:
        if hl > MAX_VALUE_INTERVAL:
            return upper, 0.0, h
        try:
            opt = [(_optimistic(_step_masses(s, g, hl, tail, cut=True)), t) for g, t in rates]
            parts = [(o[0], o[1], 0.0, t) for o, t in opt]
            if extra_mu > 0:  # rounded down, no shift back: its rounding is >= 0 (a lower bound)
                from dpcda.privacy.composed import gaussian_pld

                parts.append((*gaussian_pld(float(extra_mu), hl, pessimistic=False), 1))
            j0, c, inf_T, misplaced = compose_parts(parts, hl, _tail(delta))
            break
        except _TooLarge:
            hl *= 4.0
    shift = sum(rounding_shift(o[2], o[3], t, hl, eta / len(opt)) for o, t in opt)
    low = epsilon_for_delta(j0, c, inf_T, hl, delta + eta + misplaced, floor=-shift,
                            upper=False)
    return upper, min(max(low + shift, 0.0), upper), h


# ----------------------------------------------------------------------------------------------
# The accountant


def noise_ratio(sigma: float, l: int, c: float) -> float:
    """``s = 2c / (l sigma)`` (the shift of one step in units of the noise; inf if sigma = 0)."""
    if not (sigma >= 0 and c > 0):
        raise ValueError(f"sigma must be >= 0 and c > 0, got sigma={sigma!r}, c={c!r}")
    return math.inf if sigma == 0 else 2.0 * c / (l * sigma)


def whole_record_pld(*, sigma: float, l: int, lower_counts, steps, delta: float, c: float = 1.0,
                     value_interval=None, lower: bool = True,
                     extra_mu: float = 0.0) -> WholeRecordEpsilon:
    """PLD epsilon of a DP-CDA release under whole-record neighbours (docs/whole-record.md).

    ``sigma``: the feature noise std (``N(0, sigma^2 I)`` added to each mean); ``lower_counts``:
    public lower bounds ``n_k`` on the class sizes; ``steps``: the public ``T_k`` (0 for a class
    that is not served; required wherever ``n_k <= l``). ``value_interval``: the loss-grid step
    (None: chosen per setting as ``class-aware-pld`` does; ``CURVE``: its coarse curve grid,
    upper bound only). The maximum over ordered pairs of classes (:func:`worst_pairs`).
    ``extra_mu``: one more ``extra_mu``-GDP Gaussian release composed in (:func:`parts_bounds`).
    """
    l, n, T = check_inputs(l, lower_counts, steps, delta)
    s = noise_ratio(float(sigma), l, float(c))
    lower = lower and value_interval != CURVE
    best = None
    low = -math.inf
    for pair in worst_pairs(n, T):
        up, lo, h = parts_bounds(s, _parts(l, n, T, pair), float(delta), value_interval, lower,
                                 float(extra_mu))
        low = max(low, lo) if lower else math.nan
        if best is None or up > best[0]:
            best = (up, pair, h)
    return WholeRecordEpsilon(best[0], low, best[1], "pld", best[2])


def whole_record_delta(*, epsilon: float, sigma: float, l: int, lower_counts, steps,
                       c: float = 1.0, value_interval: float = 1e-3) -> float:
    """Upper bound on ``delta(epsilon)`` of the release (maximum over :func:`worst_pairs` of the
    connect-the-dots composition of their symmetrised pairs on the grid ``value_interval``)."""
    from dpcda.privacy.pld_compose import delta_for_epsilon

    l, n, T = check_inputs(l, lower_counts, steps)
    s = noise_ratio(float(sigma), l, float(c))
    if not s > 0:
        return 0.0
    if not math.isfinite(s):
        return 1.0
    h = float(value_interval)
    out = 0.0
    for pair in worst_pairs(n, T):
        rates = [(min(g, 1.0 - 1e-12), t) for g, t in _parts(l, n, T, pair)]
        parts = [(*_pessimistic(_step_masses(s, g, h, 1e-15, cut=False)), t) for g, t in rates]
        j0, pmf, inf_T, misplaced = compose_parts(parts, h, 1e-15)
        out = max(out, delta_for_epsilon(j0, pmf, inf_T, h, float(epsilon)) + misplaced)
    return min(out, 1.0)
