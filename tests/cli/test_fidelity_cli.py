"""``python -m dpcda fidelity`` on digits (offline) and, when present, UCI Adult."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dpcda.cli import main


def test_fidelity_json_for_an_image_release(tmp_path, capsys):
    out = tmp_path / "synth.npz"
    assert main(["generate", "--dataset", "digits", "--l", "4", "--epsilon", "10", "--T", "1000",
                 "--normalize", "scale", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["fidelity", "--dataset", "digits", "--release", str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in got["classes"]] == [str(k) for k in range(10)]
    assert all(0 <= c["distance"] < 5 for c in got["classes"])
    assert "public fixed ranges" in got["space"]


def test_fidelity_bad_arguments_one_line_exit_2(tmp_path, capsys):
    assert main(["fidelity", "--dataset", "digits", "--release", str(tmp_path / "no.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no release file" in err
    assert main(["fidelity", "--release", "x.npz"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dataset" in err


def test_fidelity_refuses_a_release_of_another_dataset(tmp_path, capsys):
    out = tmp_path / "d.npz"
    assert main(["generate", "--dataset", "digits", "--l", "2", "--epsilon", "10", "--T", "200",
                 "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    card["dataset"] = "mnist"
    out.with_suffix(".json").write_text(json.dumps(card))
    capsys.readouterr()
    assert main(["fidelity", "--dataset", "digits", "--release", str(out), "--json"]) == 2
    assert "generated from 'mnist'" in capsys.readouterr().err


@pytest.mark.skipif(not (Path(os.environ.get("DPCDA_DATA_DIR", "")) / "adult" / "adult.data")
                    .is_file(), reason="UCI Adult not in DPCDA_DATA_DIR")
@pytest.mark.parametrize("norm", ["scale", "zscore"])
def test_fidelity_json_shape_on_adult(tmp_path, capsys, norm):
    out = tmp_path / "adult.npz"
    assert main(["generate", "--dataset", "adult", "--l", "16", "--epsilon", "10", "--T", "4000",
                 "--normalize", norm, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["fidelity", "--dataset", "adult", "--release", str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    cols = {c["name"]: c for c in got["columns"]}
    assert list(cols)[:3] == ["label", "age", "workclass"] and len(cols) == 1 + 14
    assert {c["kind"] for c in got["columns"]} == {"categorical", "numeric"}
    assert cols["race"]["kind"] == "categorical" and cols["age"]["kind"] == "numeric"
    assert all(0 <= c["distance"] <= 1 for c in got["columns"] if c["kind"] == "categorical")
    assert cols["race"]["distance"] < 0.10          # calibrated decoding keeps race close
    assert (norm == "zscore") == ("refitted on the real test split" in got["space"])
