"""Threat models (b), (c) with ``dp-center``'s statistics step run by the CAPE protocol
(dpcda.privacy.decentral, decentral_pld; docs/decentral.md, Theorem 6)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.privacy import decentral_pld
from dpcda.privacy.composed import VALUE_INTERVAL, class_epsilon, stats_mu
from dpcda.privacy.decentral import inside_epsilon, stats_view_mu, view_epsilon
from dpcda.privacy.gaussian import gaussian_delta

DELTA = 1e-5


def test_the_statistics_view_is_mu_sqrt_s_over_h():
    assert stats_view_mu(S=10, t=0, stats_mu=0.3) == pytest.approx(0.3)
    assert stats_view_mu(S=10, t=5, stats_mu=0.3) == pytest.approx(0.3 * math.sqrt(2))
    assert stats_view_mu(S=10, t=9, stats_mu=0.3) == pytest.approx(0.3 * math.sqrt(10))
    assert stats_view_mu(S=10, t=3, stats_mu=None) == 0.0
    with pytest.raises(ValueError, match="colluding sites t must be in 0..S-1"):
        stats_view_mu(S=4, t=4, stats_mu=0.3)


@pytest.mark.parametrize("t", [0, 2, 3])
def test_without_mixing_noise_to_speak_of_both_bounds_are_the_statistics_gaussian(t):
    """With a huge mixing sigma only the statistics step is left: each bound is then the
    mu sqrt(S/H)-GDP Gaussian's epsilon (checked against its exact profile)."""
    S, mu = 4, stats_mu(0.5, DELTA)
    site_counts = np.array([[50, 50], [40, 60], [55, 45], [30, 70]])
    _, _, both = inside_epsilon(S=S, t=t, sigma=1e5, c=1.0, l=4, per_class=[100, 100],
                                site_counts=site_counts, delta=DELTA, stats_mu=mu)
    mu_v = mu * math.sqrt(S / (S - t))
    for eps in both.values():
        assert gaussian_delta(eps, mu_v) <= DELTA * (1 + 1e-6)  # an upper bound ...
        assert gaussian_delta(eps * 0.99, mu_v) > DELTA  # ... and a tight one
    if t == 0:
        assert min(both.values()) == pytest.approx(0.5, rel=1e-2)


def test_one_site_composes_as_the_centralized_dp_center_accountant():
    """S = 1: the counts bound's record sees the centralized step (rate l/n_k) composed with
    the mu-GDP statistics: the centralized composed accountant's value."""
    s, l, n, T, mu = 0.8, 4, 400, 300, stats_mu(0.1, DELTA)
    got = decentral_pld.counts_epsilon(s=s, l=l, per_class=[T], site_counts=np.array([[n]]),
                                       delta=DELTA, mu0=mu)
    ref = class_epsilon(s, l / n, T, mu, DELTA, VALUE_INTERVAL)
    plain = decentral_pld.counts_epsilon(s=s, l=l, per_class=[T], site_counts=np.array([[n]]),
                                         delta=DELTA)
    assert got == pytest.approx(ref, rel=2e-2)
    assert got > plain * 1.01


def test_the_step_raises_every_inside_epsilon_and_it_grows_with_t():
    S = 5
    site_counts = np.array([[40, 35], [45, 40], [38, 42], [41, 39], [36, 44]])
    kw = dict(S=S, sigma=2.0, c=1.0, l=4, per_class=[200, 200], site_counts=site_counts,
              delta=DELTA)
    mu = stats_mu(0.2, DELTA)
    with_step = [inside_epsilon(t=t, stats_mu=mu, **kw)[0] for t in range(S)]
    without = [inside_epsilon(t=t, **kw)[0] for t in range(S)]
    assert all(a > b for a, b in zip(with_step, without))
    assert all(a < b for a, b in zip(with_step, with_step[1:]))
    # the known-indices bound composes it too
    k = dict(S=S, sigma=2.0, c=1.0, l=4, per_class=[200, 200], class_counts=[200, 200],
             delta=DELTA, mask_ratio=math.inf)
    assert view_epsilon(t=1, stats_mu=mu, **k) > view_epsilon(t=1, **k)
