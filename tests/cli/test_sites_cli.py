"""``python -m dpcda sites`` (dpcda.cli.sites): the three modes, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpcda.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv,words", [
    (["--sites", "400"], "sites=400 is more than the classes allow"),
    (["--sites", "0"], "sites must be an integer"),
    (["--sites", "3", "--split", "by-column", "--site-column", "0"], "sites=3 must equal"),
    (["--sites", "3", "--split", "by-column"], "needs column"),
    (["--sites", "3", "--l", "0"], "l must be"),
    # Dirichlet(0.01) puts nearly every class at one site: some site lacks some class
    (["--sites", "3", "--split", "skewed", "--alpha", "0.01"], "a site holds no record of some class"),
    # a bad alpha, refused before the data are read (issue 27 item 6)
    (["--sites", "3", "--split", "skewed", "--alpha", "0"], "alpha must be a finite number > 0"),
    (["--sites", "3", "--split", "skewed", "--alpha", "-2"], "alpha must be a finite number > 0"),
    (["--sites", "3", "--split", "skewed", "--alpha", "nan"], "alpha must be a finite number > 0"),
    # t colluding sites out of range: 1..S-1, named with the allowed values
    (["--sites", "10", "--colluding", "10"], "t must be an integer in [1, 9]"),
    (["--sites", "10", "--colluding", "0"], "t must be an integer in [1, 9]"),
    (["--sites", "10", "--colluding", "1,x"], "--colluding must list whole numbers t from 1 to S-1"),
    (["--sites", "1", "--colluding", "1"], "colluding sites t need at least 2 sites (sites=1)"),
    # the normalisation: scale, dp-center (across sites by the masked protocol) or none
    (["--sites", "3", "--normalize", "zscore"],
     "argument --normalize: invalid choice: 'zscore' (choose from 'scale', 'dp-center', 'none')"),
    (["--sites", "400", "--normalize", "dp-center"], "sites=400 is more than the classes allow"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_printed(argv, words, capsys, tmp_path,
                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc = main(["sites", "--dataset", "digits", "--epsilon", "1", "--json", *argv])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and list(tmp_path.iterdir()) == []
    assert err.count("\n") == 1 and words in err, err
    # no private count: the digits training split's class sizes never appear
    from dpcda.data import load_dataset

    counts = {str(c) for c in load_dataset("digits").class_counts}
    assert not any(f" {c} " in f" {err} " or f"={c}" in err for c in counts - {"400"})


@pytest.mark.slow
def test_sites_json_gives_the_three_modes():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "dpcda", "sites", "--dataset", "digits",
                           "--sites", "5", "--split", "iid", "--epsilon", "10", "--runs", "1",
                           "--json"], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert list(res) == ["centralized", "cape", "local"]
    for mode in res:
        assert 0.0 <= res[mode]["accuracy"] <= 1.0
        assert res[mode]["epsilon"] == pytest.approx(10.0, rel=1e-3)
    # the same law: cape within a few points of centralized; local (S x the sampling rate) worse
    assert res["cape"]["accuracy"] > res["local"]["accuracy"]
    assert res["cape"]["accuracy"] > 0.7


@pytest.mark.slow
def test_sites_json_with_dp_center_names_the_step_under_every_threat_model():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "dpcda", "sites", "--dataset", "digits",
                           "--sites", "3", "--epsilon", "10", "--normalize", "dp-center",
                           "--json"], capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert list(res) == ["centralized", "cape", "local"]
    mu = res["centralized"]["threat_models"][0]["composed_with"]["mu_gdp"]
    cape = res["cape"]["threat_models"]
    assert res["cape"]["epsilon"] == pytest.approx(res["centralized"]["epsilon"])
    assert cape[0]["composed_with"]["mu_gdp"] == mu
    assert all(t["composed_with"]["mu_gdp"] >= mu for t in cape[1:])
    assert res["cape"]["accuracy"] > 0.7
