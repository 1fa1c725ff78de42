"""The real ``experiment`` kind: config normalisation, and one small end-to-end sweep on digits
through the real pipeline (data -> calibrate -> DP-CDA release -> train -> evaluate)."""

from __future__ import annotations

import csv
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from dpcda.jobs.db import config_hash
from dpcda.experiments.run import EXPERIMENT_VERSION, normalize
from dpcda.mechanisms import MECHANISMS
from dpcda.privacy import DEFAULT_ACCOUNTANT
from tests.jobs.jobs_util import REPO

CDA_DEFAULT = MECHANISMS.get("dp-cda").default_accountant  # its registry entry's first: a bound


def test_allocation_key_keeps_old_dedup_keys():
    """An explicit "equal" allocation (what every config stored before the setting used) leaves
    no key, so old configs keep their hash; "proportional" is a key of its own; a stored config
    without the key stays "equal" when normalized again, whatever the generator's default."""
    base = {"dataset": "digits", "epsilon": 10, "l": 4, "model": "linear", "accountant": "paper"}
    equal = normalize({**base, "allocation": "equal"})
    assert "allocation" not in equal
    prop = normalize({**base, "allocation": "proportional"})
    assert prop["allocation"] == "proportional" and normalize(prop) == prop
    assert config_hash("experiment", equal) != config_hash("experiment", prop)
    assert normalize(equal) == equal  # stored without the key: still "equal"
    with pytest.raises(ValueError, match="allocation applies to dp-cda only"):
        normalize({"dataset": "digits", "mechanism": "local", "allocation": "equal"})
    with pytest.raises(ValueError, match="allocation must be one of equal, proportional"):
        normalize({**base, "allocation": "nope"})


def test_normalize_fills_defaults_and_moves_training_fields():
    cfg = normalize({"dataset": "digits", "epsilon": 10, "l": 4, "model": "linear", "epochs": 2})
    assert cfg["epsilon"] == 10.0 and isinstance(cfg["epsilon"], float)
    assert (cfg["l"], cfg["run"], cfg["T"], cfg["c"], cfg["delta"]) == (4, 0, None, 1.0, 1e-5)
    assert (cfg["accountant"], cfg["conversion"], cfg["mechanism"]) == (
        DEFAULT_ACCOUNTANT, "mironov", "dp-cda")
    assert cfg["train"]["model"] == "linear" and cfg["train"]["epochs"] == 2
    assert cfg["train"]["clip_norm"] == 1.0 and "model" not in cfg
    assert cfg["experiment_version"] == EXPERIMENT_VERSION
    assert normalize(cfg) == cfg  # idempotent
    assert normalize({"dataset": "digits", "epsilon": "inf"})["epsilon"] == math.inf


def test_normalized_spellings_share_one_dedup_key():
    a = normalize({"dataset": "digits", "epsilon": 10, "l": 4, "model": "linear"})
    b = normalize({"l": 4.0, "train": {"model": "linear"}, "epsilon": 10.0, "dataset": "digits",
                   "delta": 1e-5, "accountant": DEFAULT_ACCOUNTANT})
    assert config_hash("experiment", a) == config_hash("experiment", b)
    c = normalize({"dataset": "digits", "epsilon": 10, "l": 4, "model": "linear", "run": 1})
    assert config_hash("experiment", a) != config_hash("experiment", c)


@pytest.mark.parametrize("config, message", [
    ({"epsilon": 10}, "dataset must be a dataset name"),
    ({"dataset": "digits", "epsilon": 0}, r"epsilon must be a finite number > 0 \(or inf\), got epsilon=0"),
    ({"dataset": "digits", "l": 0}, "l must be an integer >= 1, got l=0"),
    ({"dataset": "digits", "l": 2.5}, "l must be an integer"),
    ({"dataset": "digits", "l": 132}, r"l must be an integer in \[1, 131\] \(the smallest class of digits\)"),
    ({"dataset": "digits", "delta": 1.5}, "delta must be in"),
    ({"dataset": "digits", "c": -1}, "c must be a finite number > 0"),
    ({"dataset": "digits", "epochs": 0}, "epochs must be an integer >= 1"),
    ({"dataset": "digits", "label_mode": "fuzzy"}, "label_mode must be one of hard, soft"),
    ({"dataset": "digits", "sigmas": 1}, "unknown experiment config key"),
    ({"dataset": "digits", "sigma": -0.5}, r"sigma must be a finite number >= 0, got sigma=-0.5"),
    ({"dataset": "digits", "sigma": 0.5, "epsilon": 10}, "give either a target epsilon"),
    ({"dataset": "digits", "sigma": 0.5, "mechanism": "random-projection"},
     "sigma applies to mechanisms with a Gaussian noise scale"),
    ({"dataset": "digits", "mechanism": "nope"}, "unknown mechanism 'nope'; known: dp-cda"),
    ({"dataset": "digits", "mechanism": "random-projection"}, "epsilon must be finite"),
    ({"dataset": "digits", "mechanism": "local", "l": 4}, "l must be 1 for mechanism='local'"),
    ({"dataset": "digits", "mechanism": "dpmix", "accountant": "paper"},
     "accountant must be one of dpmix-clipped, dpmix, dpmix-low for mechanism='dpmix'"),
    ({"dataset": "digits", "normalization": "minmax"}, "normalization must be one of"),
])

