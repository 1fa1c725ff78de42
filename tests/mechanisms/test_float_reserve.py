"""Calibration keeps floating point's share back (issue 26, item 6): the card's stated total
epsilon, floating point included, never exceeds the target."""

from __future__ import annotations

import numpy as np
import pytest

from dpcda.mechanisms import (generate_dp_merf, generate_dpcda, generate_dpmix,
                              generate_random_projection)
from dpcda.randomness.noise import (GRID_MIN, Grid, calibration_aim, eta_upper, float_cost,
                                    float_reserve)


def _digits():
    from sklearn.datasets import load_digits

    d = load_digits()
    return d.data.astype(np.float64), d.target.astype(np.int64)


def _total_within(card, target, delta=1e-5):
    p = card["privacy"]
    fp = p["floating_point"]
    assert fp["epsilon_added"] > 0
    assert fp["epsilon_total"] == p["epsilon"] + fp["epsilon_added"]
    assert fp["epsilon_total"] <= target, (fp["epsilon_total"], target)
    assert p["calibrated_to_epsilon"] == target
    assert p["calibration_aim"]["float_reserve"] >= fp["epsilon_added"]
    # delta too: the ideal release is accounted at a smaller delta, so that delta + what floating
    # point adds to it (delta_total) is at most the target delta
    assert fp["delta_added"] > 0 and fp["delta_total"] == p["delta"] + fp["delta_added"]
    assert fp["delta_total"] <= delta, (fp["delta_total"], delta)
    assert p["calibrated_to_delta"] == delta
    assert p["calibration_aim"]["delta_float_reserve"] >= fp["delta_added"]
    assert p["delta"] > delta * (1 - 1e-3)  # a small share, not a needless cut
    return fp["epsilon_total"]


@pytest.mark.parametrize("accountant", ["whole-record", "class-aware-pld", "class-aware", "paper"])
@pytest.mark.parametrize("target", [0.5, 10.0])
def test_dpcda_card_total_never_exceeds_the_target(accountant, target):
    X, y = _digits()
    rel = generate_dpcda(X, y, l=4, T=10000, epsilon=target, delta=1e-5, accountant=accountant,
                         seed=1, device="cpu", compare_accountants=False)
    total = _total_within(rel.card, target)
    assert total > target * (1 - 1e-2)  # and the noise is not needlessly large


def test_dpcda_dp_center_total_never_exceeds_the_target():
    X, y = _digits()
    rel = generate_dpcda(X, y, l=4, T=30000, epsilon=4.0, normalize="dp-center",
                         bounds=(0, 16), seed=1, device="cpu")
    _total_within(rel.card, 4.0)


@pytest.mark.parametrize("target", [1.0, 8.0])
@pytest.mark.parametrize("gen, kw", [
    (generate_dpmix, dict(l=4, T=10000)),
    (generate_random_projection, dict(p=64)),
    (generate_dp_merf, dict(steps=1, n_features=2000, batch_size=40)),
])
def test_baselines_card_total_never_exceeds_the_target(gen, kw, target):
    X, y = _digits()
    rel = gen(X, y, epsilon=target, seed=1, device="cpu", **kw)
    _total_within(rel.card, target)


@pytest.mark.parametrize("sigma", [1e-6, 0.013, 0.25, 1.0, 3.7, 1e4])
def test_the_reserve_bounds_every_grid(sigma):
    from dpcda.randomness.noise import grid_for

    g = grid_for(sigma, 1.0)
    assert GRID_MIN <= g.s < 2 * GRID_MIN and g.eta() <= eta_upper()
    for s in np.linspace(8.0, 16.0, 33)[:-1]:  # every s the grid can have
        assert Grid(sigma=s, gamma=1.0).eta() <= eta_upper()
    n = 123_456
    assert float_cost((n, g)).epsilon_added <= float_reserve(n)


def test_a_target_below_the_reserve_is_refused():
    with pytest.raises(ValueError, match="epsilon=1e-12 cannot be reached: floating point alone adds up to"):
        calibration_aim(1e-12, 10**8)
    assert calibration_aim(None, 10) is None


def test_delta_aim_keeps_the_float_share_back_and_leaves_bad_values_to_their_checks():
    from dpcda.randomness.noise import FloatCost, delta_aim, tail_upper

    n = 60000 * (784 + 10) + 794  # MNIST's size: T = N samples of d + K values, and d + K more
    aim = delta_aim(1e-5, 10.0, n)
    assert 0 < 1e-5 - aim < 1e-8
    worst = FloatCost(n, eta_upper(), tail_upper())
    assert aim + worst.delta_added(10.0 - float_reserve(n), aim) <= 1e-5
    assert delta_aim(1e-5, None, n) == 1e-5 and delta_aim(1e-5, float("inf"), n) == 1e-5
    for bad in (0.0, -1.0, 1.0, 2.0, "x", None):  # refused later, in words naming the value given
        assert delta_aim(bad, 1.0, n) is bad
    assert delta_aim(1e-5, 200.0, 10**4) == 1e-5  # the tail term alone exceeds delta: nothing to keep


def test_a_card_whose_float_delta_passes_one_carries_a_danger_notice():
    from types import SimpleNamespace

    from dpcda.mechanisms.card import add_randomness
    from dpcda.randomness.noise import FloatCost, tail_upper

    cost = FloatCost(n_values=47_000_000, eta=eta_upper(), tail=tail_upper())
    src = SimpleNamespace(seeded=False)
    fine = add_randomness({"epsilon": 10.0, "delta": 1e-5}, src, cost)
    assert not fine["floating_point"]["vacuous"] and not fine.get("warnings")
    huge = add_randomness({"epsilon": 100.0, "delta": 1e-5}, src, cost)
    assert huge["floating_point"]["vacuous"]
    assert [w.code for w in huge["warnings"]] == ["float_no_bound"]


def test_a_release_whose_floats_carry_no_guarantee_says_so_in_its_summary():
    X, y = _digits()
    kw = dict(l=2, T=200, class_names=[str(k) for k in range(10)])
    tiny = generate_dpcda(X, y, sigma_x=0.002, **kw)  # epsilon in the hundreds
    fp = tiny.card["privacy"]["floating_point"]
    assert fp["vacuous"] and fp["delta_total"] >= 1.0
    assert "NO GUARANTEE" in tiny.summary()
    assert [w for w in tiny.card["privacy"]["warnings"] if "delta_total" in str(w)]
    fine = generate_dpcda(X, y, sigma_x=0.5, **kw)
    assert not fine.card["privacy"]["floating_point"]["vacuous"]
    assert "NO GUARANTEE" not in fine.summary()
