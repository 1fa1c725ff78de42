"""AppTest tests of what the Samples page has shown from the private data: its tally composed
over every draw the server made (dpcda.dashboard.shown), and real records only on request."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

import dpcda.dashboard.samples as smp
from dpcda.dashboard import shown
from dpcda.data import load_dataset
from dpcda.privacy.shown_compose import compose_shown
from dpcda.report.formatting import fmt_eps
from tests.pages.page_util import run
from tests.pages.test_samples_page import PAGE, _one_torch_thread, digits_link  # noqa: F401

DIGITS = ("builtin", "digits")
REAL = "Show real records (not private)"


def _spent(at) -> str:
    (box,) = [i.value for i in at.info if i.value.startswith("**Shown so far**")]
    return box


def _releases(text: str) -> int:
    return int(re.search(r"composed over (\d+) releases?", text).group(1))


def _heads(at) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**ε = ")]


def test_the_tally_composes_every_draw_of_the_server_and_a_cached_view_adds_nothing():
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=300)))
    text = _spent(at)
    counts = load_dataset("digits").class_counts
    (r,) = shown.drawn(DIGITS)  # the quick release, drawn at once
    assert r.kind == "release" and r.sigma > 0 and sum(r.steps) >= 1340
    want = compose_shown([r], lower_counts=counts, delta=1e-5).epsilon
    assert f"ε = {fmt_eps(want)} (whole-record, δ = 1e-5), composed over 1 release" in text
    at.toggle(key="samples_mosaic").set_value(True)
    run(at)
    text = _spent(at)
    assert _releases(text) == 1 + 4 * 3 and "12 mosaic cells, 1 full release" in text  # 4 l x 3 noisy ε
    eps = float(re.search(r"ε = ([0-9.]+)", text).group(1))
    assert eps > want  # previews and cells compose
    run(at)  # the same setting again: the same (cached) mosaic, nothing new drawn
    assert _releases(_spent(at)) == 13
    # Another session (a second tab) sees the same draws and the same tally: the server's.
    other = run(digits_link(AppTest.from_file(PAGE, default_timeout=300)))
    assert _spent(other) == _spent(at) and len(shown.drawn(DIGITS)) == 13


def test_real_records_are_absent_until_asked_and_then_counted_as_not_private():
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=300)))
    box = at.sidebar.checkbox(key="samples_real")
    assert box.label == REAL and box.value is False
    at.toggle(key="samples_mosaic").set_value(True)
    run(at)
    assert not any(h.startswith("**ε = ∞") for h in _heads(at))  # absent, not blurred
    assert all(c.sigma > 0 for c in shown.drawn(DIGITS))  # and never drawn
    assert "ε = ∞" not in _spent(at)
    at.sidebar.checkbox(key="samples_real").check()
    run(at)
    assert _heads(at)[0] == "**ε = ∞**"
    text = _spent(at)
    assert text.count("ε = ∞") == 1 and "4 views of real records, not private" in text
    assert "The noisy, covered releases alone: ε = " in text


def test_a_live_preview_is_a_release_in_the_tally(monkeypatch):
    monkeypatch.setattr(smp, "is_quick", lambda **_: False)  # previewed, as MNIST's is
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=300)))
    (p,) = shown.drawn(DIGITS)
    assert p.kind == "preview" and set(p.steps) == {8} and len(p.steps) == 10
    assert "composed over 1 release" in _spent(at)
    at.select_slider(key="samples_l").set_value("16")  # a new setting: a new preview
    run(at)
    assert [d.l for d in shown.drawn(DIGITS)] == [4, 16]
    assert "composed over 2 releases" in _spent(at)
    at.select_slider(key="samples_l").set_value("4")  # back: the cached preview, no new draw
    run(at)
    assert len(shown.drawn(DIGITS)) == 2


@pytest.mark.parametrize("norm", ["dp-center"])
def test_dp_center_statistics_are_a_release_of_their_own(norm, monkeypatch):
    monkeypatch.setattr(smp, "is_quick", lambda **_: False)
    at = run(digits_link(AppTest.from_file(PAGE, default_timeout=300)))
    at.radio(key="samples_norm").set_value(norm)
    run(at)
    kinds = [d.kind for d in shown.drawn(DIGITS)]
    assert kinds.count("statistics") == 1 and kinds.count("preview") == 2
    (stats,) = [d for d in shown.drawn(DIGITS) if d.kind == "statistics"]
    assert stats.mu > 0 and "1 statistics release" in _spent(at)
