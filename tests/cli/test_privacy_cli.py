"""``python -m dpcda epsilon | calibrate | curves``: output matches the library, errors are one
line with exit status 2, and the privacy commands never import torch.

Most error cases run in-process through :func:`dpcda.cli.main` (an uncaught exception fails the
test just as a traceback would); a few run as real subprocesses to check the whole path.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpcda.cli import main
from dpcda.data.presets import get_preset
from dpcda.privacy import (DEFAULT_ACCOUNTANT, NOT_A_BOUND, PrivacyParams, calibrate,
                           compute_epsilon, epsilon_grid, get_accountant)

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str, importtime: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable] + (["-X", "importtime"] if importtime else []) + ["-m", "dpcda", *args]
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def run_json(capsys, *args: str) -> dict:
    rc = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


# --------------------------------------------------------------------------------------------
# Output matches the library.

def test_epsilon_subprocess_json_matches_library():
    proc = run_cli("epsilon", "--l", "4", "--sigma-x", "0.5", "--preset", "mnist", "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    got = json.loads(proc.stdout)
    # The default is the valid bound (DEFAULT_ACCOUNTANT), with its neighbouring relation.
    res = compute_epsilon(PrivacyParams(l=4, sigma_x=0.5, sigma_y=0.5, T=60000,
                                        class_counts=get_preset("mnist").class_counts,
                                        delta=1e-5, allocation="proportional"),
                         accountant=DEFAULT_ACCOUNTANT)  # with class counts: proportional (issue 26)
    assert got["epsilon"] == res.epsilon and got["alpha"] == res.alpha
    conv = "mironov" if get_accountant(DEFAULT_ACCOUNTANT).uses_rdp else None  # PLD: no conversion
    assert (got["accountant"], got["conversion"], got["delta"], got["T"], got["n"]) == (
        DEFAULT_ACCOUNTANT, conv, 1e-5, 60000, 60000)
    assert got["private"] is True and got["at_max_alpha"] is False and got["warnings"] == []
    assert got["relation"] == get_accountant(DEFAULT_ACCOUNTANT).relation
    assert got["valid_bound"] is True and "bound_note" not in got
    # Speed is measured by benchmarks/bench_privacy.py, never by a timed test; what keeps the
    # command fast is that it never imports torch:
    code = ("import sys; from dpcda.cli import main; "
            "main(['epsilon', '--l', '4', '--sigma-x', '0.5', '--preset', 'mnist', '--json']); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO).returncode == 0


@pytest.mark.parametrize("args, lib", [
    (["--l", "8", "--sigma-x", "0.3", "--sigma-y", "0.6", "--n", "50000", "--T", "20000",
      "--delta", "1e-6", "--c", "2", "--conversion", "improved", "--accountant", "paper"],
     dict(p=dict(l=8, sigma_x=0.3, sigma_y=0.6, n=50000, T=20000, delta=1e-6, c=2.0),
          accountant="paper", conversion="improved")),
    (["--l", "4", "--sigma-x", "0.5", "--preset", "mnist", "--accountant", "class-aware"],
     dict(p=dict(l=4, sigma_x=0.5, sigma_y=0.5, class_counts=get_preset("mnist").class_counts,
                 T=60000, delta=1e-5, allocation="proportional"), accountant="class-aware",
          conversion="mironov")),
    (["--l", "16", "--sigma-x", "2", "--class-counts", "24720,7841", "--accountant",
      "class-aware", "--max-alpha", "64"],
     dict(p=dict(l=16, sigma_x=2.0, sigma_y=2.0, class_counts=(24720, 7841), T=32561,
                 delta=1e-5, allocation="proportional"),
          accountant="class-aware", conversion="mironov", max_alpha=64)),
    (["--l", "4", "--sigma-x", "3", "--n", "60000", "--dx", "784", "--dy", "10",
      "--accountant", "dpmix-low"],
     dict(p=dict(l=4, sigma_x=3.0, sigma_y=3.0, n=60000, T=60000, delta=1e-5, d_x=784, d_y=10),
          accountant="dpmix-low", conversion="mironov")),
    (["--l", "4", "--sigma-x", "0.5", "--preset", "cifar10", "--accountant", "dpmix"],
     dict(p=dict(l=4, sigma_x=0.5, sigma_y=0.5, n=50000, T=50000, delta=1e-5, d_x=3072, d_y=10),
          accountant="dpmix", conversion="mironov")),
])
def test_epsilon_json_matches_library(capsys, args, lib):
    got = run_json(capsys, "epsilon", *args)
    res = compute_epsilon(PrivacyParams(**lib["p"]), accountant=lib["accountant"],
                          conversion=lib["conversion"], max_alpha=lib.get("max_alpha", 256))
    assert got["epsilon"] == res.epsilon
    assert got["alpha"] == res.alpha
    assert got["accountant"] == lib["accountant"] and got["conversion"] == lib["conversion"]
    assert got["max_alpha"] == lib.get("max_alpha", 256)
    assert got["warnings"] == list(res.warnings)


def test_epsilon_non_private_and_warnings(capsys):
    paper = ("--n", "60000", "--accountant", "paper")
    got = run_json(capsys, "epsilon", "--l", "4", "--sigma-x", "0", "--sigma-y", "0", *paper)
    assert got["epsilon"] == "inf" and got["private"] is False and got["alpha"] is None
    assert any("non-private" in w for w in got["warnings"])
    assert [n["code"] for n in got["notices"]] == ["non_private"]  # what a script branches on
    assert [n["message"] for n in got["notices"]] == got["warnings"]
    got = run_json(capsys, "epsilon", "--l", "4", "--sigma-x", "100", *paper)
    assert got["at_max_alpha"] is True and got["alpha"] == 256
    assert any("max_alpha" in w for w in got["warnings"])
    assert got["bound_note"] == NOT_A_BOUND and got["valid_bound"] is False
    # the text output says which accountant produced the number, that the published one is not
    # a bound, the neighbouring relation, and repeats the warnings
    assert main(["epsilon", "--l", "4", "--sigma-x", "100", *paper]) == 0
    out = capsys.readouterr().out
    assert "DP-CDA Theorem 1" in out and "warning:" in out and "max_alpha" in out
    assert NOT_A_BOUND in out.splitlines()[0] and "neighbours: " in out


def test_calibrate_json_matches_library(capsys):
    got = run_json(capsys, "calibrate", "--epsilon", "10", "--l", "4", "--n", "60000",
                   "--accountant", "paper")
    cal = calibrate(epsilon=10, delta=1e-5, l=4, T=60000, n=60000, accountant="paper")
    assert got["bound_note"] == NOT_A_BOUND
    assert got["sigma_x"] == cal.sigma_x == pytest.approx(0.2422, abs=5e-5)
    assert got["sigma_y"] == cal.sigma_y and got["epsilon"] == cal.epsilon <= 10
    assert got["alpha"] == cal.alpha and got["target"] == 10
    got = run_json(capsys, "calibrate", "--epsilon", "1", "--l", "64", "--preset", "mnist",
                   "--accountant", "class-aware", "--conversion", "improved", "--ratio", "2")
    cal = calibrate(epsilon=1, delta=1e-5, l=64, T=60000,
                    class_counts=get_preset("mnist").class_counts, accountant="class-aware",
                    conversion="improved", ratio=2.0, allocation="proportional")
    assert got["sigma_x"] == cal.sigma_x and got["sigma_y"] == cal.sigma_y == 2 * cal.sigma_x
    assert got["epsilon"] == cal.epsilon


def test_curves_json_matches_library(capsys):
    got = run_json(capsys, "curves", "--ls", "1,4,64", "--sigma-min", "0.05", "--sigma-max", "5",
                   "--points", "9", "--n", "60000", "--accountant", "paper")
    sig = np.geomspace(0.05, 5, 9)
    eps, alpha = epsilon_grid(ls=[1, 4, 64], sigmas=sig, T=60000, n=60000, delta=1e-5,
                              return_alpha=True)
    np.testing.assert_allclose(got["sigmas"], sig, rtol=1e-15)
    assert [c["l"] for c in got["curves"]] == [1, 4, 64]
    for i, c in enumerate(got["curves"]):
        assert c["epsilon"] == eps[i].tolist()
        assert c["alpha"] == alpha[i].tolist()
    assert got["accountant"] == "paper" and got["conversion"] == "mironov"


def test_curves_default_family_in_text(capsys):
    assert main(["curves", "--preset", "mnist", "--points", "20"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith(f"epsilon by the {DEFAULT_ACCOUNTANT} accountant; neighbours: ")
    assert [ln.split("\t")[0] for ln in lines[2:]] == [str(2 ** k) for k in range(10)]


# --------------------------------------------------------------------------------------------
# Errors: exit 2, exactly one line on stderr, nothing on stdout.

BAD = [
    (["epsilon", "--l", "0", "--sigma-x", "0.5", "--n", "60000"], "l must be an integer"),
    (["epsilon", "--l", "abc", "--sigma-x", "0.5", "--n", "60000"], "--l"),
    (["epsilon", "--l", "4", "--n", "60000"], "--sigma-x"),
    (["epsilon", "--l", "4", "--sigma-x", "-1", "--n", "60000"], "sigma_x"),
    (["epsilon", "--l", "4", "--sigma-x", "0", "--sigma-y", "0.5", "--n", "60000"],
     "sigma_x must be > 0"),
    (["epsilon", "--l", "4", "--sigma-x", "x", "--n", "60000"], "--sigma-x"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "60000", "--delta", "1.5"], "delta"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "60000", "--c", "0"], "c must be"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "60000", "--T", "0"], "T must be"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5"], "--n"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "60000", "--accountant", "nope"],
     "--accountant"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "60000", "--conversion", "nope"],
     "--conversion"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "60000", "--accountant",
      "class-aware"], "class_counts"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "60000", "--accountant", "dpmix"],
     "d_x"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--class-counts", "10,x"], "--class-counts"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--class-counts", "10,0"], "class_counts"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "100", "--class-counts", "10,20"],
     "add up"),
    (["epsilon", "--l", "6000", "--sigma-x", "0.5", "--preset", "mnist"], "smallest class"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--preset", "nope"], "nope"),
    (["epsilon", "--l", "4", "--sigma-x", "0.5", "--n", "60000", "--max-alpha", "2"],
     "max_alpha"),
    (["calibrate", "--epsilon", "0.01", "--l", "4", "--n", "60000", "--accountant", "paper"],
     "max_alpha"),
    (["calibrate", "--epsilon", "-1", "--l", "4", "--n", "60000"], "epsilon"),
    (["calibrate", "--epsilon", "10", "--l", "4", "--n", "60000", "--ratio", "0"], "ratio"),
    (["curves", "--n", "60000", "--sigma-min", "1", "--sigma-max", "0.5"], "sigma-min"),
    (["curves", "--n", "60000", "--points", "0"], "--points"),
    (["curves", "--n", "60000", "--ls", "1,,x"], "--ls"),
    (["curves", "--n", "60000", "--ls", "1,70000"], "l must be an integer"),
    (["nope"], "invalid choice"),
]


@pytest.mark.parametrize("argv, word", BAD)
def test_bad_arguments_in_process(capsys, argv, word):
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err and word in err, err


@pytest.mark.parametrize("argv", [BAD[0][0], BAD[1][0], BAD[20][0]])
def test_bad_arguments_subprocess(argv):
    proc = run_cli(*argv)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


# --------------------------------------------------------------------------------------------
# The privacy commands never import torch (nor streamlit/plotly).

@pytest.mark.parametrize("argv", [
    ["epsilon", "--l", "4", "--sigma-x", "0.5", "--preset", "mnist", "--accountant",
     "class-aware", "--json"],
    ["calibrate", "--epsilon", "10", "--l", "4", "--preset", "mnist", "--json"],
    ["curves", "--n", "60000", "--ls", "1,4", "--points", "5", "--json", "--accountant", "paper"],
])
def test_no_torch_import(argv):
    proc = run_cli(*argv, importtime=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    json.loads(proc.stdout)
    modules = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
               if line.startswith("import time:")}
    assert "dpcda.privacy" in modules and "numpy" in modules       # the probe works
    heavy = {m for m in modules if m.split(".")[0] in ("torch", "streamlit", "plotly")}
    assert not heavy, sorted(heavy)[:10]


def test_inf_is_json_safe(capsys):
    got = run_json(capsys, "curves", "--preset", "mnist", "--ls", "4", "--sigma-min", "1e-170",
                   "--sigma-max", "1", "--points", "3")
    eps = got["curves"][0]["epsilon"]
    assert eps[0] == "inf" and all(isinstance(e, float) and math.isfinite(e) for e in eps[1:])
