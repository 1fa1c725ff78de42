"""dpcda.privacy.realised: a proven lower bound on what Algorithm 1 spends, checked against the
pessimistic per-direction composition, dp_accounting and the upper bounds it must stay under."""

from __future__ import annotations

import json
import math

import pytest

from dpcda.privacy import PrivacyParams, calibrate, compute_epsilon, pld
from dpcda.privacy.realised import (epsilon_realised_lower, optimistic_direction, realised_lower,
                                    understatement)

DELTA = 1e-5


@pytest.mark.parametrize("l, sigma, n, T", [(4, 0.5, 600, 600), (16, 0.2, 800, 400),
                                            (64, 0.1, 2000, 1000)])
def test_below_the_pessimistic_per_direction_value_and_close_to_it(l, sigma, n, T):
    s, g = 2.0 / (l * sigma), l / n
    low = realised_lower(s=s, gamma=g, T=T, delta=DELTA)
    up_dir = pld.directional_epsilon(s=s, gamma=g, T=T, delta=DELTA, value_interval=2e-5)
    sym = pld.pld_bounds(s=s, gamma=g, T=T, delta=DELTA, lower=False).epsilon
    assert 0 < low <= up_dir <= sym * (1 + 1e-9)
    assert up_dir - low < 0.01 * up_dir + 1e-3  # a tight lower bound, not just a small number


def test_a_step_keeps_its_mass_and_rounds_down():
    s, g, h = 1.5, 0.05, 1e-3
    for d in ("remove", "add"):
        i0, pmf, r, w = optimistic_direction(s, g, h, d)
        assert 1 - 1e-12 < pmf.sum() <= 1 + 1e-12 and (r >= 0).all() and (r <= h).all()
        assert w.sum() == pytest.approx(pmf.sum())
    # merged and rounded down: the mean loss of the remove direction is at most KL(P'||Q')
    # (merging buckets is post-processing) and within one grid step below the merged one
    from scipy import integrate, stats

    i0, pmf, r, w = optimistic_direction(s, g, h, "remove")
    mean = sum((i0 + k) * h * m for k, m in enumerate(pmf))

    def integrand(x):
        p_ = g * stats.norm.pdf(x - s) + (1 - g) * stats.norm.pdf(x)
        return p_ * math.log(p_ / stats.norm.pdf(x))

    kl = integrate.quad(integrand, -12, s + 12, limit=400)[0]
    assert mean <= kl + 1e-9 and mean + float((r * w).sum()) >= kl - 1e-4
    assert kl - mean <= h


def test_agrees_with_dp_accounting_per_direction_pld():
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    l, sigma, n, T = 8, 0.3, 500, 300
    s, g = 2.0 / (l * sigma), l / n
    low = realised_lower(s=s, gamma=g, T=T, delta=DELTA)

    def dpa(pessimistic: bool) -> float:
        one = pldlib.from_gaussian_mechanism(standard_deviation=1.0 / s, sensitivity=1.0,
                                             sampling_prob=g, value_discretization_interval=1e-4,
                                             pessimistic_estimate=pessimistic)
        return one.self_compose(T).get_epsilon_for_delta(DELTA)

    assert low <= dpa(True) + 1e-9          # never above the pessimistic per-direction value
    assert low >= dpa(False) - 0.01         # and not looser than dp_accounting's optimistic one


def test_whole_record_pairs_sit_between_the_features_pairs_and_the_upper_bound():
    counts = (300, 340, 320)
    p = PrivacyParams(l=8, sigma_x=0.25, sigma_y=0.25, T=900, class_counts=counts, delta=DELTA)
    feat = epsilon_realised_lower(p, "features")
    whole = epsilon_realised_lower(p, "whole-record")
    assert feat < whole <= compute_epsilon(p, accountant="whole-record").epsilon
    assert feat <= compute_epsilon(p, accountant="class-aware-pld").epsilon
    assert math.isinf(epsilon_realised_lower(PrivacyParams(l=8, sigma_x=0, sigma_y=0, T=900,
                                                           class_counts=counts, delta=DELTA)))
    with pytest.raises(ValueError, match="relation must be one of"):
        epsilon_realised_lower(p, "labels")


def test_the_published_epsilon_understates_what_the_code_spends_at_mnist_scale():
    """The issue's figures (MNIST counts, T_k = 6000, delta = 1e-5): at the sigma the published
    accountant calibrates for epsilon = 1 (l = 64) the code can spend at least ~1.08."""
    from dpcda.data.presets import PRESETS

    counts = PRESETS.get("mnist").class_counts
    cal = calibrate(epsilon=1.0, l=64, T=60000, class_counts=counts, delta=DELTA, accountant="paper")
    p = PrivacyParams(l=64, sigma_x=cal.sigma_x, sigma_y=cal.sigma_x, T=60000, class_counts=counts,
                      delta=DELTA)
    low = epsilon_realised_lower(p)
    assert 1.07 < low < compute_epsilon(p, accountant="class-aware-pld").epsilon
    assert understatement(cal.epsilon, low) > 0.07
    assert understatement(2.0, low) is None and understatement(1.0, None) is None


def test_the_cli_brackets_the_exact_epsilon(capsys):
    from dpcda.cli import main

    assert main(["epsilon", "--preset", "digits", "--l", "8", "--sigma-x", "0.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert 0 < out["epsilon_realised_lower"] <= out["epsilon"]
    assert out["epsilon_discretisation_lower"] <= out["epsilon"] and "epsilon_lower" not in out
    assert main(["epsilon", "--preset", "digits", "--l", "8", "--sigma-x", "0.5"]) == 0
    assert "lies between" in capsys.readouterr().out