def test_normalize_rejects_bad_values(config, message):
    with pytest.raises(ValueError, match=message):
        normalize(config)


def test_mechanism_defaults_are_resolved_before_hashing():
    cfg = normalize({"dataset": "digits", "mechanism": "dpmix", "epsilon": 10, "l": 200})
    assert (cfg["accountant"], cfg["normalization"]) == ("dpmix-clipped", "scale")  # l may exceed a class
    assert cfg["train"]["label_mode"] == MECHANISMS.get("dpmix").label_mode == "soft"
    assert normalize({"dataset": "digits"})["normalization"] == \
        MECHANISMS.get("dp-cda").default_normalize


def test_end_to_end_sweep_on_digits(tmp_path):
    """The sweep CLI through the real experiment path: CPU, linear model, 2 epochs (lr 0.01:
    at the default 1e-3, 2 epochs of 21 steps leave a linear model near chance)."""
    out_csv = tmp_path / "digits.csv"
    env = dict(os.environ, PYTHONPATH=str(REPO), DPCDA_HOME=str(tmp_path / "home"))
    env.pop("DPCDA_JOB_PLUGINS", None)
    cmd = [sys.executable, "-m", "dpcda", "sweep", "--dataset", "digits", "--epsilons", "inf,10",
           "--ls", "1,4", "--runs", "1", "--epochs", "2", "--model", "linear", "--device", "cpu",
           "--batch-size", "64", "--lr", "0.01", "--db", str(tmp_path / "jobs.sqlite3"),
           "--out", str(out_csv)]
    out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = {(r["epsilon"], r["l"]): r for r in csv.DictReader(out_csv.open())}
    assert set(rows) == {("inf", "1"), ("inf", "4"), ("10.0", "1"), ("10.0", "4")}
    for r in rows.values():
        assert r["runs"] == "1" and r["failed"] == "0" and r["accountant"] == DEFAULT_ACCOUNTANT
        assert 0.0 <= float(r["mean"]) <= 1.0
    assert float(rows[("inf", "1")]["sigma"]) == 0.0
    assert float(rows[("10.0", "4")]["sigma"]) > 0.0
    assert float(rows[("10.0", "1")]["sigma"]) > float(rows[("10.0", "4")]["sigma"])  # mixing helps
    assert float(rows[("inf", "1")]["mean"]) > 0.7  # clean data, 10 classes: far above chance
    assert float(rows[("10.0", "4")]["mean"]) > 0.3  # measured about 0.84; chance is 0.1
    assert "digits" in out.stdout and f"{DEFAULT_ACCOUNTANT} accountant" in out.stdout


@pytest.mark.parametrize("model, expect_noise", [("lda", True), ("ncm", False)])
def test_lda_gets_the_release_public_noise_scale(monkeypatch, model, expect_noise):
    """Noise-aware LDA must be told the release's sigma_x (public); other learners are not."""
    import dpcda.training as training
    from dpcda.experiments.run import run_experiment

    seen = {}

    def fake_train(X, y, X_test, y_test, *, config, **kw):
        seen["noise_std"] = config.noise_std
        seen["label_noise_std"] = config.label_noise_std
        seen["y_soft"] = kw.get("y_soft")
        return {"accuracy": 0.5, "per_epoch": [], "epochs_run": 1}

    monkeypatch.setattr(training, "train_and_evaluate", fake_train)
    out = run_experiment({"dataset": "digits", "epsilon": 10, "l": 4,
                          "train": {"model": model, "epochs": 1}})
    assert out["sigma_x"] > 0
    if expect_noise:
        assert seen["noise_std"] == pytest.approx(out["sigma_x"])
        assert seen["label_noise_std"] == pytest.approx(out["sigma_y"]) and out["sigma_y"] > 0
        assert seen["y_soft"] is not None  # the raw noisy soft labels reach the learner
    else:
        assert seen["noise_std"] == 0.0 and seen["label_noise_std"] == 0.0


