"""The non-private ceiling of a learner: trained on the real training data of a dataset,
normalised and clipped exactly as a DP-CDA release of it is (the registry's default
normalisation and clip norm c), no mixing and no noise; scored on the real test split.

``benchmarks/baselines.py`` measures it once per (dataset, learner) and ships it in
``dpcda/evaluation/baselines.csv`` (read by :func:`dpcda.evaluation.baselines.baseline`).
"""

from __future__ import annotations


def measure_ceiling(ds, learner: str, *, runs: int = 1) -> dict:
    """``runs`` accuracies of ``learner`` trained on ``ds``'s real training split:
    :func:`dpcda.experiments.frontier.summarize` of them (runs, mean, std, min, max)."""
    from dpcda.data.preprocess import normalize_and_clip
    from dpcda.data.presets import default_clip_norm
    from dpcda.data.registry import DATASETS
    from dpcda.experiments.frontier import summarize
    from dpcda.mechanisms import MECHANISMS
    from dpcda.training import TrainConfig, train_and_evaluate
    from dpcda.training.models import list_models

    if learner not in list_models():
        raise ValueError(f"learner must be one of {', '.join(list_models())}, got learner={learner!r}")
    if not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an integer >= 1, got runs={runs!r}")
    method = MECHANISMS.get("dp-cda").default_normalize
    c = default_clip_norm(ds.name) if ds.name in DATASETS.names() else 1.0
    X_train, X_test, _ = normalize_and_clip(ds.X_train, ds.X_test, method, c=c,
                                            bounds=getattr(ds, "feature_bounds", None))
    epochs = DATASETS.get(ds.name).epochs if ds.name in DATASETS.names() else 5
    config = TrainConfig.from_dict(dict(model=learner, n_classes=ds.n_classes, epochs=epochs))
    accuracies = [train_and_evaluate(X_train, ds.y_train, X_test, ds.y_test, image_shape=ds.image_shape,
                                     config=config)["accuracy"] for _ in range(runs)]
    return summarize(accuracies)
