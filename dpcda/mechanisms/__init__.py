"""Synthetic-data generators: DP-CDA and the baselines of the paper's Table 5.

>>> from dpcda.mechanisms import MECHANISMS, generate, save_npz
>>> MECHANISMS.names()
['dp-cda', 'dpmix', 'local', 'random-projection']
>>> rel = generate("dp-cda", X, y, l=4, T=60000, epsilon=10, delta=1e-5)   # doctest: +SKIP
>>> save_npz(rel, "synth.npz")            # synth.npz (X, y, y_soft) + synth.json (data card)

Every generator takes raw features ``X`` (N x d) and integer labels ``y`` (0..K-1) as numpy
arrays and returns a :class:`Release`. They run in torch (imported lazily, on ``cuda``, ``mps``
or ``cpu``), vectorised and in bounded-memory chunks. Randomness comes from the operating system
unless an experiment passes ``seed=``; no seed, RNG state or noise ever reaches a card or an
export. :func:`denoise` is post-processing (a Gaussian filter on images).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from dpcda.mechanisms.baselines import generate_dpmix, generate_local, generate_random_projection
from dpcda.mechanisms.denoise import denoise, gaussian_filter_images
from dpcda.mechanisms.dp_cda import DPCDAConfig, generate_dpcda
from dpcda.mechanisms.prepare import NORMALIZE_CHOICES, Preprocessor, fit_preprocessor
from dpcda.mechanisms.release import Release, load_npz, save_npz, to_csv_bytes
from dpcda.mechanisms.sampling import sample_subsets
from dpcda.registry import Registry


@dataclass(frozen=True)
class Mechanism:
    """A registered generator: ``generate(X, y, **params) -> Release``."""

    name: str
    title: str
    generate: Callable[..., Release]
    summary: str
    default_normalize: str
    accountants: tuple[str, ...]


MECHANISMS: Registry[Mechanism] = Registry("mechanism")

for _m in (
    Mechanism("dp-cda", "DP-CDA", generate_dpcda,
              "Mean of l random points of one class plus Gaussian noise; floor(T/K) per class.",
              "zscore", ("paper", "class-aware", "dpmix", "dpmix-low")),
    Mechanism("dpmix", "DPMix", generate_dpmix,
              "Mean of l random points of any class (features in [0, 1]) plus noise; soft labels.",
              "scale", ("dpmix", "dpmix-low")),
    Mechanism("local", "Local perturbation", generate_local,
              "One random point plus Gaussian noise (DPMix with l = 1).",
              "scale", ("dpmix", "dpmix-low")),
    Mechanism("random-projection", "Random projection (DPPro)", generate_random_projection,
              "Every point projected by a Gaussian matrix R (p x d) plus Gaussian noise.",
              "scale", ("dppro",)),
):
    MECHANISMS.add(_m.name, _m)


def list_mechanisms() -> list[str]:
    return MECHANISMS.names()


def generate(mechanism: str, X, y, **params) -> Release:
    """``MECHANISMS.get(mechanism).generate(X, y, **params)``."""
    return MECHANISMS.get(mechanism).generate(X, y, **params)


def generate_from_dataset(dataset, mechanism: str = "dp-cda", **params) -> Release:
    """Run a generator on a :class:`dpcda.data.Dataset`'s training split, passing its name,
    class names, image shape, one-hot segments (DP-CDA) and public ``feature_bounds`` (for
    ``normalize="scale"``) unless ``params`` overrides them."""
    mech = MECHANISMS.get(mechanism)
    kw = dict(dataset=dataset.name, class_names=dataset.class_names,
              image_shape=dataset.image_shape)
    if mechanism == "dp-cda" and dataset.segments:
        kw["segments"] = dataset.segments
    norm = params.get("normalize", mech.default_normalize)
    if norm == "scale" and getattr(dataset, "feature_bounds", None) is not None:
        kw["bounds"] = dataset.feature_bounds
    kw.update(params)
    return mech.generate(dataset.X_train, dataset.y_train, **kw)


__all__ = ["DPCDAConfig", "MECHANISMS", "Mechanism", "NORMALIZE_CHOICES", "Preprocessor",
           "Release", "denoise", "fit_preprocessor", "gaussian_filter_images", "generate",
           "generate_dpcda", "generate_dpmix", "generate_from_dataset", "generate_local",
           "generate_random_projection", "list_mechanisms", "load_npz", "sample_subsets",
           "save_npz", "to_csv_bytes"]
