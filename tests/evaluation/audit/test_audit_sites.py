"""The empirical audit of the CAPE aggregator's view (dpcda.evaluation.audit.sites)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcda.evaluation.audit.sites import SitesAudit, _trial_views, run_sites_audit, statistic
from dpcda.randomness.secure import SecureRandom


def test_the_aggregator_reads_the_sum_of_the_messages():
    """Without noise the aggregate is the mean of the drawn records: with the canary in the
    sample it is 2c/l above its value without (shifted so that 0 means no canary)."""
    a = SitesAudit(site_sizes=(3, 4), l=2, T=200, sigma=1e-9, trials=1)
    z, cnt = _trial_views(a, True, 1, SecureRandom(3))
    assert set(np.round(z[0], 6)) <= {0.0, 1.0}  # 2c/l = 1: the canary drawn or not
    assert (cnt[0] <= 2).all() and cnt.mean() == pytest.approx(2 * 3 / 7, abs=0.2)
    # the canary's share of samples: E[l_s / n_ks] = l / n_k
    assert z.mean() == pytest.approx(2 / 7, abs=0.1)
    z0, _ = _trial_views(a, False, 1, SecureRandom(4))
    assert np.allclose(z0, 0.0, atol=1e-6)


def test_statistic_uses_the_revealed_count():
    a = SitesAudit(site_sizes=(2, 2), l=2, T=1, sigma=1.0)
    z = np.array([[3.0], [3.0], [3.0]])
    s = statistic(z, np.array([[0], [1], [2]]), a)
    assert s[0] == 0.0 and 0 < s[1] < s[2]  # count 0: the canary cannot be in the sample


@pytest.mark.slow
def test_audit_of_the_aggregator_stays_below_the_accounted_b():
    """The rigorous lower bound from the aggregator's real view (messages of the protocol's own
    parts) is below the accounted (b), and so is the GDP estimate."""
    a = SitesAudit(site_sizes=(6, 10, 14), l=4, T=30, sigma=0.7, trials=20_000)
    r = run_sites_audit(a, seed=5)
    assert not r["lower_exceeds_upper"]
    assert 0.5 < r["epsilon_lower"] < r["epsilon_accounted"]
    assert r["epsilon_gdp"] < r["epsilon_accounted"]
    assert r["accountant"] == "counts-subsampled-pld"
