"""AppTest tests of the Utility page (pages/utility.py): launching sweeps, progress, results.

Every test gets its own job store (``DPCDA_HOME`` = a temp folder). The page's
``ensure_worker`` is replaced by a recorder, so no background process starts; jobs are run
in-process with :class:`dpcda.jobs.Worker` or finished through the store API.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.page_util import run

from dpcda.evaluation import reference
from dpcda.jobs import JobStore, Worker
from dpcda.experiments.sweep import sweep_results
from dpcda.experiments.sweep import submit_sweep
from dpcda.mechanisms import MECHANISMS
from dpcda.data.presets import PRESETS
from dpcda.privacy import DEFAULT_ACCOUNTANT, NOT_A_BOUND, get_accountant

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "utility.py")
INF = math.inf


CDA_DEFAULT = MECHANISMS.get("dp-cda").default_accountant


@pytest.fixture
def store(monkeypatch, tmp_path) -> JobStore:
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path))
    return JobStore()  # the page opens the same file: $DPCDA_HOME/jobs.sqlite3


@pytest.fixture
def worker_calls(monkeypatch) -> list:
    import dpcda.jobs

    calls = []
    monkeypatch.setattr(dpcda.jobs, "ensure_worker",
                        lambda db=None, **kw: calls.append(db) or {"worker_id": "w-test", "pid": None,
                                                                   "started": True})
    return calls


def page(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    query.setdefault("dataset", "digits")  # the shared setting's dataset, as a link gives it
    for k, v in query.items():
        at.query_params[k] = v
    return run(at)


def figure(at: AppTest) -> dict:
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    return json.loads(charts[0].proto.spec)


def finish_with(store: JobStore, sweep_id: int, accuracies: dict) -> None:
    """Finish every job of a sweep through the store API with a given accuracy per (eps, l, run)."""
    for _ in store.jobs(sweep_id=sweep_id):
        job = store.claim("w-fake", ["experiment"], sweep_id=sweep_id)
        c = job.config
        acc = accuracies[(c["epsilon"], c["l"], c["run"])]
        sigma = 0.0 if math.isinf(c["epsilon"]) else 0.5 / c["l"]
        assert store.finish(job.id, "w-fake", "done", result={
            "accuracy": acc, "sigma_x": sigma, "sigma_y": sigma, "epsilon": c["epsilon"], "alpha": 7,
            "delta": c["delta"], "accountant": c["accountant"], "conversion": c["conversion"],
            "n_train": 60000})


def test_renders_without_a_sweep(store, worker_calls):
    at = page()
    assert "Utility" in at.title[0].value
    assert at.selectbox(key="utility_dataset").value == "digits"
    assert at.selectbox(key="utility_model").value == "auto"  # the default for every dataset
    assert at.selectbox(key="utility_model").options[0] == "auto (best measured per setting)"
    assert at.text_input(key="utility_epochs").value == "30"
    assert at.selectbox(key="utility_mechanism").value == "dp-cda"
    assert any(i.value.startswith("Estimated time: about") for i in at.sidebar.info)  # before launch
    assert at.selectbox(key="utility_accountant").value == DEFAULT_ACCOUNTANT
    assert at.radio(key="utility_norm").value == MECHANISMS.get("dp-cda").default_normalize
    assert at.selectbox(key="utility_sweep").value is None
    assert not at.error and not at.get("plotly_chart")
    assert not worker_calls and store.sweeps() == []


def test_defaults_follow_the_dataset_and_stay_within_two_minutes(store, worker_calls, monkeypatch,
                                                                  tiny_data_dir):
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tiny_data_dir))  # only datasets with files are offered
    at = page()
    at.selectbox(key="utility_model").set_value("linear")
    run(at)
    at.selectbox(key="utility_dataset").set_value("adult")
    run(at)
    assert at.selectbox(key="utility_model").value == "auto"  # reset on a dataset change
    assert "cnn: CNN (DP-CDA Table 2)" not in at.selectbox(key="utility_model").options  # tabular
    assert at.text_input(key="utility_epochs").value == "1"
    at.selectbox(key="utility_dataset").set_value("fashion-mnist")
    run(at)
    # auto would train the CNN at ε = ∞ (minutes per job on CPU): the default is the fast lda,
    # and the page says what was trimmed to stay within about 2 minutes
    assert at.selectbox(key="utility_model").value == "lda"
    assert "cnn: CNN (DP-CDA Table 2)" in at.selectbox(key="utility_model").options
    assert at.text_input(key="utility_epochs").value == "5"
    assert any("Defaults trimmed to finish in about 2 minutes" in c.value for c in at.sidebar.caption)
    est = [i.value for i in at.sidebar.info if i.value.startswith("Estimated time")]
    assert est and ("min" not in est[0] or est[0].startswith("Estimated time: about 2 min"))


def test_auto_launch_resolves_the_model_per_epsilon(store, worker_calls, monkeypatch, tiny_data_dir):
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tiny_data_dir))  # Launch needs the dataset's files
    at = page()
    at.selectbox(key="utility_dataset").set_value("fashion-mnist")
    run(at)
    at.multiselect(key="utility_eps").set_value([INF, 10.0])
    at.multiselect(key="utility_ls").set_value([4])
    at.text_input(key="utility_runs").set_value("1")
    at.selectbox(key="utility_model").set_value("auto")
    run(at)
    at.button(key="utility_launch").click()
    run(at)
    assert not at.error
    (sweep,) = store.sweeps()
    models = {j.config["epsilon"]: j.config["train"]["model"] for j in store.jobs(sweep_id=sweep.id)}
    assert models == {INF: "cnn", 10.0: "lda"}
    assert any("`cnn` (ε = ∞)" in c.value and "`lda` (ε = 10)" in c.value for c in at.caption)


def test_launch_queues_a_sweep_and_starts_a_worker_then_shows_results(store, worker_calls):
    at = page()
    at.multiselect(key="utility_eps").set_value([INF, 10.0])
    at.multiselect(key="utility_ls").set_value([1, 2])
    at.text_input(key="utility_runs").set_value("2")
    at.text_input(key="utility_epochs").set_value("1")
    at.selectbox(key="utility_model").set_value("ncm")
    run(at)
    at.button(key="utility_launch").click()
    run(at)
    assert not at.error
    (sweep,) = store.sweeps()
    jobs = store.jobs(sweep_id=sweep.id)
    assert len(jobs) == 2 * 2 * 2
    assert {(j.config["epsilon"], j.config["l"], j.config["run"]) for j in jobs} == {
        (e, l, r) for e in (INF, 10.0) for l in (1, 2) for r in (0, 1)}
    assert {j.config["train"]["model"] for j in jobs} == {"ncm"}
    assert {j.config["accountant"] for j in jobs} == {DEFAULT_ACCOUNTANT}
    assert all(j.status == "queued" for j in jobs)
    assert len(worker_calls) == 1 and Path(worker_calls[0].path) == store.path
    # The sweep is selected and in the address, so a refreshed tab finds it again.
    assert at.selectbox(key="utility_sweep").value == sweep.id
    assert at.query_params["sweep"] in (str(sweep.id), [str(sweep.id)])
    assert any(p.proto.text.startswith("queued: 0 of 8 job(s) finished") for p in at.get("progress"))

    Worker(store).run(idle_exit=0)  # the real experiment pipeline, in-process (ncm: no torch training)
    run(at)  # AppTest does not fire run_every fragments: rerun to refresh
    assert not at.error
    spec = figure(at)
    ours = {t["name"]: t for t in spec["data"] if t["name"].startswith("ours")}
    assert set(ours) == {"ours, ε = ∞", "ours, ε = 10"}
    res = sweep_results(store, sweep.id)
    for eps, name in ((INF, "ours, ε = ∞"), (10.0, "ours, ε = 10")):
        rows = res[res["epsilon"] == eps].sort_values("l")
        assert ours[name]["x"] == [1, 2]
        assert ours[name]["y"] == pytest.approx(rows["mean"].tolist())
        assert ours[name]["error_y"]["visible"] is True
        assert ours[name]["error_y"]["array"] == pytest.approx(rows["std"].fillna(0).tolist())
    assert spec["layout"]["xaxis"]["type"] == "log"
    assert not any("paper" in t["name"] for t in spec["data"])  # the paper has no digits column
    table = at.dataframe[0].value
    assert len(table) == 4 and set(table["runs"]) == {"2"}
    assert not {"None", "nan"} & set(table.to_numpy().ravel())  # empty cells read "—"
    private = table[table["target ε"] == "10"]
    # a PLD accountant has no RDP conversion: the column is left out; an RDP one records mironov
    assert (private["accountant"] == CDA_DEFAULT).all()
    if get_accountant(CDA_DEFAULT).uses_rdp:
        assert all(v == "mironov" for v in private["conversion"])
    else:
        assert "conversion" not in table and "α" not in table
    assert (private["σ_x used"].astype(float) > 0).all()
    assert (private["achieved ε"].astype(float) <= 10 + 1e-9).all()
    assert (table[table["target ε"] == "∞"]["σ_x used"].astype(float) == 0).all()
    assert at.get("download_button")
    notes = " ".join(m.value for m in at.markdown)
    assert "**ε = 10**: σ calibrated" in notes and f"**{DEFAULT_ACCOUNTANT}** accountant" in notes
    assert get_accountant(DEFAULT_ACCOUNTANT).relation.rstrip(".") in notes and NOT_A_BOUND not in notes
    assert "no privacy guarantee" in notes
    assert any("Privacy footnote" in c.value and DEFAULT_ACCOUNTANT in c.value for c in at.caption)


def test_query_param_reopens_a_sweep_with_paper_overlay_for_fashion_mnist(store, worker_calls,
                                                                          files_not_needed):
    sid = submit_sweep(store, {"dataset": "fashion-mnist", "train": {"model": "cnn", "epochs": 1}},
                       epsilons=[10.0], ls=[1, 4], runs=2)
    acc = {(10.0, 1, 0): 0.30, (10.0, 1, 1): 0.40, (10.0, 4, 0): 0.66, (10.0, 4, 1): 0.70}
    finish_with(store, sid, acc)
    at = page(sweep=str(sid))  # a fresh session: only the address knows the sweep
    assert at.selectbox(key="utility_sweep").value == sid
    spec = figure(at)
    by_name = {t["name"]: t for t in spec["data"]}
    ours = by_name["ours, ε = 10"]
    assert ours["y"] == pytest.approx([0.35, 0.68])
    assert ours["error_y"]["array"] == pytest.approx([math.sqrt(0.005), math.sqrt(0.0008)])
    paper = by_name["paper (CNN), ε = 10"]
    assert paper["line"]["dash"] == "dash"
    assert paper["x"] == [1, 4]
    assert paper["y"] == [reference.paper_accuracy("fashion-mnist", l, 10).accuracy for l in (1, 4)]
    table = at.dataframe[0].value
    assert table["reported"].tolist() == ["0.3619", "0.6748"]
    assert not worker_calls  # nothing queued by merely looking


def test_no_epsilon_selected_is_an_error_not_an_exception(store, worker_calls):
    at = page()
    at.multiselect(key="utility_eps").set_value([])
    run(at)
    warnings = [w.value for w in at.sidebar.warning]
    assert warnings == ["Select at least one target ε."]  # stated once
    assert at.button(key="utility_launch").disabled
    assert store.sweeps() == [] and not worker_calls


def test_a_dataset_without_files_is_not_offered(store, worker_calls, monkeypatch, tmp_path):
    """No CIFAR-10 files here: it is not offered (issue 21, item 3), and the sidebar says where
    to put its files, instead of offering a launch of jobs that can only fail."""
    monkeypatch.setenv("DPCDA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DPCDA_OFFLINE", "1")
    at = page()
    assert not at.button(key="utility_launch").disabled  # digits is always there
    offered = at.selectbox(key="utility_dataset").options  # the titles
    assert "CIFAR-10" not in offered and "scikit-learn digits (8x8)" in offered
    # the dataset's title, not its registry key, in the expander's label
    (ex,) = [e for e in at.sidebar.expander if "Not on this server" in e.label]
    assert "CIFAR-10" in ex.label and "cifar10" not in ex.label
    how = " ".join(m.value for m in at.sidebar.markdown)
    assert "To get CIFAR-10" in how and "DPCDA_DATA_DIR" in how  # in an expander
    assert str(tmp_path) not in how + ex.label  # no server paths
    assert store.sweeps() == [] and not worker_calls


def test_invalid_combination_is_reported(store, worker_calls, monkeypatch, tiny_data_dir):
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tiny_data_dir))  # Launch needs the dataset's files
    at = page()
    at.selectbox(key="utility_dataset").set_value("adult")
    at.radio(key="utility_label_mode").set_value("soft")  # a decision tree takes no soft labels
    run(at)
    assert any("label_mode" in w.value for w in at.sidebar.warning)
    assert at.button(key="utility_launch").disabled
    assert store.sweeps() == [] and not worker_calls


def test_cancel_and_unknown_sweep(store, worker_calls):
    sid = submit_sweep(store, {"dataset": "digits", "train": {"model": "ncm", "epochs": 1}},
                       epsilons=[INF], ls=[1, 2], runs=1)
    at = page(sweep=str(sid))
    assert any("No worker is running" in w.value for w in at.warning)
    at.button(key="utility_cancel").click()
    run(at)
    assert {j.status for j in store.jobs(sweep_id=sid)} == {"cancelled"}
    assert "utility_cancel" not in [b.key for b in at.button]  # nothing left to cancel
    at = page(sweep="999")
    assert any("999" in w.value for w in at.warning)
    assert at.selectbox(key="utility_sweep").value is None


def finish_all(store: JobStore, sweep_id: int, accuracy) -> None:
    """Finish every job through the store API; fixed-sigma points report epsilon = 10 / sigma."""
    for _ in store.jobs(sweep_id=sweep_id):
        job = store.claim("w-fake", ["experiment"], sweep_id=sweep_id)
        c = job.config
        sigma = c.get("sigma") or (0.0 if math.isinf(c["epsilon"]) else 0.5 / c["l"])
        eps = c["epsilon"] if c.get("sigma") is None else 10.0 / c["sigma"]
        assert store.finish(job.id, "w-fake", "done", result={
            "accuracy": accuracy(c), "sigma_x": sigma, "sigma_y": sigma, "epsilon": eps, "alpha": 7,
            "delta": c["delta"], "accountant": c["accountant"], "conversion": c["conversion"],
            "n_train": 60000, "n_synthetic": c.get("T") or 60000})


def test_accuracy_versus_fixed_sigma_runs_and_draws_epsilon_on_a_second_axis(store, worker_calls):
    at = page()
    at.selectbox(key="utility_experiment").set_value("sigma")
    run(at)
    at.text_input(key="utility_sigmas").set_value("0, 0.5, 2")
    at.multiselect(key="utility_ls").set_value([4])
    at.text_input(key="utility_runs").set_value("1")
    at.selectbox(key="utility_model").set_value("ncm")
    run(at)
    assert any("3 job(s): 3 σ × 1 l × 1 run(s)" in c.value for c in at.sidebar.caption)
    at.button(key="utility_launch").click()
    run(at)
    assert not at.error
    (sweep,) = store.sweeps()
    assert sweep.config["x"] == "sigma"
    jobs = store.jobs(sweep_id=sweep.id)
    assert sorted((j.config.get("sigma") or 0.0, j.config["epsilon"]) for j in jobs) == [
        (0.0, INF), (0.5, None), (2.0, None)]  # sigma 0 is stored as the epsilon = inf point
    Worker(store).run(idle_exit=0)  # the real pipeline (digits, ncm)
    run(at)
    spec = figure(at)
    ours = [t for t in spec["data"] if t["name"].startswith("ours")]
    assert len(ours) == 1 and ours[0]["x"] == [0.0, 0.5, 2.0]
    res = sweep_results(store, sweep.id)
    assert ours[0]["y"][0] == pytest.approx(res[res["epsilon"] == INF]["mean"].iloc[0])
    (eps_trace,) = [t for t in spec["data"] if t["name"].startswith(f"ε ({DEFAULT_ACCOUNTANT})")]
    assert eps_trace["yaxis"] == "y2" and eps_trace["x"] == [0.5, 2.0]  # ∞ at σ = 0 is not drawn
    assert eps_trace["y"][0] > eps_trace["y"][1] > 0  # more noise, smaller epsilon
    assert spec["layout"]["yaxis2"]["type"] == "log"
    table = at.dataframe[0].value
    assert table["fixed σ"].tolist()[1:] == ["0.5", "2"]
    assert table["target ε"].tolist() == ["∞", "", ""]  # only σ = 0 is a target (∞)
    notes = " ".join(m.value for m in at.markdown)
    assert "**Fixed σ**" in notes and f"**{DEFAULT_ACCOUNTANT}** accountant" in notes
    assert "no privacy guarantee" in notes
    assert any("figures only" in c.value for c in at.caption)  # no thesis numbers to overlay


def test_a_bad_list_is_an_error_and_queues_nothing(store, worker_calls):
    at = page()
    at.selectbox(key="utility_experiment").set_value("sigma")
    run(at)
    at.text_input(key="utility_sigmas").set_value("0.5, lots")
    run(at)
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and "comma-separated list" in errors[0]  # stated once, at the box
    assert at.button(key="utility_launch").disabled
    assert store.sweeps() == [] and not worker_calls


def test_accuracy_versus_T_with_a_fixed_sigma(store, worker_calls):
    at = page()
    at.selectbox(key="utility_experiment").set_value("T")
    run(at)
    n = sum(PRESETS.get("digits").class_counts)  # the training split
    assert at.text_input(key="utility_Ts").value == ",".join(str(round(n * f)) for f in (0.1, 0.2, 0.5, 1))
    at.text_input(key="utility_Ts").set_value("200,400")
    at.text_input(key="utility_T_sigma").set_value("0.5")
    at.multiselect(key="utility_ls").set_value([2])
    at.text_input(key="utility_runs").set_value("1")
    run(at)
    at.button(key="utility_launch").click()
    run(at)
    (sweep,) = store.sweeps()
    jobs = store.jobs(sweep_id=sweep.id)
    assert sorted((j.config["T"], j.config["sigma"]) for j in jobs) == [(200, 0.5), (400, 0.5)]
    finish_all(store, sweep.id, lambda c: c["T"] / 1000)
    run(at)
    spec = figure(at)
    (ours,) = [t for t in spec["data"] if t["name"].startswith("ours")]
    assert ours["x"] == [200, 400] and ours["y"] == pytest.approx([0.2, 0.4])
    assert spec["layout"]["xaxis"]["type"] == "log"
    assert any(t.get("yaxis") == "y2" for t in spec["data"])


def test_thesis_table_is_overlaid_for_fixed_sigma_on_mnist(store, worker_calls, files_not_needed):
    sid = submit_sweep(store, {"dataset": "mnist", "T": 12000, "train": {"model": "cnn", "epochs": 1}},
                       sigmas=[0.7], ls=[32, 128, 256], runs=1, x="l")
    finish_all(store, sid, lambda c: 0.7)
    at = page(sweep=str(sid))
    spec = figure(at)
    (thesis,) = [t for t in spec["data"] if t["name"].startswith("thesis Table 4.2")]
    cells = {c.l: c.accuracy for c in reference.THESIS_TABLE_4_2}
    assert thesis["x"] == [32, 128, 256] and thesis["y"] == [cells[32], cells[128], cells[256]]
    assert any("thesis's Table 4.2" in c.value for c in at.caption)
    assert at.dataframe[0].value["reported"].tolist() == [f"{cells[k]:.4f}" for k in (32, 128, 256)]


def test_accuracy_versus_epsilon_places_infinity_and_overlays_the_paper(store, worker_calls,
                                                                        files_not_needed):
    sid = submit_sweep(store, {"dataset": "fashion-mnist", "train": {"model": "cnn", "epochs": 1}},
                       epsilons=[INF, 20.0, 10.0, 5.0], ls=[4], runs=1)
    assert store.get_sweep(sid).config["x"] == "epsilon"
    finish_all(store, sid, lambda c: 0.9 if math.isinf(c["epsilon"]) else 0.6 + c["epsilon"] / 200)
    at = page(sweep=str(sid))
    spec = figure(at)
    (ours,) = [t for t in spec["data"] if t["name"].startswith("ours")]
    assert ours["x"] == [5.0, 10.0, 20.0, 40.0]  # ∞ drawn at twice the largest finite ε
    assert ours["y"] == pytest.approx([0.625, 0.65, 0.7, 0.9])
    assert "∞" in spec["layout"]["xaxis"]["ticktext"]
    (paper,) = [t for t in spec["data"] if t["name"].startswith("paper (CNN)")]
    assert paper["x"] == [10.0, 20.0, 40.0]
    assert paper["y"] == [reference.paper_accuracy("fashion-mnist", 4, e).accuracy for e in (10, 20, INF)]
    assert not any(t.get("yaxis") == "y2" for t in spec["data"])  # targets, not fixed sigmas


def test_switching_experiment_sets_its_own_default_l(store, worker_calls):
    """Found in the browser: the l list of the vs-l experiment (1, 4, 16, 64) stayed selected
    after switching to vs σ, whose default is the thesis's l = 128."""
    at = page()
    assert at.multiselect(key="utility_ls").value == [1, 4, 16, 64]
    at.selectbox(key="utility_experiment").set_value("sigma")
    run(at)
    assert at.multiselect(key="utility_ls").value == [128]
    at.multiselect(key="utility_ls").set_value([32, 128])
    run(at)
    assert at.multiselect(key="utility_ls").value == [32, 128]  # a choice within it survives reruns
    at.selectbox(key="utility_experiment").set_value("epsilon")
    run(at)
    assert at.multiselect(key="utility_ls").value == [4]


