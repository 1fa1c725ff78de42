"""Tiny stand-ins for the dataset files, written by the tests themselves (no downloads, no
``../shared``): MNIST-layout IDX files and UCI Adult CSV files with the real formats.

``write_tiny_datasets(root)`` lays them out as ``$DPCDA_DATA_DIR`` expects (``root/mnist/``,
``root/fashion-mnist/``, ``root/adult/``); the constants below are what a loader must find.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

# Per class 3 or 4 training images (class k: 3 + k % 2), 2 test images; 28x28 with a blank
# 3-pixel border (constant features, as in MNIST) and the full 0..255 range inside.
IDX_TRAIN_COUNTS = tuple(3 + k % 2 for k in range(10))
IDX_TEST_COUNTS = (2,) * 10
IDX_SIDE = 28
IDX_BORDER = 3


def _idx_bytes(arr: np.ndarray) -> bytes:
    code = {np.dtype(np.uint8): 0x08}[arr.dtype]
    header = bytes([0, 0, code, arr.ndim]) + np.asarray(arr.shape, ">u4").tobytes()
    return header + arr.tobytes()


def _images(counts: tuple[int, ...], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    y = np.repeat(np.arange(len(counts), dtype=np.uint8), counts)
    rng.shuffle(y)
    X = np.zeros((len(y), IDX_SIDE, IDX_SIDE), np.uint8)
    inner = slice(IDX_BORDER, IDX_SIDE - IDX_BORDER)
    X[:, inner, inner] = rng.integers(0, 256, size=(len(y), IDX_SIDE - 2 * IDX_BORDER,
                                                     IDX_SIDE - 2 * IDX_BORDER), dtype=np.uint8)
    X[0, IDX_BORDER, IDX_BORDER], X[0, IDX_BORDER, IDX_BORDER + 1] = 0, 255
    return X, y


def write_tiny_idx(folder: Path, *, seed: int = 0, gz: bool = True) -> None:
    """The four MNIST IDX files (Yann LeCun's names) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for split, counts in (("train", IDX_TRAIN_COUNTS), ("t10k", IDX_TEST_COUNTS)):
        X, y = _images(counts, rng)
        for part, arr in (("images-idx3", X), ("labels-idx1", y)):
            blob = _idx_bytes(arr)
            name = f"{split}-{part}-ubyte"
            if gz:
                (folder / f"{name}.gz").write_bytes(gzip.compress(blob, mtime=0))
            else:
                (folder / name).write_bytes(blob)


# UCI Adult: 15 comma-separated columns, ", " separators, "?" for unknown; the test file's
# labels end in "." and it starts with the "|1x3 Cross validator" line only in some copies.
_ADULT_CATS = {
    "workclass": ("Private", "Self-emp-not-inc", "State-gov", "?"),
    "education": (("Bachelors", 13), ("HS-grad", 9), ("Masters", 14), ("Some-college", 10)),
    "marital-status": ("Never-married", "Married-civ-spouse", "Divorced"),
    "occupation": ("Adm-clerical", "Exec-managerial", "Sales", "?"),
    "relationship": ("Not-in-family", "Husband", "Own-child", "Wife"),
    "race": ("White", "Black", "Asian-Pac-Islander"),
    "sex": ("Male", "Female"),
    "native-country": ("United-States", "Mexico", "?"),
}
ADULT_TRAIN_COUNTS = (40, 20)  # <=50K, >50K
ADULT_TEST_COUNTS = (9, 5)
ADULT_N_ONEHOT = sum(len(v) for v in _ADULT_CATS.values())  # every category occurs in training
ADULT_D_X = 6 + ADULT_N_ONEHOT


def _adult_row(i: int, label: str, rng: np.random.Generator) -> str:
    c = {k: v[(i + j) % len(v)] for j, (k, v) in enumerate(_ADULT_CATS.items())}
    edu, edu_num = c["education"]
    gain = 99999 if i % 17 == 0 else int(rng.integers(0, 5000)) * (i % 3 == 0)
    cells = [int(rng.integers(17, 91)), c["workclass"], int(rng.integers(12285, 1_400_000)), edu, edu_num,
             c["marital-status"], c["occupation"], c["relationship"], c["race"], c["sex"], gain,
             int(rng.integers(0, 4357)) * (i % 5 == 0), int(rng.integers(1, 100)), c["native-country"],
             label]
    return ", ".join(str(v) for v in cells)


def write_tiny_adult(folder: Path, *, seed: int = 0, cross_validator_line: bool = False) -> None:
    """``adult.data`` and ``adult.test`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for fname, counts, suffix in (("adult.data", ADULT_TRAIN_COUNTS, ""),
                                  ("adult.test", ADULT_TEST_COUNTS, ".")):
        labels = ["<=50K"] * counts[0] + [">50K"] * counts[1]
        order = rng.permutation(len(labels))
        lines = [_adult_row(i, labels[j] + suffix, rng) for i, j in enumerate(order)]
        head = "|1x3 Cross validator\n" if cross_validator_line and fname == "adult.test" else ""
        (folder / fname).write_text(head + "\n".join(lines) + "\n\n")


def write_tiny_datasets(root: Path) -> Path:
    """``root/mnist``, ``root/fashion-mnist`` (IDX) and ``root/adult`` (CSV); returns ``root``."""
    write_tiny_idx(root / "mnist", seed=1)
    write_tiny_idx(root / "fashion-mnist", seed=2)
    write_tiny_adult(root / "adult", seed=3)
    return root
