"""The ``experiment`` job kind: one point of an accuracy sweep, from a plain-JSON config.

load data -> normalize + clip -> calibrate sigma for (epsilon, delta) -> generate a release
-> train on it -> evaluate on the real test split -> result dict.

This module is the only place where the job runner touches :mod:`dpcda.data`,
:mod:`dpcda.privacy`, :mod:`dpcda.mechanisms` and :mod:`dpcda.training` (all imported inside
the functions, so importing it costs nothing). The random seed of a release is drawn fresh
from the OS and never stored or logged; results carry accuracy, the noise scale and the
accountant, never the noise.
"""

from __future__ import annotations

import math
import time
from typing import Any

from dpcda.jobs.kinds import JobContext, register_kind

# Bump when the meaning of a config or the experiment pipeline changes: results stored under
# an older version are then not reused for new submissions.
EXPERIMENT_VERSION = 1

DEFAULTS: dict[str, Any] = {
    "dataset": None, "mechanism": "dp-cda", "epsilon": math.inf, "delta": 1e-5, "l": 1, "run": 0,
    "T": None,  # None: T = N, the training split's size
    "c": 1.0, "accountant": "paper", "conversion": "mironov", "ratio": 1.0, "max_alpha": 256,
    "normalization": "zscore",
}
# TrainConfig fields that may also be given at the top level of a config, for convenience.
TRAIN_SHORTCUTS = ("model", "epochs", "batch_size", "lr", "label_mode", "denoise_sigma", "device")


def max_l_for(dataset: str) -> tuple[int | None, str]:
    """The largest admissible l (the smallest class) from the public presets, if known."""
    from dpcda.presets import PRESETS

    if dataset in PRESETS:
        counts = PRESETS.get(dataset).class_counts
        return min(counts), f" (the smallest class of {dataset})"
    return None, ""


def _num(cfg: dict, key: str, *, lo: float, strict: bool = False, inf_ok: bool = False,
         integer: bool = False) -> None:
    """Check cfg[key] is a number >= lo (> lo if strict); store it as int or float."""
    v = cfg[key]
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)
    ok = ok and (inf_ok or math.isfinite(v)) and (v > lo if strict else v >= lo)
    ok = ok and (not integer or (math.isfinite(v) and float(v).is_integer()))
    if not ok:
        what = "an integer" if integer else "a number"
        bound = f"> {lo:g}" if strict else f">= {lo:g}"
        raise ValueError(f"{key} must be {what} {bound}{' (or inf)' if inf_ok else ''}, got {key}={v!r}")
    cfg[key] = int(v) if integer else float(v)


def normalize(config: dict) -> dict:
    """Fill in defaults and validate; the result is what is hashed for deduplication."""
    from dpcda.training import TrainConfig

    cfg = dict(config)
    train = dict(cfg.pop("train", None) or {})
    for key in TRAIN_SHORTCUTS:
        if key in cfg:
            train[key] = cfg.pop(key)
    unknown = sorted(set(cfg) - set(DEFAULTS) - {"experiment_version"})
    if unknown:
        raise ValueError(f"unknown experiment config key(s): {', '.join(unknown)}; known: "
                         f"{', '.join(sorted(DEFAULTS))}, train, {', '.join(TRAIN_SHORTCUTS)}")
    cfg = {**DEFAULTS, **cfg}
    if not isinstance(cfg["dataset"], str) or not cfg["dataset"]:
        raise ValueError(f"dataset must be a dataset name, got dataset={cfg['dataset']!r}")
    if isinstance(cfg["epsilon"], str) and cfg["epsilon"].strip().lower() in ("inf", "infinity"):
        cfg["epsilon"] = math.inf
    _num(cfg, "epsilon", lo=0, strict=True, inf_ok=True)
    _num(cfg, "delta", lo=0, strict=True)
    if not cfg["delta"] < 1:
        raise ValueError(f"delta must be in (0, 1), got delta={cfg['delta']!r}")
    _num(cfg, "l", lo=1, integer=True)
    max_l, what = max_l_for(cfg["dataset"])
    if max_l is not None and cfg["l"] > max_l:
        raise ValueError(f"l must be an integer in [1, {max_l}]{what}, got l={cfg['l']}")
    _num(cfg, "run", lo=0, integer=True)
    if cfg["T"] is not None:
        _num(cfg, "T", lo=1, integer=True)
    for key in ("c", "ratio"):
        _num(cfg, key, lo=0, strict=True)
    _num(cfg, "max_alpha", lo=3, integer=True)
    for key in ("mechanism", "accountant", "conversion", "normalization"):
        if not isinstance(cfg[key], str):
            raise ValueError(f"{key} must be a name, got {key}={cfg[key]!r}")
    train["clip_norm"] = cfg["c"]  # the training loop's input scaling uses the clip norm
    cfg["train"] = TrainConfig.from_dict(train).to_dict()  # ValueError names a bad field
    cfg["experiment_version"] = EXPERIMENT_VERSION
    return cfg


