"""The exact analytic Gaussian mechanism (DPPro's and DP-MERF's accountants) against
dp_accounting's privacy loss distribution of the same Gaussian releases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.privacy import ACCOUNTANTS, list_accountants
from dpcda.privacy.gaussian import gaussian_delta, gaussian_epsilon, gaussian_sigma

dp_event = pytest.importorskip("dp_accounting.dp_event", reason="dp-accounting (test reference)")
pld = pytest.importorskip("dp_accounting.pld.pld_privacy_accountant")


def _pld_epsilon(noise_multipliers, delta):
    acc = pld.PLDAccountant(value_discretization_interval=1e-3)
    acc.compose(dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(z) for z in noise_multipliers]))
    return acc.get_epsilon(delta)


@pytest.mark.parametrize("z", [0.5, 1.0, 3.73, 5.0, 20.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-3])
def test_epsilon_matches_the_pld_of_one_gaussian(z, delta):
    ours = gaussian_epsilon(z, delta)  # noise std z at sensitivity 1
    ref = _pld_epsilon([z], delta)  # pessimistic PLD: an upper bound, within its discretisation
    assert ours <= ref + 1e-9
    assert ours == pytest.approx(ref, rel=1e-3)


def test_delta_curve_is_the_closed_form_and_epsilon_the_smallest():
    from scipy.stats import norm

    mu, eps = 0.8, 1.3
    expect = norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * norm.cdf(-mu / 2 - eps / mu)
    assert float(gaussian_delta(eps, mu)) == pytest.approx(expect, rel=1e-12)
    e = gaussian_epsilon(1 / mu, 1e-6)
    assert gaussian_delta(e, mu) <= 1e-6
    assert gaussian_delta(e * (1 - 1e-9), mu) > 1e-6
    assert np.all(np.diff(gaussian_delta(1.0, np.array([0.1, 0.5, 1.0, 2.0]))) > 0)


@pytest.mark.parametrize("target", [0.1, 1.0, 10.0])
def test_calibration_never_overshoots(target):
    s = gaussian_sigma(target, 1e-5, sensitivity=2.0)
    got = gaussian_epsilon(s, 1e-5, sensitivity=2.0)
    assert got <= target * (1 + 1e-11)
    assert got == pytest.approx(target, rel=1e-8)
    assert gaussian_delta(target, 2.0 / s) <= 1e-5


def test_two_gaussian_releases_compose_into_one():
    """DP-MERF's embedding and counts: mu = sqrt(mu_1^2 + mu_2^2) (Gaussian DP)."""
    z1, z2 = 4.0, 9.0
    mu = math.hypot(1 / z1, 1 / z2)
    assert gaussian_epsilon(1 / mu, 1e-5) == pytest.approx(_pld_epsilon([z1, z2], 1e-5), rel=1e-3)


def test_dp_merf_accountant_is_registered_as_a_single_release():
    acc = ACCOUNTANTS["embedding-gaussian"]
    from dpcda.mechanisms import MECHANISMS

    assert [m for m in MECHANISMS if acc.supports(MECHANISMS.get(m).event)] == ["dp-merf"]
    assert not acc.mixture
    assert "replaced by any other" in acc.relation
    assert "embedding-gaussian" not in list_accountants()  # not a mixture accountant
    assert "embedding-gaussian" in list_accountants(every=True)
