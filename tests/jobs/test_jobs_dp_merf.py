"""DP-MERF through the job runner: defaults from its registry entry, one experiment end to end."""

from __future__ import annotations

import math

import pytest

from dpcda.experiments.run import normalize, run_experiment


def test_dp_merf_config_resolves_from_the_registry():
    cfg = normalize({"dataset": "digits", "mechanism": "dp-merf", "epsilon": 1})
    assert cfg["accountant"] == "embedding-gaussian" and cfg["normalization"] == "scale"
    assert cfg["l"] == 1 and cfg["train"]["label_mode"] == "hard"
    with pytest.raises(ValueError, match="l must be 1 for mechanism='dp-merf'"):
        normalize({"dataset": "digits", "mechanism": "dp-merf", "epsilon": 1, "l": 4})
    with pytest.raises(ValueError, match="accountant must be one of embedding-gaussian"):
        normalize({"dataset": "digits", "mechanism": "dp-merf", "epsilon": 1, "accountant": "paper"})
    # epsilon = inf is the non-private embedding (noise_multiplier = 0, declared by the entry);
    # a mechanism with no declared way to skip its noise still refuses it.
    assert math.isinf(normalize({"dataset": "digits", "mechanism": "dp-merf"})["epsilon"])
    with pytest.raises(ValueError, match="epsilon must be finite"):
        normalize({"dataset": "digits", "mechanism": "random-projection"})


def test_dp_merf_at_infinite_epsilon_runs_without_noise(monkeypatch):
    import dpcda.mechanisms.dp_merf as dm

    real = dm.fit_generator
    monkeypatch.setattr(dm, "fit_generator", lambda *a, **k: real(*a, **{**k, "steps": 20}))
    res = run_experiment({"dataset": "digits", "mechanism": "dp-merf", "epsilon": math.inf,
                          "model": "ncm", "device": "cpu"})
    assert res["private"] is False and math.isinf(res["epsilon"])
    assert 0.0 <= res["accuracy"] <= 1.0


def test_dp_merf_experiment_end_to_end(monkeypatch):
    import dpcda.mechanisms.dp_merf as dm

    real = dm.fit_generator
    monkeypatch.setattr(dm, "fit_generator", lambda *a, **k: real(*a, **{**k, "steps": 30}))
    res = run_experiment({"dataset": "digits", "mechanism": "dp-merf", "epsilon": 5,
                          "model": "ncm", "device": "cpu"})
    assert res["accountant"] == "embedding-gaussian" and res["private"]
    assert res["epsilon"] <= 5 and res["epsilon"] == pytest.approx(5, rel=1e-6)
    assert res["n_synthetic"] == res["n_train"] and 0.0 <= res["accuracy"] <= 1.0
    assert res["sigma_x"] is None and not math.isnan(res["accuracy"])
