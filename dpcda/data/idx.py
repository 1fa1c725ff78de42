"""MNIST and Fashion-MNIST from IDX files (``.gz`` or uncompressed), parsed with numpy only.

Expected files (Yann LeCun's names; ``train-images.idx3-ubyte`` spellings work too):
``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz``, ``t10k-images-idx3-ubyte.gz``,
``t10k-labels-idx1-ubyte.gz`` in ``$DPCDA_DATA_DIR/mnist/`` (or ``fashion-mnist/``), or torchvision's
``<root>/MNIST/raw/`` (``FashionMNIST/raw/``) layout.
"""

from __future__ import annotations

import functools
import zlib
from pathlib import Path

import numpy as np

from dpcda.data.dataset import Dataset
from dpcda.data.locate import cache_dir, candidate_dirs, find_first, try_download, unavailable
from dpcda.data.registry import register_dataset

PARTS = {"train_images": "train-images", "train_labels": "train-labels",
         "test_images": "t10k-images", "test_labels": "t10k-labels"}
_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
           0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
PROBE_URLS = {"MNIST": "https://ossci-datasets.s3.amazonaws.com/mnist/",
              "FashionMNIST": "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"}
# Debian's dataset-fashion-mnist package installs the IDX files here.
SYSTEM_DIRS = {"fashion-mnist": ("/usr/share/datasets/fashion-mnist",)}

MNIST_CLASSES = tuple(str(i) for i in range(10))
FASHION_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
                   "Sneaker", "Bag", "Ankle boot")


def parse_idx(data: bytes, *, what: str = "IDX data") -> np.ndarray:
    """Decode one IDX file's bytes (already decompressed) into an array of its stored shape."""
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _DTYPES:
        raise ValueError(f"{what}: not an IDX file (bad magic number {data[:4].hex()})")
    ndim = data[3]
    header = 4 + 4 * ndim
    if ndim == 0 or len(data) < header:
        raise ValueError(f"{what}: truncated IDX header")
    shape = tuple(int(s) for s in np.frombuffer(data, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(_DTYPES[data[2]])
    need = int(np.prod(shape)) * dtype.itemsize
    if len(data) - header != need:
        raise ValueError(f"{what}: IDX header says shape {shape} ({need} bytes) but the file holds "
                         f"{len(data) - header} bytes")
    return np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)


def read_idx(path: Path) -> np.ndarray:
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":  # gzip magic, whatever the suffix
        from dpcda.data.array_limits import MAX_ARRAY_BYTES

        try:  # never more than the limit unpacked (a small file may inflate to gigabytes)
            unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)
            raw = unpack.decompress(raw, MAX_ARRAY_BYTES + 1)
        except zlib.error as e:
            raise ValueError(f"{path}: corrupt gzip file ({e})") from None
        if len(raw) > MAX_ARRAY_BYTES:
            raise ValueError(f"{path}: unpacks to more than {MAX_ARRAY_BYTES / 2**30:g} GiB "
                             "(limit dpcda.data.array_limits.MAX_ARRAY_BYTES)")
    return parse_idx(raw, what=str(path))


def _candidates(stem: str) -> list[str]:
    kind = "idx3" if stem.endswith("images") else "idx1"
    names = [f"{stem}-{kind}-ubyte", f"{stem}.{kind}-ubyte"]
    return [n + ext for n in names for ext in (".gz", "")]


def find_idx_files(folder: Path) -> dict[str, Path] | None:
    """The four IDX files in ``folder`` (``.gz`` preferred), or ``None`` unless all four are there."""
    found = {}
    for key, stem in PARTS.items():
        hit = next((folder / n for n in _candidates(stem) if (folder / n).is_file()), None)
        if hit is None:
            return None
        found[key] = hit
    return found


def _key(files: dict[str, Path]) -> tuple:
    return tuple((k, str(p.resolve()), p.stat().st_mtime_ns, p.stat().st_size)
                 for k, p in sorted(files.items()))


