"""``python -m dpcda sweep`` and ``worker``: validation, the results table and CSV, dedup, exit codes.

The sweep plumbing is tested in-process with the real ``experiment`` kind's config
normalisation but a stand-in run function (fast, deterministic); the real pipeline runs in
``tests/jobs/test_jobs_experiment.py``.
"""

from __future__ import annotations

import csv
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpcda.cli import main
from dpcda.jobs import JobStore
from dpcda.experiments.sweep import list_sweeps, sweep_results
from dpcda.jobs.kinds import JOB_KINDS, JobKind, load_plugins
from dpcda.privacy import DEFAULT_ACCOUNTANT

REPO = Path(__file__).resolve().parents[2]

from dpcda.mechanisms import MECHANISMS  # noqa: E402

CDA_DEFAULT = MECHANISMS.get("dp-cda").default_accountant


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "home"))
    return tmp_path / "jobs.sqlite3"


@pytest.fixture
def fake_experiment(monkeypatch):
    """Replace the experiment's run (not its config normalisation) with a fast stand-in:
    accuracy = 0.9 - 0.01 * l + 0.001 * run, sigma = 1/epsilon; fails for l == 3."""
    load_plugins()
    real = JOB_KINDS.get("experiment")
    calls = []

    def run(config, ctx):
        calls.append(config)
        if config["l"] == 3:
            raise RuntimeError("stand-in failure for l=3")
        for epoch in range(1, config["train"]["epochs"] + 1):
            ctx.on_epoch(epoch, config["train"]["epochs"], {"loss": 0.1})
        if config.get("sigma") is not None:  # fixed noise: the "accountant" reports 2 / sigma
            sigma, eps = config["sigma"], 2.0 / config["sigma"]
        else:
            eps = config["epsilon"]
            sigma = 0.0 if math.isinf(eps) else 1.0 / eps
        return {"accuracy": 0.9 - 0.01 * config["l"] + 0.001 * config["run"], "sigma_x": sigma,
                "epsilon": eps}

    monkeypatch.setitem(JOB_KINDS._items, "experiment", JobKind("experiment", run, real.normalize))
    return calls


def _sweep(db, *extra, capsys=None) -> int:
    return main(["sweep", "--dataset", "digits", "--db", str(db), "--model", "ncm", "--epochs", "2",
                 "--quiet", *extra])


