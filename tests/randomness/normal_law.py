"""One check of a sample against the standard normal law, shared by the noise tests."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


def check_standard_normal(r: np.ndarray, extra_var: float = 0.0) -> None:
    """Mean, variance, KS and the 4- and 5-sigma tails against N(0, 1 + extra_var)."""
    n = len(r)
    sd = math.sqrt(1.0 + extra_var)
    assert abs(r.mean()) < 5 * sd / math.sqrt(n)
    assert abs(r.var() - sd ** 2) < 5 * sd ** 2 * math.sqrt(2.0 / n)
    assert stats.kstest(r / sd, "norm").pvalue > 1e-4
    for k in (4.0, 5.0):
        lam = n * 2 * stats.norm.sf(k)
        hits = int((np.abs(r / sd) > k).sum())
        assert hits <= stats.poisson.ppf(1 - 1e-6, lam), (k, hits, lam)
        if lam > 20:
            assert hits >= stats.poisson.ppf(1e-6, lam), (k, hits, lam)