def test_lda_models_label_noise_only_for_one_hot_soft_labels(monkeypatch):
    """DPMix mixes labels across classes, so its soft labels are not onehot + noise: the label
    model would be wrong there and is not used."""
    import dpcda.training as training
    from dpcda.experiments.run import run_experiment

    seen = {}

    def fake_train(X, y, X_test, y_test, *, config, **kw):
        seen["label_noise_std"] = config.label_noise_std
        return {"accuracy": 0.5, "per_epoch": [], "epochs_run": 1}

    monkeypatch.setattr(training, "train_and_evaluate", fake_train)
    out = run_experiment({"dataset": "digits", "mechanism": "dpmix", "epsilon": 10, "l": 16,
                          "train": {"model": "lda"}})
    assert out["sigma_y"] > 0 and seen["label_noise_std"] == 0.0
    out = run_experiment({"dataset": "digits", "mechanism": "local", "epsilon": 10,
                          "train": {"model": "lda"}})
    assert seen["label_noise_std"] == pytest.approx(out["sigma_y"])


def test_auto_model_is_the_default_and_resolves_per_setting_before_hashing():
    from dpcda.data import get_dataset_spec, list_datasets
    from dpcda.data.presets import PRESETS

    private = normalize({"dataset": "fashion-mnist", "epsilon": 10, "l": 4})  # no model: auto
    public = normalize({"dataset": "fashion-mnist", "epsilon": "inf", "l": 4, "model": "auto"})
    assert private["train"]["model"] == "lda" and public["train"]["model"] == "cnn"
    assert normalize(private) == private and normalize(public) == public  # idempotent
    # The dedup key holds the concrete model: auto and its resolution share one key.
    explicit = normalize({"dataset": "fashion-mnist", "epsilon": 10, "l": 4, "model": "lda"})
    assert config_hash("experiment", private) == config_hash("experiment", explicit)
    other = normalize({"dataset": "fashion-mnist", "epsilon": 10, "l": 4, "model": "cnn"})
    assert config_hash("experiment", private) != config_hash("experiment", other)
    for eps in (10, "inf"):
        assert normalize({"dataset": "adult", "epsilon": eps, "train": {"model": "auto"}})["train"][
            "model"] == "tree"
    assert normalize({"dataset": "digits", "epsilon": 10})["train"]["model"] == "ncm"
    assert normalize({"dataset": "digits"})["train"]["model"] == "lda"  # epsilon defaults to inf
    # A random projection is flat: no image model even for image data.
    rp = normalize({"dataset": "mnist", "epsilon": 10, "mechanism": "random-projection"})
    assert rp["train"]["model"] == "lda"
    # QDA models DP-CDA's within-class mixing; a mechanism that mixes across classes keeps LDA.
    assert normalize({"dataset": "mnist", "epsilon": 10, "l": 16, "mechanism": "dpmix"})[
        "train"]["model"] == "lda"
    # Every registered image dataset has a known shape, consistent with its public d_x.
    for name in list_datasets():
        if get_dataset_spec(name).kind == "image":
            shape = get_dataset_spec(name).image_shape
            assert math.prod(shape) == PRESETS.get(name).d_x


def test_auto_never_reaches_train_config():
    from dpcda.training import TrainConfig

    with pytest.raises(ValueError, match="model must be one of"):
        TrainConfig(model="auto")


def test_fixed_sigma_point_reports_the_accountants_epsilon():
    """A config with a fixed ``sigma`` (the thesis's accuracy-versus-noise axis) adds exactly that
    noise and reports the epsilon the accountant gives it, at the requested T."""
    from dpcda.experiments.run import run_experiment
    from dpcda.data import load_dataset
    from dpcda.privacy import PrivacyParams, compute_epsilon, samples_per_class

    out = run_experiment({"dataset": "digits", "sigma": 0.5, "l": 4, "T": 800,
                          "train": {"model": "ncm", "epochs": 1}})
    assert out["sigma_x"] == pytest.approx(0.5) and out["sigma_y"] == pytest.approx(0.5)
    assert out["sigma_target"] == 0.5 and out["epsilon_target"] is None
    counts = load_dataset("digits").class_counts
    t_k = samples_per_class(800, counts, out["allocation"] or "equal")
    assert out["n_synthetic"] == t_k.sum()
    expect = compute_epsilon(PrivacyParams(l=4, sigma_x=0.5, sigma_y=0.5, c=1.0, T=800, delta=1e-5,
                                           class_counts=counts, allocation=out["allocation"]),
                             accountant=DEFAULT_ACCOUNTANT).epsilon
    assert out["accountant"] == DEFAULT_ACCOUNTANT and out["bound_note"] is None
    assert out["epsilon"] == pytest.approx(expect, rel=1e-9)
    # digits at sigma 0.5, l 4, T 800, ncm: 0.66 +- 0.05, 0.34-0.82 over 8,200 runs, below the old
    # 0.5 in 21 of them (this test failed 1 time in 400); chance is 0.1
    assert 0.25 < out["accuracy"] <= 1.0


