"""The Choose page (issue 21, item 5): up to three candidates side by side, one chosen, and the
report of that choice downloaded with its summary first and a file named for the setting."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcda.dashboard.setting import Setting
from page_util import run
from test_report_ui import media  # noqa: F401 (the fixture)

from pages.report_ui import CANDIDATES
from pages.setting_ui import KEY

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "choose.py")


def open_page(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    return run(at)


def add(at, **changes):
    if changes:
        at.session_state[KEY] = at.session_state[KEY].replace(**changes)
    at.button(key="cand_add").click()
    return run(at)


def test_two_candidates_a_choice_and_the_summary_the_report_opens_with(media):  # noqa: F811
    at = open_page(dataset="digits", l="4", sigma_x="1")
    add(at)
    add(at, l=16, sigma_x=0.5)
    a, b = (c.numbers for c in at.session_state[CANDIDATES])
    at.radio(key="cand_pick").set_value("B")
    run(at)
    table = at.dataframe[0].value
    assert list(table.columns) == ["", "A", "B (chosen)"]  # side by side: a column each
    assert table.set_index("").loc["ε, whole-record", "B (chosen)"] == f"{b.eps_whole:.4g}"
    summary = next(m.value for m in at.markdown if m.value.startswith("**The report's first page:**"))
    assert f"ε = {b.eps_whole:.3g} (whole-record: one record, label included)" in summary
    assert f"Trade-off against Candidate A (ε = {a.eps_whole:.3g}, whole-record" in summary
    # the file is named for the chosen setting; the report itself is built only on click
    assert set(media.deferred) >= {f"dpcda_report_digits_l16_eps{b.eps_whole:.3g}.html"}


def test_three_candidates_side_by_side_then_a_report_of_the_chosen_one(media):  # noqa: F811
    at = open_page(dataset="digits", l="4", sigma_x="1")
    assert any("No candidates yet" in i.value for i in at.info)
    add(at)
    add(at, l=16, sigma_x=0.5)
    add(at, allocation="proportional", accountant="class-aware-pld")
    cands = at.session_state[CANDIDATES]
    assert [c.label for c in cands] == ["A", "B", "C"]
    assert not at.button(key="cand_add").disabled  # the current setting (C) may be re-measured
    at.session_state[KEY] = at.session_state[KEY].replace(l=8)
    run(at)
    assert at.button(key="cand_add").disabled  # a fourth is refused until one is removed
    table = at.dataframe[0].value.set_index("")
    assert list(table.columns) == ["A (chosen)", "B", "C"]
    assert table.loc["ε, whole-record", "C"] not in ("not accountable", "", None)  # split by the bounds
    assert cands[2].numbers.eps_whole > cands[2].numbers.eps_features > 0
    a, b = cands[0].numbers, cands[1].numbers
    assert a.eps_whole > a.eps_features > 0 and b.eps_whole > b.eps_features > 0

    at.radio(key="cand_pick").set_value("B")
    run(at)
    summary = next(m.value for m in at.markdown if m.value.startswith("**The report's first page:**"))
    assert "Recommendation: Candidate B of 3" in summary and "(whole-record" in summary
    name = f"dpcda_report_digits_l16_eps{b.eps_whole:.3g}.html"
    html = media.deferred[name]().decode()  # built on click
    first = html.index('<section id="summary"')
    assert first < html.index('<section id="candidates"') < html.index('<section id="privacy"')
    assert "Recommendation: Candidate B of 3" in html[first:first + 2000]
    assert not re.search(r'&quot;(seed|noise|rng)&quot;:', html)

    at.button(key="cand_remove_A").click()
    run(at)
    assert [c.label for c in at.session_state[CANDIDATES]] == ["B", "C"]
    assert not at.button(key="cand_add").disabled


def test_the_same_setting_twice_is_one_candidate():
    at = open_page(dataset="digits", l="4", sigma_x="1")
    add(at)
    add(at)
    assert len(at.session_state[CANDIDATES]) == 1
    assert at.session_state[CANDIDATES][0].setting == Setting(dataset="digits", l=4, sigma_x=1.0)
