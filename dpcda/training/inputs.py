"""Input handling shared by every learner (numpy only): shapes, scaling, denoising, labels."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def as_batch(X: Any, name: str, image_shape: tuple[int, ...] | None) -> np.ndarray:
    """float32 array (n, *image_shape) if an image shape is given, else (n, d)."""
    arr = np.asarray(X, dtype=np.float32)
    if arr.ndim < 2 or len(arr) == 0:
        raise ValueError(f"{name} must be a non-empty array of shape (n, ...), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf values)")
    n = len(arr)
    if image_shape is None:
        return arr.reshape(n, -1)
    if math.prod(arr.shape[1:]) != math.prod(image_shape):
        raise ValueError(
            f"{name} rows have {math.prod(arr.shape[1:])} values but image_shape={image_shape} "
            f"needs {math.prod(image_shape)}"
        )
    return arr.reshape(n, *image_shape)


def as_labels(y: Any, name: str, n: int) -> np.ndarray:
    arr = np.asarray(y)
    whole = np.issubdtype(arr.dtype, np.integer) or (
        np.issubdtype(arr.dtype, np.floating) and bool(np.all(arr == np.round(arr))))
    if arr.shape != (n,) or not whole:
        raise ValueError(f"{name} must be {n} integer labels, got shape {arr.shape} dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if n and arr.min() < 0:
        raise ValueError(f"{name} must be labels >= 0, got min {arr.min()}")
    return arr


def input_scale_factor(scale: float | str, *, n_features: int, clip_norm: float) -> float:
    """``"sqrt-d"`` -> sqrt(d) / clip_norm, ``"none"`` -> 1, a number -> itself."""
    if scale == "sqrt-d":
        return math.sqrt(n_features) / clip_norm
    if scale == "none":
        return 1.0
    return float(scale)


def denoise_images(X: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian filter of std ``sigma`` pixels over the last two axes of a float image batch.

    Post-processing of a release (no privacy cost). Uses
    ``dpcda.mechanisms.gaussian_filter_images`` when the mechanisms package is importable (one
    implementation for the library), else ``scipy.ndimage.gaussian_filter(axes=(-2, -1))``
    directly; either way it never blurs across samples or channels.
    """
    if sigma <= 0:
        return X
    if X.ndim < 3:
        raise ValueError(f"denoise_sigma needs image input (n, C, H, W); got shape {X.shape}")
    try:
        from dpcda.mechanisms import gaussian_filter_images
    except ImportError:
        gaussian_filter_images = None
    if gaussian_filter_images is not None:
        flat = gaussian_filter_images(X.reshape(len(X), -1), X.shape[1:], sigma)
        return np.asarray(flat, dtype=np.float32).reshape(X.shape)
    from scipy.ndimage import gaussian_filter

    return gaussian_filter(X.astype(np.float32, copy=False), sigma=sigma, axes=(-2, -1)).astype(np.float32)


def soft_targets(y_soft: Any, y: np.ndarray, n_classes: int) -> np.ndarray:
    """Noisy soft labels -> distributions: clip negatives to 0, renormalise rows to sum 1.

    A row with no positive entry falls back to one-hot of its hard label ``y``.
    """
    S = np.asarray(y_soft, dtype=np.float32)
    if S.shape != (len(y), n_classes):
        raise ValueError(f"y_soft must have shape ({len(y)}, {n_classes}), got {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError("y_soft must be finite")
    S = np.clip(S, 0.0, None)
    tot = S.sum(axis=1, keepdims=True)
    empty = tot[:, 0] <= 0
    S = S / np.where(tot > 0, tot, 1.0)
    if empty.any():
        S[empty] = 0.0
        S[np.flatnonzero(empty), y[empty]] = 1.0
    return S


def prior_shift(class_prior: tuple[float, ...] | None, y_train: np.ndarray,
                n_classes: int) -> np.ndarray | None:
    """Additive logit correction ``log(prior) - log(train frequency)`` (None if no prior)."""
    if class_prior is None:
        return None
    if len(class_prior) != n_classes:
        raise ValueError(
            f"class_prior must have one entry per class ({n_classes}), got {len(class_prior)}"
        )
    prior = np.asarray(class_prior, dtype=np.float64)
    prior = prior / prior.sum()
    freq = np.bincount(y_train, minlength=n_classes).astype(np.float64) / len(y_train)
    return np.log(prior) - np.log(np.maximum(freq, 1e-12))