def test_sigma_zero_is_the_non_private_point_and_shares_its_dedup_key():
    zero = normalize({"dataset": "digits", "sigma": 0, "l": 4, "model": "ncm"})
    inf = normalize({"dataset": "digits", "epsilon": "inf", "l": 4, "model": "ncm"})
    assert zero == inf and "sigma" not in inf  # configs without sigma keep their old keys
    fixed = normalize({"dataset": "digits", "sigma": 0.5, "l": 4, "model": "ncm"})
    assert fixed["epsilon"] is None and fixed["sigma"] == 0.5 and normalize(fixed) == fixed
    assert config_hash("experiment", fixed) != config_hash("experiment", inf)
    assert normalize({"dataset": "digits", "sigma": 0.5})["train"]["model"] == "ncm"  # auto: private


def test_a_worker_with_other_code_refuses_the_job():
    """A worker keeps the code it started with: after an upgrade it must not run a job
    submitted for another pipeline version (its results would be stored under the wrong key)."""
    from dpcda.experiments.run import run_experiment

    cfg = normalize({"dataset": "digits", "epsilon": 10, "l": 4, "model": "ncm"})
    with pytest.raises(RuntimeError, match=f"runs experiment version {EXPERIMENT_VERSION}, the job "
                                           f"was submitted for version {EXPERIMENT_VERSION + 1}"):
        run_experiment(dict(cfg, experiment_version=EXPERIMENT_VERSION + 1))
    assert run_experiment(cfg)["accuracy"] > 0.5  # its own version runs


@pytest.mark.parametrize("mechanism", ["dp-cda", "dpmix", "local"])
def test_the_job_runner_never_seeds_a_release(monkeypatch, mechanism):
    """A job's release draws from a fresh OS-keyed source: a seeded one would not be private."""
    import dpcda.training as training
    from dpcda.experiments.run import run_experiment
    from dpcda.randomness.secure import SecureRandom

    seeds = []
    real_init = SecureRandom.__init__

    def spy_init(self, seed=None):
        seeds.append(seed)
        real_init(self, seed)

    monkeypatch.setattr(SecureRandom, "__init__", spy_init)
    monkeypatch.setattr(training, "train_and_evaluate",
                        lambda *a, **k: {"accuracy": 0.5, "per_epoch": [], "epochs_run": 1})
    cfg = {"dataset": "digits", "mechanism": mechanism, "epsilon": 10,
           "train": {"model": "linear", "epochs": 1}}
    if mechanism != "local":
        cfg["l"] = 4
    run_experiment(cfg)
    assert seeds and all(s is None for s in seeds)


def test_a_result_carries_its_privacy_warnings_with_their_codes(monkeypatch):
    import dpcda.training as training
    from dpcda.experiments.run import run_experiment

    monkeypatch.setattr(training, "train_and_evaluate",
                        lambda *a, **kw: {"accuracy": 0.5, "per_epoch": [], "epochs_run": 1})
    out = run_experiment({"dataset": "digits", "epsilon": "inf", "l": 4, "delta": 0.01,
                          "train": {"model": "ncm"}})
    assert [n["code"] for n in out["privacy_notices"]] == ["non_private", "delta_not_below_1_over_n"]
    assert [n["message"] for n in out["privacy_notices"]] == out["privacy_warnings"]


