"""Utility results joined for people, and the figure as plain data (dpcda.report.utility_results,
dpcda.report.utility_figure), on a real job store with jobs finished through its API."""

from __future__ import annotations

import math

import pytest

from dpcda.evaluation import reference
from dpcda.jobs import JobStore
from dpcda.experiments.sweep import sweep_results
from dpcda.experiments.sweep import submit_sweep
from dpcda.report.utility_figure import figure_data, figure_notes, sweep_figure_data
from dpcda.report.utility_results import (baseline_notes, calibration_notes, display_table, model_text,
                                          point_text, privacy_label, results_table, sweep_summary,
                                          sweep_x)

INF = math.inf


@pytest.fixture
def store(tmp_path) -> JobStore:
    return JobStore(tmp_path / "jobs.sqlite3")


def finish(store, sid, accuracy, *, conversion=None):
    for _ in store.jobs(sweep_id=sid):
        job = store.claim("w", ["experiment"], sweep_id=sid)
        c = job.config
        sigma = c.get("sigma") or (0.0 if math.isinf(c["epsilon"] or 0) else 0.5 / c["l"])
        eps = c["epsilon"] if c.get("sigma") is None else 10.0 / c["sigma"]
        store.finish(job.id, "w", "done", result={
            "accuracy": accuracy(c), "sigma_x": sigma, "sigma_y": sigma, "epsilon": eps,
            "delta": c["delta"], "accountant": c["accountant"], "conversion": conversion,
            "n_train": 1347, "n_synthetic": c.get("T") or 1347})


def test_table_joins_results_jobs_and_the_papers_cells(store, files_not_needed):
    sid = submit_sweep(store, {"dataset": "fashion-mnist", "train": {"model": "ncm"}},
                       epsilons=[10.0], ls=[1, 4], runs=2)
    acc = {(1, 0): 0.3, (1, 1): 0.4, (4, 0): 0.66, (4, 1): 0.70}
    finish(store, sid, lambda c: acc[(c["l"], c["run"])])
    jobs = store.jobs(sweep_id=sid)
    table = results_table(sweep_results(store, sid), jobs, "fashion-mnist")
    assert table["accuracy_mean"].tolist() == pytest.approx([0.35, 0.68])
    assert table["paper_mean"].tolist() == [reference.paper_accuracy("fashion-mnist", l, 10).accuracy
                                            for l in (1, 4)]
    assert table["sigma_x"].tolist() == pytest.approx([0.5, 0.125])
    shown = display_table(table)
    assert "conversion" not in shown and "α" not in shown  # nothing to say (PLD: no conversion)
    assert shown["reported"].tolist() == ["0.3619", "0.6748"]
    assert not {"None", "nan", "<NA>"} & set(shown.to_numpy().ravel())
    assert "l" not in display_table(table, mixes=False)
    cols = list(shown.columns)  # the accuracy beside its setting, before the long text columns
    assert cols.index("accuracy") < 5 and cols.index("accuracy") < cols.index("achieved ε")
    if "same σ, other accountants" in cols:
        assert cols[-1] == "same σ, other accountants"
    notes = calibration_notes(table, jobs)
    assert notes[0].startswith("**ε = 10**: σ calibrated") and "RDP" not in notes[0]
    assert model_text(jobs) == "model `ncm`" and "fashion-mnist" in sweep_summary(jobs)
    assert "/" not in sweep_summary(jobs)  # no server path


@pytest.mark.parametrize(("mechanism", "accountant", "ls"),
                         [("dp-cda", "paper", [4]), ("random-projection", "dppro", [1]),
                          ("dpmix", "dpmix-low", [4]), ("dp-cda", "class-aware", [4])])
def test_notes_of_a_published_accountant_carry_the_words(store, mechanism, accountant, ls):
    """Issue 8 (d): the Utility page's ε under an accountant that is not a valid bound for the
    mechanism that ran says so; a valid bound does not."""
    from dpcda.privacy import NOT_A_BOUND, is_bound_for

    sid = submit_sweep(store, {"dataset": "digits", "mechanism": mechanism,
                               "accountant": accountant, "train": {"model": "ncm"}},
                       epsilons=[10.0], ls=ls, runs=1)
    finish(store, sid, lambda c: 0.5)
    jobs = store.jobs(sweep_id=sid)
    notes = " ".join(calibration_notes(results_table(sweep_results(store, sid), jobs, "digits"),
                                       jobs))
    assert f"**{accountant}** accountant" in notes
    assert (NOT_A_BOUND in notes) is (not is_bound_for(accountant, mechanism))


