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
from dpcda.registry import Registry

Loader = Callable[[Path | None], Dataset]


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    title: str
    kind: str  # "image" or "tabular"
    load: Loader
    offline: bool = False  # ships with a dependency (always available)


DATASETS: Registry[DatasetSpec] = Registry("dataset")
KINDS = ("image", "tabular")


def register_dataset(name: str, *, title: str, kind: str,
                     offline: bool = False) -> Callable[[Loader], Loader]:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got kind={kind!r}")

    def deco(fn: Loader) -> Loader:
        DATASETS.add(name, DatasetSpec(name, title, kind, fn, offline))
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
