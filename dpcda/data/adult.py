"""UCI Adult (census income) from ``adult.data`` and ``adult.test``.

Put both files in ``$DPCDA_DATA_DIR/adult/``. Parsing rules:

- whitespace around every cell is stripped; blank lines and lines starting with ``|`` (the
  original test file's ``|1x3 Cross validator`` line) are skipped;
- the label is ``income``: ``>50K`` -> 1, ``<=50K`` -> 0; the trailing ``.`` of the test file's labels
  (``>50K.``) is removed;
- ``?`` (unknown) is kept as its own category, not dropped: dropping rows would change N and the
  class counts that privacy accounting relies on;
- the 6 numeric columns keep their raw values; the 8 categorical columns are one-hot encoded,
  with categories (sorted) fixed from the training file, so an unseen test category becomes an
  all-zero segment. Columns keep the file's order (``age``, ``workclass=...``, ``fnlwgt``, ...):
  6 numeric + 102 one-hot = 108 features. :attr:`Dataset.segments` records each one-hot segment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import functools
import io
import zipfile
from pathlib import Path

import numpy as np

from dpcda.data.dataset import Dataset, Segment
from dpcda.data.locate import cache_dir, candidate_dirs, find_first, try_download, unavailable
from dpcda.data.registry import register_dataset

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
           "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
           "hours-per-week", "native-country", "income")
NUMERIC = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")
CATEGORICAL = tuple(c for c in COLUMNS[:-1] if c not in NUMERIC)
CLASSES = ("<=50K", ">50K")
FILES = ("adult.data", "adult.test")
URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"
ZIP_URL = "https://archive.ics.uci.edu/static/public/2/adult.zip"
DOWNLOAD_TIMEOUT_S = 20

# Public, data-independent ranges for the "scale" normalizer (chosen from the census coding,
# not computed from the files): ages 0..100, the census weight 0..1.5 million, education codes
# 1..16, capital gains top-coded at 99,999, capital losses 0..5,000, hours 0..99 (top code).
PUBLIC_RANGES = {"age": (0.0, 100.0), "fnlwgt": (0.0, 1.5e6), "education-num": (1.0, 16.0),
                 "capital-gain": (0.0, 99999.0), "capital-loss": (0.0, 5000.0),
                 "hours-per-week": (0.0, 99.0)}


def read_adult_table(path: Path) -> pd.DataFrame:
    """Read one Adult file into a string DataFrame (stripped cells, clean labels)."""
    import pandas as pd  # here, not at the top: importing dpcda.data stays free of pandas
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("|")]
    df = pd.read_csv(io.StringIO("\n".join(lines)), header=None, dtype=str, skipinitialspace=True,
                     keep_default_na=False, na_filter=False)
    if df.shape[1] != len(COLUMNS):
        raise ValueError(f"{path}: expected {len(COLUMNS)} comma-separated columns, got {df.shape[1]}")
    df.columns = list(COLUMNS)
    df = df.apply(lambda s: s.str.strip())
    df["income"] = df["income"].str.rstrip(".")
    bad = ~df["income"].isin(CLASSES)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"{path}: data row {i + 1}: income must be one of {', '.join(CLASSES)} "
                         f"(optionally with a trailing '.'), got {df['income'].iloc[i]!r}")
    return df


def _numeric(df: pd.DataFrame, path: Path) -> np.ndarray:
    import pandas as pd  # here, not at the top: importing dpcda.data stays free of pandas
    out = np.empty((len(df), len(NUMERIC)), dtype=np.float32)
    for j, col in enumerate(NUMERIC):
        vals = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64)
        if not np.isfinite(vals).all():
            i = int(np.flatnonzero(~np.isfinite(vals))[0])
            raise ValueError(f"{path}: data row {i + 1}, column {col!r} must be a number, "
                             f"got {df[col].iloc[i]!r}")
        out[:, j] = vals
    return out


def encode_adult(train: pd.DataFrame, test: pd.DataFrame, paths: tuple[Path, Path]):
    """One-hot encode both splits with categories from ``train``; returns arrays and metadata."""
    import pandas as pd  # here, not at the top: importing dpcda.data stays free of pandas
    cats = {c: tuple(sorted(train[c].unique())) for c in CATEGORICAL}
    num = [_numeric(train, paths[0]), _numeric(test, paths[1])]
    blocks: list[list[np.ndarray]] = [[], []]
    names: list[str] = []
    segments: list[Segment] = []
    lows: list[float] = []
    highs: list[float] = []
    col = 0
    for c in COLUMNS[:-1]:
        if c in NUMERIC:
            j = NUMERIC.index(c)
            for b, n in zip(blocks, num):
                b.append(n[:, j:j + 1])
            names.append(c)
            lows.append(PUBLIC_RANGES[c][0])
            highs.append(PUBLIC_RANGES[c][1])
            col += 1
            continue
        k = len(cats[c])
        for b, df in zip(blocks, (train, test)):
            codes = pd.Index(cats[c]).get_indexer(df[c])  # unseen -> -1
            onehot = np.zeros((len(df), k), dtype=np.float32)
            rows = np.flatnonzero(codes >= 0)
            onehot[rows, codes[rows]] = 1.0
            b.append(onehot)
        segments.append(Segment(c, col, col + k, cats[c]))
        names += [f"{c}={v}" for v in cats[c]]
        lows += [0.0] * k
        highs += [1.0] * k
        col += k
    X_tr, X_te = (np.concatenate(b, axis=1) for b in blocks)
    y_tr, y_te = ((df["income"] == CLASSES[1]).to_numpy().astype(np.int64) for df in (train, test))
    bounds = (np.asarray(lows, np.float32), np.asarray(highs, np.float32))
    return X_tr, y_tr, X_te, y_te, tuple(segments), tuple(names), bounds


def find_adult_files(folder: Path) -> tuple[Path, Path] | None:
    paths = tuple(folder / f for f in FILES)
    return paths if all(p.is_file() for p in paths) else None  # type: ignore[return-value]


@functools.lru_cache(maxsize=2)
def _load_cached(key: tuple, source: str) -> Dataset:
    paths = tuple(Path(p) for p, _, _ in key)
    train, test = read_adult_table(paths[0]), read_adult_table(paths[1])
    X_tr, y_tr, X_te, y_te, segments, names, bounds = encode_adult(train, test, paths)
    return Dataset(name="adult", X_train=X_tr, y_train=y_tr, X_test=X_te, y_test=y_te,
                   class_names=CLASSES, image_shape=None, segments=segments, feature_names=names,
                   source=source, feature_bounds=bounds)


def load_adult_folder(folder: Path) -> Dataset:
    """Parse ``adult.data`` and ``adult.test`` in ``folder`` (cached on path and modification time)."""
    paths = find_adult_files(Path(folder))
    if paths is None:
        raise ValueError(f"{folder} must hold {' and '.join(FILES)}")
    key = tuple((str(p.resolve()), p.stat().st_mtime_ns, p.stat().st_size) for p in paths)
    return _load_cached(key, f"files in {folder}")


def _fetch(root: Path) -> None:
    import urllib.request

    dest = root / "adult"
    dest.mkdir(parents=True, exist_ok=True)
    try:
        blobs = {}
        for f in FILES:
            with urllib.request.urlopen(URL + f, timeout=DOWNLOAD_TIMEOUT_S) as r:
                blobs[f] = r.read()
    except OSError:
        with urllib.request.urlopen(ZIP_URL, timeout=DOWNLOAD_TIMEOUT_S) as r:
            zf = zipfile.ZipFile(io.BytesIO(r.read()))
        blobs = {f: zf.read(f) for f in FILES}
    for f, data in blobs.items():
        (dest / f).write_bytes(data)


def find_adult(data_dir: Path | None = None) -> Path | None:
    hit = find_first(candidate_dirs("adult", data_dir, subdirs=("adult",)), find_adult_files)
    return hit[0] if hit else None


# Clip norm 3 (README "Honest defaults"): under the public [0, 1] scaling an Adult row has norm
# 2.8-3.7 (8 one-hot segments + 6 numeric columns); at c = 1 every row is shrunk 3-fold while the
# released one-hot segments are re-encoded as 0/1 codes, and a tree trained on the release then
# predicts one class on the real test split. The public scale (not dp-center: the tree loses 5
# points under it); one epoch for the torch learners.
@register_dataset("adult", title="UCI Adult (census income)", kind="tabular", find=find_adult,
                  files=FILES, download="from the UCI repository",
                  class_counts=(24720, 7841), d_x=108, d_y=2, split_title="UCI Adult (adult.data)",
                  note="d_x counts the one-hot encoded columns", clip_norm=3.0, epochs=1,
                  seconds_per_run=5.0)
def load_adult(data_dir: Path | None = None) -> Dataset:
    dirs = candidate_dirs("adult", data_dir, subdirs=("adult",))
    hit = find_first(dirs, find_adult_files)
    if hit is None:
        note = try_download(URL, _fetch)
        if note is None:
            hit = find_first([cache_dir() / "adult"], find_adult_files)
        if hit is None:
            raise unavailable("UCI Adult", "adult", FILES, dirs,
                              note or "download finished but no files found")
    return load_adult_folder(hit[0])
