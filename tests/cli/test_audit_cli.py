"""``python -m dpcda audit``: JSON output with the bounds and every accountant's claim; bad
input is one line on stderr with exit status 2; no seed or noise is printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpcda.cli import main
from dpcda.privacy import list_accountants

REPO = Path(__file__).resolve().parents[2]
SMALL = ["--l", "2", "--sigma-x", "1.0", "--n-class", "4", "--T-class", "10", "--trials", "400"]


def test_json_has_bounds_and_claims(capsys):
    rc = main(["audit", *SMALL, "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    obj = json.loads(out)
    assert 0.0 <= obj["epsilon_lower"] <= obj["valid_upper"]
    assert obj["epsilon_gdp"] > 0
    assert "class-aware" in obj["claimed"] and "paper" in obj["claimed"]
    assert set(obj["claimed"]) | set(obj["skipped"]) == set(list_accountants())
    assert obj["settings"]["trials"] == 400 and obj["settings"]["l"] == 2
    assert "seed" not in out and "noise" not in out


def test_text_output_marks_the_published_accountant(capsys):
    assert main(["audit", *SMALL]) == 0
    out = capsys.readouterr().out
    assert "epsilon lower bound (95%, rigorous)" in out
    assert "claimed by paper" in out and "as published, not a bound for this implementation" in out


@pytest.mark.parametrize("args, word", [
    (["--l", "0", "--sigma-x", "1", "--canary", "features"], "l must be an integer in [1, 6000]"),
    (["--l", "7", "--sigma-x", "1", "--n-class", "6", "--canary", "features"],
     "l must be an integer in [1, 6]"),
    (["--l", "0", "--sigma-x", "1"], "l must be an integer in [1, 5999]"),
    (["--l", "6", "--sigma-x", "1", "--n-class", "6"], "l must be an integer in [1, 5]"),
    (["--l", "2", "--sigma-x", "1", "--canary", "both"], "canary must be one of label, features"),
    (["--l", "2", "--sigma-x", "0"], "sigma_x must be"),
    (["--l", "2", "--sigma-x", "1", "--trials", "5"], "trials must be"),
    (["--l", "2", "--sigma-x", "1", "--statistic", "max"], "statistic must be one of"),
    (["--l", "2", "--sigma-x", "1", "--delta", "2"], "delta"),
    (["--l", "2"], "the following arguments are required: --sigma-x"),
    (["--l", "two", "--sigma-x", "1"], "invalid float value"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, word):
    assert main(["audit", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and word in err


def test_subprocess_error_path():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-m", "dpcda", "audit", "--l", "0", "--sigma-x", "1",
                        "--json"], check=False,
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
