"""DP-CDA composed with one Gaussian release (DP normalisation statistics), accounted exactly.

A ``dp-center`` release first publishes (internally) per-feature means of the private data
through one Gaussian mechanism: L2 sensitivity ``Delta`` under replace-one, noise std
``Delta / mu`` (so it is ``mu``-GDP; Dong, Roth & Su 2022). The mixing then runs on data
normalised with those means. Both parts are dominated by pairs that hold in both directions
(the Gaussian: ``(N(mu, 1), N(0, 1))``; one mixture of class k: the symmetrised pair of
:mod:`dpcda.privacy.pld`), so by adaptive composition of dominating pairs (Zhu, Dong & Wang,
AISTATS 2022, Theorem 10) a record of class k sees the product of the Gaussian pair and T_k
mixture pairs: its privacy loss distribution is the convolution of the two PLDs. The reported
epsilon is the maximum over classes of the epsilon of that convolution at delta (docs/dp_normalisation.md).

The Gaussian's PLD (loss ``N(mu^2/2, mu^2)`` under P, the same in both directions) is put on
the grid ``{i h}`` pessimistically: every loss is rounded *up* to the grid and the tail above
``mu^2/2 + z mu`` (mass ``TAIL_MASS``) becomes the infinite loss, so the hockey-stick
divergence of the grid PLD, and of any composition with it, is an upper bound. The class PLD
comes from :func:`dpcda.privacy.pld.symmetric_step` and :func:`~dpcda.privacy.pld.compose`
(pessimistic, connect the dots). Pure numpy/scipy; no torch.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.special import ndtr, ndtri

from dpcda.util.checks import check_delta, check_float
from dpcda.privacy.gaussian import gaussian_sigma

#: Loss-grid step for a reported epsilon and for calibration (coarser: still an upper bound).
VALUE_INTERVAL = 1e-4
CALIBRATION_INTERVAL = 1e-3
#: Mass of the Gaussian loss tail sent to +infinity.
TAIL_MASS = 1e-15


def stats_mu(epsilon: float, delta: float) -> float:
    """The GDP parameter ``mu = Delta / noise`` of the Gaussian release that alone is exactly
    ``(epsilon, delta)``-DP (Balle & Wang 2018, Theorem 8)."""
    return 1.0 / gaussian_sigma(epsilon, delta, 1.0)


def gaussian_pld(mu: float, h: float, pessimistic: bool = True) -> tuple[int, np.ndarray, float]:
    """``(i0, pmf, inf_mass)``: the Gaussian mechanism's PLD on ``{(i0 + k) h}``, losses rounded
    up (pessimistic); mass above ``mu^2/2 + z mu`` (``Phi(-z) = TAIL_MASS``) is ``inf_mass``.

    ``pessimistic=False``: losses rounded *down* (bucket ``[L_i, L_{i+1})`` to ``L_i``), the
    mass above the top point put on it and the mass below the lowest dropped (``inf_mass`` 0):
    the hockey-stick divergence of any composition with it can only go down, so a lower bound
    (docs/whole-record.md §7)."""
    mu = check_float("mu", mu, lo=0.0, lo_open=True)
    z = float(-ndtri(TAIL_MASS))
    mean, sd = mu * mu / 2.0, mu
    lo_i = math.floor((mean - z * sd) / h)
    hi_i = math.ceil((mean + z * sd) / h)
    edges = (np.arange(lo_i, hi_i + 1) * h - mean) / sd        # bucket (L_{i-1}, L_i] -> L_i
    if not pessimistic:  # masses from the nearer tail: no cancellation in the upper one
        a, b = edges[:-1], edges[1:]
        inner = np.where(a > 0, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))
        return lo_i, np.clip(np.append(inner, ndtr(-edges[-1])), 0.0, None), 0.0
    cdf = ndtr(edges)
    pmf = np.diff(cdf, prepend=0.0)                             # first point: all mass below it
    return lo_i, np.clip(pmf, 0.0, None), float(ndtr(-(hi_i * h - mean) / sd))


@lru_cache(maxsize=2048)
def class_epsilon(s: float, gamma: float, T: int, mu: float, delta: float, h: float) -> float:
    """Epsilon at ``delta`` of ``T`` symmetrised mixture steps (``s = 2c/(l sigma_x)``, rate
    ``gamma = l/N_k``) composed with one ``mu``-GDP Gaussian release; an upper bound."""
    from scipy.signal import fftconvolve

    from dpcda.privacy.pld import (_MAX_STEP, MAX_VALUE_INTERVAL, _doubled, _top, compose,
                                   epsilon_for_delta, symmetric_step)

    if not math.isfinite(s):
        return math.inf
    if s > 0:  # at most _MAX_STEP points for one step (a coarser grid: still a valid bound)
        gamma = min(gamma, 1.0 - 1e-12)
        h = _doubled(h, _top(s, gamma) / _MAX_STEP)
    g0, g, g_inf = gaussian_pld(mu, h)
    if s > 0:
        while True:  # a coarser grid is still a valid bound (huge losses)
            try:
                i0, pmf, inf_m = symmetric_step(s, gamma, h, pessimistic=True)[:3]
                j0, c, inf_T, misplaced = compose(i0, pmf, inf_m, T, h)
                break
            except ValueError:
                h *= 4.0
                if h > MAX_VALUE_INTERVAL:  # out of the PLD's numerical range
                    return math.inf
                g0, g, g_inf = gaussian_pld(mu, h)
    else:
        j0, c, inf_T, misplaced = 0, np.ones(1), 0.0, 0.0
    out = np.clip(fftconvolve(c, g), 0.0, None)
    inf_all = 1.0 - (1.0 - inf_T) * (1.0 - g_inf)
    return epsilon_for_delta(j0 + g0, out, inf_all, h, delta - misplaced)


def composed_epsilon(params, *, mu: float, value_interval: float = VALUE_INTERVAL) -> float:
    """Epsilon of a DP-CDA release (``params``: a :class:`~dpcda.privacy.PrivacyParams` with
    class counts) whose normalisation statistics were one ``mu``-GDP Gaussian release: the
    maximum over classes of the composed PLD's epsilon (label-preserving replace-one)."""
    if params.class_counts is None:
        raise ValueError("a composed epsilon needs class_counts (N_k per class), got None")
    if not params.private:
        return math.inf
    counts, t_k = np.asarray(params.class_counts), np.asarray(params.samples_per_class)
    with np.errstate(divide="ignore"):
        s = 2.0 * params.c / (params.l * params.sigma_x) if params.sigma_x > 0 else math.inf
    groups = [(int(t), int(counts[t_k == t].min())) for t in np.unique(t_k)]
    return max(class_epsilon(float(s), params.l / n_k, t, float(mu), float(params.delta),
                             float(value_interval)) for t, n_k in groups)


