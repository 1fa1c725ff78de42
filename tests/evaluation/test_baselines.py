"""The majority-class rate, the non-private ceiling and the within-noise flag."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.data import dataset_availability, load_dataset
from dpcda.evaluation.baselines import (BASELINE_FIELDS, Baseline, Majority, baseline, baseline_text,
                                        flag_words, load_baselines, majority_of_labels, majority_rate,
                                        near_majority, write_baselines)


def test_majority_of_labels_counts_the_most_common_class():
    m = majority_of_labels(np.array([0, 1, 1, 2, 1, 0]), ("a", "b", "c"))
    assert m == Majority("b", 0.5, 6)
    assert majority_of_labels(np.array([3, 3, 0])).label == "3"


@pytest.mark.parametrize("bad", [np.array([]), np.array([[0, 1]]), np.array([0.5, 1.0]), np.array([-1, 0])])
def test_majority_of_labels_refuses_bad_labels(bad):
    with pytest.raises(ValueError, match="y_test"):
        majority_of_labels(bad)


def test_digits_majority_rate_is_the_test_split_share():
    ds = load_dataset("digits")
    m = majority_rate(ds)
    assert m.rate == pytest.approx(np.bincount(ds.y_test).max() / len(ds.y_test))
    assert 0.09 < m.rate < 0.12 and m.n_test == len(ds.y_test)


def test_shipped_table_matches_the_data_where_present():
    rows = load_baselines()
    assert {"digits", "mnist", "fashion-mnist", "adult"} <= {r["dataset"] for r in rows}
    for name in sorted({r["dataset"] for r in rows}):
        if not dataset_availability(name).present:
            continue
        if name != "digits" and len(load_dataset(name).y_test) > 20000:
            continue
        m = majority_rate(load_dataset(name))
        b = baseline(name)
        assert (b.majority.label, b.majority.n_test) == (m.label, m.n_test)
        assert b.majority.rate == pytest.approx(m.rate, abs=5e-5)


def test_adult_majority_is_the_lower_income_class():
    b = baseline("adult")
    assert b.majority.label == "<=50K" and 0.75 < b.majority.rate < 0.77


def test_the_best_ceiling_beats_the_majority_rate():
    rows = load_baselines()
    for name in {r["dataset"] for r in rows}:
        best = max((r for r in rows if r["dataset"] == name), key=lambda r: r["ceiling"])
        assert best["ceiling"] > best["majority_rate"] + 0.05, best
    b = baseline("digits", "lda")
    assert b.ceiling is not None and b.ceiling > 0.9
    assert baseline("digits", "cnn").ceiling is None  # not measured: said, never invented
    assert baseline("no-such-dataset") is None


def test_measure_ceiling_trains_on_the_real_data():
    from dpcda.experiments.ceiling import measure_ceiling

    ds = load_dataset("digits")
    s = measure_ceiling(ds, "ncm")
    assert s["runs"] == 1 and s["mean"] == pytest.approx(baseline("digits", "ncm").ceiling, abs=1e-3)
    with pytest.raises(ValueError, match="learner"):
        measure_ceiling(ds, "no-such-learner")
    with pytest.raises(ValueError, match="runs"):
        measure_ceiling(ds, "ncm", runs=0)


def test_near_majority_rule():
    # Adult's one-class model: 0.764 ± 0.000 over 3 runs against 0.764 (16,281 test records)
    assert near_majority(0.764, 0.0, 3, 0.7638, 16281)
    assert near_majority(0.70, 0.01, 3, 0.7638, 16281)      # below it: always flagged
    assert not near_majority(0.82, 0.002, 3, 0.7638, 16281)  # clearly above
    assert near_majority(0.10, 0.01, 3, 0.1022)              # digits at chance
    assert not near_majority(0.90, 0.01, 3, 0.1022, 450)
    # the runs' spread widens the margin: a noisy mean just above is within noise
    assert near_majority(0.80, 0.05, 3, 0.7638) and not near_majority(0.80, 0.001, 3, 0.7638)
    assert near_majority(0.77, math.nan, 1, 0.7638, 16281)   # one run: the test split's error only


@pytest.mark.parametrize("kw,name", [(dict(mean=1.5), "mean"), (dict(majority=-0.1), "majority"),
                                     (dict(runs=0), "runs"), (dict(n_test=0), "n_test")])
def test_near_majority_refuses_bad_input(kw, name):
    args = dict(mean=0.5, std=0.0, runs=3, majority=0.5, n_test=100) | kw
    with pytest.raises(ValueError, match=name):
        near_majority(**args)


def test_flag_and_baseline_words():
    b = Baseline("adult", Majority("<=50K", 0.7638, 16281), "tree", 0.85, 1)
    assert flag_words(b, 0.764, 0.0, 3) == ("the model predicts one class: no better than always "
                                           "answering '<=50K' (76.4% of the test split); where T is "
                                           "split equally over the classes, the proportional "
                                           "allocation (by the public class counts) keeps this "
                                           "imbalance in the release")
    mnist = Baseline("mnist", Majority("1", 0.1135, 10000), "lda", 0.876, 1)
    assert flag_words(mnist, 0.11, 0.0, 3).endswith("(11.3% of the test split)")  # balanced: no hint
    assert flag_words(b, 0.84, 0.002, 3) == ""
    assert flag_words(None, 0.5, 0.0, 3) == ""
    text = baseline_text(b)
    assert "majority class '<=50K': 0.764" in text
    assert "ceiling (tree on the real training data): 0.850" in text
    assert "not measured" in baseline_text(Baseline("adult", b.majority, "cnn"))


def test_write_and_load_round_trip(tmp_path):
    row = dict(dataset="x", n_test=10, majority_class="a", majority_rate=0.6, learner="ncm", runs=1,
               ceiling=0.9, ceiling_std=math.nan)
    write_baselines([row], tmp_path / "b.csv")
    (back,) = load_baselines(tmp_path / "b.csv")
    assert set(back) == set(BASELINE_FIELDS)
    assert back["ceiling"] == 0.9 and math.isnan(back["ceiling_std"])
    assert baseline("x", "ncm", path=tmp_path / "b.csv").ceiling == 0.9
