"""DP-MERF: shapes, data card, accounting, that the generator learns, bad input."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from mech_data import make_blocks

from dpcda.data import Dataset
from dpcda.mechanisms import (
    MECHANISMS,
    generate,
    generate_dp_merf,
    generate_from_dataset,
)
from dpcda.mechanisms.dp_merf import noise_plan
from dpcda.mechanisms.release import FORBIDDEN_CARD_KEYS
from dpcda.privacy.gaussian import gaussian_epsilon

FAST = {"n_features": 200, "steps": 60, "batch_size": 64, "hidden": (32,), "device": "cpu"}
BOUNDS = (0.0, 2.0)  # make_blocks' public range


def _keys(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _keys(v)


def test_release_shapes_and_card(blocks):
    X, y = blocks
    rel = generate_dp_merf(X, y, epsilon=2.0, delta=1e-5, bounds=BOUNDS, T=97,
                           dataset="blocks", **FAST)  # unseeded: a seeded card is not private
    assert rel.X.shape == (97, X.shape[1]) and rel.y.shape == (97,)
    assert rel.y_soft.shape == (97, 4)
    np.testing.assert_array_equal(rel.y_soft.argmax(1), rel.y)
    assert np.all(np.linalg.norm(rel.X, axis=1) <= 1.0 + 1e-5)  # clipped to c = 1
    assert rel.X.min() >= 0.0  # the sigmoid keeps scaled features in [0, 1]
    card = rel.card
    assert card["algorithm"] == "dp-merf"
    priv = card["privacy"]
    assert priv["accountant"] == "embedding-gaussian" and priv["private"]
    assert priv["valid_bound"] is True
    assert priv["epsilon"] <= 2.0 and priv["epsilon"] == pytest.approx(2.0, rel=1e-6)
    assert "replaced by any other" in priv["relation"]
    assert card["data"]["class_counts"] is None  # exact counts are private here
    assert card["normalization"]["covered_by_guarantee"] is True
    assert sum(card["release"]["samples_per_class"]) == 97
    assert not {k.lower() for k in _keys(card)} & FORBIDDEN_CARD_KEYS
    assert not re.search(r"\bseed\b", rel.card_json())


def test_noise_follows_the_sensitivity_and_the_split():
    N = 1000
    plan = noise_plan(N=N, epsilon=1.0, noise_multiplier=None, delta=1e-5, labels="private",
                      count_share=0.05)
    mu_e = 2.0 / (N * plan["embedding_noise_std"])  # sensitivity 2/N over the noise std
    mu_n = math.sqrt(2.0) / plan["count_noise_std"]  # sensitivity sqrt(2) over the noise std
    assert math.hypot(mu_e, mu_n) == pytest.approx(plan["mu"])
    assert mu_n ** 2 == pytest.approx(0.05 * plan["mu"] ** 2)
    assert gaussian_epsilon(1 / plan["mu"], 1e-5) <= 1.0
    uni = noise_plan(N=N, epsilon=None, noise_multiplier=4.0, delta=1e-5, labels="uniform",
                     count_share=0.05)
    assert uni["count_noise_std"] is None
    assert uni["embedding_noise_std"] == pytest.approx(4.0 * 2.0 / N)


def test_non_private_setting_is_labelled(blocks):
    X, y = blocks
    rel = generate_dp_merf(X, y, noise_multiplier=0, bounds=BOUNDS, seed=1, **FAST)
    assert rel.card["privacy"]["private"] is False
    assert rel.card["privacy"]["epsilon"] is None
    assert "NON-PRIVATE" in rel.card["privacy"]["label"]


def test_uniform_labels_give_balanced_classes(blocks):
    X, y = blocks
    rel = generate_dp_merf(X, y, epsilon=1.0, labels="uniform", bounds=BOUNDS, T=400,
                           seed=2, **FAST)
    assert rel.card["release"]["samples_per_class"] == [100, 100, 100, 100]
    assert rel.card["parameters"]["count_noise_std"] is None


def test_seed_reproduces_and_os_randomness_differs(blocks):
    X, y = blocks
    a = generate_dp_merf(X, y, epsilon=5.0, bounds=BOUNDS, seed=3, **FAST)
    b = generate_dp_merf(X, y, epsilon=5.0, bounds=BOUNDS, seed=3, **FAST)
    c = generate_dp_merf(X, y, epsilon=5.0, bounds=BOUNDS, **FAST)
    np.testing.assert_array_equal(a.X, b.X)
    assert not np.array_equal(a.X, c.X)


def test_generator_learns_the_classes():
    """A learner trained on the release beats chance (0.25) clearly on fresh real data."""
    from dpcda.training import TrainConfig, train_and_evaluate

    X, y = make_blocks(per_class=(400, 400, 400, 400), seed=4)
    X_test, y_test = make_blocks(per_class=(100, 100, 100, 100), seed=5)
    rel = generate_dp_merf(X, y, epsilon=5.0, bounds=BOUNDS, seed=4, n_features=400, steps=200,
                           batch_size=128, hidden=(64,), device="cpu")
    out = train_and_evaluate(rel.X, rel.y, rel.preprocess(X_test), y_test,
                             config=TrainConfig(model="ncm", device="cpu"), seed=0)
    assert out["accuracy"] >= 0.9


def test_precision_is_recorded_and_both_learn():
    """float32 and bfloat16 products give releases of the same quality; the card says which."""
    from dpcda.training import TrainConfig, train_and_evaluate

    X, y = make_blocks(per_class=(300, 300, 300, 300), seed=6)
    X_test, y_test = make_blocks(per_class=(100, 100, 100, 100), seed=7)
    acc = {}
    for precision in ("float32", "bfloat16"):
        rel = generate_dp_merf(X, y, epsilon=5.0, bounds=BOUNDS, seed=6, n_features=400,
                               steps=150, batch_size=128, hidden=(64,), device="cpu",
                               precision=precision)
        assert rel.card["parameters"]["precision"] == precision
        out = train_and_evaluate(rel.X, rel.y, rel.preprocess(X_test), y_test,
                                 config=TrainConfig(model="ncm", device="cpu"), seed=0)
        acc[precision] = out["accuracy"]
    assert min(acc.values()) >= 0.9, acc
    auto = generate_dp_merf(X, y, epsilon=5.0, bounds=BOUNDS, seed=6, **FAST)
    assert auto.card["parameters"]["precision"] in ("float32", "bfloat16")


def test_registry_library_and_dataset_entry_points(blocks):
    X, y = blocks
    assert "dp-merf" in MECHANISMS and MECHANISMS.get("dp-merf").generate is generate_dp_merf
    rel = generate("dp-merf", X, y, epsilon=1.0, bounds=BOUNDS, seed=5, **FAST)
    assert rel.card["privacy"]["accountant"] == "embedding-gaussian"
    ds = Dataset(name="blocks", X_train=X, y_train=y, X_test=X[:10], y_test=y[:10],
                 class_names=("a", "b", "c", "d"), feature_bounds=BOUNDS)
    rel = generate_from_dataset(ds, "dp-merf", epsilon=1.0, seed=6, **FAST)
    assert rel.card["dataset"] == "blocks" and rel.card["data"]["class_names"] == ["a", "b", "c", "d"]


@pytest.mark.parametrize("kw, match", [
    ({"epsilon": 1.0, "noise_multiplier": 1.0}, "exactly one of epsilon"),
    ({}, "exactly one of epsilon"),
    ({"epsilon": -1.0}, "epsilon must be a finite number"),
    ({"noise_multiplier": -2.0}, "noise_multiplier must be a finite number"),
    ({"epsilon": 1.0, "n_features": 201}, "n_features must be even"),
    ({"epsilon": 1.0, "n_features": 0}, "n_features must be an integer"),
    ({"epsilon": 1.0, "labels": "public"}, "labels must be one of private, uniform"),
    ({"epsilon": 1.0, "count_share": 1.0}, "count_share must be a finite number in \\(0, 1\\)"),
    ({"epsilon": 1.0, "c": 0.0}, "c must be a finite number"),
    ({"epsilon": 1.0, "length_scale": -1.0}, "length_scale must be a finite number"),
    ({"epsilon": 1.0, "delta": 1.5}, "delta must be a finite number in"),
    ({"epsilon": 1.0, "T": 2}, "T must be an integer"),
    ({"epsilon": 1.0, "batch_size": 3}, "batch_size must be an integer"),
    ({"epsilon": 1.0, "hidden": 5}, "hidden must be a sequence"),
    ({"epsilon": 1.0, "normalize": "pca"}, "normalize must be one of"),
    ({"epsilon": 1.0, "precision": "half"}, "precision must be one of auto, float32, bfloat16"),
])
def test_bad_input_names_the_parameter(blocks, kw, match):
    X, y = blocks
    with pytest.raises(ValueError, match=match):
        generate_dp_merf(X, y, bounds=BOUNDS, **kw)


def test_bad_data_is_refused():
    with pytest.raises(ValueError, match="X must be finite"):
        generate_dp_merf(np.array([[np.nan, 1.0], [0.0, 1.0]]), np.array([0, 1]), epsilon=1.0)
    with pytest.raises(ValueError, match="at least 2 classes"):
        generate_dp_merf(np.ones((4, 2)), np.zeros(4, dtype=int), epsilon=1.0)
