"""Shared pieces of the accuracy experiments (benchmarks/accuracy_*.py).

Self-contained on purpose so the figures do not move while the library's generators change:
an IDX reader, z-score (population std, zero variance -> 0), row clipping, and a DP-CDA
release per docs/specification.md §1 (per class, floor(T/K) samples; each the mean of l distinct random
same-class rows + N(0, sigma_x^2 I); soft label onehot(k) + N(0, sigma_y^2 I); hard label
its argmax). Noise scales come from ``dpcda.privacy.calibrate`` (paper accountant, Mironov
conversion) when it is importable, else from the published reference value for l = 4, eps = 10.
Data from DPCDA_DATA_DIR (default ../shared/datasets relative to the repository).
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
# Reference value: paper accountant, mironov, delta 1e-5, c = 1, T = N = 60000, l = 4, eps = 10.
# (The 0.1969 sometimes quoted for eps = 20 is not used: dpcda.privacy's paper accountant, orders 3..256,
# gives eps(0.1969) ~ 3.6e4 and sigma = 0.2346 for eps = 20; 0.1969 matches order alpha = 2.)
FALLBACK_SIGMA = {(4, 10.0): 0.2422}


def data_dir() -> Path:
    return Path(os.environ.get("DPCDA_DATA_DIR", REPO.parent / "shared" / "datasets"))


def _idx(path: Path) -> np.ndarray:
    raw = gzip.open(path).read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_images(name: str):
    """(X_train, y_train, X_test, y_test) float32 raw pixel scale, flat (n, 784)."""
    folder = data_dir() / name
    Xtr = _idx(folder / "train-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32)
    ytr = _idx(folder / "train-labels-idx1-ubyte.gz").astype(np.int64)
    Xte = _idx(folder / "t10k-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32)
    yte = _idx(folder / "t10k-labels-idx1-ubyte.gz").astype(np.int64)
    return Xtr, ytr, Xte, yte


def zscore_clip(Xtr: np.ndarray, Xte: np.ndarray, c: float):
    mu = Xtr.astype(np.float64).mean(axis=0)
    sd = Xtr.astype(np.float64).std(axis=0)
    inv = np.where(sd > 0, 1.0 / np.where(sd > 0, sd, 1.0), 0.0)

    def tf(X):
        Z = ((X - mu) * inv).astype(np.float32)
        nrm = np.linalg.norm(Z, axis=1, keepdims=True)
        return Z / np.maximum(1.0, nrm / c)

    return tf(Xtr), tf(Xte)


def _subsets(rng: np.random.Generator, n: int, l: int, m: int) -> np.ndarray:
    """m rows of l distinct indices in [0, n) (rejection; fine for l << sqrt(n))."""
    idx = rng.integers(0, n, size=(m, l))
    if l == 1:
        return idx
    while True:
        s = np.sort(idx, axis=1)
        bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
        if len(bad) == 0:
            return idx
        idx[bad] = rng.integers(0, n, size=(len(bad), l))


def dpcda_release(X: np.ndarray, y: np.ndarray, *, l: int, T: int, sigma_x: float,
                  sigma_y: float, rng: np.random.Generator):
    K = int(y.max()) + 1
    Tk = T // K
    Xs, ys, Ss = [], [], []
    for k in range(K):
        Xk = X[y == k]
        if len(Xk) < l:
            raise ValueError(f"class {k} has {len(Xk)} < l={l} rows")
        S = _subsets(rng, len(Xk), l, Tk)
        mix = Xk[S].mean(axis=1) + rng.normal(0, sigma_x, size=(Tk, X.shape[1])) if sigma_x > 0 \
            else Xk[S].mean(axis=1)
        soft = np.eye(K, dtype=np.float32)[np.full(Tk, k)]
        if sigma_y > 0:
            soft = soft + rng.normal(0, sigma_y, size=soft.shape)
        Xs.append(mix.astype(np.float32))
        Ss.append(soft.astype(np.float32))
        ys.append(soft.argmax(axis=1))
    return np.concatenate(Xs), np.concatenate(ys).astype(np.int64), np.concatenate(Ss)


def sigma_for(eps: float, l: int, *, T: int = 60000, n: int = 60000, delta: float = 1e-5,
              c: float = 1.0) -> tuple[float, str]:
    """(sigma, where it came from); sigma_x = sigma_y; eps = inf -> 0."""
    if eps == float("inf"):
        return 0.0, "non-private"
    try:
        from dpcda.privacy import calibrate

        cal = calibrate(epsilon=eps, delta=delta, l=l, c=c, T=T, n=n, accountant="paper",
                        conversion="mironov")
        return float(cal.sigma_x), "dpcda.privacy.calibrate(paper, mironov)"
    except ImportError:
        return FALLBACK_SIGMA[(l, float(eps))], "reference value (paper, mironov)"
