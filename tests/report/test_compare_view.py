"""The Compare table for people (dpcda.report.compare_view) and the launch plan
(dpcda.experiments.compare)."""

from __future__ import annotations

import math

import pytest

from dpcda.experiments.compare import comparison_plan, compare_jobs
from dpcda.report.compare_view import (MAIN_COLUMNS, accuracy_text, compare_report_data, describe_job,
                                figure_bars, main_and_details, stored_compare_data)
from dpcda.jobs import JobStore
from dpcda.mechanisms import MECHANISMS


@pytest.fixture
def store(tmp_path) -> JobStore:
    return JobStore(tmp_path / "jobs.sqlite3")


def finished_comparison(store, dataset="mnist", train_for=None):
    jobs = compare_jobs(dataset, 10.0, mechanisms=["dp-cda", "dpmix"], runs=2,
                        ls={"dp-cda": [4, 16], "dpmix": [16]}, train_for=train_for)
    config = {"page": "compare", "base": {"dataset": dataset}, "epsilon": 10.0,
              "mechanisms": ["dp-cda", "dpmix"], "runs": 2}
    sid = store.create_sweep("t", config, jobs)
    acc = {("dp-cda", 4): 0.80, ("dp-cda", 16): 0.86, ("dpmix", 16): 0.82}
    for _ in jobs:
        job = store.claim("w", ["experiment"], sweep_id=sid)
        c = job.config
        store.finish(job.id, "w", "done", result={
            "accuracy": acc[(c["mechanism"], c["l"])] + 0.01 * c["run"], "sigma_x": 0.05,
            "epsilon": 9.9, "accountant": c["accountant"]})
    return sid


def test_main_table_is_narrow_and_has_no_none(store):
    from dpcda.experiments.compare import compare_table

    sid = finished_comparison(store)
    table = compare_table(store.jobs(sweep_id=sid), ["dp-cda", "dpmix"], dataset="mnist", epsilon=10.0)
    main, details = main_and_details(table)
    assert tuple(main.columns) == MAIN_COLUMNS and len(main.columns) <= 7
    row = main.set_index("method").loc["DP-CDA"]
    assert row["l"] == "16" and row["accuracy"] == "0.8650 ± 0.0071"
    assert "neighbouring relation" in details.columns and "σ" in details.columns
    for t in (main, details):
        assert not {"None", "nan", "<NA>"} & set(t.to_numpy().ravel())
    assert "paper" not in main_and_details(table, with_paper=False)[0].columns


def test_report_data_is_plain(store):
    sid = finished_comparison(store)
    data = stored_compare_data(store, sid)
    assert data["dataset"] == "mnist" and data["epsilon"] == 10.0 and data["has_paper"]
    assert data["columns"] == list(MAIN_COLUMNS)
    methods = [r["method"] for r in data["rows"]]
    assert methods[:2] == ["DP-CDA", "DPMix"] and "GS-WGAN" in methods  # quoted rows too
    assert all(isinstance(v, str) for r in data["rows"] for v in r.values())
    assert compare_report_data([], ["dp-cda"], dataset="digits", epsilon=10.0)["rows"][0]["accuracy"] == "—"
    other = store.create_sweep("s", {"ls": [1]}, [("experiment", {"dataset": "digits"})])
    with pytest.raises(ValueError, match="sweep_id must name a comparison"):
        stored_compare_data(store, other)


def test_small_helpers():
    assert accuracy_text(0.5, math.nan, 1) == "0.5000" and accuracy_text(math.nan, math.nan, 0) == "—"
    assert describe_job({"mechanism": "dp-merf", "l": 1, "run": 0}) == "DP-MERF, run 1"
    assert describe_job({"mechanism": "dp-cda", "l": 4, "run": 2}) == "DP-CDA, l = 4, run 3"


