"""The report of a choice between candidate settings (issue 21, item 5): the summary paragraph's
numbers, the side-by-side rows, the file name, the page order, the print CSS, and the candidates'
ε under both relations."""

from __future__ import annotations

import math

import pytest

from dpcda.dashboard import candidates as cand
from dpcda.dashboard.setting import Setting
from dpcda.privacy import PrivacyParams, compute_epsilon
from dpcda.report.choice import (CandidateNumbers, comparison_rows, display_rows, report_name,
                                 side_by_side, summary_paragraph)
from dpcda.report.choice_html import build_choice_report
from dpcda.report.html import STYLE
from dpcda.report.inputs import ReportInputs


def nums(label, eps_whole, acc, **kw):
    base = dict(label=label, dataset="mnist", l=16, sigma_x=0.2, T=60000, delta=1e-5,
                eps_whole=eps_whole, eps_features=None if eps_whole is None else 0.7 * eps_whole,
                accuracy=acc, accuracy_std=0.01 if acc is not None else None,
                accuracy_runs=3 if acc is not None else 0, learner="ncm")
    return CandidateNumbers(**{**base, **kw})


def test_summary_states_the_recommendation_and_the_trade_off_in_numbers():
    a, b = nums("A", 10.0, 0.87, l=4), nums("B", 1.0, 0.84)
    text = summary_paragraph([a, b], "B")
    assert text.startswith("Recommendation: Candidate B of 2 compared")
    assert "ε = 1 (whole-record: one record, label included)" in text
    assert "ε = 0.7 (class-aware-pld: one record's features, labels kept)" in text
    assert "accuracy 0.84 ± 0.01 (ncm, 3 runs)" in text
    assert "Candidate A (ε = 10, whole-record; accuracy 0.87 ± 0.01" in text
    assert "Candidate B's ε is 10× smaller (more private), for 0.03 less accuracy." in text
    other = summary_paragraph([a, b], "A")
    assert "Candidate A's ε is 10× larger (less private), for 0.03 more accuracy." in other


def test_the_trade_off_prefers_a_measured_candidate_and_says_what_is_unknown():
    a, b, c = nums("A", 1.0, None), nums("B", 2.0, 0.8), nums("C", 100.0, None)
    assert "against Candidate B" in summary_paragraph([a, b, c], "A")
    assert "the cost in accuracy is not known" in summary_paragraph([a, c], "A")
    assert "accuracy not measured yet" in summary_paragraph([a], "A")
    assert "Trade-off" not in summary_paragraph([a], "A")


def test_baselines_are_rendered_only_when_given():
    plain = nums("A", 1.0, 0.84)
    assert "majority class" not in comparison_rows([plain])[0]
    assert "largest class" not in summary_paragraph([plain], "A")
    with_b = nums("A", 1.0, 0.84, majority=0.11, nonprivate=0.92)
    row = comparison_rows([with_b])[0]
    assert (row["majority class"], row["non-private"]) == (0.11, 0.92)
    text = summary_paragraph([with_b], "A")
    assert "always guessing the largest class scores 0.11" in text and "no privacy) 0.92" in text


def test_proportional_allocation_is_said_not_accountable_under_whole_record():
    c = nums("A", None, None, eps_features=0.8, allocation="proportional",
             whole_note="the proportional allocation depends on the private class sizes")
    assert c.headline == (0.8, "class-aware-pld")
    assert comparison_rows([c])[0]["ε, whole-record"] == "not accountable"
    assert "not accountable under whole-record: the proportional" in summary_paragraph([c], "A")
    assert display_rows(comparison_rows([c]))[0]["accuracy (mean ± std)"] == "—"


def test_bad_input_names_the_parameter_and_the_allowed_values():
    a = nums("A", 1.0, 0.8)
    with pytest.raises(ValueError, match=r"chosen must be one of A, got chosen='B'"):
        summary_paragraph([a], "B")
    with pytest.raises(ValueError, match="candidates must hold 1 to 3"):
        summary_paragraph([a] * 4, "A")
    with pytest.raises(ValueError, match="accuracy must be a rate between 0 and 1"):
        nums("A", 1.0, 84.0)
    with pytest.raises(ValueError, match="label must be one of A, got label='Z'"):
        cand.remove((cand.Candidate(Setting(dataset="digits"), a),), "Z")


def test_the_file_is_named_for_the_chosen_setting():
    assert report_name(nums("B", 1.0, 0.84)) == "dpcda_report_mnist_l16_eps1.html"
    assert report_name(nums("B", None, None), ".pdf") == "dpcda_report_mnist_l16_sigma0.2.pdf"
    calibrated = nums("B", 0.9993, 0.84, target_epsilon=1.0)  # calibration stops just below
    assert report_name(calibrated) == "dpcda_report_mnist_l16_eps1.html"


def test_the_report_opens_with_the_summary_then_the_candidates_then_the_details():
    a, b = nums("A", 10.0, 0.87), nums("B", 1.0, 0.84)
    html = build_choice_report(ReportInputs(dataset="mnist", setting={"l": 16}), [a, b], "B")
    i = [html.index(s) for s in ('<section id="summary"', '<section id="candidates"',
                                 '<div class="details">', '<section id="privacy"')]
    assert i == sorted(i)
    assert "Recommendation: Candidate B of 2" in html[i[0]:i[1]]
    assert "<th>B (chosen)</th>" in html[i[1]:i[2]]  # the candidates side by side, a column each
    assert side_by_side(comparison_rows([a, b], "B"))[1] == {
        "": "ε, whole-record", "A": 10.0, "B (chosen)": 1.0}
    with pytest.raises(ValueError, match="details must be the chosen candidate's report"):
        build_choice_report(ReportInputs(dataset="digits", setting={}), [a, b], "B")


