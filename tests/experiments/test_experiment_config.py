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
# the whole-record accountant and the equal allocation). A change here means stored results are
# no longer reused: only ever together with a bump of EXPERIMENT_VERSION.
PINNED = [
    ({"dataset": "digits", "epsilon": 10, "l": 4},
     "bcafaea3b89b64031da32fb72208032ddc11392d7783b164184261c6a91db3ca"),
    ({"dataset": "digits", "sigma": 0.5, "l": 2, "model": "linear", "epochs": 2},
     "2213939daf258d9a7f9ca37afaf11281ad8bba1d14ec7b23ca6365028b6d7b1f"),
    ({"dataset": "digits", "mechanism": "local", "epsilon": 5},
     "f090b57749b0328db8f51e7006899db69278a81541f3f5699d61520bc4a70c36"),
    ({"dataset": "digits", "epsilon": 10, "l": 4, "allocation": "proportional", "T": 500},
     "4bd06ac03967a5935b193b619cb7781debbe2b55d7c6c800fdfdba3a596e97e6"),
    ({"dataset": "digits", "epsilon": "inf", "l": 3},
     "e20ff984264d8ba26a47c76469ac12114f55aa7b816f363dc2d31aa4f34b0f97"),
    ({"dataset": "digits", "mechanism": "random-projection", "epsilon": 8, "p": 20},
     "07c05034f7522da049223a2fb075bd274bb063df20695ce80273f902de8c4d07"),
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
    assert cfg.allocation is None and cfg.allocation_or_default == "equal"  # the default: not stored
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
