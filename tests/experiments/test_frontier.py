"""dpcda.experiments.frontier: the shipped accuracy table, the job store's results, lookup and frontier."""

from __future__ import annotations

import math

import pytest

from dpcda.experiments import frontier as fr
from dpcda.privacy import epsilon_grid


def _row(l, sigma, mean, *, runs=3, learner="ncm", T=None, c=1.0, dataset="digits", spread=0.01):
    return dict(dataset=dataset, l=l, sigma_x=sigma, ratio=1.0, c=c, T=T, normalization="scale",
                allocation=fr.MEASURED_ALLOCATION, learner=learner, runs=runs, mean=mean, std=spread,
                min=mean - spread, max=mean + spread)


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "acc.csv"
    fr.write_table([_row(4, 0.2512, 0.90), _row(4, 1.0, 0.30), _row(16, 0.2512, 0.85),
                    _row(16, 1.0, 0.55), _row(4, 0.0, 0.96, learner="lda"),
                    _row(4, 0.2512, 0.5, dataset="mnist")], path)
    return path


def _done_job(store, config: dict, accuracy: float, sigma_x: float) -> int:
    job_id = store.submit("experiment", config, force=True)
    job = store.claim("test-worker", ["experiment"])
    assert job.id == job_id
    store.finish(job_id, "test-worker", "done", result={"accuracy": accuracy, "sigma_x": sigma_x})
    return job_id


def test_summarize_gives_spread_and_rejects_empty():
    s = fr.summarize([0.8, 0.9, 1.0])
    assert s["runs"] == 3 and s["min"] == 0.8 and s["max"] == 1.0
    assert s["mean"] == pytest.approx(0.9) and s["std"] == pytest.approx(0.1)
    assert math.isnan(fr.summarize([0.5])["std"])
    with pytest.raises(ValueError, match="accuracies"):
        fr.summarize([])


def test_table_round_trip_filters_by_dataset(table):
    rows = fr.load_table(table, dataset="digits")
    assert len(rows) == 5 and all(r["source"] == "table" for r in rows)
    assert rows[0]["l"] == 4 and rows[0]["sigma_x"] == pytest.approx(0.2512)
    assert rows[0]["T"] is None and rows[0]["mean"] == pytest.approx(0.90)


def test_shipped_table_has_digits_with_learner_and_runs():
    rows = fr.load_table(dataset="digits")
    assert len(rows) >= 40
    assert all(r["runs"] >= 3 and r["learner"] for r in rows)
    assert all(r["min"] <= r["mean"] <= r["max"] for r in rows)
    # The page's default setting (l = 4, sigma nearest 0.25) is measured.
    assert fr.lookup(rows, l=4, sigma_x=0.251189, dataset="digits") is not None


def test_every_shipped_row_is_of_the_measured_allocation():
    """The table speaks for the default release (issue 26: T split by the public class bounds).
    Fashion-MNIST's rows were measured with the equal split, which is the same release there:
    every class has 6,000 records and T = N, so both give T_k = 6,000 (checked here)."""
    from dpcda.data.presets import get_preset
    from dpcda.privacy import samples_per_class

    assert fr.MEASURED_ALLOCATION == "proportional"
    rows = fr.load_table()
    assert {r["allocation"] for r in rows} == {fr.MEASURED_ALLOCATION}
    fm = get_preset("fashion-mnist")
    assert list(samples_per_class(fm.n, fm.class_counts, "proportional")) == \
        list(samples_per_class(fm.n, fm.class_counts, "equal"))
    mn = get_preset("mnist")  # where they differ, the rows were measured again
    assert list(samples_per_class(mn.n, mn.class_counts, "proportional")) != \
        list(samples_per_class(mn.n, mn.class_counts, "equal"))


