"""What the Privacy page shows about audits (dpcda.evaluation.audit.report)."""

from __future__ import annotations

import dataclasses

import pytest

from dpcda.evaluation.audit import AuditSettings
from dpcda.evaluation.audit.report import (PLD_ACCOUNTANT, audited_points, claims_over_l, job_config,
                                paper_gap, settings_for_release)
from dpcda.privacy import ACCOUNTANTS, PrivacyParams, compute_epsilon

MNIST = (5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949)


def test_settings_for_a_release_audit_the_smallest_class():
    s = settings_for_release(l=4, sigma_x=0.3, c=1.0, T=60000, delta=1e-5, class_counts=MNIST)
    assert (s.n_class, s.T_class, s.n_classes) == (5421, 6000, 10)
    cfg = job_config(s)
    assert cfg["device"] == "cpu" and AuditSettings(**{k: v for k, v in cfg.items()
                                                       if k != "device"}) == s
    assert s.canary == "label" and s.against == "whole-record"
    with pytest.raises(ValueError, match="l must be an integer in \\[1, 3\\]"):
        settings_for_release(l=4, sigma_x=0.3, c=1.0, T=100, delta=1e-5, class_counts=(3, 50),
                             canary="features")
    # The label canary's class keeps l records after losing it: l <= min(N_k) - 1.
    with pytest.raises(ValueError, match="l must be an integer in \\[1, 2\\]"):
        settings_for_release(l=3, sigma_x=0.3, c=1.0, T=100, delta=1e-5, class_counts=(3, 50))


def test_audited_points_keep_the_setting_and_the_newest_per_l():
    s = AuditSettings(l=4, sigma_x=0.3, n_class=40, T_class=40, trials=100)
    mk = lambda l, lo, **kw: {"settings": {**s.to_dict(), "l": l, **kw},  # noqa: E731
                              "epsilon_lower": lo, "epsilon_gdp": 2 * lo}
    pts = audited_points([mk(8, 1.0), mk(2, 0.5), mk(8, 1.5), mk(4, 9.0, sigma_x=0.5), None,
                          mk(16, 2.0, canary="features")], s)
    assert [(p["l"], p["epsilon_lower"], p["epsilon_gdp"]) for p in pts] == [(2, 0.5, 1.0),
                                                                            (8, 1.5, 3.0)]
    # An audit from before the canary field ran the features canary.
    old = {k: v for k, v in mk(16, 2.0)["settings"].items() if k != "canary"}
    feats = dataclasses.replace(s, canary="features")
    assert [p["l"] for p in audited_points([{**mk(16, 2.0), "settings": old}], feats)] == [16]
    assert audited_points([{**mk(16, 2.0), "settings": old}], s) == []


def test_claims_over_l_match_compute_epsilon():
    s = AuditSettings(l=4, sigma_x=0.5, n_class=64, T_class=64, trials=100, canary="features")
    out = claims_over_l(s, [1, 4, 64])
    p = PrivacyParams(l=64, sigma_x=0.5, sigma_y=0.5, T=640, delta=1e-5, class_counts=(64,) * 10)
    assert out["class-aware"][2] == pytest.approx(compute_epsilon(p, accountant="class-aware").epsilon)
    assert len(out["paper"]) == 3
    # The label canary: the whole-record claim (the audit's class sizes as public lower bounds,
    # equal T_k); l = 64 = N_k cannot be audited (the class keeps l records after losing one).
    out = claims_over_l(dataclasses.replace(s, canary="label"), [1, 4, 64])
    p4 = dataclasses.replace(p, l=4)
    assert out["whole-record"][1] == pytest.approx(compute_epsilon(p4, accountant="whole-record").epsilon)
    assert out["whole-record"][2] is None


def test_paper_gap_needs_the_pld_accountant_and_reports_the_difference(monkeypatch):
    p = PrivacyParams(l=64, sigma_x=0.5, sigma_y=0.5, T=60000, delta=1e-5, class_counts=MNIST)
    if PLD_ACCOUNTANT not in ACCOUNTANTS:
        assert paper_gap(p) is None
        # Stand-in: the class-aware RDP bound registered under the PLD name.
        monkeypatch.setitem(ACCOUNTANTS, PLD_ACCOUNTANT,
                            dataclasses.replace(ACCOUNTANTS["class-aware"], name=PLD_ACCOUNTANT))
    pld = compute_epsilon(p, accountant=PLD_ACCOUNTANT).epsilon
    paper = compute_epsilon(p, accountant="paper").epsilon
    gap = paper_gap(p)
    if paper < pld:
        assert gap["difference"] == pytest.approx(pld - paper)
        assert gap["ratio"] == pytest.approx(pld / paper)
    else:
        assert gap is None
