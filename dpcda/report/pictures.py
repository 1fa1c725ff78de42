"""The pictures of a release: a per-class grid of samples, each class's mean, and that mean
denoised (post-processing of the release only: no private data, no privacy cost).

>>> pics = sample_pictures(rel, (1, 28, 28), per_class=8)                    # doctest: +SKIP
>>> pics.grid.shape, pics.means_tile.shape, pics.class_means.shape          # uint8, uint8, (K, d)

**Class means.** The mean of the released samples labelled k averages ``T_k`` independent
noise draws, so its noise shrinks by ``sqrt(T_k)``: this is what a learner can recover from the
release, and it shows the class shape even where every single sample is static.
**Denoised.** Each class mean is smoothed with a Gaussian filter over the image axes (std
:func:`smoothing_px` pixels) and, when the normalizer is the public fixed range, clipped below
at the range's low end (a released value can only be >= 0 there; negatives are noise).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcda.report import viz


def smoothing_px(image_shape) -> float:
    """The denoising filter's std in pixels: 1 for 28-pixel images (DPMix's choice), scaled with
    the image height (0.5 at least; digits' 8 x 8 get 0.5)."""
    h = int(tuple(image_shape)[-2])
    return max(0.5, h / 28.0)


def class_means(X: np.ndarray, y: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(means (K x d) float64, counts (K,))``: the mean of the rows labelled k (NaN rows for a
    class without samples)."""
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (len(X),):
        raise ValueError(f"X must be n x d and y have n labels, got {X.shape} and {y.shape}")
    K = int(n_classes)
    if K < 1 or (y.size and (y.min() < 0 or y.max() >= K)):
        raise ValueError(f"y must hold labels in 0..{K - 1}")
    from dpcda.evaluation.fidelity import class_means as means_of  # the one per-class mean (NaN if empty)

    return means_of(X, y, K), np.bincount(y, minlength=K)


def denoise_means(means: np.ndarray, image_shape, *, floor: float | None = None) -> np.ndarray:
    """Gaussian-smooth every (finite) mean image; clip below at ``floor`` when given (the public
    range's low end in the release's units). NaN rows stay NaN."""
    from dpcda.mechanisms.denoise import gaussian_filter_images

    means = np.asarray(means, dtype=np.float64)
    ok = np.isfinite(means).all(axis=1)
    out = np.full_like(means, np.nan)
    if ok.any():
        out[ok] = gaussian_filter_images(means[ok], image_shape, smoothing_px(image_shape))
        if floor is not None:
            out[ok] = np.maximum(out[ok], floor)
    return out


def public_floor(normalizer) -> float | None:
    """0.0 for the public fixed range (``"scale"``: raw low end -> 0, and clipping a row only
    shrinks it), None otherwise (no public lower bound)."""
    return 0.0 if getattr(normalizer, "method", None) == "scale" else None


@dataclass(frozen=True)
class SamplePictures:
    """What the Samples page (and the report) shows of an image release.

    ``grid``: uint8, row k = the first ``per_class`` samples labelled k (Figure 1 layout).
    ``means_tile``: uint8, row k = [class mean, denoised class mean], cells as high as the grid's.
    ``class_means`` / ``denoised_means``: float (K x d) in the release's units (NaN rows: no
    sample). ``mean_images`` / ``denoised_images``: uint8 per class (K x H x W[ x 3]).
    ``counts``: samples per hard label. ``class_names``: the K names (rows, top to bottom).
    ``smoothing_px`` / ``floor``: the denoising filter's std and the public floor clipped to.
    """

    grid: np.ndarray
    means_tile: np.ndarray
    class_means: np.ndarray
    denoised_means: np.ndarray
    mean_images: np.ndarray
    denoised_images: np.ndarray
    counts: np.ndarray
    class_names: tuple[str, ...]
    smoothing_px: float = 1.0
    floor: float | None = None


def sample_pictures(release, image_shape, *, per_class: int = 8, max_classes: int = 20,
                    class_names=None) -> SamplePictures:
    """The grid, class means and denoised means of a :class:`dpcda.mechanisms.Release` of
    images (the first ``max_classes`` classes). Display: the normalizer's scale is undone and
    each image stretched min-max (:func:`dpcda.report.viz.release_images`)."""
    if image_shape is None:
        raise ValueError("image_shape is needed: this release holds no images (a table)")
    if int(per_class) < 1 or int(max_classes) < 1:
        raise ValueError(f"per_class and max_classes must be >= 1, got {per_class}, {max_classes}")
    norm = getattr(release.preprocess, "normalizer", None)
    n_classes = release.y_soft.shape[1]
    K = min(int(max_classes), n_classes)
    names = tuple(class_names or (release.card.get("data") or {}).get("class_names")
                  or [str(k) for k in range(n_classes)])[:K]
    scale = viz.display_scale(norm)
    idx = viz.first_per_class(release.y, K, int(per_class))  # only these rows become images
    shown = idx[idx >= 0]
    imgs = viz.release_images(np.asarray(release.X)[shown], image_shape, scale=scale)
    at = {int(r): i for i, r in enumerate(shown)}
    grid = viz.tile([[imgs[at[int(r)]] if r >= 0 else None for r in row] for row in idx])
    means, counts = class_means(release.X, release.y, n_classes)
    means, counts = means[:K], counts[:K]
    floor = public_floor(norm)
    den = denoise_means(means, image_shape, floor=floor)
    ok = np.isfinite(means).all(axis=1)
    mean_imgs = viz.release_images(np.nan_to_num(means), image_shape, scale=scale)
    den_imgs = viz.release_images(np.nan_to_num(den), image_shape, scale=scale)
    tile = viz.tile([[mean_imgs[k], den_imgs[k]] if ok[k] else [None, None] for k in range(K)])
    return SamplePictures(grid=grid, means_tile=tile, class_means=means, denoised_means=den,
                          mean_images=mean_imgs, denoised_images=den_imgs, counts=counts,
                          class_names=names, smoothing_px=smoothing_px(image_shape), floor=floor)
