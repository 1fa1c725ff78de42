"""The dataset registry: ``DATASETS.get(name).load(data_dir)`` returns a :class:`Dataset`.

Loaders register themselves with ``@register_dataset("name", title=..., kind=...)``; importing
:mod:`dpcda.data` imports every loader module.
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


DATASETS: Registry[DatasetSpec] = Registry("dataset")
KINDS = ("image", "tabular")


def register_dataset(name: str, *, title: str, kind: str, offline: bool = False,
                     find: Finder | None = None, folder: str = "", files: tuple[str, ...] = (),
                     alt_layout: str = "", download: str = "") -> Callable[[Loader], Loader]:
    """Register a loader. File-based datasets also give ``find`` (see :class:`DatasetSpec`)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got kind={kind!r}")
    if not offline and find is None:
        raise ValueError(f"dataset {name!r}: a dataset read from files needs find=")

    def deco(fn: Loader) -> Loader:
        DATASETS.add(name, DatasetSpec(name, title, kind, fn, offline, find, folder or name,
                                       tuple(files), alt_layout, download))
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
