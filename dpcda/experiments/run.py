"""The ``experiment`` job kind: one point of an accuracy sweep, from a plain-JSON config.

load data -> generate a release (the generator normalizes + clips, calibrates sigma for the
target (epsilon, delta) under the chosen accountant, mixes and adds noise) -> preprocess the
real test split exactly like the training data -> train on the release -> evaluate -> result.

This module is the only place where the job runner touches :mod:`dpcda.data`,
:mod:`dpcda.mechanisms` and :mod:`dpcda.training` (imported inside the functions, so
importing it costs nothing). The release's randomness comes from the OS and is never stored
or logged; results carry accuracy, the noise scale and the accountant, never the noise.
"""

from __future__ import annotations

import inspect
import math
import time
from typing import Any

from dpcda.experiments.config import DEFAULT_MECHANISM, EXPERIMENT_ALLOCATION, ExperimentConfig
from dpcda.jobs.kinds import JobContext, register_kind

# Bump when the meaning of a config or the experiment pipeline changes: results stored under
# an older version are then not reused for new submissions.
EXPERIMENT_VERSION = 5  # 2: noise-aware LDA also undoes DP-CDA's label noise; 3: DPMix/local
# clip to c under dpmix-clipped, DPPro's valid gaussian accountant, defaults from the registry;
# 4: DP-CDA's default accountant is whole-record and its default allocation equal; 5: its
# default allocation proportional (to the public class bounds under whole-record; issue 26)


DEFAULTS: dict[str, Any] = {
    "dataset": None, "mechanism": DEFAULT_MECHANISM, "epsilon": math.inf, "delta": 1e-5, "l": 1, "run": 0,
    "T": None,  # None: T = N, the training split's size
    "c": None,  # None: the dataset's default clip norm (dpcda.data.presets.default_clip_norm; 1.0 but Adult)
    "accountant": None,  # None: the mechanism's first accountant (a valid bound; DP-CDA: DEFAULT_ACCOUNTANT)
    "conversion": "mironov", "ratio": 1.0, "max_alpha": 256,
    "normalization": None,  # None: the mechanism's default normalisation
    # DP-CDA only: "equal" (floor(T/K) per class) or "proportional" (floor(T N_k/N)); None:
    # EXPERIMENT_ALLOCATION. Absent from a normalized config when "equal" (so configs stored
    # before it existed keep their deduplication keys).
    "allocation": None,
    "p": None,  # random-projection only: projection width (None: min(100, d))
    # "sigma": a fixed noise scale sigma_x (sigma_y = ratio * sigma_x) instead of a target epsilon;
    # the accountant then reports the epsilon it gives. Absent from a normalized config when not
    # used (so configs stored before it existed keep their deduplication keys).
    "sigma": None,
}
# TrainConfig fields that may also be given at the top level of a config, for convenience.
TRAIN_SHORTCUTS = ("model", "epochs", "batch_size", "lr", "label_mode", "denoise_sigma", "device")


def max_l_for(dataset: str, mechanism: str = "dp-cda") -> tuple[int | None, str]:
    """The largest admissible l from the public presets, if known: the smallest class for a
    mechanism that mixes within a class (its registry entry's ``l_bound``), N for the others."""
    from dpcda.mechanisms import MECHANISMS
    from dpcda.data.presets import PRESETS

    if dataset not in PRESETS:
        return None, ""
    counts = PRESETS.get(dataset).class_counts
    if MECHANISMS.get(mechanism).l_bound == "class":
        return min(counts), f" (the smallest class of {dataset})"
    return sum(counts), f" (the size of {dataset})"


def _num(cfg: dict, key: str, *, lo: float, strict: bool = False, inf_ok: bool = False,
         integer: bool = False) -> None:
    """Check cfg[key] with the shared checks (:mod:`dpcda.util.checks`); store it as int or float."""
    from dpcda.util.checks import check_float, check_int

    v = cfg[key]
    if inf_ok and isinstance(v, float) and v == math.inf:
        return
    why = " (or inf)" if inf_ok else ""
    cfg[key] = check_int(key, v, int(lo), why=why) if integer else \
        check_float(key, v, lo=lo, lo_open=strict, why=why)


