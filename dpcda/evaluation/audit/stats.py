"""From the statistics of two sets of trials to bounds on epsilon (pure numpy/scipy).

Two arms: ``s0`` (trials without the canary) and ``s1`` (with it); the test says "canary"
when a statistic exceeds a threshold ``t``. FPR(t) = P(s0 > t), FNR(t) = P(s1 <= t).

(a) Rigorous lower bound. An (epsilon, delta)-DP mechanism forces every test to satisfy
``FPR + e^eps FNR >= 1 - delta`` and ``FNR + e^eps FPR >= 1 - delta`` (Kairouz, Oh &
Viswanath 2015), so ``eps >= max(log((1 - delta - FPR)/FNR), log((1 - delta - FNR)/FPR))``.
With one-sided Clopper-Pearson upper limits on FPR and FNR, each at level (1 - confidence)/2,
the bound holds with probability >= ``confidence`` (Jagielski et al., NeurIPS 2020). The
threshold is chosen on a separate selection split of the trials, so no multiplicity correction
is needed for the thresholds tried.

(b) Gaussian-DP fit (Nasr et al., USENIX Security 2023, Section 5): a mu-GDP mechanism has
``mu = Phi^-1(1 - FPR) - Phi^-1(FNR)`` at every threshold of the optimal test; mu is estimated
at a threshold chosen on the selection split and converted with Dong, Roth & Su (2022,
Corollary 2.13): ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats


def clopper_pearson_upper(k, n, alpha: float) -> np.ndarray:
    """One-sided (1 - alpha) Clopper-Pearson upper limit of a binomial rate, k successes of n."""
    k = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        up = stats.beta.ppf(1.0 - alpha, k + 1.0, n - k)
    return np.where(k >= n, 1.0, up)


def error_counts(s0: np.ndarray, s1: np.ndarray, thresholds: np.ndarray):
    """(false positives, false negatives) of the test ``s > t`` for every threshold."""
    s0, s1 = np.sort(np.asarray(s0)), np.sort(np.asarray(s1))
    fp = len(s0) - np.searchsorted(s0, thresholds, side="right")
    fn = np.searchsorted(s1, thresholds, side="right")
    return fp, fn


def epsilon_from_rates(fpr, fnr, delta: float) -> np.ndarray:
    """The epsilon that (FPR, FNR) forces on an (eps, delta)-DP mechanism (0 if none)."""
    fpr, fnr = np.asarray(fpr, dtype=float), np.asarray(fnr, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.log(np.maximum(1.0 - delta - fpr, 0.0)) - np.log(fnr)
        b = np.log(np.maximum(1.0 - delta - fnr, 0.0)) - np.log(fpr)
    out = np.fmax(a, b)
    return np.where(np.isnan(out), 0.0, np.maximum(out, 0.0))


def candidate_thresholds(s0: np.ndarray, s1: np.ndarray, n: int = 400) -> np.ndarray:
    """Up to ``n`` thresholds: quantiles of the pooled statistics (and every value if fewer)."""
    pooled = np.concatenate([s0, s1])
    if len(pooled) <= n:
        return np.unique(pooled)
    return np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n)))


def rigorous_bound(s0, s1, thresholds, delta: float, confidence: float) -> np.ndarray:
    """The lower bound of (a) at every threshold (Clopper-Pearson at (1 - confidence)/2 each)."""
    fp, fn = error_counts(s0, s1, thresholds)
    a = (1.0 - confidence) / 2.0
    return epsilon_from_rates(clopper_pearson_upper(fp, len(s0), a),
                              clopper_pearson_upper(fn, len(s1), a), delta)


def gdp_mu(fpr, fnr) -> np.ndarray:
    """mu of the Gaussian trade-off curve through (FPR, FNR)."""
    with np.errstate(invalid="ignore"):
        return special.ndtri(1.0 - np.asarray(fpr, float)) - special.ndtri(np.asarray(fnr, float))


def gdp_delta(eps: float, mu: float) -> float:
    """delta(eps) of a mu-GDP mechanism (Dong, Roth & Su 2022, Corollary 2.13), in log space."""
    a = special.log_ndtr(-eps / mu + mu / 2.0)
    b = eps + special.log_ndtr(-eps / mu - mu / 2.0)
    return float(np.exp(a) * -np.expm1(b - a)) if a > b else 0.0


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest eps >= 0 with delta(eps) <= delta for a mu-GDP mechanism."""
    if not math.isfinite(mu):
        return math.inf
    if mu <= 0 or gdp_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(hi, mu) > delta:
        hi *= 2.0
    return float(optimize.brentq(lambda e: gdp_delta(e, mu) - delta, 0.0, hi, xtol=1e-10))


def bounds_from_statistics(s0, s1, *, delta: float, confidence: float = 0.95,
                           select_fraction: float = 0.5, min_errors: int = 5) -> dict:
    """(a) and (b) from two arms of statistics, each split into selection and evaluation parts.

    The trials are in random order, so the first ``select_fraction`` of each arm is a random
    split. Returns a plain dict (thresholds and rates of the chosen tests, no raw data).
    """
    s0, s1 = np.asarray(s0, float), np.asarray(s1, float)
    k0, k1 = round(len(s0) * select_fraction), round(len(s1) * select_fraction)
    sel0, ev0, sel1, ev1 = s0[:k0], s0[k0:], s1[:k1], s1[k1:]
    ts = candidate_thresholds(sel0, sel1)
    # (a): the threshold with the best bound on the selection split, evaluated on the rest.
    t_a = float(ts[int(np.argmax(rigorous_bound(sel0, sel1, ts, delta, confidence)))])
    eps_lower = float(rigorous_bound(ev0, ev1, np.array([t_a]), delta, confidence)[0])
    fp_a, fn_a = (int(v[0]) for v in error_counts(ev0, ev1, np.array([t_a])))
    # (b): the threshold with the largest mu on the selection split among those with at least
    # ``min_errors`` errors of each kind there (so that mu is estimable), evaluated on the rest.
    fp, fn = error_counts(sel0, sel1, ts)
    ok = (fp >= min_errors) & (fn >= min_errors)
    mu_hat, t_b, fp_b, fn_b = math.nan, math.nan, 0, 0
    if ok.any():
        mus = np.where(ok, gdp_mu(fp / len(sel0), fn / len(sel1)), -np.inf)
        t_b = float(ts[int(np.argmax(mus))])
        fp_b, fn_b = (int(v[0]) for v in error_counts(ev0, ev1, np.array([t_b])))
        # A zero count would make mu infinite: count half an error (continuity correction).
        mu_hat = float(gdp_mu(max(fp_b, 0.5) / len(ev0), max(fn_b, 0.5) / len(ev1)))
    eps_gdp = gdp_epsilon(mu_hat, delta) if math.isfinite(mu_hat) else math.nan
    return {
        "epsilon_lower": eps_lower, "epsilon_gdp": eps_gdp, "mu_gdp": mu_hat,
        "test_lower": {"threshold": t_a, "fpr": fp_a / len(ev0), "fnr": fn_a / len(ev1),
                       "false_positives": fp_a, "false_negatives": fn_a},
        "test_gdp": {"threshold": t_b, "fpr": fp_b / len(ev0), "fnr": fn_b / len(ev1),
                     "false_positives": fp_b, "false_negatives": fn_b},
        "trials_selection": [k0, k1], "trials_evaluation": [len(ev0), len(ev1)],
    }
