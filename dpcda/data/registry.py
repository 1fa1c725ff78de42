"""The dataset registry: ``DATASETS.get(name).load(data_dir)`` returns a :class:`Dataset`.

A dataset is one module: its loader registers itself with ``@register_dataset("name",
title=..., kind=..., class_counts=..., ...)``, and that :class:`DatasetSpec` holds everything the
rest of dpcda knows about it without loading data: where its files go, its public facts (class
counts, dimensions: what :mod:`dpcda.data.presets` offers the privacy page and the CLI offline),
its default clip norm and normalisation, its image shape, the epochs of the torch learners, the
seconds one measurement run takes, and its learner rule. Importing :mod:`dpcda.data` imports every
built-in loader module; ``$DPCDA_PLUGINS`` adds others (:mod:`dpcda.util.plugins`;
docs/datasets.md, "Adding a dataset").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from dpcda.data.dataset import Dataset
from dpcda.data.locate import check_data_dir
from dpcda.util.registry import Registry

Loader = Callable[[Path | None], Dataset]
Finder = Callable[[Path | None], Path | None]


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    title: str
    kind: str  # "image" or "tabular"
    load: Loader
    offline: bool = False  # ships with a dependency (always available)
    # Where the files go (for datasets read from files): the folder under $DPCDA_DATA_DIR, the
    # file names, another layout that works ("torchvision's `MNIST/raw/`") and how they are
    # downloaded when online ("with torchvision"); see dpcda.data.availability.how_to_get.
    find: Finder | None = None  # the folder holding every file (searched, never downloaded), or None
    folder: str = ""
    files: tuple[str, ...] = ()
    alt_layout: str = ""
    download: str = ""
    # --- public facts of the training split (the privacy page and the CLI use them offline; the
    # loader's split has exactly these counts, tested). Empty class_counts: none declared.
    class_counts: tuple[int, ...] = ()
    d_x: int | None = None
    d_y: int | None = None
    #: How the facts' split is named ("MNIST (train)"; default: the title).
    split_title: str = ""
    note: str = ""
    #: The default L2 clip norm c (public, chosen by measurement: README "Honest defaults").
    clip_norm: float = 1.0
    #: DP-CDA's default normalisation under the default accountant (public, measured).
    dp_cda_normalization: str = "scale"
    #: (channels, height, width) of an image dataset; resolves ``model="auto"`` without data.
    image_shape: tuple[int, ...] | None = None
    #: Epochs of the torch learners in the pages' launches.
    epochs: int = 5
    #: Seconds one run of the fast learner takes here (the frontier's one-click measurement).
    seconds_per_run: float = 30.0
    #: ``model="auto"``'s learners (private, non-private) where the general rule does not fit
    #: (:func:`dpcda.training.default_model`); None: the rule for its kind.
    auto_learners: tuple[str, str] | None = None

    @property
    def n(self) -> int:
        """N, the training records (0 when no class counts are declared)."""
        return sum(self.class_counts)

    @property
    def tabular(self) -> bool:
        return self.kind == "tabular"

    @property
    def has_facts(self) -> bool:
        """Whether it declares the public facts a privacy calculation needs."""
        return bool(self.class_counts) and self.d_x is not None and self.d_y is not None


DATASETS: Registry[DatasetSpec] = Registry("dataset", plugins=True)
KINDS = ("image", "tabular")


def register_dataset(name: str, *, title: str, kind: str, offline: bool = False,
                     find: Finder | None = None, folder: str = "", files: tuple[str, ...] = (),
                     alt_layout: str = "", download: str = "",
                     **facts) -> Callable[[Loader], Loader]:
    """Register a loader. File-based datasets also give ``find``; ``facts`` are the other
    :class:`DatasetSpec` fields (class counts, dimensions, defaults; see there)."""
    from dataclasses import fields

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got kind={kind!r}")
    if not offline and find is None:
        raise ValueError(f"dataset {name!r}: a dataset read from files needs find=")
    known = [f.name for f in fields(DatasetSpec)][10:]
    bad = sorted(set(facts) - set(known))
    if bad:
        raise ValueError(f"register_dataset got unknown fields {', '.join(bad)}; allowed: "
                         f"{', '.join(known)}")
    if "class_counts" in facts:
        facts["class_counts"] = tuple(int(c) for c in facts["class_counts"])
    if facts.get("image_shape") is not None:
        facts["image_shape"] = tuple(int(v) for v in facts["image_shape"])
        if kind != "image":
            raise ValueError(f"dataset {name!r}: image_shape applies to kind='image' only")

    def deco(fn: Loader) -> Loader:
        DATASETS.add(name, DatasetSpec(name, title, kind, fn, offline, find, folder or name,
                                       tuple(files), alt_layout, download, **facts))
        return fn

    return deco


def list_datasets() -> list[str]:
    """Names of the registered datasets (uploads are loaded with :func:`load_upload` instead)."""
    return DATASETS.names()


def get_dataset_spec(name: str) -> DatasetSpec:
    return DATASETS.get(name)


def load_dataset(name: str, *, data_dir: str | Path | None = None) -> Dataset:
    """Load a registered dataset (see :mod:`dpcda.data.locate` for where files are looked for).

    Raises ``ValueError`` for an unknown name or a bad ``data_dir`` and
    :class:`~dpcda.data.dataset.DatasetUnavailable` (a ``ValueError``) when the files are missing.
    """
    spec = DATASETS.get(name)
    return spec.load(check_data_dir(data_dir))