def _mechanism_checks(cfg: dict, *, stored: bool = False) -> None:
    """Resolve the mechanism's defaults (accountant, normalization, allocation) and reject what
    it cannot do. ``stored``: the config was normalized before (a missing allocation then means
    "equal", what every config stored before the setting existed used)."""
    from dpcda.mechanisms import MECHANISMS, NORMALIZE_CHOICES

    mech = MECHANISMS.get(cfg["mechanism"])  # ValueError listing the known ones
    params = mech.param_names
    cfg["accountant"] = mech.check_accountant(cfg["accountant"])
    if cfg["normalization"] is None:
        from dpcda.mechanisms import default_normalization_for

        cfg["normalization"] = default_normalization_for(cfg["dataset"], mech.name,
                                                         cfg["accountant"])
    choices = mech.param("normalize").choices or NORMALIZE_CHOICES
    if cfg["normalization"] not in choices:
        raise ValueError(f"normalization must be one of {', '.join(choices)} for "
                         f"mechanism={mech.name!r}, got normalization={cfg['normalization']!r}")
    if "allocation" in params:
        if cfg["allocation"] is None:  # stored before version 5 without the key: equal
            cfg["allocation"] = "equal" if stored else EXPERIMENT_ALLOCATION
        cfg["allocation"] = mech.param("allocation").check(cfg["allocation"])
    elif cfg["allocation"] is not None:
        raise ValueError(f"allocation applies to dp-cda only (it splits T over the classes), got "
                         f"allocation={cfg['allocation']!r} for mechanism={mech.name!r}")
    if not mech.mixes and cfg["l"] != 1:
        raise ValueError(f"l must be 1 for mechanism={mech.name!r} (it does not mix), got l={cfg['l']}")
    if not mech.noise_scale and cfg["sigma"] is not None:
        raise ValueError(f"sigma applies to mechanisms with a Gaussian noise scale, not "
                         f"mechanism={mech.name!r}; give a target epsilon instead")
    if (not mech.noise_scale and "noise_multiplier" not in params and cfg["epsilon"] is not None
            and math.isinf(cfg["epsilon"])):  # no declared way to release without noise
        raise ValueError(f"epsilon must be finite for mechanism={mech.name!r}, got epsilon=inf")
    if cfg["p"] is not None:
        if "p" not in params:
            raise ValueError(f"p does not apply to mechanism={mech.name!r} (its parameters: "
                             f"{', '.join(params)}), got p={cfg['p']!r}")
        _num(cfg, "p", lo=1, integer=True)


def resolve_model(cfg: dict, model: Any) -> Any:
    """``model="auto"`` -> the mechanism's declared learner (its registry entry), or where it
    declares ``"auto"`` the project's rule for this dataset and privacy setting, from public
    metadata only (:func:`dpcda.training.default_model`); other values pass through.

    Unregistered names count as tabular; where a mechanism's output is flat (a projection)
    an image model, and where it does not mix within a class the noise-aware QDA, is swapped
    for the noise-aware LDA.
    """
    from dpcda.mechanisms import MECHANISMS
    from dpcda.training import AUTO, default_model, model_spec

    if model != AUTO:
        return model
    mech = MECHANISMS.get(cfg.get("mechanism", DEFAULT_MECHANISM))
    if mech.learner != AUTO:
        return mech.learner
    image_shape = None
    try:
        from dpcda.data import get_dataset_spec

        spec = get_dataset_spec(cfg["dataset"])  # its image shape: public, declared by its module
        if spec.kind == "image":
            image_shape = spec.image_shape
    except ValueError:
        pass  # not a registered dataset: treated as tabular (loading it fails later anyway)
    private = is_private(cfg)
    chosen = default_model(dataset=cfg["dataset"], image_shape=image_shape, private=private)
    if (mech.flat_output and model_spec(chosen).needs_image) or (
            chosen == "qda" and mech.l_bound != "class"):
        chosen = "lda"  # QDA models within-class mixing (f_k from l and n_k): DP-CDA's only
    return chosen


def is_private(cfg) -> bool:
    """Whether a (validated) config asks for noise: a fixed sigma > 0 or a finite target epsilon
    (an :class:`ExperimentConfig` says it as ``cfg.private``; a dict while it is normalized)."""
    if isinstance(cfg, ExperimentConfig):
        return cfg.private
    if cfg.get("sigma") is not None:
        return cfg["sigma"] > 0
    return not math.isinf(cfg.get("epsilon", math.inf))


def _privacy_choice(cfg: dict, given: dict) -> None:
    """Exactly one of a target ``epsilon`` or a fixed ``sigma``; ``sigma = 0`` is the
    non-private setting and is stored as ``epsilon = inf`` (one dedup key for both)."""
    if cfg["sigma"] is None:
        if isinstance(cfg["epsilon"], str) and cfg["epsilon"].strip().lower() in ("inf", "infinity"):
            cfg["epsilon"] = math.inf
        _num(cfg, "epsilon", lo=0, strict=True, inf_ok=True)
        return
    if given.get("epsilon") is not None:
        raise ValueError("give either a target epsilon (sigma is calibrated) or a fixed sigma (the "
                         f"accountant reports epsilon), not both; got epsilon={given['epsilon']!r}, "
                         f"sigma={cfg['sigma']!r}")
    _num(cfg, "sigma", lo=0)
    if cfg["sigma"] == 0:
        cfg["sigma"], cfg["epsilon"] = None, math.inf
    else:
        cfg["epsilon"] = None  # not a target: the accountant reports it (result "epsilon")


