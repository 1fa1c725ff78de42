"""``dpcda sites --site-files`` (dpcda.cli.sites_files): a CAPE release whose sites read their
own files; bad input one line on stderr, exit 2, nothing written, no private count."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from dpcda.cli import main


def _write(path, n=42, d=4, seed=0, header="label,a,b,c,d"):
    r = np.random.default_rng(seed)  # test data only
    X = r.integers(0, 256, (n, d))
    y = np.arange(n) % 3
    rows = [header] if header else []
    rows += [",".join([str(k), *(str(int(v)) for v in x)]) for x, k in zip(X, y)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    return [_write(data / f"s{s}.csv", seed=s) for s in range(3)], data


def test_site_files_json_writes_the_release_and_its_card(files, capsys):
    paths, data = files
    test = _write(data / "test.csv", seed=9)
    rc = main(["sites", "--site-files", *paths, "--classes", "0,1,2", "--T", "60", "--epsilon",
               "5", "--engine", "inline", "--test-file", test, "--out", "synth.npz", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    res = json.loads(out)["cape"]
    assert (res["sites"], res["split"], res["engine"], res["T"]) == (3, "files", "inline", 60)
    assert 0.0 <= res["accuracy"] <= 1.0 and res["learner"]
    assert [t["key"] for t in res["threat_models"]][:2] == ["a", "b"]
    card = json.loads(open("synth.json").read())
    assert card["mode"] == "cape" and card["split"] == "files"
    with np.load("synth.npz") as z:
        assert z["X"].shape == (60, 4)


def _err(capsys):
    out, err = capsys.readouterr()
    return out, err


@pytest.mark.parametrize("extra,words", [
    (["--classes", "0,1,2", "--T", "60", "--split", "iid"], "--split applies to --dataset only"),
    (["--classes", "0,1,2", "--T", "60", "--sites", "3"], "--sites applies to --dataset only"),
    (["--T", "60"], "--classes is required with --site-files"),
    (["--classes", "0,1,2"], "--T is required with --site-files"),
    (["--classes", "0,1", "--T", "60"], "labels must be among classes=['0', '1']"),
    (["--classes", "0,1,2", "--T", "60", "--bounds", "x"], "--bounds must be LOW,HIGH"),
    (["--classes", "0,1,2", "--T", "60", "--engine", "gpu"], "argument --engine: invalid choice"),
    (["--classes", "0,1,2", "--T", "60", "--out", "nowhere/x.npz"], "--out: the folder"),
    (["--classes", "0,1,2", "--T", "60", "--test-file", "t.txt"], "test_file must end in .csv"),
    (["--classes", "0,1,2", "--T", "60", "--l", "50"], "l=50 exceeds the records of a pooled"),
])
def test_bad_input_is_one_line_exit_2_nothing_written(files, capsys, extra, words, tmp_path):
    paths, _ = files
    argv = ["sites", "--site-files", *paths, "--epsilon", "5", "--engine", "inline",
            "--out", "synth.npz", "--json", *extra]
    rc = main(argv)
    out, err = _err(capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1 and words in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_mismatched_columns_one_line_without_a_count(files, capsys, tmp_path):
    paths, data = files
    odd = _write(data / "odd.csv", d=5, header="label,a,b,c,d,e", seed=7)
    rc = main(["sites", "--site-files", *paths[:2], odd, "--classes", "0,1,2", "--T", "60",
               "--epsilon", "5", "--engine", "inline", "--out", "synth.npz"])
    out, err = _err(capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "site_files must share the same feature columns" in err
    assert not re.search(r"\d", err), err  # no column count, no row number
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_dataset_runs_refuse_the_site_files_options(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc = main(["sites", "--dataset", "digits", "--sites", "3", "--epsilon", "1",
               "--engine", "ray"])
    out, err = _err(capsys)
    assert rc == 2 and out == "" and "--engine applies to --site-files only" in err
    rc = main(["sites", "--dataset", "digits", "--epsilon", "1"])
    out, err = _err(capsys)
    assert rc == 2 and "--sites is required" in err
