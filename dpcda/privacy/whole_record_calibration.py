"""Whole-record epsilon as reported and calibrated: the PLD bound of
:mod:`dpcda.privacy.whole_record`, or the RDP bound of :mod:`dpcda.privacy.whole_record_rdp`
where the PLD is out of its numerical range (docs/whole-record.md §7), and the calibration of
sigma to a target epsilon. Pure numpy/scipy; no torch.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.privacy.whole_record import (CURVE, PLD_TRUSTED_MAX, WholeRecordEpsilon, _parts,
                                        check_inputs, whole_record_pld, worst_pairs)
from dpcda.privacy.whole_record_rdp import whole_record_rdp


def whole_record_epsilon(*, sigma: float, l: int, lower_counts, steps, delta: float,
                         c: float = 1.0, value_interval=None, lower: bool = True,
                         max_alpha: int = 64, extra_mu: float = 0.0) -> WholeRecordEpsilon:
    """The PLD bound, or the RDP bound (:mod:`dpcda.privacy.whole_record_rdp`) where the PLD is
    out of its numerical range (above ``PLD_TRUSTED_MAX``, or failing); both are valid bounds
    and the smaller is reported. ``extra_mu``: one ``extra_mu``-GDP Gaussian release composed
    in (its RDP, ``alpha mu^2 / 2``, is added to the RDP bound's)."""
    check_inputs(l, lower_counts, steps, delta)  # bad input raises here, not below
    try:
        with np.errstate(all="ignore"):
            pld = whole_record_pld(sigma=sigma, l=l, lower_counts=lower_counts, steps=steps,
                                   delta=delta, c=c, value_interval=value_interval, lower=lower,
                                   extra_mu=extra_mu)
        ok = math.isfinite(pld.epsilon) and pld.epsilon <= PLD_TRUSTED_MAX
    except (ValueError, FloatingPointError, OverflowError, ArithmeticError):
        ok, pld = False, None
    if ok and pld.epsilon <= 50.0:
        return pld
    rdp = whole_record_rdp(sigma=sigma, l=l, lower_counts=lower_counts, steps=steps, delta=delta,
                           c=c, max_alpha=max_alpha, extra_mu=extra_mu)
    return pld if ok and pld.epsilon <= rdp.epsilon else rdp


def calibrate_whole_record(*, epsilon: float, l: int, lower_counts, steps, delta: float,
                           c: float = 1.0, method: str = "pld",
                           max_alpha: int = 64) -> tuple[float, WholeRecordEpsilon]:
    """Smallest ``sigma`` (to ~1e-5 relative) whose whole-record epsilon is at most ``epsilon``.

    ``method="pld"``: Brent's method in log sigma on the coarse curve grid (its epsilon is an
    upper bound of the fine grid's), then a final check on the fine grid, nudging sigma up until
    it meets the target: never overshoots. ``method="rdp"``: the same on the RDP bound.
    Returns ``(sigma, result at sigma)``.
    """
    from scipy.optimize import brentq

    target = float(epsilon)
    if not target > 0 or not math.isfinite(target):
        raise ValueError(f"epsilon must be a finite number > 0, got epsilon={epsilon!r}")
    if method not in ("pld", "rdp"):
        raise ValueError(f"method must be one of pld, rdp, got method={method!r}")
    l, n, T = check_inputs(l, lower_counts, steps, delta)
    kw = dict(l=l, lower_counts=n, steps=T, delta=delta, c=c)

    def eps_at(log_sigma: float, fine: bool) -> float:
        sg = math.exp(log_sigma)
        if method == "rdp":
            return whole_record_rdp(sigma=sg, max_alpha=max_alpha, **kw).epsilon
        return whole_record_pld(sigma=sg, value_interval=None if fine else CURVE, lower=False,
                                **kw).epsilon

    def f(x: float) -> float:
        e = eps_at(x, False)
        return 1e3 if not math.isfinite(e) else (math.log(e / target) if e > 0 else -1e3)

    x0 = math.log(_guess_sigma(target, float(delta), l, n, T, float(c)))
    step, lo, hi = 0.05, x0, x0
    if f(x0) > 0:
        while f(hi) > 0:
            lo, hi, step = hi, hi + step, 2 * step
            if hi > math.log(1e8):
                raise ValueError(f"epsilon={target:g} needs sigma above 1e8")
    else:
        while f(lo) <= 0:
            hi, lo, step = lo, lo - step, 2 * step
            if lo < math.log(1e-6):
                raise ValueError(f"epsilon={target:g} is met by any sigma above 1e-6")
    tol = 1e-5
    root = brentq(f, lo, hi, xtol=tol, rtol=tol) if lo < hi else hi
    while eps_at(root, False) > target:
        root += tol
    nudge = 1e-6
    while eps_at(root, True) > target:  # the fine grid's value is at most the coarse one's
        root += nudge
        nudge *= 4
    sg = math.exp(root)
    if method == "rdp":
        return sg, whole_record_rdp(sigma=sg, max_alpha=max_alpha, **kw)
    return sg, whole_record_pld(sigma=sg, **kw)


def _guess_sigma(eps: float, delta: float, l, n, T, c) -> float:
    """A starting point only: the central limit theorem for subsampled Gaussians (Bu, Dong,
    Long & Su 2020), ``mu^2 = sum_k gamma_k^2 T_k (e^{s^2} - 1)`` over the worst pair."""
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    def excess(mu: float) -> float:
        return (math.exp(float(log_ndtr(-eps / mu + mu / 2)))
                - math.exp(eps + float(log_ndtr(-eps / mu - mu / 2))) - delta)

    lo, hi = 1e-3, 60.0
    mu = lo if excess(lo) >= 0 else hi if excess(hi) <= 0 else brentq(excess, lo, hi, xtol=1e-6)
    g2t = max(sum(g * g * t for g, t in _parts(l, n, T, p)) for p in worst_pairs(n, T))
    s = math.sqrt(math.log1p(mu * mu / g2t))
    return min(max(2.0 * c / (l * s), 1e-5), 1e7)
