"""Feature normalization and row clipping (DP-CDA steps 1-2), pure numpy.

Two normalizers:

- ``"zscore"``: per-feature ``(x - mean) / std`` with the population std (ddof=0), statistics
  computed on the training split. A zero-variance feature (e.g. MNIST's constant border pixels)
  maps to 0. The statistics come from the private data and are *not* covered by the DP guarantee
  (``uses_private_statistics=True``); never export ``shift``/``scale``.
- ``"scale"``: ``(x - low) / (high - low)`` with a public, data-independent range per feature:
  pixels ``[0, 255]`` by default (``x / 255``), or ``bounds=Dataset.feature_bounds`` (digits
  ``[0, 16]``; Adult's documented census ranges and ``[0, 1]`` for one-hot columns).
  Nothing is learned from the data (``uses_private_statistics=False``).

Both are fitted on the training split and applied unchanged to the test split. Then
:func:`clip_rows` bounds every row's L2 norm by ``c``: ``x <- x / max(1, ||x|| / c)``.
Outputs are float32; statistics are accumulated in float64.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

METHODS = ("zscore", "scale")
PIXEL_BOUNDS = (0.0, 255.0)
_CHUNK = 8192  # rows per block when accumulating in float64 (bounded extra memory)


@dataclass(frozen=True, eq=False)
class Normalizer:
    """``transform(X) = (X - shift) * inv_scale`` (``inv_scale`` is 0 for constant features)."""

    method: str
    shift: np.ndarray = field(repr=False)
    inv_scale: np.ndarray = field(repr=False)
    uses_private_statistics: bool
    description: str
    n_constant: int = 0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got method={self.method!r}")
        for k in ("shift", "inv_scale"):
            a = np.asarray(getattr(self, k), dtype=np.float64)
            if a.ndim != 1 or not np.isfinite(a).all():
                raise ValueError(f"{k} must be a finite 1-D array, got shape {a.shape}")
            a.flags.writeable = False
            object.__setattr__(self, k, a)
        if self.shift.shape != self.inv_scale.shape:
            raise ValueError("shift and inv_scale must have the same length")

    @property
    def n_features(self) -> int:
        return int(self.shift.shape[0])

    def _check(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X must be N x {self.n_features} (the fitted width), got shape {X.shape}")
        return X

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Normalize rows of ``X`` (train or test split alike); returns a new float32 array."""
        X = self._check(X)
        out = X.astype(np.float32, copy=True)
        out -= self.shift.astype(np.float32)
        out *= self.inv_scale.astype(np.float32)
        return out

    def inverse_transform(self, Z: np.ndarray) -> np.ndarray:
        """Back to the raw feature scale (constant features come back as their shift value)."""
        Z = self._check(Z)
        inv = self.inv_scale
        scale = np.divide(1.0, inv, out=np.zeros_like(inv), where=inv != 0).astype(np.float32)
        out = Z.astype(np.float32, copy=True)
        out *= scale
        out += self.shift.astype(np.float32)
        return out

    def card(self) -> dict:
        """What a data card records: the method and whether private statistics were used, no values."""
        return {"normalization": self.method, "uses_private_statistics": self.uses_private_statistics,
                "normalization_note": self.description, "n_features": self.n_features,
                "n_constant_features": self.n_constant}


def _as_2d(X: np.ndarray, name: str = "X_train") -> np.ndarray:
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (N x d), got shape {X.shape}")
    if not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.complexfloating):
        raise ValueError(f"{name} must be a real numeric array, got dtype {X.dtype}")
    return X


