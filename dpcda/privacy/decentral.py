"""Privacy of DP-CDA across sites per threat model (docs/decentral.md; pure numpy/scipy).

The CAPE protocol's release (:mod:`dpcda.mechanisms.cape`) is a post-processing of the
centralized Gaussian mechanism, so an outside reader of the release gets the centralized
epsilon (threat model (a), accounted by the centralized accountant). This module accounts the
parties inside the protocol:

* (b) an honest-but-curious aggregator that sees every message, and
* (c) the aggregator colluding with ``t`` sites (their masks and noise shares known),

under the relation *one record's features replaced, its class and its site fixed* (the
coordinator learns the per-site class counts, so a relation that hides them cannot hold towards
it). For one synthetic sample of class k the honest sites' messages are
``M_h = P_h + e_h + g_h`` with ``g_h ~ N(0, sigma^2/S I)`` and pairwise masks among the
``H = S - t`` honest sites. The record's change moves
one site's partial mean by at most ``Delta = 2c/l``; the Gaussian view has, per use,

    mu^2 = (Delta/sigma)^2 [ S/H + (1 - 1/H) / (1/S + H mask_ratio^2) ]     (:func:`view_factor`)

with Gaussian masks (CAPE), and ``(Delta/sigma)^2 S/H`` with the uniform modular masks the
release uses (``mask_ratio = inf``; docs/decentral.md, Theorem 4). Two upper bounds on the same
privacy profile, and :func:`inside_epsilon` reports the smaller:

* the *counts-mixture PLD* (:mod:`dpcda.privacy.decentral_pld`, Theorem 5): the aggregator learns
  each sample's per-site counts, not the records, so the sites' own subsampling is credited;
* the *known-indices* bound (:func:`view_epsilon`): as if the parties also knew which records
  each sample mixed (a stronger adversary, whose view contains the real one), without
  subsampling amplification. A record is used ``m ~ Binomial(T_k, l/n_k)`` times, independent of
  the data, so that profile is the mixture ``delta(eps) = E_m[delta_G(eps; mu sqrt(m))]`` of
  Gaussian profiles (Balle & Wang 2018, :func:`dpcda.privacy.gaussian.gaussian_delta`),
  maximised over classes.

Both are of the exact-arithmetic view (floating point towards the aggregator: docs/decentral.md).
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.privacy.gaussian import gaussian_delta
from dpcda.util.checks import check_delta, check_float

#: The accountant named on the card for threat models (b) and (c).
ACCOUNTANT = "gaussian-uses-mixture"
RELATION = ("one record's features replaced, its class and site fixed (the coordinator knows "
            "the per-site class counts)")
#: Binomial tail mass left out of the mixture is added to delta (upper bound): at most this share.
_TAIL_SHARE = 1e-6


def view_factor(S: int, t: int, mask_ratio: float) -> float:
    """``mu^2 / (Delta/sigma)^2`` of the view of the aggregator plus ``t`` colluding sites, for a
    record held by an honest site (``0 <= t <= S - 1``). ``mask_ratio``: the std of CAPE's
    Gaussian pair masks over ``sigma``; ``math.inf`` for uniform modular masks (what
    :mod:`dpcda.mechanisms.cape_run` uses), where the view is the honest sum: ``S / H``."""
    S, t = int(S), int(t)
    if S < 1 or not 0 <= t <= S - 1:
        raise ValueError(f"colluding sites t must be in 0..S-1 (S={S}), got t={t}")
    H = S - t
    if mask_ratio == math.inf:  # uniform modular masks: the view is the honest sites' sum
        return S / H
    rho = check_float("mask_ratio", mask_ratio, lo=0.0)
    return S / H + (1.0 - 1.0 / H) / (1.0 / S + H * rho * rho)


def _delta_mixture(eps: float, mu: float, T: int, q: float, delta: float,
                   mu0: float = 0.0) -> float:
    from scipy.stats import binom

    top = int(binom.isf(_TAIL_SHARE * delta, T, q)) + 1
    m = np.arange(0, min(T, top) + 1)
    p = binom.pmf(m, T, q)
    tail = float(binom.sf(m[-1], T, q))
    return float(np.sum(p * gaussian_delta(eps, np.sqrt(mu * mu * m + mu0 * mu0)))) + tail


def epsilon_uses_mixture(mu: float, T: int, q: float, delta: float, mu0: float = 0.0) -> float:
    """Smallest epsilon with ``E_m[delta_G(eps; sqrt(m mu^2 + mu0^2))] <= delta``,
    ``m ~ Bin(T, q)`` (the tail beyond the ``1 - 1e-6 delta`` quantile counted as delta 1);
    ``mu0``: one more Gaussian step composed in (the ``dp-center`` statistics, Theorem 6)."""
    delta = check_delta(delta)
    if mu <= 0 and mu0 <= 0:
        return 0.0
    if _delta_mixture(1e-9, mu, T, q, delta, mu0) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while _delta_mixture(hi, mu, T, q, delta, mu0) > delta:
        lo, hi = hi, hi * 2.0
        if hi > 1e6:
            return math.inf
    while hi - lo > 1e-9 * max(hi, 1.0):
        mid = 0.5 * (lo + hi)
        if _delta_mixture(mid, mu, T, q, delta, mu0) > delta:
            lo = mid
        else:
            hi = mid
    return float(hi)


def view_epsilon(*, S: int, t: int, sigma: float, c: float, l: int, per_class, class_counts,
                 delta: float, mask_ratio: float, stats_mu: float | None = None) -> float:
    """Epsilon towards the aggregator colluding with ``t`` sites (``t = 0``: threat model (b))
    for a record at an honest site: the maximum over classes of the uses mixture (composed with
    the ``dp-center`` statistics' view, :func:`stats_view_mu`, when ``stats_mu`` is given)."""
    sigma = check_float("sigma", sigma, lo=0.0)
    if sigma == 0:
        return math.inf
    mu = (2.0 * float(c) / int(l)) / sigma * math.sqrt(view_factor(S, t, mask_ratio))
    mu0 = stats_view_mu(S=S, t=t, stats_mu=stats_mu, mask_ratio=mask_ratio)
    worst = 0.0
    for T_k, n_k in zip(per_class, class_counts):
        if int(T_k) > 0:
            worst = max(worst, epsilon_uses_mixture(mu, int(T_k), int(l) / int(n_k), delta, mu0))
    return worst


def stats_view_mu(*, S: int, t: int, stats_mu: float | None, mask_ratio: float = math.inf) -> float:
    """The GDP parameter of the ``dp-center`` statistics step towards the aggregator with ``t``
    colluding sites (docs/decentral.md, Theorem 6): the centralized ``stats_mu`` (sensitivity
    ``sqrt(d)`` over the centralized noise) times ``sqrt(view_factor)``, as the honest sum
    carries ``H/S`` of the centralized noise; 0 without the step."""
    if stats_mu is None:
        return 0.0
    mu = check_float("stats_mu", stats_mu, lo=0.0)
    return mu * math.sqrt(view_factor(S, t, mask_ratio))


def view_mu(*, S: int, t: int, sigma: float, c: float, l: int, mask_ratio: float = math.inf) -> float:
    """The view's shift per included record over its noise, ``(2c/l)/sigma sqrt(view_factor)``."""
    sigma = check_float("sigma", sigma, lo=0.0)
    if sigma == 0:
        return math.inf
    return (2.0 * float(c) / int(l)) / sigma * math.sqrt(view_factor(S, t, mask_ratio))


def inside_epsilon(*, S: int, t: int, sigma: float, c: float, l: int, per_class, site_counts,
                   delta: float, mask_ratio: float = math.inf,
                   stats_mu: float | None = None) -> tuple[float, str, dict]:
    """``(epsilon, accountant, {accountant: epsilon})`` towards the aggregator with ``t``
    colluding sites (``t = 0``: threat model (b)) for a record at an honest site: the smaller
    of two valid upper bounds on the same quantity (so the smaller is one too): the
    counts-mixture PLD, which credits the sites' own subsampling
    (:func:`dpcda.privacy.decentral_pld.counts_epsilon`, docs/decentral.md Theorem 5), and the
    known-indices uses mixture (:func:`view_epsilon`, no amplification; the view it accounts
    contains the real one). ``site_counts``: ``(S, K)``. With CAPE's Gaussian masks
    (``mask_ratio`` finite) the view is Gaussian too, with the
    shift of :func:`view_factor`: the same argument holds. ``stats_mu``: the release's
    ``dp-center`` statistics (centralized GDP parameter), run by the same protocol: both bounds
    compose its view (:func:`stats_view_mu`, docs/decentral.md Theorem 6)."""
    from dpcda.privacy import decentral_pld

    site_counts = np.asarray(site_counts)
    counts = site_counts.sum(axis=0)
    old = view_epsilon(S=S, t=t, sigma=sigma, c=c, l=l, per_class=per_class,
                       class_counts=counts, delta=delta, mask_ratio=mask_ratio,
                       stats_mu=stats_mu)
    mu0 = stats_view_mu(S=S, t=t, stats_mu=stats_mu, mask_ratio=mask_ratio)
    new = decentral_pld.counts_epsilon(s=view_mu(S=S, t=t, sigma=sigma, c=c, l=l,
                                                 mask_ratio=mask_ratio), l=l,
                                       per_class=per_class, site_counts=site_counts,
                                       delta=check_delta(delta), mu0=mu0)
    both = {decentral_pld.ACCOUNTANT: new, ACCOUNTANT: old}
    return (new, decentral_pld.ACCOUNTANT, both) if new <= old else (old, ACCOUNTANT, both)
