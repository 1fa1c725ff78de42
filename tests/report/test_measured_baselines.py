"""The report's accuracies carry the majority-class rate and the non-private ceiling (issue 21)."""

from __future__ import annotations

import pytest

from dpcda.evaluation.baselines import baseline
from dpcda.report.measured import baseline_caption, baseline_cells, measured_frontier


def test_baseline_cells_flag_a_result_at_chance():
    b = baseline("digits", "ncm")
    cells = baseline_cells("digits", "ncm", 0.105, 0.01, 3)
    assert cells == {"majority class": b.majority.rate, "non-private ceiling": b.ceiling,
                     "vs majority": "≈ majority: predicts one class"}
    assert baseline_cells("digits", "ncm", 0.9, 0.01, 3)["vs majority"] == ""
    assert baseline_cells("no-such-dataset", "ncm", 0.5, 0.0, 1) == {}
    cap = baseline_caption("digits", ["ncm", "lda"])
    assert cap.startswith(" Read against: majority class '1'") and "(ncm on the real" in cap
    assert "(lda on the real" in cap and baseline_caption("no-such-dataset", ["ncm"]) == ""


def test_the_reports_frontier_rows_carry_the_baselines():
    rows, _ = measured_frontier("digits", None, privacy={"accountant": "class-aware", "epsilon": 5.0},
                                card=None, delta=1e-5, conversion="mironov", l=4)
    assert rows
    b = baseline("digits")
    assert all(r["majority class"] == pytest.approx(b.majority.rate) for r in rows)
    assert all(r["non-private ceiling"] == baseline("digits", r["learner"]).ceiling for r in rows)
    assert {r["vs majority"] for r in rows if r["accuracy"] > 0.5} == {""}
