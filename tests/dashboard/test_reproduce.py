"""Show code (dpcda.dashboard.reproduce): the generated commands and scripts really run and give the
page's numbers. Every command runs as ``python -m dpcda`` in a subprocess, every script as
``python script.py``, on digits (ships with scikit-learn) or public presets only."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpcda.dashboard.reproduce import RESULT_PREFIX, ReproSettings, list_pages, py, reproduce

REPO = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(REPO), DPCDA_HOME=str(tmp_path / "home"),
                OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def run_cli(cmd: str, tmp_path: Path) -> str:
    args = shlex.split(cmd)
    assert args[:3] == ["python", "-m", "dpcda"], cmd
    p = subprocess.run([sys.executable, *args[1:]], cwd=tmp_path, env=_env(tmp_path),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


def run_script(text: str, tmp_path: Path) -> dict:
    path = tmp_path / "repro.py"
    path.write_text(text)
    p = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=_env(tmp_path),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    last = p.stdout.strip().splitlines()[-1]
    assert last.startswith(RESULT_PREFIX), p.stdout
    return json.loads(last[len(RESULT_PREFIX):])


def _no_secrets(r) -> None:
    for text in (r.library, r.cli_text, r.script):
        assert not re.search(r"seed\s*[=(]|random_state|noise\s*=", text), text


# --- Privacy ----------------------------------------------------------------------------------

@pytest.mark.parametrize("accountant", ["class-aware-pld", "paper"])
def test_privacy_cli_and_script_give_the_pages_epsilon(tmp_path, accountant):
    from dpcda.data.presets import get_preset
    from dpcda.privacy import PrivacyParams, calibrate, compute_epsilon

    pre = get_preset("digits")
    s = ReproSettings(page="privacy", dataset="digits", l=4, sigma_x=0.31622776601683794,
                      sigma_y=0.4, c=1.0, T=1000, delta=1e-5, accountant=accountant, epsilon=8.0)
    r = reproduce(s)
    _no_secrets(r)
    # What the page computes (pages/privacy.py: PrivacyParams + compute_epsilon).
    page = compute_epsilon(PrivacyParams(l=4, sigma_x=s.sigma_x, sigma_y=0.4, c=1.0, T=1000,
                                         delta=1e-5, n=pre.n, class_counts=pre.class_counts,
                                         d_x=pre.d_x, d_y=pre.d_y),
                           accountant=accountant, conversion="mironov", max_alpha=256)
    eps_cli = json.loads(run_cli(r.cli[0], tmp_path))
    assert eps_cli["epsilon"] == pytest.approx(page.epsilon, rel=1e-12)
    assert eps_cli["accountant"] == accountant
    got = run_script(r.script, tmp_path)
    assert got["epsilon"] == pytest.approx(page.epsilon, rel=1e-12)
    cal = calibrate(epsilon=8.0, l=4, c=1.0, T=1000, delta=1e-5, n=pre.n,
                    class_counts=pre.class_counts, d_x=pre.d_x, d_y=pre.d_y, accountant=accountant,
                    ratio=0.4 / s.sigma_x)
    cal_cli = json.loads(run_cli(r.cli[1], tmp_path))
    assert cal_cli["sigma_x"] == pytest.approx(cal.sigma_x, rel=1e-12)
    assert got["calibrated_sigma_x"] == pytest.approx(cal.sigma_x, rel=1e-12)


def test_privacy_custom_class_counts(tmp_path):
    from dpcda.privacy import PrivacyParams, compute_epsilon

    r = reproduce(page="privacy", class_counts=(300, 400, 500), l=2, sigma_x=0.5, T=1200,
                  accountant="class-aware")
    assert "--class-counts 300,400,500" in r.cli[0] and "--preset" not in r.cli[0]
    want = compute_epsilon(PrivacyParams(l=2, sigma_x=0.5, sigma_y=0.5, c=1.0, T=1200, delta=1e-5,
                                         n=1200, class_counts=(300, 400, 500)),
                           accountant="class-aware").epsilon
    assert json.loads(run_cli(r.cli[0], tmp_path))["epsilon"] == pytest.approx(want, rel=1e-12)
    assert run_script(r.script, tmp_path)["epsilon"] == pytest.approx(want, rel=1e-12)


# --- Samples ----------------------------------------------------------------------------------

def test_samples_cli_and_script_make_the_release_with_fresh_randomness(tmp_path):
    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset

    settings = dict(l=4, T=300, c=1.0, delta=1e-5, accountant="class-aware-pld",
                    conversion="mironov", max_alpha=256, normalization="scale",
                    allocation="proportional")
    r = reproduce(page="samples", dataset="digits", epsilon=10.0, **settings)
    _no_secrets(r)
    # What the page generates (pages/samples.py: generate_from_dataset with its settings).
    ds = load_dataset("digits")
    kw = {("normalize" if k == "normalization" else k): v for k, v in settings.items()}
    page = generate_from_dataset(ds, "dp-cda", epsilon=10.0, **kw).card["privacy"]
    run_cli(r.cli[0], tmp_path)
    out = tmp_path / r.cli[0].split("--out ")[1]
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["privacy"]["epsilon"] == pytest.approx(page["epsilon"], rel=1e-12)
    assert card["privacy"]["accountant"] == "class-aware-pld"
    with np.load(out) as z:
        X_cli = z["X"].copy()
    assert X_cli.shape[1] == 64 and 290 <= len(X_cli) <= 300  # floor(T N_k / N) per class
    got = run_script(r.script, tmp_path)
    assert got["epsilon"] == pytest.approx(page["epsilon"], rel=1e-12) and got["n"] == len(X_cli)
    with np.load(out) as z:  # the script wrote the same file name: a fresh release, other noise
        assert z["X"].shape == X_cli.shape and not np.array_equal(z["X"], X_cli)


def test_samples_fixed_sigma_and_denoise_are_in_the_code(tmp_path):
    r = reproduce(page="samples", dataset="digits", l=2, sigma_x=0.0, T=100, denoise_sigma=1.0)
    assert "--sigma-x 0.0" in r.cli[0] and "--denoise 1.0" in r.cli[0]
    assert "denoise(rel, sigma=1.0)" in r.library
    got = run_script(r.script, tmp_path)
    assert got["epsilon"] is None and got["sigma_x"] == 0.0  # the non-private setting


def test_upload_has_no_command_line():
    r = reproduce(page="samples", dataset="upload", l=2, epsilon=5.0)
    assert r.cli == () and r.notes and "load_upload" in r.library


# --- Utility and Compare (train on digits with the fast nearest-class-mean learner) ----------

def test_utility_cli_and_script_run_the_sweep(tmp_path):
    r = reproduce(page="utility", dataset="digits", epsilons=(10.0,), ls=(4,), runs=1,
                  model="ncm", T=400, normalization="scale", allocation="proportional", x="l",
                  accountant="class-aware-pld")  # a proportional split: the features-only relation
    _no_secrets(r)
    run_cli(r.cli[0], tmp_path)
    with open(tmp_path / r.cli[0].split("--out ")[1]) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and int(rows[0]["l"]) == 4
    got = run_script(r.script, tmp_path)["cells"]
    assert len(got) == 1 and got[0]["l"] == 4 and got[0]["runs"] == 1
    assert got[0]["sigma_x"] == pytest.approx(float(rows[0]["sigma"]), rel=1e-9)
    assert got[0]["epsilon"] == pytest.approx(float(rows[0]["epsilon_achieved"]), rel=1e-9)
    assert got[0]["epsilon"] <= 10.0
    assert 0.3 < got[0]["accuracy_mean"] <= 1.0 and 0.3 < float(rows[0]["mean"]) <= 1.0


def test_compare_cli_and_script_run_every_mechanism(tmp_path):
    r = reproduce(page="compare", dataset="digits", epsilon=10.0, mechanisms=("dp-cda", "local"),
                  mechanism_ls={"dp-cda": (8,)}, runs=1, model="ncm")
    _no_secrets(r)
    assert len(r.cli) == 2
    sigmas = {}
    for cmd in r.cli:
        run_cli(cmd, tmp_path)
        with open(tmp_path / cmd.split("--out ")[1]) as f:
            row = next(csv.DictReader(f))
        sigmas[row["mechanism"]] = float(row["sigma"])
    got = {row["method"]: row for row in run_script(r.script, tmp_path)["rows"]}
    assert got["DP-CDA"]["l"] == 8 and got["DP-CDA"]["sigma"] == pytest.approx(sigmas["dp-cda"])
    assert got["Local perturbation"]["sigma"] == pytest.approx(sigmas["local"])
    # DP-CDA at l = 8 scores about 0.89 on digits (0.88-0.92 over 30 runs); local perturbation at
    # this epsilon sits near chance (0.08-0.36 over 40 runs), so only its range is checked.
    assert 0.5 < got["DP-CDA"]["accuracy"] <= 1
    assert 0 <= got["Local perturbation"]["accuracy"] <= 1


# --- unit -------------------------------------------------------------------------------------

def test_every_page_has_a_builder():
    assert set(list_pages()) == {"privacy", "samples", "utility", "compare"}


@pytest.mark.parametrize("value", [0.1 + 0.2, 1e-5, 0.31622776601683794, math.inf, (1, 2), [4.0]])
def test_py_literals_round_trip(value):
    assert eval(py(value), {"math": math}) == value


@pytest.mark.parametrize("kw, match", [
    (dict(page="nope"), "page must be one of"),
    (dict(page="privacy", dataset="digits", sigma_x=0.3), "needs l"),
    (dict(page="privacy", dataset="digits", l=0, sigma_x=0.3), "l must be an integer"),
    (dict(page="samples", dataset="digits", l=2), "either epsilon"),
    (dict(page="samples", dataset="digits", l=2, epsilon=1.0, sigma_x=0.3), "either epsilon"),
    (dict(page="utility", dataset="digits", ls=(4,)), "either epsilons"),
    (dict(page="privacy", dataset="digits", l=2, sigma_x=0.3, delta=2.0), "delta must be"),
    (dict(page="privacy", dataset="digits", l=2, sigma_x=0.3, accountant="nope"), "nope"),
])
def test_bad_settings_name_the_problem(kw, match):
    with pytest.raises(ValueError, match=match):
        reproduce(ReproSettings(**kw))


def test_unknown_setting_is_named():
    with pytest.raises(ValueError, match="unknown setting.*colour"):
        reproduce(page="privacy", colour="red")


def test_settings_from_a_request_object_and_other_mechanisms():
    from dataclasses import dataclass

    from dpcda.dashboard.reproduce import settings_from

    @dataclass(frozen=True)
    class Request:  # shaped like the Utility page's request
        dataset: str = "digits"
        mechanism: str = "dp-merf"
        epsilons: tuple = (10.0,)
        ls: tuple = (1,)
        runs: int = 2
        denoise: bool = True
        colour: str = "red"  # not a setting: left out

    s = settings_from(Request(), x="epsilon")
    assert s == dict(dataset="digits", mechanism="dp-merf", epsilons=(10.0,), ls=(1,), runs=2,
                     denoise_sigma=1.0, x="epsilon")
    r = reproduce(page="utility", **s)
    assert "--mechanism dp-merf" in r.cli[0] and "'mechanism': 'dp-merf'" in r.library
    assert "--accountant embedding-gaussian" in r.cli[0] and r.notes  # no denoise on the CLI


def test_settings_from_a_stored_sweep_reproduce_it(tmp_path):
    from dpcda.jobs import JobStore
    from dpcda.experiments.sweep import submit_sweep
    from dpcda.experiments.sweep import grid_configs
    from dpcda.dashboard.reproduce import settings_from_sweep

    store = JobStore(tmp_path / "jobs.sqlite3")
    base = {"dataset": "digits", "mechanism": "dp-cda", "accountant": "class-aware", "delta": 1e-5,
            "normalization": "scale", "allocation": "proportional", "c": 1.0,
            "train": {"model": "ncm", "epochs": 3, "denoise_sigma": 1.0}}
    sid = submit_sweep(store, base, epsilons=[math.inf, 10.0], ls=[4, 16], runs=2, x="l")
    s = settings_from_sweep(store.get_sweep(sid).config)
    assert s["epsilons"] == (math.inf, 10.0) and s["ls"] == (4, 16) and s["runs"] == 2
    r = reproduce(page="utility", **s)
    ns: dict = {}
    head = r.library.split("# What the page does")[0]
    imports = "from dpcda.experiments.sweep import submit_sweep\nfrom dpcda.jobs import JobStore\n"
    exec(head.replace(imports, ""),
         {"math": math}, ns)
    # The reproduced grid is the stored sweep's, job for job.
    want = [j.config for j in store.jobs(sweep_id=sid)]
    got = grid_configs(ns["base"], epsilons=s["epsilons"], ls=s["ls"], runs=2)
    from dpcda.experiments.run import normalize

    assert [normalize(c) for c in got] == [normalize(c) for c in want]


def _compare_jobs_of(r) -> list:
    """The jobs the library call of a Compare reproduction makes (run up to the store)."""
    ns: dict = {}
    exec(r.library.split("# What the page does")[0], ns)
    return ns["jobs"]


def test_settings_from_a_comparison_reproduce_its_jobs(tmp_path):
    from dpcda.experiments.compare import comparison_plan
    from dpcda.jobs import JobStore
    from dpcda.dashboard.reproduce import settings_from_comparison

    plan = comparison_plan("digits", 10.0, mechanisms=["dp-cda", "local", "dpmix"], runs=2,
                           ls={"dp-cda": [16, 4], "dpmix": [8]}, delta=1e-6, c=2.0,
                           accountants={"dp-cda": "class-aware"}, model="ncm", epochs=3)
    assert not plan["problems"]
    s = settings_from_comparison(plan["config"], plan["jobs"])  # the form, before launch
    assert s["mechanism_ls"] == {"dp-cda": (4, 16), "dpmix": (8,)} and s["runs"] == 2
    assert s["accountants"]["dp-cda"] == "class-aware" and "l" not in s  # nothing measured yet
    r = reproduce(page="compare", **s)
    assert _compare_jobs_of(r) == plan["jobs"]
    assert "--delta 1e-06" in r.cli[0] and "--c 2.0" in r.cli[0] and "--model ncm" in r.cli[0]

    store = JobStore(tmp_path / "jobs.sqlite3")  # stored, then finished: DP-CDA's best l
    sid = store.create_sweep(plan["name"], plan["config"], plan["jobs"])
    while (job := store.claim("w", ["experiment"])) is not None:
        store.finish(job.id, "w", "done", result={"accuracy": 0.5 + job.config["l"] / 100,
                                                  "sigma_x": 0.2, "epsilon": 9.9})
    jobs = store.jobs(sweep_id=sid)
    stored = settings_from_comparison(store.get_sweep(sid).config, jobs)
    assert stored == dict(s, l=16)
    # a comparison stored before the config recorded the settings: read from its jobs
    old = {k: plan["config"][k] for k in ("page", "base", "epsilon", "mechanisms", "runs")}
    from_jobs = settings_from_comparison(old, jobs)
    assert _compare_jobs_of(reproduce(page="compare", **from_jobs)) == plan["jobs"]
    assert from_jobs["mechanism_ls"] == s["mechanism_ls"] and from_jobs["l"] == 16
    with pytest.raises(ValueError, match="mechanisms"):  # nothing selected: nothing to reproduce
        reproduce(page="compare", **settings_from_comparison(
            {"base": {"dataset": "digits"}, "epsilon": 10.0, "mechanisms": []}))
