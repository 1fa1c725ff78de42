"""Synthetic-data generators: DP-CDA, the baselines of the paper's Table 5 and DP-MERF.

>>> from dpcda.mechanisms import MECHANISMS, generate, register_mechanism, save_npz
>>> MECHANISMS.names()
['dp-cda', 'dpmix', 'local', 'random-projection', 'dp-merf']
>>> rel = generate("dp-cda", X, y, l=4, T=60000, epsilon=10, delta=1e-5)   # doctest: +SKIP
>>> save_npz(rel, "synth.npz")            # synth.npz (X, y, y_soft) + synth.json (data card)

Every generator takes raw features ``X`` (N x d) and integer labels ``y`` (0..K-1) as numpy
arrays and returns a :class:`Release`. They run in torch (imported lazily, on ``cuda``, ``mps``
or ``cpu``), vectorised and in bounded-memory chunks. Randomness comes from the operating system
unless an experiment passes ``seed=``; no seed, RNG state or noise ever reaches a card or an
export. :func:`denoise` is post-processing (a Gaussian filter on images).
"""

from __future__ import annotations

import inspect

# Each generator module registers its entry when imported; this order is the listing order.
from dpcda.mechanisms.dp_cda import (COMPOSING_ACCOUNTANTS, DEFAULT_ALLOCATION,  # noqa: I001
                                     DEFAULT_NORMALIZE, DEFAULT_STATS_SHARE, DPCDAConfig,
                                     generate_dpcda)
from dpcda.mechanisms.baselines import (
    generate_dpmix,
    generate_local,
    generate_random_projection,
)
from dpcda.mechanisms.dp_merf import generate_dp_merf
from dpcda.mechanisms.decoding import DECODERS, DEFAULT_DECODER
from dpcda.mechanisms.denoise import denoise, gaussian_filter_images
from dpcda.mechanisms.prepare import (ALL_NORMALIZE_CHOICES, NORMALIZE_CHOICES, Preprocessor,
                                      fit_preprocessor)
from dpcda.mechanisms.release import Release, load_npz, save_npz, to_csv_bytes
from dpcda.mechanisms.sampling import sample_subsets
from dpcda.mechanisms.spec import (
    MECHANISMS,
    Mechanism,
    Param,
    all_accountants,
    list_mechanisms,
    noise_params,
    register_mechanism,
    unregister_mechanism,
)


def generate(mechanism: str, X, y, **params) -> Release:
    """``MECHANISMS.get(mechanism).generate(X, y, **params)``."""
    return MECHANISMS.get(mechanism).generate(X, y, **params)


def default_normalization_for(name: str | None, mechanism: str = "dp-cda",
                              accountant: str | None = None) -> str:
    """The default normalisation by dataset name (public facts only): for DP-CDA under
    ``whole-record`` or ``class-aware-pld`` (the accountants that compose DP statistics) the dataset preset's
    measured choice (``Preset.dp_cda_normalization``: ``dp-center`` for MNIST and
    Fashion-MNIST), else the mechanism's default."""
    from dpcda.data.presets import PRESETS
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    norm = MECHANISMS.get(mechanism).default_normalize
    if (mechanism == "dp-cda" and name in PRESETS
            and (accountant or DEFAULT_ACCOUNTANT) in COMPOSING_ACCOUNTANTS):
        norm = PRESETS.get(name).dp_cda_normalization
    return norm


def default_normalization(dataset, mechanism: str = "dp-cda", accountant: str | None = None) -> str:
    """The normalisation a release of ``dataset`` gets by default
    (:func:`default_normalization_for` its name), except that ``"scale"`` and ``"dp-center"``
    need a public range (``Dataset.feature_bounds``), which uploads lack; they get ``"none"``
    (features as given, rows clipped to c: per record and data-independent, so still covered
    by the guarantee) rather than statistics of the private data."""
    norm = default_normalization_for(getattr(dataset, "name", None), mechanism, accountant)
    if norm in ("scale", "dp-center") and getattr(dataset, "feature_bounds", None) is None:
        return "none"
    return norm


def published_class_bounds(dataset) -> tuple[int, ...] | None:
    """A built-in dataset's published class counts, as public lower bounds on its class sizes
    (whole-record accounting), when ``dataset`` is that published training split: same name and
    the same number of records ``N`` (public under replace-one neighbours); else None."""
    from dpcda.data.presets import PRESETS

    name = getattr(dataset, "name", None)
    if name not in PRESETS:
        return None
    counts = tuple(int(k) for k in PRESETS.get(name).class_counts)
    return counts if sum(counts) == len(dataset.y_train) else None


def generate_from_dataset(dataset, mechanism: str = "dp-cda", **params) -> Release:
    """Run a generator on a :class:`dpcda.data.Dataset`'s training split, passing its name,
    class names, image shape, one-hot segments (DP-CDA), public ``feature_bounds`` (for
    ``normalize="scale"``) and its default clip norm (:func:`dpcda.data.presets.default_clip_norm`)
    unless ``params`` overrides them."""
    mech = MECHANISMS.get(mechanism)
    kw = dict(dataset=dataset.name, class_names=dataset.class_names,
              image_shape=dataset.image_shape)
    if dataset.segments and "segments" in inspect.signature(mech.generate).parameters:
        kw["segments"] = dataset.segments
    if "c" in mech.param_names and params.get("c") is None:
        from dpcda.data.presets import default_clip_norm

        kw["c"] = default_clip_norm(dataset.name)  # public, per dataset (1.0 unless measured)
        params = {k: v for k, v in params.items() if k != "c"}
    norm = params.setdefault("normalize", default_normalization(dataset, mechanism,
                                                                params.get("accountant")))
    if "class_bounds" in inspect.signature(mech.generate).parameters:
        bounds = published_class_bounds(dataset)
        if bounds is not None and params.get("class_bounds") is None:
            kw["class_bounds"] = bounds
    if norm in ("scale", "dp-center") and getattr(dataset, "feature_bounds", None) is not None:
        kw["bounds"] = dataset.feature_bounds
    kw.update(params)
    return mech.generate(dataset.X_train, dataset.y_train, **kw)


__all__ = ["ALL_NORMALIZE_CHOICES", "DECODERS", "DEFAULT_ALLOCATION", "DEFAULT_DECODER",
           "DEFAULT_NORMALIZE", "DEFAULT_STATS_SHARE", "DPCDAConfig", "noise_params",
           "MECHANISMS", "Mechanism", "NORMALIZE_CHOICES",
           "Param", "Preprocessor",
           "all_accountants", "default_normalization", "default_normalization_for",
           "published_class_bounds",
           "register_mechanism", "unregister_mechanism",
           "Release", "denoise", "fit_preprocessor", "gaussian_filter_images", "generate",
           "generate_dp_merf", "generate_dpcda", "generate_dpmix", "generate_from_dataset", "generate_local",
           "generate_random_projection", "list_mechanisms", "load_npz", "sample_subsets",
           "save_npz", "to_csv_bytes"]