def normalize(config: dict) -> dict:
    """Fill in defaults and validate; the result is what is hashed for deduplication.

    ``model`` defaults to ``"auto"``, resolved here (before hashing) to a concrete learner.
    """
    from dpcda.training import AUTO, TrainConfig

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
    _privacy_choice(cfg, config)
    _num(cfg, "delta", lo=0, strict=True)
    if not cfg["delta"] < 1:
        raise ValueError(f"delta must be in (0, 1), got delta={cfg['delta']!r}")
    _num(cfg, "l", lo=1, integer=True)
    _num(cfg, "run", lo=0, integer=True)
    if cfg["T"] is not None:
        _num(cfg, "T", lo=1, integer=True)
    if cfg["c"] is None:
        from dpcda.data.presets import default_clip_norm

        cfg["c"] = default_clip_norm(cfg["dataset"])
    for key in ("c", "ratio"):
        _num(cfg, key, lo=0, strict=True)
    _num(cfg, "max_alpha", lo=3, integer=True)
    for key in ("mechanism", "conversion"):
        if not isinstance(cfg[key], str):
            raise ValueError(f"{key} must be a name, got {key}={cfg[key]!r}")
    _mechanism_checks(cfg, stored="experiment_version" in config)
    max_l, what = max_l_for(cfg["dataset"], cfg["mechanism"])
    if max_l is not None and cfg["l"] > max_l:
        raise ValueError(f"l must be an integer in [1, {max_l}]{what}, got l={cfg['l']}")
    train["model"] = resolve_model(cfg, train.get("model", AUTO))
    if train.get("label_mode") is None:  # the mechanism's declared label mode
        from dpcda.mechanisms import MECHANISMS

        soft = MECHANISMS.get(cfg["mechanism"]).label_mode
        train["label_mode"] = "hard" if train["model"] == "tree" else soft
    train["clip_norm"] = cfg["c"]  # the training loop's input scaling uses the clip norm
    cfg["train"] = TrainConfig.from_dict(train).to_dict()  # ValueError names a bad field
    cfg["experiment_version"] = EXPERIMENT_VERSION
    if cfg["sigma"] is None:
        del cfg["sigma"]
    if cfg["allocation"] in (None, "equal"):
        del cfg["allocation"]
    return cfg


def experiment_config(config: dict) -> ExperimentConfig:
    """The one way in: plain JSON (a job's, the command line's or a page's config) -> the
    filled-in, validated :class:`ExperimentConfig` (:func:`normalize`, then typed)."""
    return ExperimentConfig.from_json(normalize(config))


def _generator_params(cfg: ExperimentConfig, ds, gen_fn) -> dict:
    """The keyword arguments of the mechanism's generator that this config sets."""
    params = inspect.signature(gen_fn).parameters  # what the generator takes
    kw = dict(l=cfg.l, T=cfg.T or ds.n_train, c=cfg.c, delta=cfg.delta,
              accountant=cfg.accountant, conversion=cfg.conversion, ratio=cfg.ratio,
              max_alpha=cfg.max_alpha, normalize=cfg.normalization, p=cfg.p,
              allocation=cfg.allocation_or_default)
    if cfg.sigma is not None:
        kw["sigma_x"] = cfg.sigma  # sigma_y = ratio * sigma_x (the generator's default)
    elif math.isinf(cfg.epsilon):
        # the explicit non-private setting (noise_multiplier = 0: a mechanism that declares
        # its noise as std / sensitivity, e.g. DP-MERF's non-private embedding)
        kw.update(sigma_x=0.0, sigma_y=0.0, noise_multiplier=0.0)
    else:
        kw["epsilon"] = cfg.epsilon
    device = cfg.train.device
    kw["device"] = None if device == "auto" else device
    if kw["p"] is None:
        del kw["p"]
    return {k: v for k, v in kw.items() if k in params}


