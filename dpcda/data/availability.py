"""Which registered datasets can be loaded here, and how to get one that is missing.

``available_datasets()`` answers from the file system only: it searches the same folders as
:func:`~dpcda.data.load_dataset` (see :mod:`dpcda.data.locate`) but never downloads or parses
anything, so a page can call it on every run. ``how_to_get(name)`` is the short note a page
shows for a missing dataset: the ``$DPCDA_DATA_DIR`` layout and the download when online.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dpcda.data.locate import CACHE_DIR_ENV, DATA_DIR_ENV, OFFLINE_ENV, check_data_dir
from dpcda.data.registry import DATASETS


@dataclass(frozen=True)
class DatasetAvailability:
    """A registered dataset and whether its data is present on this machine."""

    name: str
    title: str
    kind: str
    present: bool
    where: str  # the folder holding the files, "bundled" for offline datasets, "" when missing


def dataset_availability(name: str, *, data_dir: str | Path | None = None) -> DatasetAvailability:
    """Is ``name``'s data here? (``ValueError`` for an unknown name or a bad ``data_dir``.)"""
    spec = DATASETS.get(name)
    if spec.offline:
        return DatasetAvailability(spec.name, spec.title, spec.kind, True, "bundled")
    folder = spec.find(check_data_dir(data_dir)) if spec.find is not None else None
    return DatasetAvailability(spec.name, spec.title, spec.kind, folder is not None,
                               str(folder) if folder is not None else "")


def available_datasets(*, data_dir: str | Path | None = None) -> list[DatasetAvailability]:
    """Every registered dataset, those present first (each group in registration order)."""
    rows = [dataset_availability(n, data_dir=data_dir) for n in DATASETS.names()]
    return [r for r in rows if r.present] + [r for r in rows if not r.present]


def how_to_get(name: str) -> str:
    """Markdown, a few lines: where to put ``name``'s files and what downloads them when online.

    Paths are given relative to ``$DPCDA_DATA_DIR`` (never this machine's folders).
    """
    spec = DATASETS.get(name)
    if spec.offline:
        return f"**{spec.title}** ships with the library's dependencies; nothing to get."
    files = ", ".join(f"`{f}`" for f in spec.files)
    text = (f"**To get {spec.title}:** put {files} in a folder `{spec.folder}/` inside your datasets "
            f"folder" + (f" (or {spec.alt_layout})" if spec.alt_layout else "")
            + f" and set `{DATA_DIR_ENV}` to the datasets folder before starting dpcda.")
    if spec.download:
        text += (f" When this machine is online, loading it downloads the files {spec.download} "
                 f"into `~/.cache/dpcda` (`{CACHE_DIR_ENV}`) unless `{OFFLINE_ENV}=1`.")
    return text
