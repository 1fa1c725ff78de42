"""Compare's widgets from the shared setting and back (dpcda/dashboard/compare_setting.py)."""

from __future__ import annotations

import pytest

from dpcda.dashboard.compare_setting import (ACCOUNTANT, C, C_FOR, DATASET, DELTA, EPS, OWN_EPS, SEEDED,
                                             epsilon_choices, setting_changes, setting_epsilon,
                                             widget_values)
from dpcda.dashboard.setting import Setting
from dpcda.data.presets import default_clip_norm, get_preset
from dpcda.privacy import PrivacyParams, compute_epsilon

OFFERED = ("digits", "mnist")
ACCOUNTANTS = ("whole-record", "class-aware-pld", "class-aware")


def test_a_target_epsilon_and_the_rest_become_comparess_widgets():
    s = Setting(dataset="mnist", epsilon=1.0, delta=1e-6, c=2.5, accountant="class-aware")
    values, note = widget_values(s, OFFERED, accountants=ACCOUNTANTS)
    assert note == ""
    assert values[DATASET] == "mnist" and values[EPS] == values[OWN_EPS] == 1.0
    assert values[DELTA] == 1e-6 and values[C] == "2.5" and values[C_FOR] == "mnist"
    assert values[ACCOUNTANT] == "class-aware" and values[SEEDED] == ("mnist", 1.0)


def test_a_sigma_becomes_its_epsilon_under_the_settings_accountant():
    s = Setting(dataset="digits", l=16, sigma_x=0.5, accountant="class-aware", delta=1e-6)
    pre = get_preset("digits")
    p = PrivacyParams(l=16, sigma_x=0.5, sigma_y=0.5, c=default_clip_norm("digits"), T=pre.n,
                      delta=1e-6, n=pre.n, class_counts=tuple(pre.class_counts), d_x=pre.d_x,
                      d_y=pre.d_y, allocation=s.allocation)
    assert s.allocation == "proportional"  # the dashboard's default (issue 26)
    expected = compute_epsilon(p, accountant="class-aware").epsilon
    values, _ = widget_values(s, OFFERED, accountants=ACCOUNTANTS)
    assert values[EPS] == setting_epsilon(s) == float(f"{expected:.3g}")
    assert values[C] == f"{default_clip_norm('digits'):g}"  # c at the dataset's default
    # a different accountant states a different ε for the same σ: the accountant is read
    assert setting_epsilon(s.replace(accountant="whole-record")) != values[EPS]


def test_a_dataset_compare_does_not_offer_is_said_and_its_sigma_not_carried_over():
    values, note = widget_values(Setting(dataset="adult", sigma_x=0.5), OFFERED)
    assert values[DATASET] == "digits" and "UCI Adult" in note and "kept" in note
    assert EPS not in values and values[OWN_EPS] is None  # σ's ε on adult means nothing on digits
    assert values[C] == f"{default_clip_norm('digits'):g}"
    target, _ = widget_values(Setting(dataset="adult", epsilon=3.0), OFFERED)
    assert target[EPS] == 3.0  # a target is the same on any dataset
    assert ACCOUNTANT not in values  # none offered


def test_nothing_offered_is_refused_by_name():
    with pytest.raises(ValueError, match="offered"):
        widget_values(Setting(), ())


def test_the_epsilon_choices_hold_the_papers_and_the_settings_own():
    assert epsilon_choices([20.0, 10.0], 1.0) == [20.0, 10.0, 1.0]
    assert epsilon_choices([20.0, 10.0], 10.0) == [20.0, 10.0]
    assert epsilon_choices([30.0, 20.0], None) == [30.0, 20.0]


def test_only_what_changed_on_compare_is_written_back():
    s = Setting(dataset="digits", sigma_x=0.5)
    same = setting_changes(s, ("digits", 20.5), dataset="digits", epsilon=20.5, delta=1e-6, c=1.0,
                           accountant="whole-record")
    assert "epsilon" not in same and "dataset" not in same  # σ kept as chosen
    assert same["delta"] == 1e-6 and same["accountant"] == "whole-record"
    assert same["c"] is None  # the dataset's default is written as the default
    moved = setting_changes(s, ("digits", 20.5), dataset="mnist", epsilon=10.0, delta=1e-5, c=2.0)
    assert moved["dataset"] == "mnist" and moved["epsilon"] == 10.0 and moved["c"] == 2.0
    assert "accountant" not in moved  # DP-CDA not compared
    assert "c" not in setting_changes(s, None, dataset="digits", epsilon=10.0, delta=1e-5, c=None)


def test_c_of_a_dataset_the_setting_does_not_have_is_not_written():
    s = Setting(dataset="adult")  # Compare shows digits: its c is not adult's
    ch = setting_changes(s, ("digits", None), dataset="digits", epsilon=10.0, delta=1e-5, c=3.0)
    assert "c" not in ch and "dataset" not in ch and ch["epsilon"] == 10.0
