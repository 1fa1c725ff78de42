"""Empirical audit of the CAPE aggregator's view (threat model (b)): a canary at one site.

One class of ``n_k`` one-dimensional records spread over S sites (``site_sizes``); every record
sits at ``-c`` and, in the dataset with the canary, one record of site ``canary_site`` is
replaced by ``+c`` (the features canary of ``docs/audit.md``, at one site: the worst pair the
protocol realises under the inside relation). Each trial runs ``T`` samples of the protocol
with its own parts (:mod:`dpcda.mechanisms.cape_masks`): the coordinator's pooled-subset counts,
each site's uniform subset of its records, its share ``N(0, sigma^2/S)`` from the project's
sampler, its quantisation to the public share grid and the pairwise modular masks. The
aggregator sees the counts and every message; it adds the messages mod 2^64 (Theorem 4: the
sum is all they tell it) and applies the Neyman-Pearson test of the worst-case pair given the
counts: the log-likelihood ratio ``sum_j log(1 - g_j + g_j exp((mu z_j - mu^2/2)/sigma^2))``
with ``g_j = l_{s,j}/n_{k,s}`` the canary's inclusion probability given the revealed count.
The rigorous 95% lower bound and the GDP estimate come from
:func:`dpcda.evaluation.audit.stats.bounds_from_statistics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Samples (rows) per batch of trials.
_ROWS = 200_000


@dataclass(frozen=True)
class SitesAudit:
    """The audited instance (all public): one class over the sites, ``T`` samples per trial."""

    site_sizes: tuple[int, ...]
    l: int = 4
    T: int = 30
    sigma: float = 1.0
    c: float = 1.0
    delta: float = 1e-5
    canary_site: int = 0
    trials: int = 20_000


def _trial_views(a: SitesAudit, with_canary: bool, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``n x T`` aggregates (shifted by ``+c``: 0 without the canary in the sample) and the
    canary site's counts, from the protocol's messages."""
    from dpcda.mechanisms.cape_grid import share_grid_bits
    from dpcda.mechanisms.cape_masks import (PairMasks, from_fixed, pooled_counts, site_subsets,
                                             to_fixed)
    from dpcda.randomness.noise import standard_normal

    S, m = len(a.site_sizes), n * a.T
    tables = [np.full(k, -a.c) for k in a.site_sizes]
    if with_canary:
        tables[a.canary_site][-1] = a.c
    A = a.c + 14.0 * a.sigma / math.sqrt(S)
    F = share_grid_bits(S, a.sigma, 0.0)  # the protocol's public share grid
    C = pooled_counts(a.site_sizes, a.l, m, generator=rng)
    masks = PairMasks(S, rng).masks((m,))
    total = np.zeros(m, dtype=np.uint64)
    for s in range(S):
        P = np.zeros(m)
        for rows, idx in site_subsets(a.site_sizes[s], C[:, s], generator=rng):
            P[rows] = tables[s][idx].sum(axis=1)
        g = standard_normal(rng, m) * (a.sigma / math.sqrt(S))
        total += to_fixed(P / a.l + g, F, A) + masks[s]  # the message; uniform on its own
    agg = from_fixed(total, F) + a.c  # what the aggregator reads from the messages
    return agg.reshape(n, a.T), C[:, a.canary_site].reshape(n, a.T)


def statistic(z: np.ndarray, counts: np.ndarray, a: SitesAudit) -> np.ndarray:
    """Per trial: the log-likelihood ratio of the worst-case pair given the revealed counts."""
    mu, var = 2.0 * a.c / a.l, a.sigma ** 2
    g = counts / a.site_sizes[a.canary_site]
    lr = (mu * z - mu * mu / 2.0) / var
    with np.errstate(divide="ignore"):
        return np.where(g >= 1.0, lr, np.logaddexp(np.log1p(-np.minimum(g, 1.0 - 1e-16)),
                                                   np.log(g) + lr)).sum(axis=1)


def run_sites_audit(a: SitesAudit, *, seed: int | None = None) -> dict:
    """The audit's bounds next to the accounted (b) epsilon of the same instance
    (:func:`dpcda.privacy.decentral.inside_epsilon` at ``t = 0``). ``seed``: tests only."""
    from dpcda.evaluation.audit.stats import bounds_from_statistics
    from dpcda.privacy.decentral import inside_epsilon
    from dpcda.randomness.secure import SecureRandom

    rng = SecureRandom(seed)
    arms = []
    for with_canary in (True, False):
        out, done = np.empty(a.trials), 0
        while done < a.trials:
            b = min(a.trials - done, max(1, _ROWS // a.T))
            z, cnt = _trial_views(a, with_canary, b, rng)
            out[done:done + b] = statistic(z, cnt, a)
            done += b
        arms.append(out)
    res = bounds_from_statistics(arms[1], arms[0], delta=a.delta)
    counts = np.zeros((len(a.site_sizes), 1), dtype=np.int64)
    counts[:, 0] = a.site_sizes
    eps, acc, both = inside_epsilon(S=len(a.site_sizes), t=0, sigma=a.sigma, c=a.c, l=a.l,
                                    per_class=[a.T], site_counts=counts, delta=a.delta)
    from dpcda.privacy.pld import pld_bounds

    outside = pld_bounds(s=2.0 * a.c / a.l / a.sigma, gamma=a.l / sum(a.site_sizes), T=a.T,
                         delta=a.delta, lower=False).epsilon
    return {**res, "epsilon_accounted": eps, "accountant": acc, "bounds": both,
            "epsilon_outside_same_relation": outside,
            "lower_exceeds_upper": bool(res["epsilon_lower"] > eps)}
