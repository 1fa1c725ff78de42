"""Accounting across sites per threat model (dpcda.privacy.decentral)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.privacy.decentral import epsilon_uses_mixture, view_epsilon, view_factor
from dpcda.privacy.gaussian import gaussian_epsilon


def test_view_factor_limits():
    # no masks, no collusion: each message carries sigma^2/S alone -> S times the centralized mu^2
    assert view_factor(10, 0, 0.0) == pytest.approx(10.0)
    # large masks: the aggregator's view is the aggregate's
    assert view_factor(10, 0, 1e3) == pytest.approx(1.0, abs=1e-5)
    # every other site colludes: only the honest site's g (sigma^2/S) covers its record
    assert view_factor(10, 9, 1e3) == pytest.approx(10.0)
    f = [view_factor(10, t, 1e3) for t in range(10)]
    assert all(a < b for a, b in zip(f, f[1:]))
    assert f[5] == pytest.approx(10 / 5, rel=1e-4)  # S/H with large masks
    with pytest.raises(ValueError, match="t must be in 0..S-1"):
        view_factor(4, 4, 1.0)


def test_view_factor_matches_the_gaussian_mahalanobis_norm():
    """mu^2 = Delta^T Sigma^-1 Delta for the honest messages' covariance, built explicitly."""
    S, t, rho, sigma = 5, 2, 0.7, 1.3
    H = S - t
    lap = H * np.eye(H) - np.ones((H, H))
    cov = (sigma**2 / S) * np.eye(H) + (rho * sigma) ** 2 * lap
    delta = np.zeros(H)
    delta[0] = 1.0
    direct = delta @ np.linalg.solve(cov, delta)
    assert view_factor(S, t, rho) / sigma**2 == pytest.approx(direct, rel=1e-12)


def test_uses_mixture_with_every_sample_using_the_record_is_plain_gaussian_composition():
    mu, m, delta = 0.3, 9, 1e-5
    eps = epsilon_uses_mixture(mu, m, 1.0, delta)  # q = 1: exactly m uses
    assert eps == pytest.approx(gaussian_epsilon(1.0, delta, sensitivity=mu * math.sqrt(m)), rel=1e-6)
    # fewer expected uses -> smaller epsilon
    assert epsilon_uses_mixture(mu, m, 0.5, delta) < eps


def test_threat_models_are_ordered():
    """(b) = (c, 0) <= (c, t) increasing in t; towards the aggregator the epsilon is at least
    the plain Gaussian's of one use (no amplification towards it)."""
    kw = dict(S=8, sigma=2.0, c=1.0, l=4, per_class=[500, 500], class_counts=[400, 450],
              delta=1e-5, mask_ratio=1e3)
    eps = [view_epsilon(t=t, **kw) for t in range(8)]
    assert all(a < b for a, b in zip(eps, eps[1:]))
    one_use = gaussian_epsilon(2.0, 1e-5, sensitivity=0.5)
    assert eps[0] >= one_use
    assert view_epsilon(t=0, **{**kw, "sigma": 0.0}) == math.inf