def _calibrate(cfg: dict, ds, T: int) -> dict:
    """sigma_x, sigma_y for the target epsilon (0 for epsilon = inf) and what it achieves."""
    if math.isinf(cfg["epsilon"]):
        return dict(sigma_x=0.0, sigma_y=0.0, epsilon=math.inf, alpha=None, warnings=[])
    from dpcda.privacy import calibrate

    cal = calibrate(epsilon=cfg["epsilon"], delta=cfg["delta"], l=cfg["l"], c=cfg["c"], T=T,
                    n=ds.n_train, class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.n_classes,
                    accountant=cfg["accountant"], conversion=cfg["conversion"], ratio=cfg["ratio"],
                    max_alpha=cfg["max_alpha"])
    warnings = list(getattr(getattr(cal, "result", None), "warnings", ()) or ())
    return dict(sigma_x=float(cal.sigma_x), sigma_y=float(cal.sigma_y), epsilon=float(cal.epsilon),
                alpha=cal.alpha, warnings=warnings)


def _generate(cfg: dict, X, y, *, T: int, sigma_x: float, sigma_y: float, n_classes: int):
    """The release (X, y, y_soft) from the configured mechanism. Only DP-CDA is wired here."""
    import numpy as np

    from dpcda.mechanisms import get_generator

    gen = get_generator(cfg["mechanism"])
    rng = np.random.default_rng()  # fresh OS entropy; never recorded
    return gen(X, y, l=cfg["l"], T=T, c=cfg["c"], sigma_x=sigma_x, sigma_y=sigma_y,
               n_classes=n_classes, rng=rng)


@register_kind("experiment", normalize=normalize)
def run_experiment(config: dict, ctx: JobContext | None = None) -> dict:
    """Run one experiment point; returns a plain-JSON result (see the module docstring)."""
    from dpcda.data import load_dataset, normalize_and_clip
    from dpcda.training import TrainConfig, train_and_evaluate

    ctx = ctx or JobContext()
    cfg = normalize(config)
    t0 = time.perf_counter()
    ctx.message("loading data")
    ds = load_dataset(cfg["dataset"])
    bounds = ds.feature_bounds if cfg["normalization"] == "scale" else None
    X_train, X_test, norm = normalize_and_clip(ds.X_train, ds.X_test, cfg["normalization"],
                                               c=cfg["c"], bounds=bounds)
    T = cfg["T"] or ds.n_train
    ctx.message("calibrating noise")
    noise = _calibrate(cfg, ds, T)
    ctx.check_cancelled()
    ctx.message("generating the release")
    t_gen = time.perf_counter()
    release = _generate(cfg, X_train, ds.y_train, T=T, sigma_x=noise["sigma_x"],
                        sigma_y=noise["sigma_y"], n_classes=ds.n_classes)
    gen_seconds = time.perf_counter() - t_gen
    del X_train
    ctx.check_cancelled()
    ctx.message("training")
    train_cfg = TrainConfig.from_dict({**cfg["train"], "n_classes": ds.n_classes})
    out = train_and_evaluate(release.X, release.y, X_test, ds.y_test, y_soft=release.y_soft,
                             image_shape=ds.image_shape, config=train_cfg, on_epoch=ctx.on_epoch)
    return {
        "accuracy": out.get("accuracy"), "per_epoch": out.get("per_epoch", []),
        "epochs_run": out.get("epochs_run"), "cancelled": bool(out.get("cancelled", False)),
        "device": out.get("device"), "train_seconds": out.get("train_seconds"),
        "generate_seconds": gen_seconds, "seconds": time.perf_counter() - t0,
        "sigma_x": noise["sigma_x"], "sigma_y": noise["sigma_y"], "epsilon": noise["epsilon"],
        "epsilon_target": cfg["epsilon"], "alpha": noise["alpha"], "delta": cfg["delta"],
        "accountant": cfg["accountant"], "conversion": cfg["conversion"],
        "private": not math.isinf(cfg["epsilon"]), "privacy_warnings": noise["warnings"],
        "T": T, "n_synthetic": int(len(release.y)), "n_train": ds.n_train, "n_test": ds.n_test,
        **norm.card(),
    }