@pytest.mark.parametrize("argv, message", [
    (["--ls", "0,2"], "l must be an integer"),
    (["--ls", "2,x"], "l must be an integer"),
    (["--ls", "2,2"], "must not repeat"),
    (["--epsilons", "x"], "epsilons must be a comma-separated list of numbers > 0 or inf"),
    (["--epsilons", "10,-1"], "epsilons must be"),
    (["--epsilons", "nan"], "epsilons must be"),
    (["--runs", "0"], "--runs must be an integer >= 1"),
    (["--epochs", "1.5"], "--epochs must be an integer >= 1"),
    (["--ls", "200"], "l must be an integer in [1, 131] (the smallest class of digits), got l='200'"),
    (["--model", "nope"], "model must be one of"),
    (["--label-mode", "fuzzy"], "invalid choice"),
    (["--sigmas", "0.5,x"], "sigmas must be a comma-separated list of finite numbers >= 0"),
    (["--sigmas", "0.5", "--epsilons", "10"], "give either --epsilons"),
    (["--T", "100,0"], "T must be an integer >= 1"),
    (["--epsilons", "10", "--ls", "4", "--x", "sigma"], "x must be one of l, T, or epsilon"),
    (["--sigmas", "0.5", "--mechanism", "random-projection"], "sigma applies to mechanisms"),
])
def test_bad_arguments_one_stderr_line_exit_2(db, capsys, argv, message):
    assert _sweep(db, *argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not db.exists() or JobStore(db).jobs() == []  # nothing was queued


def test_sweep_prints_table_writes_csv_and_reuses_results(db, tmp_path, capsys, fake_experiment):
    out_csv = tmp_path / "results.csv"
    rc = _sweep(db, "--epsilons", "inf,10", "--ls", "1,4", "--runs", "3", "--out", str(out_csv))
    assert rc == 0
    out = capsys.readouterr().out
    assert f"{DEFAULT_ACCOUNTANT} accountant" in out and "0.8910 ± 0.0010" in out  # l=1, runs 0,1,2
    assert "neighbours: " in out
    assert len(fake_experiment) == 12
    rows = list(csv.DictReader(out_csv.open()))
    assert [(r["epsilon"], r["l"]) for r in rows] == [("inf", "1"), ("inf", "4"), ("10.0", "1"),
                                                       ("10.0", "4")]
    by_cell = {(r["epsilon"], r["l"]): r for r in rows}
    cell = by_cell[("10.0", "4")]
    assert float(cell["mean"]) == pytest.approx(0.861)
    assert float(cell["std"]) == pytest.approx(0.001)  # sample std of 0.860, 0.861, 0.862
    assert float(cell["sigma"]) == pytest.approx(0.1) and cell["runs"] == "3"
    assert cell["dataset"] == "digits" and cell["accountant"] == DEFAULT_ACCOUNTANT
    assert float(by_cell[("inf", "1")]["sigma"]) == 0.0
    # The same sweep again: every cell is reused, nothing recomputed.
    assert _sweep(db, "--epsilons", "inf,10", "--ls", "1,4", "--runs", "3") == 0
    assert len(fake_experiment) == 12
    assert "12 reused" in capsys.readouterr().err
    # A new cell is computed, the old ones reused; --force recomputes all.
    assert _sweep(db, "--epsilons", "10", "--ls", "4,8", "--runs", "1") == 0
    assert len(fake_experiment) == 13
    assert _sweep(db, "--epsilons", "10", "--ls", "4", "--runs", "1", "--force") == 0
    assert len(fake_experiment) == 14
    assert len(JobStore(db).sweeps()) == 4
    # The helpers the pages use.
    sweeps = list_sweeps(db)
    assert list(sweeps["sweep_id"]) == [4, 3, 2, 1] and set(sweeps["status"]) == {"done"}
    assert sweeps.set_index("sweep_id").loc[1, ["jobs", "done", "failed"]].tolist() == [12, 12, 0]
    table = sweep_results(db, 1)
    assert table[["epsilon", "l", "runs"]].values.tolist() == [[math.inf, 1, 3], [math.inf, 4, 3],
                                                               [10.0, 1, 3], [10.0, 4, 3]]
    assert table["mean"].tolist() == pytest.approx([0.891, 0.861, 0.891, 0.861])


def test_sweep_of_a_mechanism_without_l_defaults_to_l_1(db, capsys, fake_experiment):
    """No --ls: a mechanism that does not mix runs at l = 1 (the paper's l grid would be
    refused with "l must be 1"); a published accountant's epsilon is labelled in the header."""
    from dpcda.privacy import NOT_A_BOUND

    assert _sweep(db, "--epsilons", "10", "--mechanism", "random-projection",
                  "--accountant", "dppro") == 0
    assert [c["l"] for c in fake_experiment] == [1]
    header = capsys.readouterr().out.splitlines()[0]
    assert f"dppro: {NOT_A_BOUND}" in header
    assert _sweep(db, "--epsilons", "10", "--mechanism", "local") == 0
    assert [c["l"] for c in fake_experiment] == [1, 1]
    assert NOT_A_BOUND not in capsys.readouterr().out  # dpmix-clipped: a valid bound


def test_sweep_exits_1_when_a_job_fails(db, capsys, fake_experiment):
    assert _sweep(db, "--epsilons", "10", "--ls", "1,3") == 1
    captured = capsys.readouterr()
    assert "RuntimeError: stand-in failure for l=3" in captured.err
    lines = captured.out.splitlines()
    assert any(" 3 " in line and "0 (1 failed)" in line and "n/a" in line for line in lines)


def test_sweep_help_explains_the_auto_default(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["sweep", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert "auto (default: the best measured learner per setting" in text
    assert "tree for tabular data" in text and "noise-aware LDA" in text and "cnn when epsilon=inf" in text
    assert "cnn (default)" not in text


@pytest.mark.parametrize("command", ["sweep", "generate"])
def test_help_states_the_per_dataset_defaults_of_c_and_normalisation(capsys, command):
    """The help names the defaults that differ by dataset, read from the presets (what the
    runs use: :func:`default_clip_norm`, :func:`default_normalization_for`)."""
    from dpcda.mechanisms import default_normalization_for
    from dpcda.data.presets import PRESETS, default_clip_norm

    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split()).replace("- ", "-")  # argparse wraps lines
    assert "(default 1)" not in text.split("--c C")[1][:60]
    assert f"adult: {default_clip_norm('adult'):g}" in text
    centred = [n for n in PRESETS.names() if default_normalization_for(n) == "dp-center"]
    assert centred == ["mnist", "fashion-mnist"]
    assert f"dp-cda on {' and '.join(centred)} under class-aware-pld: dp-center" in text


def test_sweep_model_defaults_to_auto_resolved_per_epsilon(db, capsys, fake_experiment,
                                                           files_not_needed):
    rc = main(["sweep", "--dataset", "fashion-mnist", "--db", str(db), "--epsilons", "inf,10",
               "--ls", "4", "--epochs", "1"])
    assert rc == 0
    assert {c["epsilon"]: c["train"]["model"] for c in fake_experiment} == {math.inf: "cnn", 10.0: "lda"}
    captured = capsys.readouterr()
    assert "model per point: epsilon=inf: cnn, epsilon=10: lda" in captured.out
    assert "epsilon=10 l=4 run=0 model=lda: done" in captured.err


def test_parser_and_help_do_not_import_torch_or_pandas():
    code = ("import sys; from dpcda.cli import build_parser; p = build_parser(); "
            "p.parse_args(['sweep', '--dataset', 'digits']); p.parse_args(['worker', '--once']); "
            "bad = [m for m in ('torch', 'pandas', 'streamlit') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=60)


def test_real_process_exit_status_for_bad_list(db):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-m", "dpcda", "sweep", "--dataset", "digits", "--ls", "0,2",
                          "--db", str(db)], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "l must be an integer" in out.stderr


def test_worker_with_an_unimportable_plugin_exits_2(db):
    env = dict(os.environ, PYTHONPATH=str(REPO), DPCDA_JOB_PLUGINS="no_such_module_xyz")
    out = subprocess.run([sys.executable, "-m", "dpcda", "worker", "--db", str(db), "--once"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "no_such_module_xyz" in out.stderr and "DPCDA_JOB_PLUGINS" in out.stderr


def test_sweep_over_fixed_sigmas_and_T(db, tmp_path, capsys, fake_experiment):
    """--sigmas (the thesis's accuracy-versus-noise axis) and a list for --T: one job per
    (sigma, T, l, run), the epsilon reported per point, T and the fixed sigma in the table."""
    out_csv = tmp_path / "sigma.csv"
    rc = _sweep(db, "--sigmas", "0.5,1", "--T", "200,400", "--ls", "4", "--runs", "2",
                "--out", str(out_csv))
    assert rc == 0
    assert sorted((c["sigma"], c["T"], c["run"]) for c in fake_experiment) == [
        (s, T, r) for s in (0.5, 1.0) for T in (200, 400) for r in (0, 1)]
    assert all(c["epsilon"] is None for c in fake_experiment)
    out = capsys.readouterr().out
    assert f"epsilon reported for each fixed sigma by the {DEFAULT_ACCOUNTANT} accountant" in out
    assert "~4" in out and "~2" in out and "0.5 (fixed)" in out and "400" in out
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 4 and {r["T"] for r in rows} == {"200.0", "400.0"}
    assert {(r["sigma_target"], r["epsilon_achieved"]) for r in rows} == {("0.5", "4.0"), ("1.0", "2.0")}
    (sweep,) = JobStore(db).sweeps()
    assert sweep.config["x"] == "T" and sweep.config["Ts"] == [200, 400]


def test_jobs_cancel_by_id_and_by_sweep(db, capsys):
    """``dpcda jobs cancel ID`` (issue 18, item 6): a queued job is cancelled at once, a running
    one is flagged for its worker, a finished one is left alone; unknown ids change nothing."""
    store = JobStore(db)
    queued, running, other = store.submit_many(
        [("experiment", {"dataset": "digits", "epsilon": e, "l": 4}) for e in (5, 10, 20)])
    assert store.claim("w-test", ["experiment"]).id == queued  # oldest first
    running, queued = queued, running
    assert main(["jobs", "cancel", str(queued), str(running), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"job {queued}: cancelled" in out
    assert f"job {running}: running: cancel requested" in out
    assert store.get_job(queued).status == "cancelled" and store.cancel_requested(running)
    assert main(["jobs", "cancel", str(queued), "--db", str(db)]) == 0
    assert "cancelled already: nothing to cancel" in capsys.readouterr().out
    assert main(["jobs", "cancel", str(other), "999", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "job_id=999" in err
    assert store.get_job(other).status == "queued"  # nothing cancelled when one id is unknown
    assert main(["jobs", "cancel", "--db", str(db)]) == 2
    assert "needs job ids or --sweep" in capsys.readouterr().err
    sweep = store.create_sweep("s", {}, [("experiment", {"dataset": "digits", "epsilon": 7,
                                                         "l": 4})])
    assert main(["jobs", "cancel", "--sweep", str(sweep), "--json", "--db", str(db)]) == 0
    import json

    (row,) = json.loads(capsys.readouterr().out)
    assert row["status"] == "cancelled" and store.get_sweep(sweep).status == "cancelled"