@functools.lru_cache(maxsize=4)
def _load_cached(name: str, key: tuple, class_names: tuple[str, ...], source: str) -> Dataset:
    files = {k: Path(p) for k, p, _, _ in key}
    arr = {k: read_idx(p) for k, p in files.items()}
    for split in ("train", "test"):
        X, y = arr[f"{split}_images"], arr[f"{split}_labels"]
        if X.ndim != 3 or y.ndim != 1 or len(X) != len(y):
            raise ValueError(f"{name}: {split} images {X.shape} and labels {y.shape} do not match")
        if y.size and (y.min() < 0 or y.max() >= len(class_names)):
            raise ValueError(f"{name}: {split} labels must lie in 0..{len(class_names) - 1}")
    n, h, w = arr["train_images"].shape
    return Dataset(
        name=name,
        X_train=arr["train_images"].reshape(n, h * w).astype(np.float32),
        y_train=arr["train_labels"].astype(np.int64),
        X_test=arr["test_images"].reshape(len(arr["test_images"]), -1).astype(np.float32),
        y_test=arr["test_labels"].astype(np.int64),
        class_names=class_names, image_shape=(1, h, w), source=source,
        feature_bounds=(0.0, 255.0))


def _fetch(tv_class: str):
    def fetch(root: Path) -> None:
        import torchvision.datasets as tvd  # lazy: torch only for the online fallback

        getattr(tvd, tv_class)(str(root), train=True, download=True)  # fetches all four files
    return fetch


def _dirs(name: str, tv_class: str, data_dir: Path | None) -> list[Path]:
    return candidate_dirs(name, data_dir, subdirs=(name, f"{tv_class}/raw"),
                          system=SYSTEM_DIRS.get(name, ()))


def _finder(name: str, tv_class: str):
    def find(data_dir: Path | None = None) -> Path | None:
        hit = find_first(_dirs(name, tv_class, data_dir), find_idx_files)
        return hit[0] if hit else None
    return find


FILES = tuple(_candidates(s)[0] for s in PARTS.values())


def _load_idx_dataset(name: str, title: str, tv_class: str, class_names: tuple[str, ...],
                      data_dir: Path | None) -> Dataset:
    dirs = _dirs(name, tv_class, data_dir)
    hit = find_first(dirs, find_idx_files)
    source = "files in {}"
    if hit is None:
        note = try_download(PROBE_URLS[tv_class], _fetch(tv_class))
        if note is None:
            hit = find_first([cache_dir() / tv_class / "raw"], find_idx_files)
            source = "downloaded by torchvision into {}"
        if hit is None:
            raise unavailable(title, name, FILES, dirs, note or "download finished but no files found",
                              layout=f"torchvision's <folder>/{tv_class}/raw/ layout works too")
    folder, files = hit
    return _load_cached(name, _key(files), class_names, source.format(folder))


# Public facts and defaults (measured: README "Honest defaults"; dp-center won on both).
@register_dataset("mnist", title="MNIST", kind="image", find=_finder("mnist", "MNIST"),
                  files=FILES, alt_layout="torchvision's `MNIST/raw/`", download="with torchvision",
                  class_counts=(5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949),
                  d_x=784, d_y=10, split_title="MNIST (train)", dp_cda_normalization="dp-center",
                  image_shape=(1, 28, 28), seconds_per_run=18.0)
def load_mnist(data_dir: Path | None = None) -> Dataset:
    return _load_idx_dataset("mnist", "MNIST", "MNIST", MNIST_CLASSES, data_dir)


@register_dataset("fashion-mnist", title="Fashion-MNIST", kind="image",
                  find=_finder("fashion-mnist", "FashionMNIST"), files=FILES,
                  alt_layout="torchvision's `FashionMNIST/raw/`", download="with torchvision",
                  class_counts=(6000,) * 10, d_x=784, d_y=10, split_title="Fashion-MNIST (train)",
                  dp_cda_normalization="dp-center", image_shape=(1, 28, 28), seconds_per_run=18.0)
def load_fashion_mnist(data_dir: Path | None = None) -> Dataset:
    return _load_idx_dataset("fashion-mnist", "Fashion-MNIST", "FashionMNIST", FASHION_CLASSES,
                             data_dir)
