"""scikit-learn's bundled 8x8 digits (always available offline), and the stratified split it uses.

``load_digits()`` gives 1,797 images with pixel values 0..16. The train/test split is
``train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)`` (1,347 / 450 rows). Only
digits (public) uses it: an upload without a test split is split 75/25 by row position
(:mod:`dpcda.data.split`), whose errors word no row count.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np

from dpcda.data.dataset import Dataset
from dpcda.data.registry import register_dataset

TEST_SIZE = 0.25
SPLIT_SEED = 0


def stratified_split(X: np.ndarray, y: np.ndarray, *, what: str = "data"
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stratified 75/25 split with a fixed seed; needs >= 2 rows per class and room for every class."""
    from sklearn.model_selection import train_test_split

    counts = np.bincount(y)
    k = int(np.count_nonzero(counts))
    if counts[counts > 0].min() < 2:
        small = int(np.flatnonzero((counts > 0) & (counts < 2))[0])
        raise ValueError(f"{what}: every class needs at least 2 rows for the stratified train/test "
                         f"split, class index {small} has {int(counts[small])}")
    n = len(y)
    n_test = math.ceil(TEST_SIZE * n)
    if n_test < k or n - n_test < k:
        raise ValueError(f"{what}: {n} rows are too few for a stratified 75/25 split of {k} classes "
                         f"(need at least {math.ceil(k / TEST_SIZE)} rows)")
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=TEST_SIZE, random_state=SPLIT_SEED,
                                              stratify=y)
    return X_tr, X_te, y_tr, y_te


@functools.lru_cache(maxsize=1)
def _load() -> Dataset:
    from sklearn.datasets import load_digits

    d = load_digits()
    X = d.data.astype(np.float32)
    y = d.target.astype(np.int64)
    X_tr, X_te, y_tr, y_te = stratified_split(X, y, what="digits")
    return Dataset(name="digits", X_train=X_tr, y_train=y_tr, X_test=X_te, y_test=y_te,
                   class_names=tuple(str(int(c)) for c in d.target_names), image_shape=(1, 8, 8),
                   source="scikit-learn load_digits (bundled, 75/25 stratified split, seed 0)",
                   feature_bounds=(0.0, 16.0))


# Small (1,347 records): the torch learners get ~6 steps an epoch at batch 256, so 30 epochs
# (measured: a linear model 0.20 test accuracy non-private after 5 epochs, 0.82 after 30); a
# closed-form learner wins in both settings (dpcda.training.default_model: ncm private, lda not).
@register_dataset("digits", title="scikit-learn digits (8x8)", kind="image", offline=True,
                  class_counts=(133, 136, 133, 137, 136, 136, 136, 134, 131, 135), d_x=64, d_y=10,
                  split_title="scikit-learn digits (75% stratified train split)",
                  image_shape=(1, 8, 8), epochs=30, seconds_per_run=1.0,
                  auto_learners=("ncm", "lda"))
def load_digits_dataset(data_dir: Path | None = None) -> Dataset:
    """``data_dir`` is ignored: the data ships with scikit-learn."""
    return _load()