def test_on_paper_no_dead_elements_and_the_details_start_a_new_page():
    printed = STYLE.split("@media print{", 1)[1]
    assert "nav,details,.screen-only{display:none}" in printed  # links and the JSON expander
    assert ".details{break-before:page}" in printed
    assert "figure,table," not in printed  # a long table no longer jumps whole to the next page


def test_a_candidate_states_epsilon_under_both_relations_as_the_accountants_do():
    s = Setting(dataset="digits", l=4, sigma_x=1.0)
    c = cand.measure(s, "A", release=False)
    p = PrivacyParams(l=4, sigma_x=1.0, sigma_y=1.0, c=1.0, T=1347, delta=1e-5, n=1347,
                      class_counts=tuple(c_ for c_ in _digits_counts()), d_x=64, d_y=10,
                      allocation=s.allocation)
    assert s.allocation == "proportional"  # the dashboard's default (issue 26)
    assert math.isclose(c.numbers.eps_whole, compute_epsilon(p, accountant="whole-record").epsilon)
    assert math.isclose(c.numbers.eps_features,
                        compute_epsilon(p, accountant="class-aware-pld").epsilon)
    prop = cand.measure(s.replace(allocation="proportional", accountant="class-aware-pld"), "B",
                        release=False)
    p_prop = PrivacyParams(l=4, sigma_x=1.0, sigma_y=1.0, c=1.0, T=1347, delta=1e-5, n=1347,
                           class_counts=tuple(_digits_counts()), d_x=64, d_y=10, allocation="proportional")
    assert math.isclose(prop.numbers.eps_whole, compute_epsilon(p_prop, accountant="whole-record").epsilon)
    assert prop.numbers.whole_note == ""
    assert prop.numbers.eps_features > 0
    target = cand.measure(s.replace(epsilon=2.0), "C", release=False)
    assert target.numbers.eps_whole == pytest.approx(2.0, rel=1e-3)  # calibrated, default accountant


def _digits_counts():
    from dpcda.data.presets import get_preset

    return get_preset("digits").class_counts


def test_the_list_holds_three_replaces_a_repeat_and_relabels():
    def c(l):
        return cand.Candidate(Setting(dataset="digits", l=l), nums("A", 1.0, None))
    cs = cand.add(cand.add(cand.add((), c(1)), c(2)), c(3))
    assert [x.label for x in cs] == ["A", "B", "C"] and [x.setting.l for x in cs] == [1, 2, 3]
    assert [x.setting.l for x in cand.add(cs, c(2))] == [1, 2, 3]  # the same setting: replaced
    with pytest.raises(ValueError, match="at most 3 settings: remove one first"):
        cand.add(cs, c(4))
    fewer = cand.remove(cs, "A")
    assert [x.label for x in cand.add(fewer, c(4))] == ["A", "B", "C"]


def test_a_dp_center_candidate_states_the_composed_epsilon_its_release_states():
    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset

    s = Setting(dataset="digits", l=4, epsilon=2.0, normalize="dp-center")
    c = cand.measure(s, "A", release=False)
    rel = generate_from_dataset(load_dataset("digits"), "dp-cda", l=4, epsilon=2.0, T=1347,
                                delta=1e-5, accountant="whole-record", normalize="dp-center")
    assert rel.card["privacy"]["composed_with"]  # the statistics release is composed in
    assert c.numbers.sigma_x == pytest.approx(rel.card["parameters"]["sigma_x"], rel=1e-6)
    assert c.numbers.eps_whole == pytest.approx(rel.card["privacy"]["epsilon"], rel=1e-6)
    plain = cand.measure(s.replace(normalize="scale"), "B", release=False)
    assert plain.numbers.sigma_x < c.numbers.sigma_x  # the centre's share costs noise



def _fake_baselines(monkeypatch, table: dict) -> None:
    """dpcda.evaluation.baselines (merged in parallel) replaced by a table of its own."""
    import sys
    import types
    from types import SimpleNamespace

    mod = types.ModuleType("dpcda.evaluation.baselines")
    mod.baseline = lambda dataset, learner=None: (
        SimpleNamespace(majority=SimpleNamespace(rate=table[dataset][0]),
                        ceiling=table[dataset][1] if learner else None)
        if dataset in table else None)
    monkeypatch.setitem(sys.modules, "dpcda.evaluation.baselines", mod)


def test_baselines_come_from_the_library_where_it_ships_them(monkeypatch):
    import sys

    s = Setting(dataset="digits", l=4, sigma_x=1.0)
    _fake_baselines(monkeypatch, {"digits": (0.102, 0.9)})
    c = cand.measure(s, "A", release=False)
    assert c.numbers.learner == "ncm" and c.numbers.accuracy is not None  # the shipped table's
    assert (c.numbers.majority, c.numbers.nonprivate) == (0.102, 0.9)
    assert "always guessing the largest class scores 0.10" in summary_paragraph([c.numbers], "A")
    assert cand.measure(s, "A", release=False, majority=0.5).numbers.majority == 0.5  # given wins
    _fake_baselines(monkeypatch, {})  # a dataset the table does not know
    assert cand.measure(s, "A", release=False).numbers.majority is None
    monkeypatch.setitem(sys.modules, "dpcda.evaluation.baselines", None)  # not installed
    none = cand.measure(s, "A", release=False).numbers
    assert none.majority is None and none.nonprivate is None
