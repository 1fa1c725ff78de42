"""User uploads: a CSV (label in the first column) or an NPZ (arrays ``X`` and ``y``).

- **CSV**: one row per example, the label first, then the numeric features (like the thesis's
  ``mnist_train.csv``). A header row is optional: the first row is taken as a header when one of
  its feature cells is not a number. Labels may be integers or text.
- **NPZ**: ``numpy.savez`` file with ``X`` (N x d, or N x H x W / N x C x H x W images, which are
  flattened and keep their shape) and ``y`` (N labels). Pickled object arrays are refused.
- At most :data:`MAX_UPLOAD_BYTES` (200 MB, Streamlit's default upload limit) and
  :data:`MAX_CLASSES` classes. An NPZ's arrays are also bounded by what their headers declare
  (shape x itemsize, read before anything is unpacked; :mod:`dpcda.data.array_limits`: 2 GiB
  and 2**28 values), so a small file of compressed zeros or a lying header is refused.
  Cells must be finite numbers (no NaN, inf or text); each class
  needs at least 2 rows. An error says where (row, column, label number), never a cell's or a
  label's content: the message may be shared beyond the uploader (a screenshot, a report).
- Labels are mapped to ``0..K-1`` in sorted order (numeric labels numerically); the original
  values become ``class_names``.
- An upload has no test split: it is split 75/25 by row *position* (a fixed permutation of the
  positions, :mod:`dpcda.data.split`): the split reads no label, so neighbouring files have
  training parts that differ in one record.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Union

import numpy as np

from dpcda.data.dataset import Dataset
from dpcda.data.split import positional_split
from dpcda.util.checks import shape_text
from dpcda.util.verbatim import shorten

if TYPE_CHECKING:
    pass

MAX_UPLOAD_BYTES = 200 * 1024 * 1024
MAX_CLASSES = 1000
FORMATS = (".csv", ".npz")

Upload = Union[bytes, bytearray, memoryview, BinaryIO, str, os.PathLike]


def _read_bytes(file_or_bytes: Upload) -> bytes:
    too_big = (f"upload is larger than the limit of {MAX_UPLOAD_BYTES / 2**20:.0f} MB "
               f"({MAX_UPLOAD_BYTES} bytes, dpcda.data.upload.MAX_UPLOAD_BYTES)")
    if isinstance(file_or_bytes, (bytes, bytearray, memoryview)):
        data = bytes(file_or_bytes)
    elif isinstance(file_or_bytes, (str, os.PathLike)):
        p = Path(file_or_bytes)
        if not p.is_file():
            raise ValueError(f"file_or_bytes: no such file {str(p)!r}")
        if p.stat().st_size > MAX_UPLOAD_BYTES:
            raise ValueError(too_big)
        data = p.read_bytes()
    elif hasattr(file_or_bytes, "read"):
        size = getattr(file_or_bytes, "size", None)  # Streamlit's UploadedFile
        if isinstance(size, int) and size > MAX_UPLOAD_BYTES:
            raise ValueError(too_big)
        if hasattr(file_or_bytes, "seek"):
            file_or_bytes.seek(0)
        data = file_or_bytes.read(MAX_UPLOAD_BYTES + 1)
        if isinstance(data, str):
            data = data.encode()
    else:
        raise ValueError("file_or_bytes must be bytes, a binary file object or a path, "
                         f"got {type(file_or_bytes).__name__}")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(too_big)
    if not data:
        raise ValueError("upload is empty")
    return data


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def parse_csv(data: bytes) -> tuple[np.ndarray, np.ndarray, tuple[str, ...] | None]:
    """CSV bytes -> (float64 features N x d, raw label strings, the header's feature names or
    None without a header row)."""
    import pandas as pd  # here, not at the top: importing dpcda.data stays free of pandas
    head = data.lstrip()[:1 << 16]
    end = head.find(b"\n")
    try:
        first = (head if end < 0 else head[:end]).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("CSV upload must be UTF-8 text") from None
    cells = [c.strip() for c in first.split(",")]
    if len(cells) < 2:
        raise ValueError("CSV upload needs a label column and at least one feature column "
                         f"(comma-separated), got {len(cells)} column(s) in the first row")
    header = any(not _is_number(c) for c in cells[1:])
    try:  # numeric columns parse in C; only columns that fail to parse are inspected cell by cell
        df = pd.read_csv(io.BytesIO(data), header=0 if header else None, dtype={0: str},
                         skipinitialspace=True, keep_default_na=False, skip_blank_lines=True,
                         encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("CSV upload must be UTF-8 text") from None
    except (pd.errors.ParserError, ValueError) as e:
        raise ValueError(f"CSV upload could not be parsed: {str(e).strip()}") from None
    if len(df) == 0:
        raise ValueError("CSV upload has no data rows")
    first_row = 2 if header else 1  # 1-based line number of the first data row (blank lines aside)
    feats = df.iloc[:, 1:]
    X = np.empty(feats.shape, dtype=np.float64)
    for j, (_, col) in enumerate(feats.items()):
        if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            X[:, j] = col.to_numpy(np.float64)
        else:
            X[:, j] = pd.to_numeric(col.astype(str).str.strip(), errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(X)
    if bad.any():
        # where, never what: the cell's content is the uploader's data and the message may be
        # shared (a screenshot, a report); its row and column are the file's structure
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raw = feats.iat[i, j]
        raw = raw if isinstance(raw, str) else ("" if pd.isna(raw) else str(raw))
        kind = "empty" if raw.strip() == "" else "not a finite number"
        where = f"column {j + 2}" + (f" ({shorten(feats.columns[j], 40)})" if header else "")
        raise ValueError(f"CSV upload: row {i + first_row}, {where} is {kind}; every "
                         "feature cell must be a finite number (the cell's content is not repeated here)")
    labels = df.iloc[:, 0].str.strip().to_numpy(dtype=object)
    empty = np.flatnonzero(labels == "")
    if empty.size:
        raise ValueError(f"CSV upload: row {int(empty[0]) + first_row}, column 1 (the label) is empty")
    names = tuple(str(c).strip() for c in feats.columns) if header else None
    return X, labels, names


def parse_npz(data: bytes) -> tuple[np.ndarray, np.ndarray, tuple[int, ...] | None]:
    from dpcda.data.array_limits import check_arrays

    check_arrays(data, what="NPZ upload")  # by the headers, before anything is unpacked
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            missing = [k for k in ("X", "y") if k not in z.files]
            if missing:
                raise ValueError(f"NPZ upload must contain arrays 'X' and 'y'; missing "
                                 f"{', '.join(missing)} (found: {', '.join(z.files) or 'none'})")
            X, y = z["X"], z["y"]
    except ValueError as e:
        if "allow_pickle" in str(e) or "pickle" in str(e).lower():
            raise ValueError("NPZ upload: object (pickled) arrays are not allowed") from None
        if "NPZ upload" in str(e):
            raise
        raise ValueError(f"NPZ upload could not be read: {e}") from None
    except (OSError, EOFError) as e:
        raise ValueError(f"NPZ upload is not a valid .npz file ({e})") from None
    if X.ndim not in (2, 3, 4) or X.shape[0] == 0:
        raise ValueError(f"NPZ upload: X must be N x d (or N x H x W, N x C x H x W images), "
                         f"got shape {shape_text(X.shape)}")
    if not (np.issubdtype(X.dtype, np.integer) or np.issubdtype(X.dtype, np.floating)
            or X.dtype == np.bool_):
        raise ValueError(f"NPZ upload: X must be numeric, got dtype {X.dtype}")
    image_shape = None
    if X.ndim == 3:
        image_shape = (1, *X.shape[1:])
    elif X.ndim == 4:
        image_shape = tuple(X.shape[1:])
    X = X.reshape(len(X), -1).astype(np.float64)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"NPZ upload: y must be 1-D (one label per row), got shape {shape_text(y.shape)}")
    if len(y) != len(X):
        # the row counts are the uploader's own: said without them
        raise ValueError("NPZ upload: y must hold one label per row of X; their lengths differ")
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"NPZ upload: X[{i}, {j}] is not a finite number; every feature must be a "
                         "finite number (the value is not repeated here)")
    if np.issubdtype(y.dtype, np.floating) and not np.isfinite(y).all():
        raise ValueError(f"NPZ upload: y[{int(np.flatnonzero(~np.isfinite(y))[0])}] is not finite")
    return X, y, image_shape


def encode_labels(labels: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """Map label values to 0..K-1 (sorted; numbers numerically) and keep them as class names."""
    import pandas as pd  # here, not at the top: importing dpcda.data stays free of pandas
    labels = np.asarray(labels)
    as_num = pd.to_numeric(pd.Series(labels.astype(str) if labels.dtype == object else labels),
                           errors="coerce").to_numpy(np.float64)
    if np.isfinite(as_num).all():
        if not np.all(as_num == np.round(as_num)):
            i = int(np.flatnonzero(as_num != np.round(as_num))[0])
            raise ValueError(f"labels must be integers or text; label number {i + 1} (in the "
                             "file's order) has a fractional part: continuous targets are not classes")
        values, y = np.unique(as_num.astype(np.int64), return_inverse=True)
        names = tuple(str(int(v)) for v in values)
    else:
        values, y = np.unique(labels.astype(str), return_inverse=True)
        names = tuple(str(v) for v in values)
    if len(names) < 2:
        raise ValueError("labels must contain at least 2 classes, got only one")
    if len(names) > MAX_CLASSES:
        raise ValueError(f"labels must contain at most {MAX_CLASSES} classes, got {len(names)} "
                         "(is the first column really the label?)")
    return y.astype(np.int64), names


def load_upload(file_or_bytes: Upload, filename: str, *,
                image_shape: tuple[int, ...] | None = None) -> Dataset:
    """Parse and validate an uploaded CSV or NPZ into a :class:`Dataset` (75/25 split by row position).

    ``filename`` picks the format by its extension (``.csv`` or ``.npz``). ``image_shape``
    (e.g. ``(1, 28, 28)``) marks the features as images; NPZ images keep their own shape.
    Every problem raises ``ValueError`` saying what is wrong and where.
    """
    if not isinstance(filename, str) or not filename:
        raise ValueError(f"filename must be a non-empty string, got {shorten(filename)!r}")
    ext = Path(filename).suffix.lower()
    if ext not in FORMATS:
        raise ValueError(f"filename must end in one of {', '.join(FORMATS)}, got {shorten(filename)!r}")
    data = _read_bytes(file_or_bytes)
    names = None
    if ext == ".csv":
        X, raw_y, names = parse_csv(data)
        shape = None
    else:
        X, raw_y, shape = parse_npz(data)
    if image_shape is not None:
        shape = tuple(int(s) for s in image_shape)
        if int(np.prod(shape)) != X.shape[1]:
            raise ValueError(f"image_shape {shape} does not match the {X.shape[1]} feature columns")
    if X.dtype != np.float32 and np.abs(X).max(initial=0) > np.finfo(np.float32).max:
        raise ValueError("features must fit in float32 (|x| < 3.4e38)")
    y, labels = encode_labels(raw_y)
    counts = np.bincount(y, minlength=len(labels))
    if counts.min() < 2:
        k = int(np.argmin(counts))
        raise ValueError("every class needs at least 2 rows; "
                         f"class number {k + 1} (in sorted order) has only one")
    X_tr, X_te, y_tr, y_te = positional_split(X.astype(np.float32), y, what="upload")
    stem = Path(filename).name
    return Dataset(name=f"upload:{stem}", X_train=X_tr, y_train=y_tr, X_test=X_te, y_test=y_te,
                   class_names=labels, image_shape=shape,
                   feature_names=None if shape is not None else names,
                   # no row count: an upload's size is its own (private) fact
                   source=f"upload {stem} (split 75/25 by row position)")
