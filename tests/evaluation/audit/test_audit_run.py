"""The audit end to end on DP-CDA's mixing kernel: settings, known answers, and the rule that a
lower bound never exceeds a valid upper bound."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dpcda.randomness import SecureRandom

from dpcda.evaluation.audit import AuditSettings, claimed_epsilons, gdp_epsilon, run_audit
from dpcda.evaluation.audit.simulate import canary_table, run_trials
from dpcda.privacy import ACCOUNTANTS, list_accountants


def pld_reference(s: AuditSettings) -> float:
    """The valid PLD epsilon of the worst-case pair (dp_accounting; tests only)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    return pld.from_gaussian_mechanism(standard_deviation=s.sigma_x, sensitivity=s.shift,
                                       sampling_prob=s.gamma).self_compose(
        s.T_class).get_epsilon_for_delta(s.delta)


def valid_uppers(result: dict) -> dict:
    return {n: result["claimed"][n] for n in result["valid"]}


@pytest.mark.parametrize("bad, word", [
    (dict(l=0, canary="features"), "l must be an integer in [1, 6000]"),
    (dict(l=7, n_class=6, canary="features"), "l must be an integer in [1, 6]"),
    (dict(l=0), "l must be an integer in [1, 5999]"),
    (dict(l=6, n_class=6), "l must be an integer in [1, 5]"),
    (dict(l=1, n_class=1), "n_class must be an integer in [2, 10000000]"),
    (dict(canary="both"), "canary must be one of label, features"),
    (dict(sigma_x=0.0), "sigma_x must be a finite number > 0"),
    (dict(statistic="max"), "statistic must be one of lr, sum"),
    (dict(trials=10), "trials must be an integer"),
    (dict(delta=1.0), "delta"),
    (dict(select_fraction=0.999, trials=100), "select_fraction"),
])
def test_settings_reject_bad_values_naming_the_parameter(bad, word):
    with pytest.raises(ValueError, match=None) as exc:
        AuditSettings(**{"l": 4, "sigma_x": 0.5, **bad})
    assert word in str(exc.value)


def test_settings_defaults_and_trial_budget():
    s = AuditSettings(l=4, sigma_x=0.5, canary="features")
    assert (s.n_class, s.T_class, s.trials) == (6000, 6000, 5000)
    assert AuditSettings(l=64, sigma_x=0.5, canary="features").trials == 312
    # The label canary runs two classes per trial: half the trials for the same work.
    s = AuditSettings(l=4, sigma_x=0.5)
    assert (s.canary, s.against, s.trials) == ("label", "whole-record", 2500)
    assert AuditSettings(l=64, sigma_x=0.5).trials == 156
    assert AuditSettings(l=4.0, sigma_x=1).l == 4  # integral floats (CLI, JSON)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.l = 5  # frozen


def test_the_kernel_moves_only_mixtures_with_the_canary():
    import torch

    s = AuditSettings(l=2, sigma_x=1e-3, n_class=4, T_class=50, trials=20, statistic="sum",
                      canary="features")
    assert canary_table(s, False).ravel().tolist() == [-1.0] * 4
    assert canary_table(s, True).ravel().tolist() == [-1.0, -1.0, -1.0, 1.0]
    g = SecureRandom(3)
    # With almost no noise the summed shift counts the mixtures that picked the canary:
    # 2c/l each, chosen with probability l/N_k = 1/2.
    sums = run_trials(s, True, 400, generator=g, device=torch.device("cpu"))
    picks = sums / s.shift
    assert np.allclose(picks, np.round(picks), atol=0.05)
    assert picks.mean() == pytest.approx(s.T_class * s.gamma, rel=0.05)
    assert np.abs(run_trials(s, False, 50, generator=g, device=torch.device("cpu"))).max() < 0.05


