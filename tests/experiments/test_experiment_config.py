"""ExperimentConfig: typed inside, the normalized JSON (hashed for deduplication, stored in
SQLite) unchanged at the edge."""

import math
import sqlite3

import pytest

from dpcda.experiments.config import ExperimentConfig
from dpcda.experiments.run import experiment_config, normalize
from dpcda.jobs.db import config_hash
from dpcda.jobs.store import JobStore
from dpcda.training import TrainConfig

# The deduplication keys of these configs (first pinned at commit fa39405, before
# ExperimentConfig existed; re-pinned with EXPERIMENT_VERSION 4, when DP-CDA's defaults became
# the whole-record accountant and the equal allocation; with 5, when the default allocation
# became proportional). A change here means stored results are
# no longer reused: only ever together with a bump of EXPERIMENT_VERSION.
PINNED = [
    ({"dataset": "digits", "epsilon": 10, "l": 4},
     "a83bcf4119ad7f55fae66d2d742291ecbc2e1bb5d3845acd55dd1433503edebc"),
    ({"dataset": "digits", "sigma": 0.5, "l": 2, "model": "linear", "epochs": 2},
     "643686ba8b017257a7802a139f9b8a78b9cfe53ac522b12f51c05e7f5ec7cff3"),
    ({"dataset": "digits", "mechanism": "local", "epsilon": 5},
     "43ab7cfeb203649e0f1a541a380a1dda6d0485bc6e09b405b5af17b3d3e87147"),
    ({"dataset": "digits", "epsilon": 10, "l": 4, "allocation": "proportional", "T": 500},
     "d125e27409bd421d8ee42087b4c08239823b51153e42793e9e0626955f326053"),
    ({"dataset": "digits", "epsilon": "inf", "l": 3},
     "a97d13cc3735abc341cd46f8132ee405f7947e230789b91152278448e08830da"),
    ({"dataset": "digits", "mechanism": "random-projection", "epsilon": 8, "p": 20},
     "9aca04c5bad23001ccbb1bc90e2610fe74b234e5e97e74075102f12eaa017f2a"),
]


@pytest.mark.parametrize("raw,key", PINNED, ids=[str(i) for i in range(len(PINNED))])
def test_typed_config_keeps_the_stored_json_and_its_hash(raw, key):
    cfg = experiment_config(raw)
    assert isinstance(cfg, ExperimentConfig) and isinstance(cfg.train, TrainConfig)
    assert cfg.to_json() == normalize(raw)  # key for key, in the same order
    assert list(cfg.to_json()) == list(normalize(raw))
    assert config_hash("experiment", cfg.to_json()) == key
    assert ExperimentConfig.from_json(cfg.to_json()) == cfg


def test_attributes_say_what_the_json_said():
    cfg = experiment_config({"dataset": "digits", "sigma": 0.5, "l": 2})
    assert (cfg.sigma, cfg.epsilon, cfg.private, cfg.l, cfg.mechanism) == (0.5, None, True, 2, "dp-cda")
    # the default (issue 26): proportional, stored (a stored config without it means equal)
    assert cfg.allocation == cfg.allocation_or_default == "proportional"
    assert cfg.to_json()["allocation"] == "proportional"
    equal = experiment_config({"dataset": "digits", "epsilon": 4, "allocation": "equal"})
    assert equal.allocation is None and equal.allocation_or_default == "equal"  # not stored
    assert "allocation" not in equal.to_json()
    off = experiment_config({"dataset": "digits", "sigma": 0})  # sigma 0 is stored as epsilon inf
    assert off.private is False and off.sigma is None and math.isinf(off.epsilon)
    prop = experiment_config({"dataset": "digits", "epsilon": 4, "allocation": "proportional"})
    assert prop.allocation == "proportional" and prop.to_json()["allocation"] == "proportional"


def test_a_config_stored_in_sqlite_reads_back_unchanged(tmp_path):
    store = JobStore(tmp_path / "jobs.sqlite3")
    raw, key = PINNED[1]
    store.submit("experiment", raw)
    row = sqlite3.connect(str(tmp_path / "jobs.sqlite3")).execute(
        "SELECT config_hash FROM jobs").fetchone()
    assert row[0] == key
    stored = store.jobs()[0].config
    assert ExperimentConfig.from_json(stored).to_json() == stored == normalize(raw)


def test_from_json_refuses_an_unknown_key():
    good = normalize({"dataset": "digits", "epsilon": 10})
    with pytest.raises(ValueError, match=r"unknown experiment config key\(s\): colour"):
        ExperimentConfig.from_json({**good, "colour": "red"})
    with pytest.raises(ValueError, match="dataset must be a dataset name"):
        ExperimentConfig.from_json({**good, "dataset": 3})