def test_lookup_matches_a_slider_position_not_a_neighbour(table):
    rows = fr.load_table(table, dataset="digits")
    hit = fr.lookup(rows, l=4, sigma_x=0.2512 * 1.01, dataset="digits")
    assert hit is not None and hit["mean"] == pytest.approx(0.90)
    # one slider step away (5.9%) is another setting
    assert fr.lookup(rows, l=4, sigma_x=0.2512 * 1.059, dataset="digits") is None
    assert fr.lookup(rows, l=8, sigma_x=0.2512, dataset="digits") is None
    assert fr.lookup(rows, l=4, sigma_x=0.2512, c=2.0, dataset="digits") is None
    assert fr.lookup(rows, l=4, sigma_x=0.2512, T=500, n=1347, dataset="digits") is None
    assert fr.lookup(rows, l=4, sigma_x=0.2512, T=1347, n=1347, dataset="digits") is not None
    assert fr.lookup(rows, l=4, sigma_x=0.0, dataset="digits")["learner"] == "lda"


def test_store_rows_aggregate_runs_and_lookup_prefers_more_runs(tmp_path, table):
    from dpcda.jobs import JobStore

    store = JobStore(tmp_path / "jobs.sqlite3")
    cfg = fr.fast_config("digits", l=4, sigma_x=0.2512)
    ids = [_done_job(store, dict(cfg, run=r), acc, 0.2512) for r, acc in
           enumerate([0.80, 0.82, 0.84, 0.86])]
    _done_job(store, dict(fr.fast_config("mnist", l=4, sigma_x=0.2512), run=0), 0.7, 0.2512)
    rows = fr.store_rows(store, "digits")
    assert len(rows) == 1
    r = rows[0]
    assert r["runs"] == 4 and r["min"] == 0.80 and r["max"] == 0.86
    assert r["mean"] == pytest.approx(0.83) and r["learner"] == "ncm"
    assert r["source"] == "jobs " + ", ".join(f"#{i}" for i in ids)
    best = fr.lookup(fr.measured_rows("digits", store, table=table), l=4, sigma_x=0.2512,
                     dataset="digits")
    assert best["runs"] == 4 and best["source"].startswith("jobs")


def test_attach_epsilons_agrees_with_the_accountant(table):
    facts = fr.public_facts("digits")
    rows = [dict(r, allocation="proportional") for r in fr.load_table(table, dataset="digits")]
    for allocation, want_alloc in (("equal", "equal"), (None, "proportional")):
        got_rows = fr.attach_epsilons(rows, accountant="class-aware", delta=1e-5,
                                      allocation=allocation, **facts)
        want = epsilon_grid(ls=[16], sigmas=[0.2512, 1.0], T=facts["n"], delta=1e-5, c=1.0,
                            accountant="class-aware", allocation=want_alloc, **facts)[0]
        got = {r["sigma_x"]: r["epsilon"] for r in got_rows if r["l"] == 16}
        assert got[0.2512] == pytest.approx(want[0]) and got[1.0] == pytest.approx(want[1])
        assert math.isinf(next(r["epsilon"] for r in got_rows if r["sigma_x"] == 0))
    # the equal split (the default) is the larger epsilon for these proportional releases
    equal = fr.attach_epsilons(rows, accountant="class-aware", delta=1e-5, **facts)
    own = fr.attach_epsilons(rows, accountant="class-aware", delta=1e-5, allocation=None, **facts)
    assert all(a["epsilon"] >= b["epsilon"] for a, b in zip(equal, own) if a["sigma_x"] > 0)


def test_attach_epsilons_records_what_it_cannot_account():
    rows = fr.attach_epsilons([_row(500, 1.0, 0.1)], accountant="class-aware", delta=1e-5,
                              **fr.public_facts("digits"))
    assert math.isnan(rows[0]["epsilon"]) and "l must be" in rows[0]["epsilon_error"]


def test_frontier_keeps_only_improvements_in_epsilon_order():
    rows = [dict(_row(4, 1, 0.3), epsilon=1.0), dict(_row(16, 1, 0.55), epsilon=1.2),
            dict(_row(4, 0.5, 0.5), epsilon=2.0),  # worse than a cheaper release: off
            dict(_row(16, 0.25, 0.85), epsilon=8.0), dict(_row(4, 0.25, 0.9), epsilon=15.0),
            dict(_row(4, 0, 0.96), epsilon=math.inf)]
    front = fr.frontier(rows)
    assert [(r["l"], r["epsilon"]) for r in front] == [(4, 1.0), (16, 1.2), (16, 8.0), (4, 15.0)]
    assert fr.best_within(front, 10.0)["mean"] == 0.85
    assert fr.best_within(front, 0.5) is None


