"""``python -m dpcda generate`` on scikit-learn's digits (ships offline; runs in seconds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpcda.cli import main
from dpcda.mechanisms import MECHANISMS
from dpcda.privacy import ACCOUNTANT_INFO, DEFAULT_ACCOUNTANT, NOT_A_BOUND, samples_per_class

REPO = Path(__file__).resolve().parents[2]


def test_generate_writes_npz_and_card(tmp_path, capsys):
    out = tmp_path / "synth.npz"
    rc = main(["generate", "--dataset", "digits", "--l", "4", "--epsilon", "10", "--T", "1000",
               "--delta", "1e-5", "--accountant", "paper", "--allocation", "equal", "--out", str(out)])
    assert rc == 0
    with np.load(out) as z:
        assert z["X"].shape == (1000, 64) and z["y"].shape == (1000,)
        assert z["y_soft"].shape == (1000, 10) and z["X"].dtype == np.float32
        assert np.bincount(z["y_soft"].argmax(1), minlength=10).min() > 50
    card = json.loads((tmp_path / "synth.json").read_text())
    assert card["dataset"] == "digits" and card["algorithm"] == "dp-cda"
    assert card["parameters"]["l"] == 4 and card["parameters"]["T_per_class"] == [100] * 10
    assert card["privacy"]["epsilon"] <= 10 and card["privacy"]["accountant"] == "paper"
    assert card["privacy"]["assumptions"] == ACCOUNTANT_INFO["paper"].assumptions
    assert card["privacy"]["bound_note"] == NOT_A_BOUND  # paper is not a bound for Algorithm 1
    assert card["data"]["image_shape"] == [1, 8, 8]
    assert card["normalization"]["method"] == MECHANISMS.get("dp-cda").default_normalize
    text = capsys.readouterr().out
    assert "epsilon = 10" in text and "DP-CDA Theorem 1" in text and "[1000, 64]" in text
    assert f"epsilon = 10 ({NOT_A_BOUND})" in text
    assert "seed" not in text.lower()


def test_generate_sigmas_scale_and_class_aware(tmp_path, capsys):
    out = tmp_path / "s.npz"
    rc = main(["generate", "--dataset", "digits", "--l", "2", "--sigma-x", "0.3", "--sigma-y",
               "0.4", "--normalize", "scale", "--accountant", "class-aware", "--conversion",
               "improved", "--out", str(out)])
    assert rc == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["parameters"]["sigma_y"] == 0.4 and card["parameters"]["T"] == 1347
    assert card["normalization"]["statistics_from_private_data"] is False
    assert card["privacy"]["conversion"] == "improved"
    assert "class-aware" in capsys.readouterr().out


def test_generate_defaults_to_the_valid_accountant_and_takes_an_allocation(tmp_path, capsys):
    """No --accountant: the epsilon is DEFAULT_ACCOUNTANT's (a valid bound, no caveat), with the
    neighbouring relation in the summary, and T split equally (a public allocation); under it a
    proportional split is by the public class bounds (digits' published counts), never by the
    data's own sizes; --allocation proportional under class-aware-pld draws T_k = floor(T N_k/N)."""
    out = tmp_path / "p.npz"
    assert main(["generate", "--dataset", "digits", "--l", "4", "--epsilon", "10", "--T", "1000",
                 "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["privacy"]["accountant"] == DEFAULT_ACCOUNTANT and card["privacy"]["valid_bound"]
    assert card["privacy"]["relation"] == ACCOUNTANT_INFO[DEFAULT_ACCOUNTANT].relation
    assert card["parameters"]["allocation"] == "proportional"  # issue 26: by the public bounds
    assert card["parameters"]["T_per_class"] == samples_per_class(
        1000, card["data"]["class_bounds"], "proportional").tolist()
    text = capsys.readouterr().out
    assert NOT_A_BOUND not in text.split("Under the")[0]
    assert ACCOUNTANT_INFO[DEFAULT_ACCOUNTANT].relation in text
    assert main(["generate", "--dataset", "digits", "--l", "4", "--epsilon", "10", "--T", "1000",
                 "--allocation", "equal", "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["privacy"]["accountant"] == DEFAULT_ACCOUNTANT and card["privacy"]["epsilon"] <= 10
    assert card["parameters"]["T_per_class"] == [100] * 10
    assert main(["generate", "--dataset", "digits", "--l", "4", "--epsilon", "10", "--T", "1000",
                 "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert "public class bounds" in card["release"]["allocation"]
    capsys.readouterr()
    assert main(["generate", "--dataset", "digits", "--l", "4", "--epsilon", "10", "--T", "1000",
                 "--accountant", "class-aware-pld", "--allocation", "proportional",
                 "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["parameters"]["allocation"] == "proportional"
    counts = card["data"]["class_counts"]
    assert card["parameters"]["T_per_class"] == samples_per_class(1000, counts,
                                                                  "proportional").tolist()
    capsys.readouterr()
    assert main(["generate", "--dataset", "digits", "--mechanism", "local", "--epsilon", "10",
                 "--allocation", "equal", "--out", str(out)]) == 2
    assert "--allocation does not apply to --mechanism local" in capsys.readouterr().err


def test_generate_baseline_with_denoise(tmp_path):
    out = tmp_path / "m.npz"
    assert main(["generate", "--dataset", "digits", "--mechanism", "dpmix", "--l", "8",
                 "--epsilon", "20", "--T", "500", "--denoise", "1", "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["algorithm"] == "dpmix" and card["privacy"]["accountant"] == "dpmix-clipped"
    assert card["parameters"]["c"] == 1.0 and card["privacy"]["valid_bound"] is True
    assert card["postprocessing"][0]["sigma_pixels"] == 1.0


BAD = [
    (["--l", "4"], "one of the arguments --epsilon --sigma-x is required"),
    (["--l", "4", "--epsilon", "10", "--sigma-x", "0.3"], "not allowed with argument"),
    (["--l", "0", "--epsilon", "10"], "l must be an integer >= 1, got l=0"),
    (["--l", "500", "--epsilon", "10"], "l must be an integer from 1 to 130 under the whole-record"),
    (["--l", "4", "--sigma-x", "-1"], "sigma_x must be a finite number >= 0"),
    (["--l", "4", "--sigma-x", "0.3", "--c", "0"], "c must be a finite number > 0"),
    (["--l", "4", "--sigma-x", "0.3", "--T", "5"], "T must be an integer >= 10"),
    (["--l", "4", "--epsilon", "ten"], "expected a number"),
    (["--l", "4", "--epsilon", "10", "--label-share", "1"], "label_share must be a finite number in (0, 1)"),
    (["--l", "4", "--epsilon", "10", "--accountant", "magic"], "invalid choice"),
    (["--epsilon", "10"], "needs --l"),
    (["--l", "4", "--epsilon", "10", "--dataset", "nope"], "nope"),
    (["--l", "4", "--epsilon", "10", "--out", "/no/such/dir/x.npz"], "does not exist"),
    (["--l", "4", "--epsilon", "10", "--out", "x.csv"], "must end in .npz"),
]


@pytest.mark.parametrize("extra,message", BAD)
def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys, extra, message):
    args = ["generate", "--dataset", "digits", "--out", str(tmp_path / "s.npz")]
    rc = main(args + extra)
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and message in err
    assert "Traceback" not in err
    assert not (tmp_path / "s.npz").exists()


def test_parser_does_not_import_torch_and_help_works():
    code = ("import sys; from dpcda.cli import build_parser; build_parser(); "
            "assert 'torch' not in sys.modules, 'torch imported'; "
            "import dpcda.mechanisms; assert 'torch' not in sys.modules, 'mechanisms import torch'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
    res = subprocess.run([sys.executable, "-m", "dpcda", "generate", "--help"], cwd=REPO,
                         capture_output=True, text=True)
    assert res.returncode == 0 and "--epsilon" in res.stdout and "--sigma-x" in res.stdout


def test_decode_is_a_registry_parameter_and_a_flag_where_declared(tmp_path, capsys, monkeypatch,
                                                                  tiny_data_dir):
    """--decode reaches DP-CDA's one-hot decoding (a declared Param); a mechanism that does not
    declare it refuses the flag in one line."""
    from dpcda.mechanisms.decoding import DECODERS, DEFAULT_DECODER

    p = MECHANISMS.get("dp-cda").param("decode")
    assert p.choices == DECODERS and p.default == DEFAULT_DECODER
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tiny_data_dir))
    out = tmp_path / "a.npz"
    assert main(["generate", "--dataset", "adult", "--l", "2", "--epsilon", "10", "--T", "200",
                 "--decode", "argmax", "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    (step,) = [s for s in card["postprocessing"] if "decode" in s]
    assert step["decode"] == "argmax"
    capsys.readouterr()
    assert main(["generate", "--dataset", "digits", "--mechanism", "local", "--epsilon", "10",
                 "--decode", "argmax", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--decode does not apply to --mechanism local" in err and len(err.strip().splitlines()) == 1
    assert main(["generate", "--dataset", "digits", "--l", "2", "--epsilon", "10",
                 "--decode", "vote", "--out", str(out)]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_seeded_generate_warns_and_marks_the_card_not_private(tmp_path, capsys):
    """--seed (tests, teaching): reproducible, a warning on stderr, ``privacy.seeded: true``;
    without it the card says ``seeded: false``. The seed itself goes nowhere."""
    args = ["generate", "--dataset", "digits", "--l", "4", "--sigma-x", "0.4", "--T", "300"]
    a, b, c = (tmp_path / f"{n}.npz" for n in "abc")
    assert main([*args, "--seed", "4242", "--out", str(a)]) == 0
    err = capsys.readouterr().err
    assert "NOT private" in err and "4242" not in err
    assert main([*args, "--seed", "4242", "--out", str(b)]) == 0
    assert main([*args, "--out", str(c)]) == 0
    out = capsys.readouterr().out  # the summary names the accountant by its name, then its title
    assert f"under the {DEFAULT_ACCOUNTANT} accountant (" in out
    assert out.count("SEEDED RELEASE") == 1  # b's summary; c is unseeded
    with np.load(a) as za, np.load(b) as zb, np.load(c) as zc:
        assert np.array_equal(za["X"], zb["X"]) and not np.array_equal(za["X"], zc["X"])
    ca, cc = (json.loads(p.with_suffix(".json").read_text()) for p in (a, c))
    assert ca["privacy"]["seeded"] is True and "not private" in ca["privacy"]["randomness"]
    assert cc["privacy"]["seeded"] is False and "operating system" in cc["privacy"]["randomness"]
    assert "4242" not in a.with_suffix(".json").read_text()
    fp = cc["privacy"]["floating_point"]
    assert fp["noisy_values"] == cc["release"]["n_samples"] * (64 + 10)
    assert 0 < fp["epsilon_added"] < 1e-5


def test_negative_seed_is_one_line_exit_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "dpcda", "generate", "--dataset", "digits", "--l",
                        "4", "--sigma-x", "0.4", "--seed", "-1", "--out", str(tmp_path / "x.npz")],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0
    assert "--seed must be a non-negative integer" in r.stderr