def test_single_gaussian_release_recovers_its_known_epsilon():
    # l = N_k = T_k = 1: one release x + N(0, sigma^2) with |x - x'| = 2c: mu = 2c/sigma GDP,
    # whose epsilon is known exactly. Stated factor: the rigorous bound with 2 x 10^4 evaluation
    # trials is within a factor 2.5 below the truth, the GDP fit within 25%.
    s = AuditSettings(l=1, n_class=1, T_class=1, sigma_x=2.5, trials=40000, canary="features")
    truth = gdp_epsilon(2 * s.c / s.sigma_x, s.delta)  # 3.39
    r = run_audit(s, seed=11)
    assert truth / 2.5 <= r["epsilon_lower"] <= truth
    assert r["epsilon_gdp"] == pytest.approx(truth, rel=0.25)
    assert r["epsilon_lower"] <= pld_reference(s) + 1e-9
    assert not r["lower_exceeds_upper"]
    # Nothing in the result reveals noise or the seed.
    flat = repr(r)
    assert "seed" not in flat and "noise" not in flat


@pytest.mark.parametrize("kw", [
    dict(l=2, n_class=4, T_class=20, sigma_x=1.0),
    dict(l=4, n_class=40, T_class=40, sigma_x=0.5),
    dict(l=8, n_class=64, T_class=64, sigma_x=0.25, statistic="sum"),
])
def test_lower_bound_never_exceeds_a_valid_upper_bound(kw):
    s = AuditSettings(**kw, trials=4000, canary="features")
    r = run_audit(s, seed=5)
    assert r["epsilon_lower"] > 0.1  # the audit detects something
    ref = pld_reference(s)
    assert r["epsilon_lower"] <= ref
    assert r["valid"], "no registered accountant is valid for DP-CDA"
    for name, eps in valid_uppers(r).items():
        assert r["epsilon_lower"] <= eps, name
    assert r["valid_upper"] == min(valid_uppers(r).values())
    assert not r["lower_exceeds_upper"]


def test_claims_list_every_applicable_accountant_and_skip_the_others():
    s = AuditSettings(l=4, sigma_x=0.5, n_class=100, T_class=100, trials=200, canary="features")
    c = claimed_epsilons(s)
    for name in list_accountants():
        assert (name in c["claimed"]) != (name in c["skipped"])
    assert "class-aware" in c["claimed"] and "class-aware" in c["valid"]
    assert "paper" in c["claimed"] and "paper" not in c["valid"]
    assert "dpmix" in c["skipped"]  # needs feature dimensions the audit does not have
    assert "dpmix-clipped" in c["skipped"]  # an accountant of another mechanism
    if "class-aware-pld" in ACCOUNTANTS:  # the exact accountant, once registered
        # An upper bound at least the exact PLD of the pair (dp_accounting, which matches a
        # direct numerical integration at T_k = 1 and 2) and never above the RDP bound.
        pld = c["claimed"]["class-aware-pld"]
        assert pld_reference(s) * (1 - 1e-3) <= pld <= c["claimed"]["class-aware"]
        assert "class-aware-pld" in c["valid"]
    assert all(math.isfinite(v) for v in c["claimed"].values())
    assert c["against"] == ("class-aware-pld" if "class-aware-pld" in ACCOUNTANTS else None)
    # The label canary changes a label: only whole-record accountants bound its pair; the
    # features-only ones are valid for DP-CDA under another relation.
    c = claimed_epsilons(dataclasses.replace(s, canary="label"))
    assert c["valid"] == ["whole-record"] and c["against"] == "whole-record"
    assert "class-aware" in c["other_relation"] and "class-aware" not in c["valid"]
    assert "paper" not in c["valid"] + c["other_relation"]
    assert "label" in c["relations"]["whole-record"]


def test_a_progress_callback_sees_every_trial_and_may_stop_the_audit():
    s = AuditSettings(l=2, sigma_x=1.0, n_class=4, T_class=10, trials=100)
    seen = []
    run_audit(s, progress=lambda d, t: seen.append((d, t)), seed=1)
    assert seen[-1] == (200, 200) and all(t == 200 for _, t in seen)

    class Stop(Exception):
        pass

    def stop(d, t):
        raise Stop

    with pytest.raises(Stop):
        run_audit(s, progress=stop)