def calibrate_composed(*, epsilon: float, mu: float, ratio: float = 1.0,
                       accountant: str = "class-aware-pld", epsilon_of=None,
                       fine: float | None = VALUE_INTERVAL, **params):
    """``(sigma_x, sigma_y, epsilon)``: the smallest mixing noise (1e-4 relative) whose
    composition with the ``mu``-GDP statistics release is ``epsilon``-DP at ``params['delta']``.

    Solved by bisection on log sigma on the coarse grid (an upper bound), then checked on the
    ``fine`` grid and nudged up until it meets the target: never overshoots. Raises
    ``ValueError`` when the statistics release alone already spends the target.
    ``accountant`` and ``epsilon_of(params, mu=, value_interval=)``: the composed epsilon to
    meet (default: ``class-aware-pld``'s, :func:`composed_epsilon`; the ``whole-record``
    accountant passes its own).
    """
    from dpcda.privacy.params import PrivacyParams

    target = check_float("epsilon", epsilon, lo=0.0, lo_open=True)
    check_delta(params.get("delta"))
    epsilon_of = epsilon_of or composed_epsilon

    def eps(sig: float, h: float | None) -> float:
        p = PrivacyParams(sigma_x=sig, sigma_y=ratio * sig, **params)
        return epsilon_of(p, mu=mu, value_interval=h)

    if eps(1e6, CALIBRATION_INTERVAL) > target:
        raise ValueError(f"epsilon={target:g} cannot be reached with normalize='dp-center': its "
                         "statistics release alone spends that much; choose a larger epsilon or "
                         "normalize='scale' (a public range, no statistics), or, in the library, "
                         "a smaller stats_share")
    from dpcda.privacy.calibration import calibrate

    # Without the statistics the mixing alone meets the target at sigma0: a lower end.
    sigma0 = calibrate(epsilon=target, accountant=accountant, ratio=ratio, **params).sigma_x
    lo, hi = math.log(sigma0), math.log(sigma0) + 0.05
    while eps(math.exp(hi), CALIBRATION_INTERVAL) > target:
        lo, hi = hi, hi + 2.0 * (hi - lo)
    while hi - lo > 1e-4:
        mid = 0.5 * (lo + hi)
        if eps(math.exp(mid), CALIBRATION_INTERVAL) > target:
            lo = mid
        else:
            hi = mid
    sig = math.exp(hi)
    final = eps(sig, fine)
    while final > target:  # the fine grid may differ; step up until met
        sig *= 1.0 + 1e-4
        final = eps(sig, fine)
    if final < NEAR * target:  # the coarse grid's bound was loose here: come down on the fine one
        sig, final = _refine_down(lambda x: eps(x, fine), target, sig, final)
    return sig, ratio * sig, final


#: A calibration stating less than this share of its target is refined on the fine grid.
NEAR = 0.995


def _refine_down(eps_fine, target: float, sig: float, final: float, *, evals: int = 10):
    """``(sigma, epsilon)``: a smaller noise still meeting ``target`` on the fine grid, by a
    bracket and bisection in log sigma (at most ``evals`` evaluations; never above the target)."""
    hi, lo, step, n = math.log(sig), None, 0.02, 0
    while lo is None and n < evals:  # step down until the fine epsilon misses the target
        x, n = hi - step, n + 1
        e = eps_fine(math.exp(x))
        if e > target:
            lo = x
        else:
            hi, final, step = x, e, 2.0 * step
    while lo is not None and n < evals and final < NEAR * target:
        mid, n = 0.5 * (lo + hi), n + 1
        e = eps_fine(math.exp(mid))
        if e > target:
            lo = mid
        else:
            hi, final = mid, e
    return math.exp(hi), final
