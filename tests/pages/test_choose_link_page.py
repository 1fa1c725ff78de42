"""A meeting's shortlist as a link (issue 21): the Choose page opened with ``candidates`` (and
``chosen``) in the address measures those candidates again and shows them; a malformed one is
refused in plain words, naming the parameter, and the rest kept; a change is written back."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcda.dashboard.candidate_link import decode, encode
from dpcda.dashboard.candidates import measure
from dpcda.dashboard.setting import Setting
from page_util import run
from tests.markdown_check import shown_text

from pages.report_ui import CANDIDATES

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "choose.py")
A = Setting(dataset="digits", l=4, sigma_x=1.0)
B = Setting(dataset="digits", l=16, sigma_x=0.5)


def open_page(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query)
    return run(at)


def table(at):
    return at.dataframe[0].value.set_index("")


def test_a_link_with_candidates_measures_and_shows_them():
    at = open_page(dataset="digits", candidates=encode([("A", A), ("B", B)]), chosen="B")
    cands = at.session_state[CANDIDATES]
    assert [(c.label, c.setting) for c in cands] == [("A", A), ("B", B)]
    assert at.radio(key="cand_pick").value == "B"
    t = table(at)
    assert list(t.columns) == ["A", "B (chosen)"]
    want = measure(B, "B", release=False).numbers.eps_whole  # computed, never read from the link
    assert t.loc["ε, whole-record", "B (chosen)"] == f"{want:.4g}"
    assert not at.error


def test_a_malformed_candidate_is_refused_in_words_and_the_rest_kept():
    at = open_page(dataset="digits", candidates="A~dataset:digits,l:0;B~" + encode([("B", B)])[2:])
    (err,) = [shown_text(e.value) for e in at.error]  # as the reader sees it (issue 29)
    assert "Candidates must be up to 3 settings" in err  # the parameter and what it allows
    assert "'A~dataset:digits,l:0' is refused: l must be an integer in [1, 512]" in err
    assert "refused" in err and "rest is kept" in err
    assert [(c.label, c.setting) for c in at.session_state[CANDIDATES]] == [("B", B)]
    assert at.query_params["candidates"] == encode([("B", B)])  # the address now holds what is kept


def test_a_chosen_label_that_is_no_candidate_is_refused_and_the_candidates_kept():
    at = open_page(candidates=encode([("A", A)]), chosen="C")
    assert any("Chosen must be one of A, got chosen='C'" in e.value for e in at.error)
    assert len(at.session_state[CANDIDATES]) == 1


def test_adding_and_choosing_write_the_shortlist_into_the_address():
    at = open_page(dataset="digits", l="4", sigma_x="1")
    assert "candidates" not in at.query_params
    at.button(key="cand_add").click()
    run(at)
    at.session_state["dpcda_setting"] = at.session_state["dpcda_setting"].replace(l=16, sigma_x=0.5)
    at.button(key="cand_add").click()
    run(at)
    at.radio(key="cand_pick").set_value("B")
    run(at)
    assert decode(at.query_params["candidates"]) == ([("A", A), ("B", B)], [])
    assert at.query_params["chosen"] == "B"
    at.button(key="cand_remove_A").click()
    run(at)
    run(at)
    assert decode(at.query_params["candidates"])[0] == [("B", B)]
