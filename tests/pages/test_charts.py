"""The Privacy page's frontier chart (pages.charts.frontier_chart), checked as data."""

from __future__ import annotations

import json
import math

from pages.charts import FRONTIER, HERE, HERE_COLUMNS, frontier_chart

FRONT = [dict(epsilon=0.5, mean=0.6, min=0.55, max=0.65, l=16, sigma_x=0.6, runs=3),
         dict(epsilon=2.0, mean=0.8, min=0.78, max=0.83, l=4, sigma_x=0.25, runs=3)]


def _layers(spec):
    for layer in spec["layer"]:
        yield layer
        yield from _layers(layer) if "layer" in layer else ()


def test_rows_steps_and_error_bars():
    spec, here = frontier_chart(FRONT, star=None, eps_now=None, title="Privacy-utility frontier")
    json.dumps(spec, allow_nan=False)  # plain JSON
    rows = spec["layer"][0]["data"]["values"]
    assert [(r["epsilon"], r["mean"], r["l"], r["sigma"]) for r in rows] == [
        (0.5, 0.6, 16, 0.6), (2.0, 0.8, 4, 0.25)]
    assert {r["series"] for r in rows} == {FRONTIER}
    (line,) = [x for x in _layers(spec) if x.get("mark", {}).get("type") == "line"]
    assert line["mark"]["interpolate"] == "step-after"
    assert line["encoding"]["x"]["scale"]["type"] == "log"
    bars = [x for x in _layers(spec) if x.get("mark", {}).get("type") == "rule"
            and "y2" in x["encoding"]]
    assert [(b["encoding"]["y"]["field"], b["encoding"]["y2"]["field"]) for b in bars] == [
        ("min", "max")]
    assert here == []  # no setting marked


def test_the_setting_is_data_so_a_slider_step_keeps_the_spec():
    spec_star, star = frontier_chart(FRONT, star=(1.5, 0.7), eps_now=1.5, title="t")
    spec_rule, rule = frontier_chart(FRONT, star=None, eps_now=3.0, title="t")
    spec_rule2, rule2 = frontier_chart(FRONT, star=None, eps_now=3.5, title="t")
    assert spec_star == spec_rule == spec_rule2  # only the data moves: no new Vega view
    assert [(r["kind"], r["epsilon"], r["mean"], r["series"]) for r in star] == [
        ("star", 1.5, 0.7, HERE)]
    assert [(r["kind"], r["epsilon"]) for r in rule] == [("rule", 3.0)]
    assert rule2[0]["epsilon"] == 3.5
    assert all(set(r) == set(HERE_COLUMNS) for r in star + rule)
    kinds = sorted((x["transform"][0]["filter"], x["mark"]["type"]) for x in _layers(spec_star)
                   if "transform" in x)
    assert kinds == [("datum.kind === 'rule'", "rule"), ("datum.kind === 'rule'", "text"),
                     ("datum.kind === 'star'", "point")]
    for eps in (math.inf, None, 0.0):
        assert frontier_chart(FRONT, star=None, eps_now=eps, title="t")[1] == []