def test_frontier_rows_end_to_end(table, tmp_path):
    from dpcda.jobs import JobStore

    store = JobStore(tmp_path / "jobs.sqlite3")
    _done_job(store, dict(fr.fast_config("digits", l=16, sigma_x=0.5), run=0), 0.99, 0.5)
    front = fr.frontier_rows("digits", "class-aware", store, table=table)
    assert front and all(a["epsilon"] < b["epsilon"] and a["mean"] < b["mean"]
                         for a, b in zip(front, front[1:]))
    assert front[-1]["mean"] == 0.99 and front[-1]["source"].startswith("jobs")
    assert fr.frontier_rows("digits", "class-aware", store, table=table, c=3.0) == []
    with pytest.raises(ValueError, match="dataset must be one of"):
        fr.frontier_rows("nope", "class-aware")


def test_fast_config_replaces_networks_by_lda():
    assert fr.fast_config("digits", l=4, sigma_x=0.25)["model"] == "ncm"
    assert fr.fast_config("mnist", l=4, sigma_x=0.0)["model"] == "lda"  # auto would be the CNN
    assert fr.fast_config("digits", l=4, sigma_x=0.25)["sigma"] == 0.25


def test_the_measurement_estimate_knows_its_learner():
    """seconds_per_run is measured with the fast learner (MNIST: lda, 18 s); the opt-in qda fits
    in 27 s of CPU on MNIST (docs/training.md): a run with it is estimated at least that long,
    and the fast learner named explicitly costs what the default does."""
    runs = fr.MEASURE_RUNS
    default = fr.estimate_seconds("mnist")
    assert fr.estimate_seconds("mnist", learner="lda") == default
    qda = fr.estimate_seconds("mnist", learner="qda")
    assert (qda - fr.WORKER_START_SECONDS) / runs >= 27.0 > (default - fr.WORKER_START_SECONDS) / runs
    assert fr.estimate_seconds("mnist", runs=1, learner="qda") < qda  # still per run
    assert fr.estimate_seconds("nope", learner="qda") == fr.estimate_seconds("nope")


def test_a_proportional_release_under_whole_record_gets_an_upper_bound_close_to_exact():
    """The frontier's cheap whole-record epsilon of a proportional split (the equal split of
    K * max T_k) is never below the exact one, and close to it at a built-in dataset's counts."""
    from dpcda.privacy import PrivacyParams, compute_epsilon

    facts = fr.public_facts("digits")
    rows = [dict(_row(4, 0.5, 0.9), allocation="proportional"),
            dict(_row(16, 0.25, 0.9), allocation="proportional")]
    got = fr.attach_epsilons(rows, accountant="whole-record", delta=1e-5, **facts)
    for r, g in zip(rows, got):
        p = PrivacyParams(l=r["l"], sigma_x=r["sigma_x"], sigma_y=r["sigma_x"], c=1.0,
                          T=facts["n"], delta=1e-5, n=facts["n"],
                          class_counts=facts["class_counts"], d_x=facts["d_x"],
                          d_y=facts["d_y"], allocation="proportional")
        exact = compute_epsilon(p, accountant="whole-record").epsilon
        assert exact <= g["epsilon"] <= 1.05 * exact


# --- the learner of a row (issue 28: the frontier follows the default learner) -------------------

