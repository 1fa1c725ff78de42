"""A Utility launch as data (dpcda.dashboard.sweep_request): base config from the registry, problems as
values, an estimate before submitting."""

from __future__ import annotations

import math

import pytest

from dpcda.jobs import JobStore
from dpcda.dashboard.sweep_request import SweepRequest, no_noise_ok


def test_mechanisms_without_noise_scale_and_their_infinite_epsilon():
    assert no_noise_ok("dp-cda") and no_noise_ok("dp-merf")  # sigma = 0 / noise_multiplier = 0
    assert not no_noise_ok("random-projection")
    req = SweepRequest(dataset="digits", mechanism="random-projection", x="epsilon",
                       epsilons=(math.inf, 10.0), runs=1)
    (p,) = req.problems()
    assert p.code == "no-noise" and "leave ε = ∞ out" in p.plain


def test_dp_merf_request_is_an_epsilon_sweep_with_only_its_parameters(tmp_path):
    req = SweepRequest(dataset="digits", mechanism="dp-merf", x="epsilon",
                       epsilons=(math.inf, 1.0), runs=2, allocation="equal", conversion="improved")
    base = req.base()
    assert "allocation" not in base and "conversion" not in base  # not DP-MERF parameters
    assert req.problems() == [] and req.n_jobs() == 4
    assert req.count_text() == "4 job(s): 2 ε × 1 l × 2 run(s)."
    est = req.estimate()
    assert est.jobs == 4 and est.seconds > 0
    store = JobStore(tmp_path / "jobs.sqlite3")
    sid = req.submit(store)
    jobs = store.jobs(sweep_id=sid)
    assert sorted(j.config["epsilon"] for j in jobs) == [1.0, 1.0, math.inf, math.inf]
    assert store.get_sweep(sid).config["x"] == "epsilon"


def test_problems_are_values_stated_once():
    empty = SweepRequest(dataset="digits", epsilons=(), ls=())
    assert [p.plain for p in empty.problems()] == ["Select at least one target ε.",
                                                   "Select at least one order of mixture l."]
    bad = SweepRequest(dataset="adult", epsilons=(10.0,), ls=(4,), model="tree", label_mode="soft")
    (p,) = bad.problems()
    assert "label_mode" in p.precise and bad.estimate().jobs == 0
    with pytest.raises(ValueError):
        bad.configs()