def test_labels_and_axis():
    assert privacy_label({"epsilon": INF}) == "ε = ∞" and privacy_label({"sigma": 0.7}) == "σ = 0.7"
    assert point_text({"epsilon": 10.0, "l": 4, "T": 500}) == "ε = 10, l = 4, T = 500"
    assert point_text({"epsilon": 10.0, "l": 1}, mixes=False) == "ε = 10"
    assert sweep_x(None) == "l" and sweep_x({"x": "epsilon"}) == "epsilon"


def test_figure_data_for_an_epsilon_sweep_places_infinity(store, files_not_needed):
    sid = submit_sweep(store, {"dataset": "fashion-mnist", "train": {"model": "ncm"}},
                       epsilons=[INF, 20.0, 10.0, 5.0], ls=[4], runs=1)
    finish(store, sid, lambda c: 0.9 if math.isinf(c["epsilon"]) else 0.6 + c["epsilon"] / 200)
    data = figure_data(sweep_results(store, sid), x="epsilon", dataset="fashion-mnist")
    (line,) = data["lines"]
    assert line["x"] == [5.0, 10.0, 20.0, 40.0] and line["mean"] == pytest.approx([0.625, 0.65, 0.7, 0.9])
    assert line["std"] == [0.0] * 4 and line["runs"] == [1] * 4
    assert line["reference"]["x"] == [10.0, 20.0, 40.0]
    assert ("∞" in [t for _, t in data["ticks"]]) and data["x_log"] and not data["fixed_sigma"]
    assert any("Table 3" in n for n in figure_notes(data, dataset="fashion-mnist", accountant="paper"))


def test_stored_figure_data_for_a_mechanism_without_l_has_no_paper_overlay(store, files_not_needed):
    sid = submit_sweep(store, {"dataset": "fashion-mnist", "mechanism": "dp-merf",
                               "train": {"model": "ncm"}}, epsilons=[INF, 10.0], ls=[1], runs=1)
    empty = sweep_figure_data(store, sid)
    assert empty["lines"] == [] and empty["mechanism"] == "dp-merf"
    finish(store, sid, lambda c: 0.7)
    data = sweep_figure_data(store, sid)
    assert data["x"] == "epsilon" and "DP-MERF" in data["title"]
    assert all(line["reference"] is None for line in data["lines"])  # the paper's cells are DP-CDA's


def test_every_accuracy_is_read_against_the_majority_rate_and_the_ceiling(store):
    """Issue 21, item 2: the majority-class rate and the learner's non-private ceiling beside
    each accuracy; a point within noise of the majority rate flagged in words."""
    from dpcda.evaluation.baselines import baseline

    sid = submit_sweep(store, {"dataset": "digits", "train": {"model": "ncm"}},
                       epsilons=[10.0], ls=[1, 4], runs=2)
    acc = {(1, 0): 0.10, (1, 1): 0.11, (4, 0): 0.80, (4, 1): 0.82}  # l = 1: chance
    finish(store, sid, lambda c: acc[(c["l"], c["run"])])
    jobs = store.jobs(sweep_id=sid)
    table = results_table(sweep_results(store, sid), jobs, "digits")
    b = baseline("digits", "ncm")
    assert table["majority"].tolist() == pytest.approx([b.majority.rate] * 2)
    assert table["ceiling"].tolist() == pytest.approx([b.ceiling] * 2)
    assert table["vs_majority"].tolist() == ["≈ majority class", ""]
    shown = display_table(table)
    assert {"majority class", "non-private ceiling", "vs majority"} <= set(shown.columns)
    notes = baseline_notes(table, jobs, "digits")
    assert f"{b.majority.rate:.3f}" in notes[0] and f"`ncm` {b.ceiling:.3f}" in notes[0]
    assert notes[1].startswith("**Within noise of the majority class** at ε = 10, l = 1:")
    assert "the model predicts one class" in notes[1]
    data = figure_data(sweep_results(store, sid), x="l", dataset="digits", learner="ncm")
    assert [v for v, _ in data["levels"]] == pytest.approx([b.majority.rate, b.ceiling])
    assert any(n.startswith("Grey rules:") for n in figure_notes(data, dataset="digits", accountant="paper"))
    assert baseline_notes(table, jobs, "no-such-dataset") == []


def test_the_results_download_never_holds_a_spreadsheet_formula():
    import io

    import pandas as pd

    from dpcda.report.utility_results import results_csv

    table = pd.DataFrame({"accountant": ["=cmd|' /C calc'!A0", "pld"], "epsilon_target": [-1.5, 10.0],
                          "vs_majority": ["@x", ""]})
    back = pd.read_csv(io.BytesIO(results_csv(table)), keep_default_na=False)
    assert list(back["accountant"]) == ["'=cmd|' /C calc'!A0", "pld"]
    assert list(back["vs_majority"]) == ["'@x", ""]
    assert list(back["epsilon_target"]) == [-1.5, 10.0]
