"""A mechanism and a dataset, each in one file (tests/plugins/toy_*.py), loaded through
``$DPCDA_PLUGINS`` with no other edit: the registries, the CLI's help and choices, the job
runner (a real ``experiment`` job) and Compare all see them."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MODULES = ("tests.plugins.toy_mechanism", "tests.plugins.toy_dataset")
PLUGINS = ",".join(MODULES)


def plugin_env(tmp_path: Path, plugins: str = PLUGINS) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), DPCDA_HOME=str(tmp_path / "home"), COLUMNS="400",
               DPCDA_PLUGINS=plugins)
    env.pop("DPCDA_JOB_PLUGINS", None)
    return env


@pytest.fixture
def plugins(monkeypatch):
    """The toy plugins loaded in this process, removed again afterwards."""
    import dpcda.util.plugins as plug
    from dpcda.data import DATASETS
    from dpcda.mechanisms import MECHANISMS, unregister_mechanism

    monkeypatch.setenv(plug.PLUGINS_ENV, PLUGINS)
    assert plug.load_plugins() == list(MODULES)
    yield
    monkeypatch.delenv(plug.PLUGINS_ENV)
    unregister_mechanism("toy-pairs")
    DATASETS.remove("toy")
    for m in MODULES:
        plug._loaded.discard(m)
        sys.modules.pop(m, None)
    plug._seen = None  # so that the next test imports them again
    assert "toy-pairs" not in MECHANISMS and "toy" not in DATASETS


def test_registries_offer_them_with_everything_they_declared(plugins):
    from dpcda.dashboard.launch_defaults import epochs_for
    from dpcda.data import list_datasets, load_dataset
    from dpcda.data.presets import get_preset, list_presets
    from dpcda.experiments.estimate import generate_seconds
    from dpcda.experiments.frontier import WORKER_START_SECONDS, estimate_seconds
    from dpcda.experiments.run import normalize
    from dpcda.mechanisms import MECHANISMS
    from dpcda.privacy import NOT_A_BOUND, caveat, is_bound_for

    assert MECHANISMS.names()[-1] == "toy-pairs" and "toy" in list_datasets()
    # the dataset: public facts offline, and a loader whose split has exactly those counts
    assert "toy" in list_presets() and get_preset("toy").n == 120
    assert get_preset("toy").title == "Toy stripes (train)"
    ds = load_dataset("toy")
    assert ds.class_counts == get_preset("toy").class_counts and ds.X_train.shape == (120, 16)
    assert epochs_for("toy") == 2
    assert estimate_seconds("toy", runs=2) == pytest.approx(WORKER_START_SECONDS + 2 * 0.5)
    # the mechanism: its event makes its default accountant a bound, the paper's not
    assert is_bound_for("class-aware-pld", "toy-pairs") and caveat("paper", "toy-pairs") == NOT_A_BOUND
    assert MECHANISMS.get("toy-pairs").is_valid_bound("class-aware")
    assert generate_seconds({"dataset": "toy", "mechanism": "toy-pairs", "epsilon": 10}) > 0
    # model="auto" reads the dataset's declared learners
    cfg = normalize({"dataset": "toy", "mechanism": "toy-pairs", "epsilon": 10})
    assert cfg["train"]["model"] == "ncm" and cfg["accountant"] == "class-aware-pld"
    assert normalize({"dataset": "toy", "mechanism": "toy-pairs"})["train"]["model"] == "lda"


def test_cli_help_and_choices_list_them(tmp_path):
    def helps(plugins: str) -> str:
        out = ""
        for cmd in (["generate", "--help"], ["epsilon", "--help"], ["sweep", "--help"]):
            res = subprocess.run([sys.executable, "-m", "dpcda", *cmd], cwd=REPO, capture_output=True,
                                 text=True, timeout=120, env=plugin_env(tmp_path, plugins))
            assert res.returncode == 0, res.stderr[-2000:]
            out += res.stdout
        return out

    with_toys = helps(PLUGINS)
    assert ",toy-pairs}" in with_toys and "digits, adult, toy)" in with_toys
    without = helps("")
    assert "toy-pairs" not in without and "toy)" not in without


def test_compare_lists_them(plugins):
    from dpcda.dashboard.launch_defaults import compare_datasets
    from dpcda.experiments.compare import compare_jobs, default_ls
    from dpcda.mechanisms import MECHANISMS

    assert compare_datasets()[:2] == ("digits", "toy") and "mnist" in compare_datasets()
    jobs = compare_jobs("toy", 10.0, mechanisms=MECHANISMS.names(), runs=1)
    mine = [cfg for kind, cfg in jobs if cfg["mechanism"] == "toy-pairs"]
    assert default_ls("toy-pairs") == [1] and len(mine) == 1
    assert mine[0]["accountant"] == "class-aware-pld" and mine[0]["dataset"] == "toy"


def test_compare_page_offers_them(plugins, monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    if str(REPO) not in sys.path:
        monkeypatch.syspath_prepend(str(REPO))
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "home"))
    at = AppTest.from_file(str(REPO / "pages" / "compare.py"), default_timeout=90).run()
    assert not at.exception
    assert "Toy stripes (4x4, plugin)" in at.selectbox(key="compare_dataset").options
    assert "Toy pairs (plugin)" in at.multiselect(key="compare_mechs").options


def test_a_real_experiment_job_runs_the_toy_mechanism_on_the_toy_dataset(plugins, tmp_path):
    """Through the job store and a real ``python -m dpcda worker`` process (which finds the
    plugins in its environment, as every worker does; the submitting process has them too)."""
    from dpcda.jobs import JobStore

    env = plugin_env(tmp_path)
    db = tmp_path / "jobs.sqlite3"
    store = JobStore(db)
    ids = [store.submit("experiment", {"dataset": "toy", "mechanism": "toy-pairs", "epsilon": eps,
                                       "train": {"device": "cpu"}}) for eps in (10.0, math.inf)]
    res = subprocess.run([sys.executable, "-m", "dpcda", "worker", "--db", str(db), "--idle-exit", "0"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    private, clean = (store.get_job(i) for i in ids)
    for job in (private, clean):
        assert job.status == "done", (job.status, job.result)
        assert job.config["mechanism"] == "toy-pairs" and job.config["dataset"] == "toy"
        assert 0.0 <= job.result["accuracy"] <= 1.0
    assert private.result["accountant"] == "class-aware-pld" and private.result["sigma_x"] > 0
    assert clean.result["accuracy"] > 0.9  # means of two clean stripes: far above chance (1/3)


def test_the_experiment_kind_records_an_accuracy_in_process(plugins, tmp_path):
    """The same job, queued, then run in this process by the kind the worker looks up (the
    default lane's check; the worker-process one above runs in the slow lane)."""
    from dpcda.jobs import JobStore
    from dpcda.jobs.kinds import get_kind

    store = JobStore(tmp_path / "jobs.sqlite3")
    job_id = store.submit("experiment", {"dataset": "toy", "mechanism": "toy-pairs", "epsilon": 10.0,
                                         "train": {"device": "cpu"}})
    config = store.get_job(job_id).config
    assert config["train"]["model"] == "ncm"  # the toy dataset's declared private learner
    result = get_kind("experiment").run(config, None)
    assert 0.0 <= result["accuracy"] <= 1.0 and result["sigma_x"] > 0
    assert result["accountant"] == "class-aware-pld" and result["private"]


def test_cli_parser_lists_them_in_process(plugins):
    from dpcda.cli import build_parser

    sub = build_parser()._subparsers._group_actions[0].choices
    gen = sub["generate"]
    mech = next(a for a in gen._actions if a.dest == "mechanism")
    assert "toy-pairs" in mech.choices
    assert "toy" in next(a for a in gen._actions if a.dest == "dataset").help