def test_plan_estimates_before_launch_and_states_problems_once():
    plan = comparison_plan("digits", 10.0, mechanisms=MECHANISMS.names(), runs=1,
                           ls={"dp-cda": [16], "dpmix": [16]}, delta=1e-5, c=1.0, accountants={})
    assert not plan["problems"] and plan["estimate"].jobs == len(plan["jobs"]) == 5
    assert plan["config"]["page"] == "compare"
    empty = comparison_plan("digits", 10.0, mechanisms=[], runs=1, ls={}, delta=1e-5, c=1.0,
                            accountants={})
    assert [p.plain for p in empty["problems"]] == ["Select at least one mechanism."]
    no_l = comparison_plan("digits", 10.0, mechanisms=["dpmix"], runs=1, ls={"dpmix": []},
                           delta=1e-5, c=1.0, accountants={})
    assert len(no_l["problems"]) == 1 and "l for DPMix" in no_l["problems"][0].plain


def test_figure_bars_are_nan_free(store):
    from dpcda.experiments.compare import compare_table

    sid = finished_comparison(store)
    bars = figure_bars(compare_table(store.jobs(sweep_id=sid), ["dp-cda", "dpmix"], dataset="mnist",
                                     epsilon=10.0))
    assert bars["ours"]["method"] == ["DP-CDA", "DPMix"] and not bars["empty"]
    assert all(v == v for v in bars["ours"]["std"] + bars["paper"]["accuracy"])


def test_accuracies_are_read_against_the_majority_rate_and_the_ceiling(store):
    """Issue 21, item 2: the Compare table marks a result within noise of the majority rate, and
    its notes give the majority rate and each learner's non-private ceiling."""
    from dpcda.evaluation.baselines import baseline
    from dpcda.experiments.compare import compare_table
    from dpcda.report.compare_view import baseline_notes

    sid = finished_comparison(store)
    table = compare_table(store.jobs(sweep_id=sid), ["dp-cda", "dpmix"], dataset="mnist", epsilon=10.0)
    main, _ = main_and_details(table, dataset="mnist")
    assert "majority" not in " ".join(main["accuracy"])  # 0.86 is far above MNIST's 0.11
    notes = baseline_notes(table, "mnist")
    assert f"'1': {baseline('mnist').majority.rate:.3f}" in notes[0] and len(notes) == 1
    chance = table.assign(accuracy=[0.11 if r > 0 else a for a, r in zip(table["accuracy"], table["runs"])])
    main, _ = main_and_details(chance, dataset="mnist")
    row = main.set_index("method").loc["DP-CDA"]
    assert row["accuracy"].endswith("(≈ majority class)")
    flagged = baseline_notes(chance, "mnist")[1:]
    assert flagged and flagged[0].startswith("DP-CDA: the model predicts one class")
    assert stored_compare_data(store, sid)["baselines"] == notes


def test_each_bar_and_row_names_its_learner_and_a_note_says_when_they_differ(store, tmp_path):
    """Issue 28: the bars carry each row's learner; where the rows used different learners (a
    comparison run with the opt-in QDA on DP-CDA only, or stored before a default changed) a
    note says so; one learner for all needs no note."""
    from dpcda.experiments.compare import compare_table
    from dpcda.report.compare_view import learner_note

    sid = finished_comparison(store, train_for={"dp-cda": {"model": "qda"}})
    table = compare_table(store.jobs(sweep_id=sid), ["dp-cda", "dpmix"], dataset="mnist", epsilon=10.0)
    bars = figure_bars(table)
    assert dict(zip(bars["ours"]["method"], bars["ours"]["learner"])) == {"DP-CDA": "qda",
                                                                         "DPMix": "lda"}
    note = learner_note(table)
    assert "DP-CDA `qda`; DPMix `lda`" in note and "learners' as well as the mechanisms'" in note
    assert "opt-in" in note and "`auto` trains one learner" in note
    assert stored_compare_data(store, sid)["learners"] == note
    other = JobStore(tmp_path / "other.sqlite3")
    alike = finished_comparison(other)  # auto: the noise-aware LDA for both
    table = compare_table(other.jobs(sweep_id=alike), ["dp-cda", "dpmix"], dataset="mnist", epsilon=10.0)
    assert set(figure_bars(table)["ours"]["learner"]) == {"lda"}
    assert learner_note(table) == "" and stored_compare_data(other, alike)["learners"] == ""
