"""Threat models (b) and (c) with the sites' own subsampling (docs/decentral.md, Theorem 5).

Towards the aggregator (plus ``t`` colluding sites), one synthetic sample of class k reveals the
per-site counts ``(l_1, ..., l_S)`` (a multivariate hypergeometric law that does not depend on the
data) and a Gaussian view of the honest sites' sum, with ``mu = (2c/l) / sigma * sqrt(S/H)``
per included record (Theorem 4). Given the counts, a record at honest site s is in the sample
with probability ``l_s / n_{k,s}`` (site s draws a uniform ``l_s``-subset of its ``n_{k,s}``
class-k records), and given that, the step is the centralized one on that site: the
``class-aware-pld`` pair of :mod:`dpcda.privacy.pld` with ``s = mu`` and ``gamma = l_s/n_{k,s}``
dominates it for every order. The counts are revealed and have the same law under both
neighbours, so the joint (counts, output) pair is dominated by the mixture over ``l_s`` (only the
record's own site's count matters; ``l_s ~ Hypergeometric(n_k, n_{k,s}, l)``) of those pairs, with
``l_s`` revealed: its PLD is the mixture of the per-count PLDs. That step is composed ``T_k``
times (:func:`dpcda.privacy.pld.compose`) and epsilon is maximised over classes and over the
site holding the record (:func:`counts_epsilon`).

:func:`counts_rdp_epsilon` is the same bound in Renyi DP (the per-count RDP of
:func:`dpcda.privacy.rdp.rdp_subsampled_gaussian`, mixed as ``E_v[e^{(alpha-1) eps_v(alpha)}]``):
a cross-check, looser. Pure numpy/scipy.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from dpcda.privacy import pld

#: The accountant named on the card for (b) and (c) when this bound is the smaller one.
ACCOUNTANT = "counts-subsampled-pld"
#: ``gamma = 1`` (a site's every record in the sample) is computed at ``1 - _GAMMA_EPS``: the two
#: pairs' ``P'`` differ by at most ``_GAMMA_EPS`` in total variation, which is added to delta.
_GAMMA_EPS = 1e-12


def count_law(n_k: int, n_ks: int, l: int) -> tuple[np.ndarray, np.ndarray]:
    """``(v, P(l_s = v))``: the count of a site holding ``n_ks`` of the pooled ``n_k`` class-k
    records in a uniform ``l``-subset of the pooled class (hypergeometric; data-independent)."""
    from scipy.stats import hypergeom

    n_k, n_ks, l = int(n_k), int(n_ks), int(l)
    if not (0 <= n_ks <= n_k and 1 <= l <= n_k):
        # the counts are per-site record counts: named, never printed
        raise ValueError(f"need 0 <= n_ks <= n_k (a site's class-k records, of the pooled class's n_k) "
                         f"and 1 <= l <= n_k, got l={l} and counts outside these bounds")
    v = np.arange(max(0, l - (n_k - n_ks)), min(l, n_ks) + 1)
    return v, hypergeom.pmf(v, n_k, n_ks, l)


def _mixture_step(s: float, n_ks: int, v, p, h: float, tail: float):
    """The per-sample PLD (connect the dots, an upper bound): ``(i0, pmf, inf_mass, slack)``,
    the mixture over the count ``v`` of the symmetrised pair at ``gamma = v / n_ks`` (``v = 0``:
    the record is not used, loss 0); ``slack``: delta to add for ``gamma = 1``."""
    parts, zero, slack = [], 0.0, 0.0
    for vi, pi in zip(v, p):
        if vi == 0 or pi <= 0:
            zero += float(pi)
            continue
        g = vi / n_ks
        if g >= 1.0:
            g, slack = 1.0 - _GAMMA_EPS, slack + float(pi) * _GAMMA_EPS
        parts.append((float(pi), *pld._pess(s, g, h, tail)))
    if not parts:
        return 0, np.array([1.0]), 0.0, 0.0
    lo = min(0, *(i0 for _, i0, _, _ in parts))
    hi = max(0, *(i0 + len(m) - 1 for _, i0, m, _ in parts))
    pmf = np.zeros(hi - lo + 1)
    inf_mass = 0.0
    for pi, i0, m, inf_m in parts:
        pmf[i0 - lo:i0 - lo + len(m)] += pi * m
        inf_mass += pi * inf_m
    pmf[-lo] += zero
    return lo, pmf, inf_mass, slack


@lru_cache(maxsize=4096)
def site_class_epsilon(s: float, n_k: int, n_ks: int, l: int, T: int, delta: float,
                       coarse: bool = False, mu0: float = 0.0) -> float:
    """Epsilon of ``T`` samples of a class with ``n_k`` pooled records for a record at a site
    holding ``n_ks`` of them, the view's ``mu / Delta``-normalised shift ``s`` (upper bound).
    ``coarse``: on the curves' grid (faster, never below the fine grid's value). ``mu0``: one
    ``mu0``-GDP Gaussian step composed in (the ``dp-center`` statistics' view, Theorem 6)."""
    if n_ks <= 0 or T <= 0 or not s > 0:
        return 0.0
    if not math.isfinite(s):
        return math.inf
    v, p = count_law(n_k, n_ks, l)
    g_mean = min(l / n_k, 1.0 - _GAMMA_EPS)
    h_up, _, h_curve = pld.auto_value_intervals(s, g_mean, T, delta)
    h = h_curve if coarse else h_up
    for vi in v:  # the grid must hold each count's largest loss (as pld._upper does)
        if vi > 0:
            h = pld._doubled(h, pld._top(s, min(vi / n_ks, 1.0 - _GAMMA_EPS)) / pld._MAX_STEP)
    tail = pld._step_tail(T, delta)
    while True:
        if h > pld.MAX_VALUE_INTERVAL:
            return math.inf
        try:
            i0, pmf, inf_m, slack = _mixture_step(s, n_ks, v, p, h, tail)
            j0, c, inf_T, misplaced = pld.compose(i0, pmf, inf_m, T, h, pld._tail(delta))
            break
        except pld._TooLarge:
            h *= 4.0
    if mu0 > 0:  # the statistics' Gaussian PLD, losses rounded up on the same grid
        from scipy.signal import fftconvolve

        from dpcda.privacy.composed import gaussian_pld

        g0, g, g_inf = gaussian_pld(mu0, h)
        c = np.clip(fftconvolve(c, g), 0.0, None)
        j0, inf_T = j0 + g0, 1.0 - (1.0 - inf_T) * (1.0 - g_inf)
    left = delta - misplaced - T * slack
    return math.inf if left <= 0 else pld.epsilon_for_delta(j0, c, inf_T, h, left)


def _cells(site_counts, per_class):
    """Distinct ``(n_k, n_ks, T_k)`` over classes and sites (a site without the class: none)."""
    counts = np.asarray(site_counts, dtype=np.int64)
    n = counts.sum(axis=0)
    return sorted({(int(n[k]), int(counts[s, k]), int(per_class[k]))
                   for s in range(counts.shape[0]) for k in range(counts.shape[1])
                   if counts[s, k] > 0 and int(per_class[k]) > 0})


def counts_epsilon(*, s: float, l: int, per_class, site_counts, delta: float,
                   mu0: float = 0.0) -> float:
    """Epsilon towards the view (counts and the honest sum) for a record at any site, in any
    class: the maximum of :func:`site_class_epsilon` over ``(class, site)``. ``site_counts``:
    the ``(S, K)`` records per site and class; ``s``: ``(2c/l) / sigma * sqrt(S/H)``.
    Cells are first bounded on the coarse grid; a cell whose coarse bound is below the
    largest fine value found cannot hold the maximum and is skipped. ``mu0``: the
    ``dp-center`` statistics' view composed into every cell (Theorem 6)."""
    cells = _cells(site_counts, per_class)
    coarse = sorted(((site_class_epsilon(s, a, b, l, t, delta, True, mu0), a, b, t)
                     for a, b, t in cells), reverse=True)
    best = 0.0
    for bound, a, b, t in coarse:
        if bound <= best:
            break
        best = max(best, site_class_epsilon(s, a, b, l, t, delta, False, mu0))
    return best


def counts_rdp_epsilon(*, s: float, l: int, per_class, site_counts, delta: float,
                       max_alpha: int = 128) -> float:
    """The same bound in Renyi DP (a cross-check; looser than the PLD): per class and site,
    ``exp((alpha-1) eps(alpha)) = E_v[exp((alpha-1) eps_v(alpha))]`` per sample with ``eps_v``
    the subsampled Gaussian's RDP at ``gamma = v/n_ks`` (``r = s^2/2``), times ``T_k``,
    converted with the project's best conversion; the maximum over classes and sites."""
    from scipy.special import logsumexp

    from dpcda.privacy.conversion import best_epsilon
    from dpcda.privacy.rdp import rdp_subsampled_gaussian

    orders = np.arange(2, max_alpha + 1, dtype=float)
    worst = 0.0
    for a, b, t in _cells(site_counts, per_class):
        v, p = count_law(a, b, l)
        keep = (v > 0) & (p > 0)
        log_m = np.full(len(orders), math.log(float(p[~keep].sum())) if (~keep).any() and
                        p[~keep].sum() > 0 else -math.inf)
        if keep.any():
            rdp = rdp_subsampled_gaussian(s * s / 2.0, np.minimum(v[keep] / b, 1.0), max_alpha)
            terms = np.log(p[keep])[:, None] + (orders - 1.0)[None, :] * rdp
            log_m = np.logaddexp(log_m, logsumexp(terms, axis=0))
        rdp_T = t * log_m / (orders - 1.0)
        worst = max(worst, float(best_epsilon(orders, rdp_T, delta, "improved")[0]))
    return worst
