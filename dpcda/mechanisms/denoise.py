"""Denoising (DPMix Table II): a Gaussian filter over each synthetic image before training.

Post-processing of a release: it costs no privacy. The filter runs over the two spatial axes
only (``axes=(-2, -1)``, so neither samples nor channels are blurred together) on float data.
"""

from __future__ import annotations

import copy

import numpy as np

from dpcda.mechanisms.release import Release
from dpcda.mechanisms.validation import check_float


def gaussian_filter_images(X: np.ndarray, image_shape, sigma: float = 1.0) -> np.ndarray:
    """Filter rows of ``X`` (n x prod(image_shape)) as images of ``image_shape`` ((C,) H, W)."""
    from scipy.ndimage import gaussian_filter

    sigma = check_float("sigma", sigma, lo=0.0, lo_open=True, why=" (the filter's std in pixels)")
    shape = tuple(int(s) for s in image_shape)
    X = np.asarray(X)
    if len(shape) not in (2, 3) or X.ndim != 2 or int(np.prod(shape)) != X.shape[1]:
        raise ValueError(f"image_shape must be (H, W) or (C, H, W) with prod = {X.shape[-1]} "
                         f"features per row, got image_shape={tuple(image_shape)!r}")
    imgs = X.astype(np.float32, copy=False).reshape((len(X),) + shape)
    out = gaussian_filter(imgs, sigma=sigma, axes=(-2, -1))
    return out.reshape(len(X), -1).astype(np.float32, copy=False)


def denoise(release: Release, *, sigma: float = 1.0, image_shape=None) -> Release:
    """A new release whose images are Gaussian-filtered (``sigma`` in pixels; DPMix uses 1).

    ``image_shape`` defaults to the one on the release's card; tabular or projected releases
    cannot be denoised this way.
    """
    if not isinstance(release, Release):
        raise ValueError(f"release must be a Release, got {type(release).__name__}")
    if "projection" in release.extras:
        raise ValueError("a random-projection release holds projected features, not images: "
                         "it cannot be denoised as images")
    shape = image_shape or (release.card.get("data") or {}).get("image_shape")
    if not shape:
        raise ValueError("denoising needs images: this release has no image_shape (pass "
                         "image_shape=(C, H, W))")
    X = gaussian_filter_images(release.X, shape, sigma)
    card = copy.deepcopy(release.card)
    card.setdefault("postprocessing", []).append(
        {"step": "Gaussian filter on each synthetic image (denoising)",
         "sigma_pixels": float(sigma),
         "costs_privacy": False})
    return Release(X=X, y=release.y, y_soft=release.y_soft, card=card, extras=release.extras,
                   preprocess=release.preprocess)
