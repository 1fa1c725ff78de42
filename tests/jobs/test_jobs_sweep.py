"""dpcda.experiments.sweep: grids over (epsilon or sigma, T, l, run), the recorded axis, aggregation."""

from __future__ import annotations

import math

import pytest

from dpcda.experiments.sweep import (default_x, format_table, grid_configs, parse_sigmas, parse_Ts,
                              submit_sweep, sweep_results)

INF = math.inf


def test_grid_nests_privacy_then_T_then_l_then_run():
    cfgs = grid_configs({"dataset": "digits"}, sigmas=[0.5, 1.0], Ts=[100, 200], ls=[2, 4], runs=2)
    assert len(cfgs) == 2 * 2 * 2 * 2
    assert [(c["sigma"], c["T"], c["l"], c["run"]) for c in cfgs[:5]] == [
        (0.5, 100, 2, 0), (0.5, 100, 2, 1), (0.5, 100, 4, 0), (0.5, 100, 4, 1), (0.5, 200, 2, 0)]
    assert all("epsilon" not in c for c in cfgs)
    eps = grid_configs({"dataset": "digits", "T": 300}, epsilons=[10], ls=[4], runs=1)
    assert eps == [{"dataset": "digits", "T": 300, "epsilon": 10.0, "l": 4, "run": 0}]


@pytest.mark.parametrize("kwargs, message", [
    (dict(ls=[4], runs=1), "give either epsilons"),
    (dict(epsilons=[10], sigmas=[1], ls=[4], runs=1), "give either epsilons"),
    (dict(epsilons=[10], ls=[4], runs=0), "runs must be an integer >= 1"),
])
def test_grid_rejects_bad_choices(kwargs, message):
    with pytest.raises(ValueError, match=message):
        grid_configs({"dataset": "digits"}, **kwargs)


@pytest.mark.parametrize("text, ok", [("0,0.5,2", [0.0, 0.5, 2.0]), ("0.5, x", None), ("-1", None),
                                      ("inf", None), ("1,1", None)])
def test_parse_sigmas(text, ok):
    if ok is None:
        with pytest.raises(ValueError, match="sigmas must"):
            parse_sigmas(text)
    else:
        assert parse_sigmas(text) == ok


def test_parse_Ts():
    assert parse_Ts("100, 2000") == [100, 2000]
    for bad in ("0", "1.5", "x", "5,5"):
        with pytest.raises(ValueError, match="T"):
            parse_Ts(bad)


def test_default_axis():
    assert default_x(n_privacy=3, n_l=5, n_T=1, fixed_sigma=False) == "l"
    assert default_x(n_privacy=3, n_l=1, n_T=1, fixed_sigma=False) == "epsilon"
    assert default_x(n_privacy=3, n_l=1, n_T=1, fixed_sigma=True) == "sigma"
    assert default_x(n_privacy=1, n_l=4, n_T=3, fixed_sigma=True) == "T"


def test_submit_records_the_axis_and_checks_it(store):
    sid = submit_sweep(store, {"dataset": "digits", "model": "ncm"}, sigmas=[0.5, 1.0], ls=[4], runs=1)
    cfg = store.get_sweep(sid).config
    assert cfg["x"] == "sigma" and cfg["sigmas"] == [0.5, 1.0] and cfg["epsilons"] is None
    assert "sigma 0.5,1" in store.get_sweep(sid).name
    sid = submit_sweep(store, {"dataset": "digits", "model": "ncm"}, epsilons=[10], ls=[4], Ts=[100, 200],
                       runs=1)
    assert store.get_sweep(sid).config["x"] == "T" and "T 100,200" in store.get_sweep(sid).name
    with pytest.raises(ValueError, match="x must be one of l, T, or epsilon for a sweep over target"):
        submit_sweep(store, {"dataset": "digits"}, epsilons=[10], ls=[4], runs=1, x="sigma")
    with pytest.raises(ValueError, match="x must be one of l, T, or sigma"):
        submit_sweep(store, {"dataset": "digits"}, sigmas=[1], ls=[4], runs=1, x="epsilon")


def _finish(store, sid, acc):
    for _ in store.jobs(sweep_id=sid):
        job = store.claim("w", ["experiment"], sweep_id=sid)
        c = job.config
        sig = c.get("sigma") or 0.0
        store.finish(job.id, "w", "done", result={
            "accuracy": acc(c), "sigma_x": sig, "epsilon": INF if sig == 0 else 100 * c["T"] / sig})


def test_results_per_point_with_achieved_epsilon_and_table(store):
    sid = submit_sweep(store, {"dataset": "digits", "model": "ncm"}, sigmas=[0.0, 0.5], ls=[4],
                       Ts=[100, 200], runs=2)
    _finish(store, sid, lambda c: 0.5 + c["T"] / 1000 + c["run"] / 100)
    res = sweep_results(store, sid)
    assert len(res) == 4 and set(res["runs"]) == {2}
    fixed = res[res["sigma_target"] == 0.5].sort_values("T")
    assert fixed["T"].tolist() == [100, 200]
    assert fixed["mean"].tolist() == pytest.approx([0.605, 0.705])
    assert fixed["std"].tolist() == pytest.approx([math.sqrt(0.00005)] * 2)
    assert fixed["epsilon_achieved"].tolist() == pytest.approx([20000, 40000])
    zero = res[res["sigma_target"].isna()]  # sigma 0 is the non-private epsilon = inf point
    assert set(zero["epsilon"]) == {INF} and set(zero["sigma"]) == {0.0}
    text = format_table(res)
    header, _, *rows = text.splitlines()
    assert header.split()[:6] == ["dataset", "accountant", "epsilon", "l", "T", "sigma"]
    assert any("~2e+04" in r and "0.5 (fixed)" in r and "100" in r for r in rows)
    assert any(" inf " in r and "0 (non-private)" in r for r in rows)
