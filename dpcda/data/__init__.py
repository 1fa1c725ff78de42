"""Datasets for dpcda: a registry of loaders, uploads, and preprocessing.

>>> from dpcda.data import load_dataset, list_datasets
>>> ds = load_dataset("digits")          # always available offline
>>> ds.X_train.shape, ds.class_counts[:3]
((1347, 64), (133, 136, 133))

``load_dataset(name, data_dir=None)`` looks for files as described in :mod:`dpcda.data.locate`
(``$DPCDA_DATA_DIR/<name>/`` first) and raises :class:`DatasetUnavailable` (a ``ValueError``)
saying which files to put where. Arrays are raw-scale numpy (float32 features, int64 labels) and
read-only (cached per process). This package never imports torch except to download files.
"""

# Registration order is the listing order: mnist, fashion-mnist, cifar10, digits, adult.
from dpcda.data import idx  # noqa: F401,I001  (each import registers loaders)
from dpcda.data import cifar  # noqa: F401
from dpcda.data import digits  # noqa: F401
from dpcda.data import adult  # noqa: F401
from dpcda.data.availability import (DatasetAvailability, available_datasets, dataset_availability,
                                     how_to_get)
from dpcda.data.dataset import Dataset, DatasetUnavailable, Segment
from dpcda.data.preprocess import (METHODS as NORMALIZERS, Normalizer, clip_rows,
                                   fit_dataset_normalizer, fit_normalizer,
                                   normalize_and_clip)
from dpcda.data.registry import DATASETS, DatasetSpec, get_dataset_spec, list_datasets, load_dataset
from dpcda.data.tabular import decode_segments, reencode_segments
from dpcda.data.upload import MAX_UPLOAD_BYTES, load_upload

__all__ = ["DATASETS", "Dataset", "DatasetAvailability", "DatasetSpec", "DatasetUnavailable",
           "MAX_UPLOAD_BYTES", "available_datasets", "dataset_availability", "how_to_get",
           "NORMALIZERS", "Normalizer", "Segment", "clip_rows", "decode_segments",
           "fit_dataset_normalizer", "fit_normalizer", "get_dataset_spec", "list_datasets",
           "load_dataset", "load_upload", "normalize_and_clip", "reencode_segments"]
