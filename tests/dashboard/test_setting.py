"""The shared setting (dpcda/dashboard/setting.py): the address round trip, refusals kept apart,
the words for a target out of reach and for another accountant's ε."""

from __future__ import annotations

import math

import pytest

from dpcda.dashboard.setting import FIELDS, Setting, other_accountant_words, target_words
from dpcda.util.checks import CheckError


def test_the_address_round_trips_with_the_cli_flag_names():
    s = Setting(dataset="mnist", l=16, sigma_x=0.5, sigma_y=0.7, c=2.0, T=1234, delta=1e-6,
                accountant="paper", allocation="proportional", normalize="zscore",
                conversion="improved", max_alpha=64)
    q = s.to_query()
    assert set(q) <= set(FIELDS) and q["sigma_x"] == "0.5" and q["max_alpha"] == "64"
    back, problems = Setting.from_query(q)
    assert back == s and problems == []
    target = s.replace(epsilon=2.5)
    assert target.noise_mode == "epsilon" and Setting.from_query(target.to_query())[0] == target


def test_a_refused_value_is_named_and_the_rest_kept():
    s, problems = Setting.from_query({"dataset": "digits", "l": "0", "sigma_x": "abc",
                                      "T": "1e308", "accountant": "nope", "delta": "1e-6",
                                      "sweep": "3"})
    assert (s.dataset, s.delta) == ("digits", 1e-6)        # kept
    assert (s.l, s.sigma_x, s.T) == (Setting().l, Setting().sigma_x, None)  # refused: defaults
    assert sorted(p.name for p in problems) == ["T", "accountant", "l", "sigma_x"]
    assert all(isinstance(p, CheckError) for p in problems)
    assert "1e308" in next(str(p) for p in problems if p.name == "T")
    with pytest.raises(ValueError, match="allocation"):
        Setting(allocation="random")


def test_defaults_are_the_pages_one_range_and_allocation():
    s = Setting()
    assert s.allocation == "proportional" and s.T is None and s.T_for(60000) == 60000
    assert s.clip_norm() == 1.0 and Setting(dataset="adult").clip_norm() == 3.0
    assert Setting.from_query({"T": "1000000000"})[0].T == 10**9
    assert Setting.from_query({"T": "1000000001"})[1]


def test_target_words_say_what_is_reachable():
    assert target_words(10, 9.9995, "class-aware-pld") is None
    zero = target_words(1e-9, 0.0, "class-aware-pld")
    assert "ε = 0" in zero and "noise" in zero
    far = target_words(1e4, 499.9, "class-aware-pld")
    assert "cannot be reached" in far and "500" in far


def test_other_accountants_in_words_not_ratios():
    assert other_accountant_words("paper", {"epsilon": 98465.0, "bound_note": "as published"},
                                  14.6) is None  # meaningless to a reader: not shown
    assert other_accountant_words("class-aware", {"epsilon": 3.0}, 0.0) is None  # no ZeroDivision
    text = other_accountant_words("class-aware", {"epsilon": 30.0}, 10.0)
    assert "3 times larger" in text and "×" not in text
    assert "about the same" in other_accountant_words("paper", {"epsilon": 10.2}, 10.0)
    assert math.isfinite(Setting().sigma_x)


def test_a_long_value_of_a_link_is_read_short_and_refused():
    """Issue 29: a value past MAX_VALUE_CHARS is refused as read, quoted short."""
    from dpcda.dashboard.setting import MAX_VALUE_CHARS

    setting, problems = Setting.from_query({"dataset": "![x](http://e.example/t.png)" * 40_000,
                                            "sigma_x": "1" * 100_000, "l": "16"})
    assert setting.l == 16 and setting.dataset == Setting().dataset
    assert [p.name for p in problems] == ["dataset", "sigma_x"]
    assert all(len(str(p)) < 200 + MAX_VALUE_CHARS for p in problems), [len(str(p)) for p in problems]