def _moments(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column mean and population variance in float64, two passes in row blocks."""
    n = X.shape[0]
    mean = X.sum(axis=0, dtype=np.float64) / n
    var = np.zeros(X.shape[1], dtype=np.float64)
    for i in range(0, n, _CHUNK):
        dev = X[i:i + _CHUNK].astype(np.float64) - mean
        var += np.einsum("ij,ij->j", dev, dev)
    return mean, var / n


def _bounds(bounds: object, d: int) -> tuple[np.ndarray, np.ndarray]:
    try:
        low, high = bounds  # type: ignore[misc]
        low = np.broadcast_to(np.asarray(low, dtype=np.float64), (d,))
        high = np.broadcast_to(np.asarray(high, dtype=np.float64), (d,))
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be a (low, high) pair of scalars or length-{d} arrays, "
                         f"got bounds={bounds!r}") from None
    if not (np.isfinite(low).all() and np.isfinite(high).all() and (high > low).all()):
        raise ValueError("bounds must be finite with high > low for every feature")
    return low, high


def fit_normalizer(X_train: np.ndarray, method: str, *, bounds: object = None) -> Normalizer:
    """Fit a normalizer on the training split; see the module docstring for the two methods.

    ``bounds`` (``"scale"`` only): public ``(low, high)``, scalars or per-feature arrays; ``None``
    means the pixel range ``[0, 255]``, and then every value must lie in that range.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got method={method!r}")
    X = _as_2d(X_train)
    d = X.shape[1]
    if method == "zscore":
        if bounds is not None:
            raise ValueError("bounds applies to method='scale' only; z-score learns its statistics")
        if not np.isfinite(X).all():
            raise ValueError("X_train must be finite (no NaN or inf) to fit a z-score")
        mean, var = _moments(X)
        constant = X.min(axis=0) == X.max(axis=0)  # exact test: rounding cannot fake a variance
        std = np.sqrt(var)
        inv = np.divide(1.0, std, out=np.zeros(d), where=(~constant) & (std > 0))
        n_const = int(np.count_nonzero(inv == 0))
        return Normalizer("zscore", mean, inv, True,
                          "per-feature z-score (population std) with mean/std from the private "
                          f"training split, not covered by the DP guarantee; {n_const} constant "
                          "features map to 0", n_const)
    if bounds is None:
        lo_x, hi_x = float(X.min()), float(X.max())
        if lo_x < PIXEL_BOUNDS[0] or hi_x > PIXEL_BOUNDS[1]:
            raise ValueError(f"method='scale' without bounds assumes pixel values in [0, 255], got "
                             f"values in [{lo_x:g}, {hi_x:g}]; pass bounds=(low, high) (e.g. "
                             "Dataset.feature_bounds), or use method='none' (features as given, "
                             "rows clipped to c; covered by the guarantee) or 'zscore' (private "
                             "statistics, not covered)")
        bounds, desc = PIXEL_BOUNDS, "pixel / 255 (fixed range [0, 255], data-independent)"
    else:
        desc = "(x - low) / (high - low) with fixed public per-feature ranges (data-independent)"
    low, high = _bounds(bounds, d)
    return Normalizer("scale", low, 1.0 / (high - low), False, desc, 0)


def fit_dataset_normalizer(dataset, method: str) -> Normalizer:
    """Fit on ``dataset.X_train``; ``"scale"`` uses the dataset's public ``feature_bounds``
    (pixels [0, 255], digits [0, 16], Adult's census ranges; uploads: [0, 255])."""
    bounds = getattr(dataset, "feature_bounds", None) if method == "scale" else None
    return fit_normalizer(dataset.X_train, method, bounds=bounds)


def clip_rows(X: np.ndarray, c: float) -> np.ndarray:
    """Scale each row to L2 norm at most ``c``: ``x <- x / max(1, ||x|| / c)`` (a new float32 array).

    Norms are computed in float64; rows still above ``c`` after rounding to float32 are nudged
    down, so ``||row|| <= c`` holds exactly as float32 norms.
    """
    if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) \
            or not np.isfinite(c) or c <= 0:
        raise ValueError(f"c must be a finite number > 0 (the clip norm), got c={c!r}")
    X = _as_2d(X, "X")
    out = X.astype(np.float32, copy=True)
    norms = _row_norms(out)
    factor = np.minimum(1.0, float(c) / np.maximum(norms, np.finfo(np.float64).tiny))
    out *= factor.astype(np.float32)[:, None]
    over = np.flatnonzero(_row_norms(out) > c)
    if over.size:
        out[over] *= np.float32(1.0 - 4 * np.finfo(np.float32).eps)
    return out


def _row_norms(X: np.ndarray) -> np.ndarray:
    out = np.empty(X.shape[0], dtype=np.float64)
    for i in range(0, X.shape[0], _CHUNK):
        block = X[i:i + _CHUNK].astype(np.float64)
        out[i:i + _CHUNK] = np.sqrt(np.einsum("ij,ij->i", block, block))
    return out


def normalize_and_clip(X_train: np.ndarray, X_test: np.ndarray, method: str, *, c: float,
                       bounds: object = None) -> tuple[np.ndarray, np.ndarray, Normalizer]:
    """Fit on ``X_train``, then normalize and clip both splits identically."""
    norm = fit_normalizer(X_train, method, bounds=bounds)
    return clip_rows(norm.transform(X_train), c), clip_rows(norm.transform(X_test), c), norm
