"""The inline SVG charts (dpcda.report.svg): the Privacy page's frontier, checked as XML."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from dpcda.report.svg import FRONTIER, HERE, frontier_svg, line_chart, Series

NS = "{http://www.w3.org/2000/svg}"
FRONT = [dict(epsilon=0.5, mean=0.6, min=0.55, max=0.65, l=16, sigma_x=0.6, runs=3, learner="qda"),
         dict(epsilon=2.0, mean=0.8, min=0.8, max=0.8, l=4, sigma_x=0.25, runs=1)]


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML (so also valid inline SVG)


def by_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == name]


def texts(root: ET.Element) -> str:
    return " ".join(e.text or "" for e in root.iter() if e.tag in (NS + "text", NS + "title"))


def test_frontier_points_steps_ranges_and_hover_titles():
    root = parse(frontier_svg(FRONT, title="Privacy-utility frontier", subtitle="digits, x"))
    pts = by_class(root, "frontier-point")
    assert [(float(p.get("data-epsilon")), float(p.get("data-mean")), int(p.get("data-l")))
            for p in pts] == [(0.5, 0.6, 16), (2.0, 0.8, 4)]
    # Larger epsilon lies to the right, larger accuracy higher up (SVG y grows downwards).
    (x0, y0), (x1, y1) = [(float(p.get("cx")), float(p.get("cy"))) for p in pts]
    assert x1 > x0 and y1 < y0
    # One step: horizontal to the next epsilon, then vertical to its accuracy.
    (step,) = by_class(root, "frontier-step")
    assert re.fullmatch(r"M[\d.]+,[\d.]+H[\d.]+V[\d.]+", step.get("d"))
    assert step.get("d") == f"M{x0:.1f},{y0:.1f}H{x1:.1f}V{y1:.1f}"
    # A range bar only where the runs differ; the hover title names l, sigma and the runs.
    (bar,) = by_class(root, "frontier-range")
    assert float(bar.get("x1")) == x0 and float(bar.get("y1")) > y0 > float(bar.get("y2"))
    tip = pts[0].find(NS + "title").text
    assert "l = 16" in tip and "σ = 0.6" in tip and "runs = 3" in tip and "0.550–0.650" in tip
    assert "learner qda" in tip  # which learner the recommended l was measured with
    assert "runs 0.8" not in pts[1].find(NS + "title").text  # one run: no range
    assert "learner" not in pts[1].find(NS + "title").text  # none given: none named
    words = texts(root)
    assert "Privacy-utility frontier" in words and "digits, x" in words and FRONTIER in words
    assert "ε (smaller is more private)" in words and "test accuracy" in words
    assert not by_class(root, "here-star") and not by_class(root, "here-rule")


def test_this_setting_is_a_star_when_measured_else_a_rule_at_its_epsilon():
    root = parse(frontier_svg(FRONT, star=(1.5, 0.7), eps_now=1.5, title="t"))
    (star,) = by_class(root, "here-star")
    assert (float(star.get("data-epsilon")), float(star.get("data-mean"))) == (1.5, 0.7)
    assert not by_class(root, "here-rule") and HERE in texts(root)
    # Between the two frontier points on the x axis.
    xs = sorted(float(p.get("cx")) for p in by_class(root, "frontier-point"))
    sx = [float(v.split(",")[0]) for v in star.get("points").split()]
    assert xs[0] < sum(sx) / len(sx) < xs[1]

    root = parse(frontier_svg(FRONT, eps_now=30.0, title="t"))
    (rule,) = by_class(root, "here-rule")
    assert float(rule.get("data-epsilon")) == 30.0
    assert float(rule.get("x1")) > max(float(p.get("cx")) for p in by_class(root, "frontier-point"))
    assert "this ε (not measured)" in texts(root) and HERE not in texts(root)
    for eps in (math.inf, None, 0.0, math.nan):
        root = parse(frontier_svg(FRONT, eps_now=eps, title="t"))
        assert not by_class(root, "here-rule") and not by_class(root, "here-star")


def test_escapes_text_and_refuses_an_empty_chart():
    root = parse(frontier_svg(FRONT, title="a < b & c", subtitle="<script>x</script>"))
    assert "a < b & c" in texts(root) and "<script>x</script>" in texts(root)
    assert root.find(f".//{NS}script") is None
    with pytest.raises(ValueError, match="at least one finite positive epsilon"):
        frontier_svg([dict(FRONT[0], epsilon=math.inf)], title="t")
    assert by_class(parse(frontier_svg([], eps_now=2.0, title="t")), "here-rule")


def test_line_chart_still_draws_its_marker():
    root = parse(line_chart([Series("a", (1, 2), (0.5, 0.7))], title="t", x_title="x",
                            y_title="y", marker=(1.5, 0.6, "here")))
    assert "here" in texts(root)


def x_labels(root: ET.Element) -> list[str]:
    """The x-axis tick labels (text-anchor middle, below the plot area)."""
    return [e.text for e in root.iter(NS + "text")
            if e.get("text-anchor") == "middle" and e.text and not e.text.startswith("ε")]


@pytest.mark.parametrize("eps", [3.0, 7.0, 150.0, 3e5, 0.004])
def test_a_single_point_still_gets_labelled_x_ticks(eps):
    root = parse(frontier_svg([dict(FRONT[0], epsilon=eps)], title="t"))
    assert len(x_labels(root)) >= 2


def test_log_tick_labels():
    from dpcda.report.svg import _log_tick

    assert [_log_tick(v) for v in (0.01, 0.5, 1, 200, 500)] == ["0.01", "0.5", "1", "200", "500"]
    assert [_log_tick(v) for v in (1000, 2000, 1e5, 0.001, 2e-5)] == [
        "10³", "2·10³", "10⁵", "10⁻³", "2·10⁻⁵"]


def test_rule_label_stays_inside_and_bad_rows_are_left_out():
    root = parse(frontier_svg(FRONT, eps_now=1e4, title="t"))
    (label,) = [e for e in root.iter(NS + "text") if e.text == "this ε"]
    (rule,) = by_class(root, "here-rule")
    assert label.get("text-anchor") == "end" and float(label.get("x")) < float(rule.get("x1"))
    root = parse(frontier_svg(FRONT, eps_now=0.8, title="t"))
    (label,) = [e for e in root.iter(NS + "text") if e.text == "this ε"]
    assert label.get("text-anchor") is None  # room on the right: the label follows the rule
    # Unsorted rows are drawn in epsilon order; a NaN mean or star is left out, never "nan".
    svg = frontier_svg([FRONT[1], dict(FRONT[0], mean=math.nan), FRONT[0]],
                       star=(1.0, math.nan), title="a\n\nb")
    assert "nan" not in svg.lower() and "\n\n" not in svg
    root = parse(svg)
    assert [float(p.get("data-epsilon")) for p in by_class(root, "frontier-point")] == [0.5, 2.0]
    assert not by_class(root, "here-star") and "a b" in texts(root)