def test_qda_reads_sigma_l_and_the_public_class_bounds_from_the_card(monkeypatch):
    """Noise-aware QDA gets sigma_x and f_k = (n_k - l) / (l (n_k - 1)) from the release's card
    (under whole-record the public class bounds n_k), and its choice comes back in the result."""
    import dpcda.training as training
    from dpcda.experiments.run import run_experiment
    from dpcda.training.qda import mixing_factors

    seen = {}

    def fake_train(X, y, X_test, y_test, *, config, **kw):
        seen["noise_std"], seen["mix_factors"] = config.noise_std, config.mix_factors
        return {"accuracy": 0.5, "per_epoch": [], "epochs_run": 1,
                "learner_choice": {"dims": 150, "rule": "single candidate"}}

    monkeypatch.setattr(training, "train_and_evaluate", fake_train)
    out = run_experiment({"dataset": "digits", "epsilon": 10, "l": 4, "train": {"model": "qda"}})
    from dpcda.data import load_dataset
    from dpcda.mechanisms import published_class_bounds

    bounds = published_class_bounds(load_dataset("digits"))
    sizes = bounds if bounds is not None else np.bincount(load_dataset("digits").y_train)
    assert seen["noise_std"] == pytest.approx(out["sigma_x"]) and out["sigma_x"] > 0
    np.testing.assert_allclose(seen["mix_factors"], mixing_factors(4, sizes))
    assert out["learner_choice"] == {"dims": 150, "rule": "single candidate"}


def test_job_runner_gives_lda_tangent_the_lda_and_qda_inputs(monkeypatch):
    """lda-tangent (opt-in) reads what lda reads (sigma_x, sigma_y) and what qda reads (f_k)."""
    import dpcda.training as training
    from dpcda.experiments.run import run_experiment
    from dpcda.training.qda import mixing_factors

    seen = {}

    def fake_train(X, y, X_test, y_test, *, config, **kw):
        seen.update(noise=config.noise_std, label=config.label_noise_std, f=config.mix_factors)
        return {"accuracy": 0.5, "per_epoch": [], "epochs_run": 1}

    monkeypatch.setattr(training, "train_and_evaluate", fake_train)
    out = run_experiment({"dataset": "digits", "epsilon": 10, "l": 4,
                          "train": {"model": "lda-tangent"}})
    from dpcda.data import load_dataset
    from dpcda.mechanisms import published_class_bounds

    bounds = published_class_bounds(load_dataset("digits"))
    sizes = bounds if bounds is not None else np.bincount(load_dataset("digits").y_train)
    assert seen["noise"] == pytest.approx(out["sigma_x"]) and out["sigma_x"] > 0
    assert seen["label"] == pytest.approx(out["sigma_y"]) and out["sigma_y"] > 0
    np.testing.assert_allclose(seen["f"], mixing_factors(4, sizes))


def test_qda_without_public_class_sizes_uses_the_large_class_limit():
    from types import SimpleNamespace

    from dpcda.experiments.run import _qda_inputs

    card = SimpleNamespace(parameters={"l": 8}, data={"class_counts": None})
    train = {"model": "qda", "n_classes": 3}
    _qda_inputs(train, card, 0.25)
    assert train["mix_factors"] == (0.125,) * 3 and train["noise_std"] == 0.25


def test_a_jobs_release_is_counted_once_in_the_servers_tally():
    """A finished job's result carries its release's public facts (noise, l, c, samples per
    class); the Utility and Compare pages count each job's release once in the server's tally of
    draws from the private data (issue 26's tally counted only the Samples page's draws)."""
    from types import SimpleNamespace

    from dpcda.dashboard import shown
    from dpcda.data import load_dataset
    from dpcda.experiments.run import run_experiment
    from dpcda.privacy import samples_per_class
    from dpcda.privacy.shown_compose import Drawn, compose_shown

    out = run_experiment({"dataset": "digits", "sigma": 0.5, "l": 4, "T": 800,
                          "train": {"model": "ncm", "epochs": 1}})
    counts = load_dataset("digits").class_counts
    t_k = samples_per_class(800, counts, out["allocation"] or "equal")
    assert out["drawn"] == {"mechanism": "dp-cda", "sigma_x": 0.5, "l": 4, "c": 1.0, "mu": 0.0,
                            "T_per_class": [int(t) for t in t_k], "covered": True}
    shown.reset()
    try:
        jobs = [SimpleNamespace(id=1, status="done", result=out),
                SimpleNamespace(id=2, status="failed", result=None)]
        store = SimpleNamespace(path="/tmp/store.sqlite3")
        assert shown.record_jobs("digits", store, jobs) == 1
        assert shown.record_jobs("digits", store, jobs) == 0  # shown again: not drawn again
        (d,) = shown.drawn(("builtin", "digits"))
        assert d == Drawn("measured", 0.5, 4, tuple(int(t) for t in t_k), 1.0)
        want = compose_shown([d], lower_counts=counts, delta=1e-5).epsilon
        assert 0 < want < math.inf
        assert "composed over 1 release" in shown.builtin_text("digits", 1e-5)
        assert "Utility, Compare" in shown.builtin_text("digits", 1e-5)
    finally:
        shown.reset()