def test_measured_learner_is_what_a_one_click_measurement_trains():
    """The learner the default's rows must be of is the job runner's own ``auto`` for a DP-CDA
    release, a neural network replaced by the noise-aware LDA: ``lda`` for MNIST and
    Fashion-MNIST (the opt-in ``qda`` is not the default), ``ncm`` for private digits."""
    from dpcda.experiments.run import normalize
    from dpcda.experiments.table import measured_learner

    want = {("digits", True): "ncm", ("digits", False): "lda", ("mnist", True): "lda",
            ("mnist", False): "lda", ("fashion-mnist", True): "lda", ("adult", True): "tree"}
    for (dataset, private), learner in want.items():
        assert measured_learner(dataset, private) == learner
        cfg = fr.fast_config(dataset, l=4, sigma_x=0.25 if private else 0.0)
        resolved = normalize(dict(cfg, model="auto"))["train"]["model"]
        assert cfg["model"] == (learner if resolved != "cnn" else "lda") == learner


def test_the_shipped_frontier_is_the_default_learners_and_other_rows_are_labelled():
    """The shipped table keeps the default learner's rows for every built-in dataset (MNIST's
    and Fashion-MNIST's noise-aware LDA grid included); a row of another learner (the opt-in
    QDA) is labelled with it and its choice, and never reaches the default's frontier."""
    from dpcda.experiments.table import measured_learner

    rows = fr.load_table()
    assert {"digits", "mnist", "fashion-mnist", "adult"} <= {r["dataset"] for r in rows}
    for name, n_rows in (("mnist", 12), ("fashion-mnist", 8)):
        default = [r for r in fr.release_rows(name) if r["sigma_x"] > 0]
        assert len(default) == n_rows and {r["learner"] for r in default} == {"lda"}
    others = [r for r in rows if r["learner"] != measured_learner(r["dataset"], r["sigma_x"] > 0)]
    assert others and {r["learner"] for r in others} == {"qda"}
    for r in rows:  # QDA's hyper-parameters, chosen from the release, are beside its accuracy
        assert (r["learner_setting"] != "") == (r["learner"] == "qda"), r
    for name in ("mnist", "fashion-mnist"):
        front = fr.frontier_rows(name, "whole-record")
        assert front and {r["learner"] for r in front} == {"lda"}
    assert {r["learner"] for r in rows if r["dataset"] == "adult"} == {"tree"}


def _stale_and_current(tmp_path):
    """MNIST rows: lda rows (the default) and a better qda row at a smaller epsilon (opt-in)."""
    path = tmp_path / "acc.csv"
    fr.write_table([dict(_row(16, 0.2512, 0.95, dataset="mnist", learner="qda"),
                         learner_setting="shrinkage=0.3 floor=0.1"),
                    _row(4, 0.2512, 0.80, dataset="mnist", learner="lda"),
                    _row(4, 0.0, 0.95, dataset="mnist", learner="lda")], path)
    return path


def test_the_recommended_l_reads_only_the_default_learners_rows(tmp_path):
    path = _stale_and_current(tmp_path)
    front = fr.frontier_rows("mnist", "whole-record", table=path)
    assert [(r["l"], r["learner"]) for r in front] == [(4, "lda")]
    best = fr.best_within(front, 1e9)
    assert (best["l"], best["learner"], best["mean"]) == (4, "lda", 0.80)
    # the readout too: the qda row is not "this release's accuracy"
    rows = fr.release_rows("mnist", table=path)
    assert fr.lookup(rows, l=16, sigma_x=0.2512, dataset="mnist") is None
    assert fr.lookup(rows, l=4, sigma_x=0.0, dataset="mnist")["learner"] == "lda"  # non-private
    # every learner on request (a learner's own frontier)
    assert {r["learner"] for r in fr.release_rows("mnist", table=path, learner=None)} == {"lda", "qda"}
    qda = fr.release_rows("mnist", table=path, learner="qda")
    assert [(r["l"], r["learner_setting"]) for r in qda] == [(16, "shrinkage=0.3 floor=0.1")]


def test_store_rows_of_another_learner_do_not_move_the_frontier(tmp_path, table):
    from dpcda.jobs import JobStore

    store = JobStore(tmp_path / "jobs.sqlite3")
    other = dict(fr.fast_config("digits", l=16, sigma_x=0.5), model="lda", run=0)  # not ncm
    _done_job(store, other, 0.99, 0.5)
    front = fr.frontier_rows("digits", "class-aware", store, table=table)
    assert all(r["learner"] == "ncm" and r["mean"] < 0.99 for r in front)


