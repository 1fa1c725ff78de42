"""The Privacy page's frontier chart spec (pages.charts.frontier_spec), checked as data."""

from __future__ import annotations

import json
import math

from pages.charts import FRONTIER, HERE, frontier_spec

FRONT = [dict(epsilon=0.5, mean=0.6, min=0.55, max=0.65, l=16, sigma_x=0.6, runs=3),
         dict(epsilon=2.0, mean=0.8, min=0.78, max=0.83, l=4, sigma_x=0.25, runs=3)]


def _layers(spec):
    for layer in spec["layer"]:
        yield layer
        yield from _layers(layer) if "layer" in layer else ()


def test_rows_steps_and_error_bars():
    spec = frontier_spec(FRONT, star=None, eps_now=None, title="Privacy-utility frontier")
    json.dumps(spec, allow_nan=False)  # plain JSON: nothing Streamlit has to convert
    rows = spec["layer"][0]["data"]["values"]
    assert [(r["epsilon"], r["mean"], r["l"], r["sigma"]) for r in rows] == [
        (0.5, 0.6, 16, 0.6), (2.0, 0.8, 4, 0.25)]
    assert {r["series"] for r in rows} == {FRONTIER}
    marks = {layer["mark"]["type"] for layer in _layers(spec) if "mark" in layer}
    assert marks == {"line", "rule"}  # no star and no "this ε" rule without a setting
    (rule,) = [x for x in _layers(spec) if x.get("mark", {}).get("type") == "rule"]
    assert rule["encoding"]["y"]["field"] == "min" and rule["encoding"]["y2"]["field"] == "max"


def test_star_when_measured_else_a_rule_at_this_epsilon():
    spec = frontier_spec(FRONT, star=(1.5, 0.7), eps_now=1.5, title="t")
    stars = [x for x in _layers(spec) if x.get("data", {}).get("values", [{}])[0].get("series") == HERE]
    assert [s["data"]["values"][0]["epsilon"] for s in stars] == [1.5]
    spec = frontier_spec(FRONT, star=None, eps_now=3.0, title="t")
    texts = [x for x in _layers(spec) if x.get("mark", {}).get("type") == "text"]
    assert len(texts) == 1
    assert any(x.get("data", {}).get("values", [{}])[0].get("epsilon") == 3.0 for x in _layers(spec))
    for eps in (math.inf, None):
        spec = frontier_spec(FRONT, star=None, eps_now=eps, title="t")
        assert not [x for x in _layers(spec) if x.get("mark", {}).get("type") == "text"]
