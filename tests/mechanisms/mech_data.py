"""Small synthetic data for the generator tests (seconds, no datasets needed)."""

from __future__ import annotations

import numpy as np


def make_blocks(K: int = 4, per_class=(30, 25, 40, 35), width: int = 5, seed: int = 0):
    """Class k lives in its own coordinate block ``k*width:(k+1)*width`` (values in [1, 2]),
    zeros elsewhere: a mixture's block shows which classes it drew from."""
    rng = np.random.default_rng(seed)
    per_class = list(per_class)[:K]
    y = np.concatenate([np.full(n, k) for k, n in enumerate(per_class)]).astype(np.int64)
    rng.shuffle(y)
    X = np.zeros((len(y), K * width), dtype=np.float32)
    for i, k in enumerate(y):
        X[i, k * width:(k + 1) * width] = rng.uniform(1.0, 2.0, width)
    return X, y


def make_constant_classes(K: int = 3, n: int = 20, d: int = 16, seed: int = 1):
    """All points of class k equal one vector v_k: every mixture of class k is exactly v_k."""
    rng = np.random.default_rng(seed)
    V = rng.normal(size=(K, d)).astype(np.float32)
    y = np.repeat(np.arange(K), n).astype(np.int64)
    return V[y].copy(), y, V


# Settings under which preprocessing is the identity: no normalization, a clip norm no row reaches.
IDENTITY = dict(normalize="none", c=1e6, allocation="equal")
