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

from dpcda.mechanisms.baselines import (
    generate_dpmix,
    generate_local,
    generate_random_projection,
)
from dpcda.mechanisms.decoding import DECODERS, DEFAULT_DECODER
from dpcda.mechanisms.denoise import denoise, gaussian_filter_images
from dpcda.mechanisms.dp_cda import (COMPOSING_ACCOUNTANTS, DEFAULT_ALLOCATION, DEFAULT_NORMALIZE,
                                     DEFAULT_STATS_SHARE,
                                     DPCDAConfig, generate_dpcda)
from dpcda.mechanisms.dp_merf import LABEL_CHOICES as _MERF_LABELS
from dpcda.mechanisms.dp_merf import generate_dp_merf
from dpcda.mechanisms.prepare import (ALL_NORMALIZE_CHOICES, NORMALIZE_CHOICES, Preprocessor,
                                      fit_preprocessor)
from dpcda.mechanisms.release import Release, load_npz, save_npz, to_csv_bytes
from dpcda.mechanisms.sampling import sample_subsets
from dpcda.privacy import ALLOCATIONS
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
from dpcda.privacy import DEFAULT_ACCOUNTANT


def _norm(default: str, choices=NORMALIZE_CHOICES) -> Param:
    dp = ", dp-center (public range, square root, minus a mean estimated under DP; composed "\
         "into epsilon)" if "dp-center" in choices else ""
    return Param("normalize", "str", default, choices=choices,
                 doc="scale (public range, covered by the guarantee), zscore (private statistics, "
                     f"not covered by the guarantee), none{dp}")


_C = Param("c", "float", 1.0, lo=0.0, lo_open=True, doc="L2 clip norm of the rows")

# DP-CDA's: the project's default (the tightest valid bound for Algorithm 1) first, then the
# published ones, kept for reproducing the papers.
_CDA_ACCOUNTANTS = tuple(dict.fromkeys((DEFAULT_ACCOUNTANT, "class-aware-pld", "class-aware",
                                        "paper", "dpmix", "dpmix-low")))

# The registered mechanisms. Every default below is what the CLI, the jobs and the pages use.
# DP-CDA's defaults live in dpcda.mechanisms.dp_cda (DEFAULT_NORMALIZE, DEFAULT_ALLOCATION, measured:
# README "Honest defaults") and dpcda.privacy.DEFAULT_ACCOUNTANT (dpcda_accountants() puts it first).
register_mechanism(Mechanism(
    "dp-cda", "DP-CDA", generate_dpcda,
    "Mean of l random points of one class plus Gaussian noise; T_k per class (equal or "
    "proportional to the public class counts).",
    (Param("l", "int", None, lo=1, required=True, doc="order of mixture (<= the smallest class)"),
     *noise_params(_CDA_ACCOUNTANTS), _C,
     _norm(DEFAULT_NORMALIZE, ALL_NORMALIZE_CHOICES),
     Param("stats_share", "float", DEFAULT_STATS_SHARE, lo=0.0, lo_open=True, hi=1.0, hi_open=True,
           doc="dp-center only: the statistics' Gaussian alone is (stats_share x epsilon, "
               "delta)-DP; the epsilon composes both exactly"),
     Param("allocation", "str", DEFAULT_ALLOCATION, choices=ALLOCATIONS,
           doc="samples per class: equal (floor(T/K)) or proportional (floor(T N_k / N))"),
     Param("decode", "str", DEFAULT_DECODER, choices=DECODERS,
           doc="one-hot segments (tabular data): how each category is chosen after mixing "
               "(post-processing): posterior (calibrated), sample, or argmax (the paper's)")),
    _CDA_ACCOUNTANTS, DEFAULT_NORMALIZE,
    label_mode="hard", learner="auto", l_bound="class", onehot_label_noise=True,
    paper_name="DP-CDA", compare_ls=(4, 16)))
