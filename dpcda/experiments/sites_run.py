"""The three modes across sites, measured: split a dataset's training split into S sites,
release ``centralized``, ``cape`` and ``local`` (:func:`dpcda.mechanisms.cape.generate_sites`),
train the project's default learner on each release and test on the real test split
(preprocessed like the releases: the public normalisation and the clip norm), as
:func:`dpcda.experiments.run.run_experiment` does for one release.

Returns plain JSON: per mode the mean accuracy over ``runs``, the epsilon towards an outside
reader with its accountant, every threat model's epsilon, and the release seconds (mean).
"""

from __future__ import annotations

import time

SITES_MODES = ("centralized", "cape", "local")


def _train(release, ds, X_test, cfg, model: str, mode: str) -> float:
    """The learner on one release, tested on the real test split. The noise-aware learners get
    what :func:`dpcda.experiments.run.run_experiment` gives them from a card: the public noise
    (``local``: the sites' mean variance, as their union mixes them), and for QDA the mixing
    factors ``f_k`` (the pooled class sizes, which every mode treats as public; ``local``: the
    large-class limit ``1 / l``, its per-site sizes differing)."""
    from dpcda.training import TrainConfig, train_and_evaluate

    X_test = release.preprocess(X_test)
    params = release.card.get("parameters", {})
    train = {**cfg.train.to_dict(), "model": model, "n_classes": ds.n_classes}
    sigma_x = params.get("sigma_x")
    sx_sites = params.get("sigma_x_per_site")
    if sigma_x is None and sx_sites:  # local: the union's sites differ; their mean variance
        sigma_x = (sum(s * s for s in sx_sites) / len(sx_sites)) ** 0.5
    if model in ("lda", "qda"):  # the noise-aware learners remove the public noise variance
        train["noise_std"] = float(sigma_x or 0.0)
    if model == "lda":
        train["label_noise_std"] = float(params.get("sigma_y") or sigma_x or 0.0)
    if model == "qda" and train.get("mix_factors") is None:
        from dpcda.training.qda import mixing_factors

        train["mix_factors"] = (tuple(float(f) for f in mixing_factors(cfg.l, ds.class_counts))
                                if mode != "local" else (1.0 / cfg.l,) * ds.n_classes)
    image_shape = ds.image_shape if release.X.shape[1] == ds.d_x else None
    out = train_and_evaluate(release.X, release.y, X_test, ds.y_test, y_soft=release.y_soft,
                             image_shape=image_shape, config=TrainConfig.from_dict(train))
    return float(out["accuracy"])


def run_sites(*, dataset: str, sites: int, split: str = "iid", epsilon: float, runs: int = 1,
              l: int = 4, T: int | None = None, delta: float = 1e-5, alpha: float = 0.5,
              column: int | None = None, colluding=None,
              modes=SITES_MODES, normalize: str = "scale") -> dict:
    """``{mode: {"accuracy", "epsilon", "accountant", "threat_models", "release_seconds", ...}}``
    (and the setting: learner, sites, split, l, T, runs). ``colluding``: the ``t`` reported
    for threat model (c) (default :func:`dpcda.mechanisms.cape.default_colluding`).
    ``normalize``: one of :data:`dpcda.mechanisms.cape.SITE_NORMALIZE` (default ``scale``)."""
    from dpcda.data import load_dataset
    from dpcda.data.presets import default_clip_norm
    from dpcda.experiments.run import experiment_config, resolve_model
    from dpcda.mechanisms.cape import SITE_NORMALIZE, check_colluding, generate_sites
    from dpcda.mechanisms.sites import SPLITS, check_sites_for, split_sites
    from dpcda.mechanisms.validation import check_float, check_int

    if normalize not in SITE_NORMALIZE:  # refused before any data is read or released
        raise ValueError(f"normalize must be one of {', '.join(SITE_NORMALIZE)} across sites, "
                         f"got normalize={normalize!r}")
    runs = check_int("runs", runs, 1)
    sites = check_int("sites", sites, 1)
    if split not in SPLITS:  # refused before any data is read or released
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got split={split!r}")
    if split == "skewed":
        check_float("alpha", alpha, lo=0.0, lo_open=True, why=" (the Dirichlet concentration)")
    if colluding is not None:
        colluding = check_colluding(colluding, sites)
    cfg = experiment_config({"dataset": dataset, "epsilon": epsilon, "l": l, "delta": delta})
    model = resolve_model({"dataset": dataset, "epsilon": epsilon}, cfg.train.model)
    ds = load_dataset(dataset)
    T = ds.n_train if T is None else check_int("T", T, 1)
    bounds = getattr(ds, "feature_bounds", None)
    X_test = ds.X_test
    if split == "by-column" and column is not None:  # the site column is no feature
        import numpy as np

        X_test = np.delete(np.asarray(X_test).reshape(len(X_test), -1), column, axis=1)
    out: dict = {m: {"accuracies": [], "release_seconds": []} for m in modes}
    for _ in range(runs):
        placed = split_sites(ds.X_train, ds.y_train, sites=sites, split=split, alpha=alpha,
                             column=column, n_classes=ds.n_classes)
        for mode in modes:  # check every mode before any release (nothing half-run)
            check_sites_for(placed, cfg.l, every_site=mode == "local")
        for mode in modes:
            t0 = time.perf_counter()
            rel = generate_sites(placed, mode=mode, l=cfg.l, T=T, epsilon=epsilon, delta=delta,
                                 c=default_clip_norm(dataset), normalize=normalize, bounds=bounds,
                                 dataset=dataset, colluding=colluding)
            out[mode]["release_seconds"].append(time.perf_counter() - t0)
            out[mode]["accuracies"].append(_train(rel, ds, X_test, cfg, model, mode))
            p = rel.card["privacy"]
            out[mode].update(epsilon=p["epsilon"], accountant=p["accountant"],
                             threat_models=p["threat_models"])
    for mode in modes:
        r = out[mode]
        r["accuracy"] = sum(r["accuracies"]) / runs
        r["release_seconds"] = sum(r["release_seconds"]) / runs
        r.update(learner=model, sites=int(sites), split=split, l=cfg.l, T=T, runs=runs)
    return out
