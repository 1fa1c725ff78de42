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

# The deduplication keys of these configs before ExperimentConfig existed (computed at commit
# fa39405 with the same normalize). A change here means stored results are no longer reused:
# only ever together with a bump of EXPERIMENT_VERSION.
PINNED = [
    ({"dataset": "digits", "epsilon": 10, "l": 4},
     "e5318eeb9b2283fb42fee549cb4b6163bd6902430ee82982cc0651e5f7ca55d1"),
    ({"dataset": "digits", "sigma": 0.5, "l": 2, "model": "linear", "epochs": 2},
     "611404f316331ec376b306f514ff19ea89acd0573fa671f1ed766514b96416de"),
    ({"dataset": "digits", "mechanism": "local", "epsilon": 5},
     "0c9f9d492e8b260194f171c169296c0f27a4eda1b96fe7a31a384083fb7b403f"),
    ({"dataset": "digits", "epsilon": 10, "l": 4, "allocation": "proportional", "T": 500},
     "1642784acd4973067bd52b600409c423459db25ffca641808454ca50a1f136b6"),
    ({"dataset": "digits", "epsilon": "inf", "l": 3},
     "3384491f0f817808b2ae1c8012f00495765698f6b94d1a078a78b58363d9272d"),
    ({"dataset": "digits", "mechanism": "random-projection", "epsilon": 8, "p": 20},
     "898cba7463d764a3a5a45b9a4907e861c5dce51ae782cb3ebd3120c3695d8651"),
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
    assert cfg.allocation == "proportional"  # the generator's default, stored
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
