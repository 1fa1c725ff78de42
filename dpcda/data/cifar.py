"""CIFAR-10 from the "python version" batches (``cifar-10-batches-py/``).

Files: ``data_batch_1`` .. ``data_batch_5`` and ``test_batch`` (``batches.meta`` optional, for the
class names), each a pickled dict with ``b"data"`` (N x 3072 uint8, channel-major 3x32x32) and
``b"labels"``. The batches are read with a restricted unpickler that only rebuilds plain numpy
arrays, lists, dicts and strings, so a hostile file cannot run code.
"""

from __future__ import annotations

import codecs
import functools
import pickle
from pathlib import Path

import numpy as np

from dpcda.data.dataset import Dataset
from dpcda.data.locate import cache_dir, candidate_dirs, find_first, try_download, unavailable
from dpcda.data.registry import register_dataset

FOLDER = "cifar-10-batches-py"
TRAIN_FILES = tuple(f"data_batch_{i}" for i in range(1, 6))
TEST_FILE = "test_batch"
CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
IMAGE_SHAPE = (3, 32, 32)
PROBE_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"


def _allowed() -> dict[tuple[str, str], object]:
    from numpy._core import multiarray, numeric

    ok = {("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype,
          ("_codecs", "encode"): codecs.encode}
    for mod in ("numpy.core", "numpy._core"):
        ok[(f"{mod}.multiarray", "_reconstruct")] = multiarray._reconstruct
        ok[(f"{mod}.numeric", "_frombuffer")] = numeric._frombuffer
    return ok


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> object:
        try:
            return _allowed()[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a CIFAR batch") from None


def read_batch(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """One batch file -> (uint8 N x 3072 images, int64 labels)."""
    try:
        with open(path, "rb") as f:
            d = _SafeUnpickler(f, encoding="bytes").load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as e:
        raise ValueError(f"{path}: not a CIFAR-10 python batch ({e})") from None
    if not isinstance(d, dict) or b"data" not in d or not (b"labels" in d or b"fine_labels" in d):
        raise ValueError(f"{path}: a CIFAR-10 batch must be a dict with b'data' and b'labels'")
    X = np.asarray(d[b"data"], dtype=np.uint8)
    y = np.asarray(d.get(b"labels", d.get(b"fine_labels")), dtype=np.int64)
    d_img = int(np.prod(IMAGE_SHAPE))
    if X.ndim == 4:
        X = X.reshape(len(X), -1)
    if X.ndim != 2 or X.shape[1] != d_img or len(y) != len(X):
        raise ValueError(f"{path}: expected data of shape (N, {d_img}) and N labels, "
                         f"got data {X.shape} and {len(y)} labels")
    return X, y


def read_class_names(folder: Path) -> tuple[str, ...]:
    meta = folder / "batches.meta"
    if meta.is_file():
        try:
            with open(meta, "rb") as f:
                names = _SafeUnpickler(f, encoding="bytes").load().get(b"label_names")
            if names and len(names) == len(CLASSES):
                return tuple(n.decode() if isinstance(n, bytes) else str(n) for n in names)
        except Exception:  # noqa: BLE001 - the meta file is optional; fall back to the standard names
            pass
    return CLASSES


def find_batches(folder: Path) -> list[Path] | None:
    files = [folder / n for n in (*TRAIN_FILES, TEST_FILE)]
    return files if all(p.is_file() for p in files) else None


@functools.lru_cache(maxsize=2)
def _load_cached(key: tuple, source: str) -> Dataset:
    files = [Path(p) for p, _, _ in key]
    parts = [read_batch(p) for p in files]
    X_tr = np.concatenate([x for x, _ in parts[:-1]])
    y_tr = np.concatenate([y for _, y in parts[:-1]])
    X_te, y_te = parts[-1]
    names = read_class_names(files[0].parent)
    for split, y in (("train", y_tr), ("test", y_te)):
        if y.size and (y.min() < 0 or y.max() >= len(names)):
            raise ValueError(f"cifar10: {split} labels must lie in 0..{len(names) - 1}")
    return Dataset(name="cifar10", X_train=X_tr.astype(np.float32), y_train=y_tr,
                   X_test=X_te.astype(np.float32), y_test=y_te, class_names=names,
                   image_shape=IMAGE_SHAPE, source=source, feature_bounds=(0.0, 255.0))


def load_cifar_folder(folder: Path) -> Dataset:
    """Parse the six batch files in ``folder`` (cached per process on path and modification time)."""
    files = find_batches(Path(folder))
    if files is None:
        raise ValueError(f"{folder} must hold {', '.join((*TRAIN_FILES, TEST_FILE))}")
    key = tuple((str(p.resolve()), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    return _load_cached(key, f"files in {folder}")


def _fetch(root: Path) -> None:
    import torchvision.datasets as tvd  # lazy: torch only for the online fallback

    tvd.CIFAR10(str(root), train=True, download=True)


def _dirs(data_dir: Path | None) -> list[Path]:
    return candidate_dirs("cifar10", data_dir, subdirs=(FOLDER, f"cifar10/{FOLDER}", "cifar10"))


def find_cifar10(data_dir: Path | None = None) -> Path | None:
    hit = find_first(_dirs(data_dir), find_batches)
    return hit[0] if hit else None


@register_dataset("cifar10", title="CIFAR-10", kind="image", find=find_cifar10,
                  folder=FOLDER, files=(*TRAIN_FILES, TEST_FILE),
                  alt_layout=f"`cifar10/{FOLDER}/`", download="with torchvision",
                  class_counts=(5000,) * 10, d_x=3072, d_y=10, split_title="CIFAR-10 (train)",
                  image_shape=IMAGE_SHAPE)
def load_cifar10(data_dir: Path | None = None) -> Dataset:
    dirs = _dirs(data_dir)
    hit = find_first(dirs, find_batches)
    if hit is None:
        note = try_download(PROBE_URL, _fetch)
        if note is None:
            hit = find_first([cache_dir() / FOLDER], find_batches)
        if hit is None:
            raise unavailable("CIFAR-10", f"cifar10/{FOLDER}", [*TRAIN_FILES, TEST_FILE], dirs,
                              note or "download finished but no files found",
                              layout=f"<folder>/{FOLDER}/ (torchvision's layout) works too")
    return load_cifar_folder(hit[0])
