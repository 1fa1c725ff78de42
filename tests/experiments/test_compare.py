"""dpcda.experiments.compare: the fair comparison's jobs and table (pure library, no page)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from dpcda.experiments.compare import (
    DASH,
    TABLE_COLUMNS,
    best_per_mechanism,
    compare_jobs,
    compare_table,
    default_ls,
    every_l_table,
    paper_table5,
)
from dpcda.mechanisms import MECHANISMS
from dpcda.privacy import NOT_A_BOUND


def _job(mech, l, run, acc, *, status="done", sigma=None, accountant=None, model="lda",
         label_mode="hard"):
    accountant = accountant or MECHANISMS.get(mech).default_accountant
    cfg = {"mechanism": mech, "l": l, "run": run, "accountant": accountant, "epsilon": 10.0,
           "delta": 1e-5, "conversion": "mironov",
           "train": {"model": model, "label_mode": label_mode}}
    res = None if status != "done" else {"accuracy": acc, "sigma_x": sigma or 0.1 * l,
                                         "epsilon": 9.99, "accountant": accountant}
    return SimpleNamespace(status=status, config=cfg, result=res)


def test_jobs_share_epsilon_delta_c_and_take_each_default():
    mechs = MECHANISMS.names()
    jobs = compare_jobs("mnist", 10, mechanisms=mechs, runs=3, c=1.0, train={"epochs": 5})
    by = {}
    for kind, cfg in jobs:
        assert kind == "experiment"
        assert (cfg["epsilon"], cfg["delta"], cfg["c"]) == (10.0, 1e-5, 1.0)
        by.setdefault(cfg["mechanism"], []).append(cfg)
    for m in mechs:
        spec = MECHANISMS.get(m)
        assert {c["accountant"] for c in by[m]} == {spec.default_accountant}
        assert spec.is_valid_bound(spec.default_accountant)
        assert sorted({c["l"] for c in by[m]}) == default_ls(m)
        assert len(by[m]) == 3 * len(default_ls(m)) and by[m][0]["train"] == {"epochs": 5}
    assert default_ls("local") == [1] and default_ls("dpmix") == list(MECHANISMS.get("dpmix").compare_ls)
    assert default_ls("dp-cda", max_l=8) == [v for v in MECHANISMS.get("dp-cda").compare_ls if v <= 8]


def test_jobs_errors_name_the_problem():
    with pytest.raises(ValueError, match="select at least one l for DPMix"):
        compare_jobs("mnist", 10, mechanisms=["dpmix"], runs=1, ls={"dpmix": []})
    with pytest.raises(ValueError, match="accountant must be one of"):
        compare_jobs("mnist", 10, mechanisms=["dpmix"], runs=1, accountants={"dpmix": "paper"})
    with pytest.raises(ValueError, match="runs must be an integer >= 1"):
        compare_jobs("mnist", 10, mechanisms=["dpmix"], runs=0)
    with pytest.raises(ValueError, match="at least one mechanism"):
        compare_jobs("mnist", 10, mechanisms=[], runs=1)
    jobs = compare_jobs("mnist", 10, mechanisms=["dpmix"], runs=1, ls={"dpmix": [64, 16, 16]},
                        accountants={"dpmix": "dpmix-low"}, train_for={"dpmix": {"model": "linear"}})
    assert [c["l"] for _, c in jobs] == [16, 64]
    assert jobs[0][1]["accountant"] == "dpmix-low" and jobs[0][1]["train"] == {"model": "linear"}


def test_best_l_per_mechanism_ties_to_smaller_l_and_ignores_unfinished():
    jobs = [_job("dpmix", 16, 0, 0.5), _job("dpmix", 16, 1, 0.7), _job("dpmix", 64, 0, 0.6),
            _job("dpmix", 64, 1, 0.6), _job("dpmix", 256, 0, 0.99, status="failed"),
            _job("dp-cda", 4, 0, 0.8)]
    best = best_per_mechanism(jobs)
    assert best["dpmix"]["l"] == 16 and best["dpmix"]["mean"] == pytest.approx(0.6)
    assert best["dpmix"]["std"] == pytest.approx(math.sqrt(0.02)) and best["dpmix"]["runs"] == 2
    assert math.isnan(best["dp-cda"]["std"]) and best["dp-cda"]["runs"] == 1


def test_table_rows_have_every_column_and_no_none():
    jobs = [_job("dp-cda", 4, 0, 0.80), _job("dp-cda", 16, 0, 0.85), _job("dp-cda", 16, 1, 0.87),
            _job("dpmix", 64, 0, 0.74, model="linear", label_mode="soft"),
            _job("local", 1, 0, 0.20, accountant="dpmix-low"),
            _job("random-projection", 1, 0, 0.5, sigma=0.3)]
    mechs = ["dp-cda", "dpmix", "local", "random-projection"]
    t = compare_table(jobs, mechs, dataset="mnist", epsilon=10.0).set_index("method")
    assert tuple(t.reset_index().columns) == TABLE_COLUMNS
    cda = t.loc["DP-CDA"]
    assert (cda["l"], cda["runs"], cda["l tried"]) == (16, 2, "4, 16")
    assert cda["accuracy"] == pytest.approx(0.86) and cda["σ"] == pytest.approx(1.6)
    assert cda["accountant"] == MECHANISMS.get("dp-cda").default_accountant
    assert cda["neighbouring relation"].startswith("Two datasets are neighbours")
    assert cda["paper (Table 5)"] == pytest.approx(0.795)
    mix = t.loc["DPMix"]
    assert (mix["learner"], mix["labels"], mix["accountant"]) == ("linear", "soft", "dpmix-clipped")
    assert t.loc["Local perturbation", "accountant"] == f"dpmix-low ({NOT_A_BOUND})"
    assert t.loc["Local perturbation", "l tried"] == DASH and t.loc["Local perturbation", "l"] is pd_na()
    quoted = t.loc["GS-WGAN"]
    assert quoted["runs"] == 0 and quoted["learner"] == DASH and math.isnan(quoted["accuracy"])
    assert not t.reset_index().astype(str).isin(["None"]).any().any()


def pd_na():
    import pandas as pd

    return pd.NA


def test_table_without_results_and_without_paper():
    t = compare_table([], ["dpmix", "random-projection"], dataset="digits", epsilon=10.0)
    assert t["method"].tolist() == ["DPMix", "Random projection (DPPro)"]
    assert (t["runs"] == 0).all() and t["accuracy"].isna().all()
    assert t["accountant"].tolist() == [DASH, DASH] and not t.astype(str).isin(["None"]).any().any()
    assert paper_table5("digits", 10.0) == {}
    assert paper_table5("mnist", 20.0)["DP-Mix"] == pytest.approx(0.800)


def test_every_l_table():
    e = every_l_table([_job("dpmix", 64, 0, 0.7), _job("dpmix", 16, 0, 0.6)])
    assert e["l"].tolist() == [16, 64] and e["method"].tolist() == ["DPMix", "DPMix"]


def test_every_default_epsilon_of_compare_holds_under_the_whole_record_relation():
    """DP-CDA, DPMix, local perturbation and DP-MERF are accounted under one relation (one
    record, label included); random projection's epsilon holds only for a record's features
    (its labels are released as they are) and is named, with why."""
    from dpcda.experiments.compare import same_relation, under_relation
    from dpcda.mechanisms import MECHANISMS
    from dpcda.privacy.events import Relation

    sentence, narrower = same_relation(MECHANISMS.names())
    assert "whole record" in sentence and set(narrower) == {"random-projection"}
    assert "labels are released as they are" in narrower["random-projection"]
    assert under_relation("dp-cda") is Relation.REPLACE_ONE
    # DP-CDA under the features-only accountant is named too
    assert "dp-cda" in same_relation(["dp-cda"], {"dp-cda": "class-aware-pld"})[1]