@register_kind("experiment", normalize=normalize, isolated=True)
def run_experiment(config: dict, ctx: JobContext | None = None) -> dict:
    """Run one experiment point; returns a plain-JSON result (see the module docstring)."""
    from dpcda.data import load_dataset
    from dpcda.mechanisms import MECHANISMS, generate_from_dataset
    from dpcda.training import TrainConfig, train_and_evaluate

    ctx = ctx or JobContext()
    wanted = config.get("experiment_version", EXPERIMENT_VERSION)
    if wanted != EXPERIMENT_VERSION:  # a worker started before an upgrade (or after a downgrade)
        raise RuntimeError(f"this worker runs experiment version {EXPERIMENT_VERSION}, the job was "
                           f"submitted for version {wanted}: restart the workers (python -m dpcda "
                           "worker) after changing dpcda, then requeue the job")
    cfg = experiment_config(config)
    t0 = time.perf_counter()
    ctx.phase("loading", "loading data")
    ds = load_dataset(cfg.dataset)
    ctx.check_cancelled()
    ctx.phase("generation", "generating the release")
    mech = MECHANISMS.get(cfg.mechanism)
    release = generate_from_dataset(ds, cfg.mechanism, **_generator_params(cfg, ds, mech.generate))
    gen_seconds = time.perf_counter() - t0
    X_test = release.preprocess(ds.X_test)  # same normalization/clipping (or projection)
    ctx.check_cancelled()
    ctx.phase("training", "training")
    image_shape = ds.image_shape if release.X.shape[1] == ds.d_x else None  # projections are flat
    train = {**cfg.train.to_dict(), "n_classes": ds.n_classes}
    card = release.data_card  # typed; its blocks keep the card's keys
    card_params = card.parameters
    public_noise = card_params.get("sigma_x", card_params.get("noise_std")) or 0.0
    if train.get("model") in ("lda", "lda-tangent") and not train.get("noise_std"):
        # Noise-aware LDA removes the release's public noise variance (post-processing).
        train["noise_std"] = float(public_noise)
    if (train.get("model") in ("lda", "lda-tangent") and not train.get("label_noise_std")
            and mech.onehot_label_noise and release.y_soft is not None):
        # ... and, for one-hot + Gaussian soft labels, the label noise (sigma_y is public).
        train["label_noise_std"] = float(card_params.get("sigma_y") or 0.0)
    if train.get("model") in ("qda", "lda-tangent"):  # lda-tangent: f_k for its tangent variances
        _qda_inputs(train, card, float(public_noise))
    train_cfg = TrainConfig.from_dict(train)
    out = train_and_evaluate(release.X, release.y, X_test, ds.y_test, y_soft=release.y_soft,
                             image_shape=image_shape, config=train_cfg, on_epoch=ctx.on_epoch)
    ctx.check_cancelled()  # training stopped early because the job was told to stop
    privacy, params = card.privacy, card.parameters
    sigma_x = params.get("sigma_x", params.get("noise_std"))
    from dpcda.privacy.shown_compose import release_facts

    return {
        "accuracy": out.get("accuracy"), "per_epoch": out.get("per_epoch", []),
        "epochs_run": out.get("epochs_run"), "cancelled": bool(out.get("cancelled", False)),
        "device": out.get("device"), "train_seconds": out.get("train_seconds"),
        "generate_seconds": gen_seconds, "seconds": time.perf_counter() - t0,
        "sigma_x": sigma_x, "sigma_y": params.get("sigma_y"),
        "epsilon": privacy.get("epsilon", math.inf) if privacy.get("private", True) else math.inf,
        "epsilon_target": cfg.epsilon, "sigma_target": cfg.sigma,
        "alpha": privacy.get("alpha"), "delta": cfg.delta,
        "accountant": privacy.get("accountant", cfg.accountant),
        "conversion": privacy.get("conversion"), "private": bool(privacy.get("private", True)),
        "privacy_warnings": list(privacy.get("warnings", [])),
        "privacy_notices": [n.to_json() for n in card.notices],
        "other_accountants": privacy.get("other_accountants", {}),
        "n_synthetic": release.n, "n_train": ds.n_train, "n_test": ds.n_test,
        "normalization": card.normalization,
        "allocation": params.get("allocation"), "relation": privacy.get("relation"),
        "bound_note": privacy.get("bound_note"),
        # what the dashboard's tally of draws from the private data composes (public card facts)
        "drawn": release_facts(cfg.mechanism, release.card),
        **({"learner_choice": out["learner_choice"]} if "learner_choice" in out else {}),
    }


def _qda_inputs(train: dict, card, public_noise: float) -> None:
    """Noise-aware QDA reads the card: sigma_x, l and the class sizes it may use (the public
    bounds n_k under whole-record, else the class counts where the card shows them; with
    neither, f_k = 1 / l, the large-class limit). Lower bounds give a slightly smaller f_k than
    the true sizes (relative difference below l / n_k): a slight over-correction."""
    from dpcda.training.qda import mixing_factors

    if not train.get("noise_std"):
        train["noise_std"] = public_noise
    l = card.parameters.get("l")
    sizes = card.data.get("class_bounds") or card.data.get("class_counts")
    if train.get("mix_factors") is None and l:  # no public sizes: the large-class limit 1 / l
        train["mix_factors"] = (tuple(mixing_factors(int(l), sizes)) if sizes
                                else (1.0 / int(l),) * int(train["n_classes"]))
