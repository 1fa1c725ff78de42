"""Default launches of the Utility and Compare pages: within two minutes on this CPU by the
estimate, trimmed in a stated order, experiments read from the mechanism registry."""

from __future__ import annotations

import math

import pytest

from dpcda.experiments.estimate import LONG_SECONDS
from dpcda.dashboard.launch_defaults import (compare_defaults, epochs_for, experiments_for, trim,
                                   utility_defaults)
from dpcda.mechanisms import MECHANISMS


def test_experiments_follow_the_registry_entry():
    for name in MECHANISMS:
        m = MECHANISMS.get(name)
        axes = experiments_for(name)
        assert ("l" in axes) == m.mixes and ("sigma" in axes) == m.noise_scale
        assert axes[0] == ("l" if m.mixes else "epsilon") and "epsilon" in axes
    assert experiments_for("dp-merf") == ["epsilon", "T"]
    with pytest.raises(ValueError, match="x must be one of epsilon, T"):
        utility_defaults("digits", "dp-merf", "l")


@pytest.mark.parametrize("dataset", ["digits", "mnist", "fashion-mnist", "adult"])
@pytest.mark.parametrize("mechanism", ["dp-cda", "dp-merf"])
def test_every_default_is_within_the_budget(dataset, mechanism):
    for x in experiments_for(mechanism):
        d = utility_defaults(dataset, mechanism, x)
        assert d.seconds <= LONG_SECONDS or (d.runs == 1 and len(d.ls) == 1 and
                                             len(d.epsilons or d.sigmas) == 1), (x, d)
        assert d.epochs == epochs_for(dataset) and d.runs >= 1 and d.ls


def test_digits_keeps_the_full_table3_grid_and_mnist_is_trimmed_in_order():
    d = utility_defaults("digits", "dp-cda", "l")
    assert d.epsilons == (math.inf, 20.0, 10.0) and d.ls == (1, 4, 16, 64) and d.runs == 3
    assert d.model == "auto" and not d.trimmed
    m = utility_defaults("mnist", "dp-cda", "l")
    assert m.model == "lda"  # auto's CNN at epsilon = inf takes minutes per job on CPU
    assert m.trimmed[0].startswith("learner lda") and m.runs == 1
    assert 10.0 in m.epsilons and math.inf in m.epsilons  # the most informative kept
    assert m.seconds <= LONG_SECONDS


def test_dp_merf_sweeps_epsilon_with_l_one():
    d = utility_defaults("digits", "dp-merf", "epsilon")
    assert d.ls == (1,) and d.sigmas is None and 10.0 in d.epsilons


def test_trim_order_runs_then_lists():
    grid = {"runs": 3, "epsilons": [10.0, math.inf, 20.0], "ls": [16, 4]}
    cost = lambda g: g["runs"] * len(g["epsilons"]) * len(g["ls"])  # noqa: E731
    cut = trim(cost, grid, budget=1)
    assert cut == ["runs 3 → 1", "ε = 20, ∞ left out", "l = 4 left out"]
    assert grid == {"runs": 1, "epsilons": [10.0], "ls": [16]}


def test_compare_keeps_every_mechanism():
    names = MECHANISMS.names()
    d = compare_defaults("digits", 10.0, names)
    assert d.seconds <= LONG_SECONDS and set(d.ls) == {m for m in names if MECHANISMS.get(m).mixes}
    big = compare_defaults("mnist", 10.0, names)
    assert big.runs == 1 and all(big.ls.values())  # trimmed, but no mechanism dropped
    assert big.seconds < compare_defaults("mnist", 10.0, names, budget=1e9).seconds


def test_no_infinite_epsilon_by_default_where_the_mechanism_cannot_skip_its_noise():
    from dpcda.dashboard.sweep_request import SweepRequest

    d = utility_defaults("digits", "random-projection", "epsilon")
    assert math.inf not in d.epsilons and d.epsilons
    req = SweepRequest(dataset="digits", mechanism="random-projection", x="epsilon",
                       epsilons=d.epsilons, ls=d.ls, runs=d.runs)
    assert req.problems() == []