def test_dp_merf_is_selectable_and_launches_an_epsilon_sweep(store, worker_calls):
    """A mechanism without l (read from its registry entry) gets a sweep over ε, ε = ∞ included
    (the non-private embedding), with the estimate shown before launching."""
    at = page()
    at.selectbox(key="utility_mechanism").set_value("dp-merf")
    run(at)
    assert at.selectbox(key="utility_experiment").options[0] == "Accuracy vs ε (privacy-utility trade-off)"
    assert at.selectbox(key="utility_experiment").value == "epsilon"
    assert "utility_ls" not in [m.key for m in at.sidebar.multiselect]  # no l to choose
    assert at.selectbox(key="utility_accountant").value == "embedding-gaussian"
    at.text_input(key="utility_eps_list").set_value("inf,1")
    at.text_input(key="utility_runs").set_value("1")
    run(at)
    assert any(i.value.startswith("Estimated time: about") for i in at.sidebar.info)
    at.button(key="utility_launch").click()
    run(at)
    assert not at.error
    (sweep,) = store.sweeps()
    jobs = store.jobs(sweep_id=sweep.id)
    assert sweep.config["x"] == "epsilon"
    assert sorted(j.config["epsilon"] for j in jobs) == [1.0, INF]
    assert {j.config["mechanism"] for j in jobs} == {"dp-merf"} and {j.config["l"] for j in jobs} == {1}
    finish_all(store, sweep.id, lambda c: 0.9 if math.isinf(c["epsilon"]) else 0.8)
    run(at)
    spec = figure(at)
    (ours,) = [t for t in spec["data"] if t["name"].startswith("ours")]
    assert ours["y"] == pytest.approx([0.8, 0.9])
    assert "DP-MERF" in spec["layout"]["title"]["text"]
    table = at.dataframe[0].value
    assert "l" not in table.columns and not {"None", "nan"} & set(table.to_numpy().ravel())