def test_table_merge_replaces_a_release_of_the_same_learner_and_keeps_other_learners():
    from dpcda.experiments.table import merge

    old = [_row(4, 0.2512, 0.90), _row(16, 0.2512, 0.85),  # digits, ncm: the default
           _row(4, 0.2512, 0.84, dataset="mnist", learner="lda"),
           _row(16, 0.2512, 0.83, dataset="mnist", learner="lda"),
           _row(4, 0.0, 0.96, learner="lda")]
    new = [_row(4, 0.2512, 0.91, dataset="mnist", learner="qda")]
    table, dropped = merge(old, new)  # a qda row beside the lda row of the same release
    assert dropped == []
    assert [(r["dataset"], r["l"], r["sigma_x"], r["learner"], r["mean"]) for r in table] == [
        ("digits", 4, 0.0, "lda", 0.96), ("digits", 4, 0.2512, "ncm", 0.90),
        ("digits", 16, 0.2512, "ncm", 0.85), ("mnist", 4, 0.2512, "lda", 0.84),
        ("mnist", 4, 0.2512, "qda", 0.91), ("mnist", 16, 0.2512, "lda", 0.83)]
    table, _ = merge(table, [_row(4, 0.2512, 0.86, dataset="mnist", learner="lda")])
    assert [(r["learner"], r["mean"]) for r in table if r["dataset"] == "mnist" and r["l"] == 4] \
        == [("lda", 0.86), ("qda", 0.91)]  # re-measured: replaced, the other learner kept
    table, dropped = merge(old, [_row(4, 0.2512, 0.92)], drop_dataset=True)
    assert [r["mean"] for r in table if r["dataset"] == "digits"] == [0.92]
    assert len(dropped) == 2


def test_learner_setting_round_trips_and_older_tables_read(tmp_path):
    from dpcda.experiments.table import setting_text

    assert setting_text({"dims": 150, "shrinkage": 0.3, "floor": 0.1, "rule": "x",
                         "holdout_loglik": None}) == "dims=150 shrinkage=0.3 floor=0.1"
    assert setting_text({"rule": "spiked", "shrinkage": 0.12345, "spikes": [3, 9, 4],
                         "floor": 2e-5, "tangent_variances": None}) == \
        "shrinkage=0.123 spikes=3-9 floor=2e-05"
    assert setting_text(None) == ""
    path = tmp_path / "acc.csv"
    fr.write_table([dict(_row(4, 0.25, 0.8, learner="qda"), learner_setting="p=150 a=0.3 b=0.1")],
                   path)
    assert fr.load_table(path)[0]["learner_setting"] == "p=150 a=0.3 b=0.1"
    old = tmp_path / "old.csv"
    lines = path.read_text().splitlines()
    cols = lines[0].split(",")
    i = cols.index("learner_setting")
    old.write_text("\n".join(",".join(v for j, v in enumerate(line.split(",")) if j != i)
                             for line in lines) + "\n")
    assert fr.load_table(old)[0]["learner_setting"] == ""


def test_the_frontier_says_which_normalisation_its_rows_were_measured_under():
    """Every shipped row is a ``scale`` release; MNIST's default under the composing accountants
    is ``dp-center`` (its ε also composes the DP centre): a reader there is told, and a reader
    whose release is ``scale`` is not."""
    assert {r["normalization"] for r in fr.load_table()} == {"scale"}
    assert fr.measured_normalization("mnist") == "scale"
    note = fr.normalization_note("mnist", None, "whole-record")
    assert "Measured on `scale` releases" in note and "`dp-center`" in note
    assert "MNIST's default under `whole-record`" in note and "ε is at least the frontier's" in note
    assert fr.normalization_note("mnist", None, "class-aware") == ""  # scale under RDP
    assert fr.normalization_note("digits", None, "whole-record") == ""
    assert fr.normalization_note("mnist", "scale", "whole-record") == ""
    other = fr.normalization_note("digits", "none", "class-aware")
    assert "This release uses `none` (this setting's normalisation)" in other and "DP centre" not in other
