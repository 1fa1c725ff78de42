"""Calibration (noise for a target epsilon) and epsilon grids (the paper's Figure 4).

Epsilon decreases monotonically in sigma. :func:`calibrate` brackets the target in log sigma
(widening geometrically), solves with Brent's method and then nudges sigma up until the achieved
epsilon is at most the target: calibration never overshoots. This is how the paper's Table 3
sets the noise for every l.

A direct (PLD) accountant starts from a central-limit guess (``pld.start_noise``), walks to a
bracket in log sigma, is solved on its coarse curve grid (an upper bound of the fine one: the
coarse grid's chords lie above the fine grid's), then takes Newton steps on the fine grid, each
kept only if it still meets the target; the final check uses the fine grid (docs/pld.md §6).
Its curves (:func:`epsilon_grid`) use the coarse grid: valid upper bounds, cheaper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcda.privacy.accountants import (EpsilonResult, batch_epsilon, check_max_alpha,
                                       compute_epsilon, get_accountant)
from dpcda.privacy.conversion import epsilon_floor
from dpcda.privacy.params import PrivacyParams, check_float

_SIGMA_MIN, _SIGMA_MAX = 1e-6, 1e8


@dataclass(frozen=True)
class Calibration:
    """The noise that meets a target: ``sigma_y = ratio * sigma_x``; ``epsilon <= target``."""

    sigma_x: float
    sigma_y: float
    epsilon: float
    target: float
    alpha: float | None
    result: EpsilonResult


def _curve_interval() -> str:
    from dpcda.privacy.pld import CURVE  # lazy: scipy.special on first use

    return CURVE


def _setting(**kw) -> PrivacyParams:
    return PrivacyParams(sigma_x=1.0, sigma_y=1.0, **kw)


def calibrate(*, epsilon: float, delta: float, l: int, T: int, c: float = 1.0,
              n: int | None = None, class_counts=None, d_x: int | None = None,
              d_y: int | None = None, accountant: str = "paper", conversion: str = "mironov",
              ratio: float = 1.0, max_alpha: int = 256, allocation: str = "equal") -> Calibration:
    """Smallest noise (up to 1e-10 relative) with epsilon <= target for the given l.

    ``allocation``: how T is split over the classes (see :class:`PrivacyParams`).

    ``sigma_y`` is tied to ``sigma_x`` by ``ratio`` (1 = equal). Raises ``ValueError`` saying why
    when the target cannot be reached (below what ``max_alpha`` and ``delta`` allow).
    """
    target = check_float("epsilon", epsilon, lo=0.0, lo_open=True)
    ratio = check_float("ratio", ratio, lo=0.0, lo_open=True)
    max_alpha = check_max_alpha(max_alpha)
    base = _setting(l=l, T=T, c=c, n=n, class_counts=class_counts, d_x=d_x, d_y=d_y,
                    delta=delta, allocation=allocation)
    acc = get_accountant(accountant)
    floor = epsilon_floor(base.delta, max_alpha, conversion, acc.min_alpha) if acc.uses_rdp else 0
    if acc.uses_rdp and target <= floor * (1 + 1e-9):
        raise ValueError(
            f"epsilon={target:g} cannot be reached: with delta={base.delta:g} and orders up to "
            f"max_alpha={max_alpha} no noise level gives epsilon below {floor:.4g} "
            f"(the {conversion} conversion's log(1/delta) term); raise max_alpha or delta")

    def eps_at(log_sigma: float, interval: float | None = None) -> float:
        s = math.exp(log_sigma)
        e, _, _, _ = batch_epsilon(base, base.l, s, ratio * s, accountant=accountant,
                                   conversion=conversion, max_alpha=max_alpha,
                                   value_interval=interval)
        return float(e[0])

    def f(log_sigma: float, interval: float | None = None) -> float:  # log(eps / target)
        e = eps_at(log_sigma, interval)
        if not math.isfinite(e):
            return 1e3
        return math.log(e / target) if e > 0 else -1e3

    from scipy.optimize import brentq  # lazy: keeps `import dpcda.privacy` light

    if acc.uses_rdp:
        lo, hi = _bracket(f, math.log(0.5), math.log(2.0), None, target, base, max_alpha)
        root = brentq(f, lo, hi, xtol=1e-12, rtol=1e-12, maxiter=200)
    else:
        # PLD: solved on the curve grid (an upper bound of the fine grid's epsilon, so its root
        # meets the target on the fine grid too), from a central-limit-theorem guess, then a
        # Newton step or two on the fine grid, each kept only if it still meets the target.
        coarse = _curve_interval()
        x0 = math.log(_pld_guess(base, target))
        lo, hi = _walk(f, x0, coarse, target, base, max_alpha)
        tol = 1e-6
        root = brentq(f, lo, hi, args=(coarse,), xtol=tol, rtol=tol, maxiter=200)
        while eps_at(root, coarse) > target:
            root += tol
        root = _refine(root, target, eps_at, coarse)
    step = 1e-12 if acc.uses_rdp else 1e-8
    while eps_at(root) > target:  # never overshoot the target
        root += step
        step *= 4
    s = math.exp(root)
    res = compute_epsilon(PrivacyParams(
        l=base.l, sigma_x=s, sigma_y=ratio * s, c=base.c, T=base.T, delta=base.delta, n=base.n,
        class_counts=base.class_counts, d_x=base.d_x, d_y=base.d_y, allocation=base.allocation),
        accountant=accountant, conversion=conversion, max_alpha=max_alpha)
    return Calibration(sigma_x=s, sigma_y=ratio * s, epsilon=res.epsilon, target=target,
                       alpha=res.alpha, result=res)


def _too_small(target):
    return ValueError(f"epsilon={target:g} needs sigma below {_SIGMA_MIN:g}: any noise meets it; "
                      "did you mean a smaller epsilon?")


def _too_large(target, base, max_alpha):
    return ValueError(f"epsilon={target:g} needs sigma above {_SIGMA_MAX:g} for l={base.l} (with "
                      f"delta={base.delta:g}, max_alpha={max_alpha}); raise epsilon, delta or "
                      "max_alpha")


def _bracket(f, lo, hi, interval, target, base, max_alpha):
    """Widen ``[lo, hi]`` (log sigma) geometrically until ``f(lo) > 0 >= f(hi)``."""
    while f(lo, interval) <= 0:
        lo -= 2.0
        if lo < math.log(_SIGMA_MIN):
            raise _too_small(target)
    while f(hi, interval) > 0:
        hi += 2.0
        if hi > math.log(_SIGMA_MAX):
            raise _too_large(target, base, max_alpha)
    return lo, hi


def _walk(f, x0, interval, target, base, max_alpha):
    """A bracket ``f(lo) > 0 >= f(hi)`` near ``x0`` (log sigma): steps of 0.05, doubling."""
    step = 0.05
    if f(x0, interval) > 0:
        lo, hi = x0, x0 + step
        while f(hi, interval) > 0:
            lo, step = hi, 2.0 * step
            hi = lo + step
            if hi > math.log(_SIGMA_MAX):
                raise _too_large(target, base, max_alpha)
    else:
        lo, hi = x0 - step, x0
        while f(lo, interval) <= 0:
            hi, step = lo, 2.0 * step
            lo = hi - step
            if lo < math.log(_SIGMA_MIN):
                raise _too_small(target)
    return lo, hi


def _pld_guess(base: PrivacyParams, target: float) -> float:
    """sigma_x where a central-limit approximation of the PLD accountant gives the target."""
    from dpcda.privacy.pld import start_noise

    if base.class_counts is None:
        return 1.0
    rates = [(base.l / n_k, t_k) for n_k, t_k in zip(base.class_counts, base.samples_per_class)]
    s = start_noise(target, base.delta, rates)
    return min(max(2.0 * base.c / (base.l * s), 10 * _SIGMA_MIN), _SIGMA_MAX / 10)


def _refine(root: float, target: float, eps_at, coarse: float) -> float:
    """One Newton step on the fine grid from the coarse root (slope from the coarse curve);
    kept only if it still meets the target."""
    k = (math.log(eps_at(root - 0.01, coarse)) - math.log(eps_at(root, coarse))) / 0.01
    if not k > 0:
        return root
    for _ in range(3):
        fine = eps_at(root)
        if not 0 < fine < target * (1 - 1e-4):
            break
        for frac in (1.0, 0.5):
            cand = root - frac * (math.log(target) - math.log(fine)) / k
            if eps_at(cand) <= target:
                root = cand
                break
        else:
            break
    return root


def epsilon_grid(*, ls, sigmas, T: int, delta: float, c: float = 1.0, n: int | None = None,
                 class_counts=None, d_x: int | None = None, d_y: int | None = None,
                 accountant: str = "paper", conversion: str = "mironov", ratio: float = 1.0,
                 max_alpha: int = 256, return_alpha: bool = False, allocation: str = "equal"):
    """Epsilon for every ``l`` in ``ls`` and ``sigma_x`` in ``sigmas`` (``sigma_y = ratio*sigma_x``).

    Returns an array of shape ``(len(ls), len(sigmas))`` (and the minimizing orders if
    ``return_alpha``, NaN for a PLD accountant): the paper's Figure 4 family in one vectorized
    call. A PLD accountant uses its coarse grid ``CURVE_VALUE_INTERVAL`` here: still an upper
    bound, at most a few percent above the one-epsilon value (docs/pld.md §6).
    """
    ls = [int(v) for v in np.atleast_1d(ls)]
    sig = np.atleast_1d(np.asarray(sigmas, dtype=float))
    if sig.size == 0 or not np.all(np.isfinite(sig)) or np.any(sig <= 0):
        raise ValueError(f"sigmas must be finite numbers > 0, got sigmas={list(sig)[:5]}")
    ratio = check_float("ratio", ratio, lo=0.0, lo_open=True)
    max_alpha = check_max_alpha(max_alpha)
    if not ls:
        raise ValueError("ls must hold at least one order of mixture l, got ls=[]")
    # Validate every l through the parameter object (its range depends on n / class counts).
    base = None
    for l in ls:
        base = _setting(l=l, T=T, c=c, n=n, class_counts=class_counts, d_x=d_x, d_y=d_y,
                        delta=delta, allocation=allocation)
    L = np.repeat(np.asarray(ls, dtype=float), sig.size)
    S = np.tile(sig, len(ls))
    curve = None if get_accountant(accountant).uses_rdp else _curve_interval()
    eps, alpha, _, _ = batch_epsilon(base, L, S, ratio * S, accountant=accountant,
                                     conversion=conversion, max_alpha=max_alpha,
                                     value_interval=curve)
    eps = eps.reshape(len(ls), sig.size)
    if return_alpha:
        return eps, alpha.reshape(len(ls), sig.size)
    return eps


def calibrate_on_curve(*, epsilon: float, sigmas, curve, l: int, T: int, delta: float,
                       c: float = 1.0, n: int | None = None, class_counts=None,
                       d_x: int | None = None, d_y: int | None = None,
                       accountant: str = "paper", conversion: str = "mironov",
                       ratio: float = 1.0, max_alpha: int = 256) -> tuple[float, float] | None:
    """Fast calibration from a curve of :func:`epsilon_grid` (one row; upper bounds, decreasing).

    Interpolates log sigma linearly in log epsilon between the two grid points that bracket the
    target and checks that sigma with one evaluation on the curve grid; if it misses, the
    bracketing grid sigma (whose epsilon is known to meet the target) is used: never overshoots.
    Returns ``(sigma_x, epsilon)`` or None when no grid point reaches the target (then use
    :func:`calibrate`). For the PLD accountant this costs one coarse evaluation instead of a
    dozen (the Privacy page's calibration table).
    """
    target = check_float("epsilon", epsilon, lo=0.0, lo_open=True)
    sig = np.asarray(sigmas, dtype=float)
    eps = np.asarray(curve, dtype=float)
    ok = np.nonzero(np.isfinite(eps) & (eps <= target))[0]
    if len(ok) == 0:
        return None
    j = int(ok[0])
    if j == 0 or not np.isfinite(eps[j - 1]) or eps[j] <= 0:
        return float(sig[j]), float(eps[j])
    la, lb = math.log(eps[j - 1]), math.log(eps[j])
    w = (la - math.log(target)) / (la - lb) if la > lb else 1.0
    s = math.exp((1 - w) * math.log(sig[j - 1]) + w * math.log(sig[j]))
    e = float(epsilon_grid(ls=[l], sigmas=[s], T=T, delta=delta, c=c, n=n,
                           class_counts=class_counts, d_x=d_x, d_y=d_y, accountant=accountant,
                           conversion=conversion, ratio=ratio, max_alpha=max_alpha)[0, 0])
    return (s, e) if e <= target else (float(sig[j]), float(eps[j]))
