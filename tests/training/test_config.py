"""TrainConfig validation: every bad value raises ValueError naming the field."""

import dataclasses

import pytest

from dpcda.training import TrainConfig


def test_defaults_are_valid_and_frozen():
    cfg = TrainConfig()
    assert cfg.model == "cnn" and cfg.lr == 1e-3 and cfg.epochs >= 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.epochs = 3  # type: ignore[misc]


@pytest.mark.parametrize("field,value", [
    ("epochs", 0), ("epochs", 2.5), ("epochs", True), ("batch_size", 0), ("batch_size", -3),
    ("lr", 0.0), ("lr", -1e-3), ("lr", float("nan")), ("lr", "fast"), ("weight_decay", -1.0),
    ("model", "resnet"), ("label_mode", "fuzzy"), ("scheduler", "linear"), ("cnn_norm", "layer"),
    ("input_scale", "auto"), ("input_scale", 0.0), ("clip_norm", 0.0), ("denoise_sigma", -1.0),
    ("eval_noise_std", -0.1), ("eval_noise_draws", 0), ("eval_batch_size", 0),
    ("device", "tpu"), ("n_classes", 1), ("class_prior", (1.0,)), ("class_prior", (0.5, -0.5)),
    ("tree_max_depth", -1), ("tree_min_samples_leaf", 0), ("step_epochs", 0), ("amp", "yes"),
])
def test_bad_value_names_the_field(field, value):
    with pytest.raises(ValueError, match=rf"\b{field}\b") as info:
        TrainConfig(**{field: value})
    assert repr(value) in str(info.value) or field == "class_prior"


def test_model_error_lists_known_models():
    with pytest.raises(ValueError, match="cnn.*linear.*ncm"):
        TrainConfig(model="resnet")


def test_soft_labels_refused_for_tree():
    with pytest.raises(ValueError, match="label_mode"):
        TrainConfig(model="tree", label_mode="soft")


def test_dict_round_trip_and_unknown_keys():
    cfg = TrainConfig(model="linear", epochs=2, class_prior=(0.76, 0.24), input_scale=3.0)
    d = cfg.to_dict()
    assert d["class_prior"] == [0.76, 0.24]
    assert TrainConfig.from_dict(d) == cfg
    with pytest.raises(ValueError, match="unknown TrainConfig field.*epoch\\b"):
        TrainConfig.from_dict({"epoch": 3})
