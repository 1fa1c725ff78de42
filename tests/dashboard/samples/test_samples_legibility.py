"""dpcda.dashboard.samples.legibility: the 'every sample is static' rule and its hint."""

from __future__ import annotations

import math

import pytest

from dpcda.dashboard.samples.legibility import (SCORE_MIN, legibility_hint, legibility_score, legible_sigma,
                                      smallest_legible_l, unrecognisable)


def test_score_is_c_over_sigma_and_rule_at_threshold():
    assert legibility_score(c=2.0, sigma=0.5) == 4.0
    assert legibility_score(c=1.0, sigma=0.0) == math.inf
    s = legible_sigma(c=1.0)
    assert s == pytest.approx(1 / SCORE_MIN)
    assert not unrecognisable(c=1.0, sigma=s)            # exactly at the threshold: legible
    assert unrecognisable(c=1.0, sigma=s * 1.01)
    # MNIST at the paper's setting (epsilon = 10, l = 4: sigma ~ 0.17 for T = 10,000) is static;
    # l = 64 at the same epsilon (sigma ~ 0.019) is not.
    assert unrecognisable(c=1.0, sigma=0.17) and not unrecognisable(c=1.0, sigma=0.019)


@pytest.mark.parametrize("bad", [dict(c=0.0, sigma=1.0), dict(c=1.0, sigma=-1.0),
                                 dict(c=math.inf, sigma=1.0), dict(c=1.0, sigma=math.nan)])
def test_bad_inputs_name_the_parameter(bad):
    with pytest.raises(ValueError, match="c must|sigma must"):
        legibility_score(**bad)


def test_smallest_legible_l_bisects_a_monotone_predicate():
    calls = []

    def meets(l):
        calls.append(l)
        return l >= 48

    assert smallest_legible_l([8, 16, 32, 64, 128, 256], meets) == 64
    assert len(calls) <= 4  # bisection, not a scan
    assert smallest_legible_l([8, 16], lambda l: False) is None
    assert smallest_legible_l([], lambda l: True) is None
    assert smallest_legible_l([4, 8], lambda l: True) == 4


def test_hint_names_the_smallest_l_that_meets_the_same_epsilon():
    # A toy accountant: epsilon(l, sigma) = 1 / (l * sigma), so the legible noise 1/12 at
    # epsilon = 1 needs l >= 12: the hint must name 16 among the powers of two.
    eps_at = lambda l, s: 1.0 / (l * s)  # noqa: E731
    h = legibility_hint(c=1.0, sigma=0.5, l=4, epsilon=1.0, candidates=[1, 2, 4, 8, 16, 32],
                        epsilon_at=eps_at)
    assert h.static and h.suggested_l == 16 and "l ≥ 16" in h.hint and "ε = 1" in h.hint
    none = legibility_hint(c=1.0, sigma=0.5, l=4, epsilon=1.0, candidates=[8], epsilon_at=eps_at)
    assert none.static and none.suggested_l is None and "larger ε" in none.hint
    direct = legibility_hint(c=1.0, sigma=0.5, l=4, epsilon=None)
    assert direct.static and f"σ ≤ {1 / SCORE_MIN:.3g}" in direct.hint
    clear = legibility_hint(c=1.0, sigma=0.01, l=4, epsilon=1.0, candidates=[8], epsilon_at=eps_at)
    assert not clear.static and clear.hint == ""