register_mechanism(Mechanism(
    "dpmix", "DPMix", generate_dpmix,
    "Mean of l random points of any class (public scaling, rows clipped to c) plus noise; "
    "soft labels.",
    (Param("l", "int", None, lo=1, required=True, doc="order of mixture (<= N)"),
     *noise_params(("dpmix-clipped", "dpmix", "dpmix-low")), _C,
     _norm("scale")),
    ("dpmix-clipped", "dpmix", "dpmix-low"), "scale",
    label_mode="soft", learner="auto", l_bound="n", paper_name="DP-Mix", compare_ls=(16, 32),
    notes="MNIST, epsilon = 10, 2 runs: lda + soft labels 0.793 / 0.818 / 0.824 / 0.815 / 0.803 "
          "at l = 4 / 8 / 16 / 32 / 64; linear + soft 0.765 (l = 16), 0.799 (l = 64); "
          "lda + hard 0.792 (l = 16)"))
register_mechanism(Mechanism(
    "local", "Local perturbation", generate_local,
    "One random point plus Gaussian noise (DPMix with l = 1).",
    (*noise_params(("dpmix-clipped", "dpmix", "dpmix-low")), _C,
     _norm("scale")),
    ("dpmix-clipped", "dpmix", "dpmix-low"), "scale",
    label_mode="hard", learner="auto", l_bound="n", onehot_label_noise=True,
    paper_name="Local Perturbation",
    notes="MNIST, epsilon = 10, 2 runs: lda (noise-aware, hard labels) 0.686, linear + soft 0.541"))
register_mechanism(Mechanism(
    "random-projection", "Random projection (DPPro)", generate_random_projection,
    "Every point clipped, projected by a Gaussian matrix R (p x d) plus Gaussian noise.",
    (Param("epsilon", "float", None, lo=0.0, lo_open=True, required=True, doc="target epsilon"),
     Param("delta", "float", 1e-5, lo=0.0, hi=0.5, lo_open=True, hi_open=True),
     Param("accountant", "str", "gaussian", choices=("gaussian", "dppro")),
     Param("p", "int", None, lo=1, doc="projection width (None: min(100, d))"), _C,
     _norm("scale")),
    ("gaussian", "dppro"), "scale",
    label_mode="hard", learner="auto", target_epsilon=True, noise_scale=False, l_bound="n",
    flat_output=True, paper_name="Random Projection",
    notes="MNIST, epsilon = 10, 2 runs (gaussian accountant): lda 0.600, fc (10 epochs) 0.102"))
register_mechanism(Mechanism(
    "dp-merf", "DP-MERF", generate_dp_merf,
    "Per-class mean embedding of random Fourier features released once with Gaussian noise; "
    "a generator trained against it (post-processing).",
    (Param("T", "int", None, lo=1, doc="synthetic samples (None: N)"),
     Param("epsilon", "float", None, lo=0.0, lo_open=True, doc="target epsilon"),
     Param("delta", "float", 1e-5, lo=0.0, hi=1.0, lo_open=True, hi_open=True),
     Param("noise_multiplier", "float", None, lo=0.0,
           doc="1/mu of the whole release instead of epsilon (0: non-private)"), _C,
     Param("n_features", "int", 4000, lo=2, doc="random features D (even)"),
     Param("length_scale", "float", None, lo=0.0, lo_open=True,
           doc="Gaussian kernel length (None: c)"),
     Param("labels", "str", "private", choices=_MERF_LABELS,
           doc="private: noisy class counts in the same release; uniform: none (as published)"),
     Param("count_share", "float", 0.05, lo=0.0, hi=1.0, lo_open=True, hi_open=True,
           doc="share of mu^2 spent on the class counts"),
     Param("steps", "int", 600, lo=1, doc="generator training steps"),
     _norm("scale")),
    ("embedding-gaussian",), "scale",
    label_mode="hard", learner="auto", target_epsilon=True, noise_scale=False, l_bound="n",
    paper_name="DP-Merf"))


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


__all__ = ["ALL_NORMALIZE_CHOICES", "DPCDAConfig", "MECHANISMS", "Mechanism", "NORMALIZE_CHOICES",
           "Param", "Preprocessor",
           "all_accountants", "default_normalization", "default_normalization_for", "published_class_bounds",
           "register_mechanism", "unregister_mechanism",
           "Release", "denoise", "fit_preprocessor", "gaussian_filter_images", "generate",
           "generate_dp_merf", "generate_dpcda", "generate_dpmix", "generate_from_dataset", "generate_local",
           "generate_random_projection", "list_mechanisms", "load_npz", "sample_subsets",
           "save_npz", "to_csv_bytes"]