def test_a_launch_over_ten_minutes_needs_confirmation(store, worker_calls):
    at = page()
    at.selectbox(key="utility_model").set_value("cnn")
    at.text_input(key="utility_epochs").set_value("500")
    run(at)
    assert any("over 10 minutes" in w.value for w in at.sidebar.warning)
    assert at.button(key="utility_launch").disabled
    at.checkbox(key="utility_confirm_long").check()
    run(at)
    assert not at.button(key="utility_launch").disabled


def test_explain_notes_beside_the_inputs_and_off_by_the_address(store, worker_calls):
    from dpcda.dashboard.explain import ends_text, get_note

    at = page()
    captions = " ".join(c.value for c in at.sidebar.caption)
    for key in ("dataset", "mechanism", "experiment", "epsilon", "l", "runs", "epochs", "learner",
                "label_mode", "accountant", "normalization", "allocation", "T", "c", "delta"):
        assert get_note(key).text in captions, key
    assert ends_text("delta") in captions  # the slider's privacy direction, always shown
    off = page(explain="0")
    captions = " ".join(c.value for c in off.sidebar.caption)
    assert get_note("l").text not in captions and ends_text("delta") in captions


def test_a_refused_box_leaves_the_boxes_after_it_drawn(store, worker_calls):
    """Runs refused: Epochs still drawn; T refused: c still drawn. Each refusal is stated once
    at its box and nothing can be launched."""
    at = page()
    at.text_input(key="utility_epochs").set_value("3")
    at.text_input(key="utility_runs").set_value("0")
    run(at)
    assert len(at.sidebar.error) == 1 and at.text_input(key="utility_epochs").value == "3"
    assert at.button(key="utility_launch").disabled
    at.text_input(key="utility_runs").set_value("1")
    at.text_input(key="utility_T").set_value("1e308")
    run(at)
    assert len(at.sidebar.error) == 1 and "T" in at.sidebar.error[0].value
    assert "utility_c" in {t.key for t in at.text_input}
    assert at.button(key="utility_launch").disabled and store.sweeps() == []


def test_launch_sits_above_the_form_and_a_refusal_shows_in_the_main_area(store, worker_calls):
    """Issue 21, item 7: "Launch sweep" near the top of the sidebar (its estimate above the
    long form), and a refused input said where the reader looks, not only in the sidebar."""
    at = page()
    keys = [getattr(node, "key", None) for node in at.sidebar]
    assert keys.index("utility_launch") < keys.index("utility_dataset")
    assert not at.main.info or not any("refused" in i.value for i in at.main.info)
    at.text_input(key="utility_runs").set_value("0")
    run(at)
    assert at.button(key="utility_launch").disabled
    assert any("refused" in i.value for i in at.main.info)
