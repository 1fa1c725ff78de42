"""A train/test split that reads no label: rows go to the test part by their position alone.

An upload has no test split of its own. A stratified split (as the public ``digits`` uses) reads
every label, so one record's label change moves dozens of other records between the parts (on
digits: 59 records swapped), and a guarantee about "one record of the file" would only hold for
"one record of the training part". Here the test rows are a fixed permutation of the row
*positions* (public seed :data:`SPLIT_SEED`, no private randomness: the assignment is public and
the same for every file of N rows), so neighbouring files (one record replaced, features and
label) have training parts that differ in that record alone.
"""

from __future__ import annotations

import math

import numpy as np

# The test part's share of the rows and the public seed of the positions' permutation: the same
# constants as the digits split (no private data is drawn with the seed).
from dpcda.data.digits import SPLIT_SEED, TEST_SIZE


def test_positions(n: int) -> np.ndarray:
    """The sorted positions of the test rows of a file of ``n`` rows (``ceil(0.25 n)`` of them)."""
    n = int(n)
    n_test = math.ceil(TEST_SIZE * n)
    return np.sort(np.random.default_rng(SPLIT_SEED).permutation(n)[:n_test])


def positional_split(X: np.ndarray, y: np.ndarray, *, what: str = "data"
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """75/25 split by position (:func:`test_positions`); every class must keep a training row."""
    n = len(y)
    if n < 8:
        # the file's row count is the uploader's own: the rule, not the count
        raise ValueError(f"{what}: a file needs at least 8 rows for the 75/25 train/test split; "
                         "this one has fewer")
    test = np.zeros(n, dtype=bool)
    test[test_positions(n)] = True
    present = np.unique(y)
    if not np.isin(present, y[~test]).all():
        raise ValueError(f"{what}: some class has no row in the training part of the 75/25 split "
                         "(rows are assigned by their position in the file, not by label): "
                         "add rows of every class or shuffle the file")
    return X[~test], X[test], y[~test], y[test]
