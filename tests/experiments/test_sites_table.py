"""The shipped sites table's reader (dpcda.experiments.sites_table) and the tool that adds rows
to it (benchmarks/sites_table.py): rows keyed with their normalisation."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

from dpcda.experiments.sites_table import FIELDS, load_sites_table

ROOT = Path(__file__).resolve().parents[2]
OLD = ("dataset,epsilon,split,alpha,sites,mode,l,T,learner,runs,accuracy,accuracies,epsilon_a,"
       "epsilon_b,release_seconds,commit\n"
       "mnist,1.0,iid,,10,cape,4,60000,lda,2,0.8,0.7900;0.8100,0.99,1.6,3.0,abc\n")


def test_a_table_without_the_normalize_column_holds_scale_rows(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(OLD)
    (r,) = load_sites_table(path)
    assert r.normalize == "scale" and r.accuracies == (0.79, 0.81) and r.runs == 2


def _run(mode_acc: dict) -> str:
    return json.dumps({m: {"accuracy": a, "epsilon": 0.99, "accountant": "x", "release_seconds": s,
                           "threat_models": [{"key": "a", "colluding_sites": None, "epsilon": 0.99},
                                             {"key": "b", "colluding_sites": None, "epsilon": 1.5}],
                           "learner": "lda", "sites": 10, "split": "iid", "l": 4, "T": 60000,
                           "runs": 1}
                       for m, (a, s) in mode_acc.items()})


def test_one_run_cli_outputs_become_dp_center_rows_beside_the_scale_rows(tmp_path):
    out = tmp_path / "t.csv"
    out.write_text(OLD)
    runs = tmp_path / "runs.json"
    runs.write_text(_run({"cape": (0.60, 10.0)}) + "\n" + _run({"cape": (0.70, 20.0)}) + "\n")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "sites_table.py"), "--from-cli-json",
           str(runs), "--dataset", "mnist", "--epsilon", "1", "--sites", "10", "--normalize",
           "dp-center", "--commit", "c0ffee1", "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    rows = load_sites_table(out)
    old, new = rows
    assert (old.normalize, old.accuracy) == ("scale", 0.8)  # kept: another normalisation's key
    assert (new.normalize, new.mode, new.runs, new.accuracies) == ("dp-center", "cape", 2, (0.6, 0.7))
    assert new.accuracy == 0.65 and new.commit == "c0ffee1"
    with out.open() as f:
        assert tuple(csv.DictReader(f).fieldnames) == FIELDS
    # the same setting measured again replaces its row, not the scale row
    runs.write_text(_run({"cape": (0.5, 1.0)}) + "\n")
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    assert [(r.normalize, r.accuracy) for r in load_sites_table(out)] == [("scale", 0.8),
                                                                          ("dp-center", 0.5)]
    # a file of several-run outputs is refused: its runs could not be told apart
    runs.write_text(_run({"cape": (0.5, 1.0)}).replace('"runs": 1', '"runs": 3') + "\n")
    bad = subprocess.run(cmd, capture_output=True, text=True)
    assert bad.returncode != 0 and "want runs=1" in bad.stderr
