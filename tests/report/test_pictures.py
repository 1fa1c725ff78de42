"""dpcda.report.pictures: grid, class means and denoised means of an image release."""

from __future__ import annotations

import numpy as np
import pytest

from dpcda.mechanisms import generate_dpcda
from dpcda.report.pictures import class_means, denoise_means, public_floor, sample_pictures, smoothing_px

SHAPE = (1, 8, 8)


def shapes_dataset(n_per: int = 120, seed: int = 0):
    """Three classes whose clean images are a bar, a square and a diagonal (pixels 0..255)."""
    rng = np.random.default_rng(seed)
    protos = np.zeros((3, 8, 8))
    protos[0, :, 3:5] = 255
    protos[1, 2:6, 2:6] = 255
    protos[2][np.arange(8), np.arange(8)] = 255
    X = np.concatenate([np.clip(p + rng.normal(0, 20, (n_per, 8, 8)), 0, 255).reshape(n_per, -1)
                        for p in protos]).astype(np.float32)
    return X, np.repeat(np.arange(3), n_per), protos.reshape(3, -1)


def test_class_means_by_label_and_absent_class():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [10.0, 10.0]])
    means, counts = class_means(X, np.array([0, 0, 2]), 3)
    assert np.allclose(means[0], [2, 3]) and np.allclose(means[2], [10, 10])
    assert np.isnan(means[1]).all() and counts.tolist() == [2, 0, 1]
    with pytest.raises(ValueError, match="labels in 0..2"):
        class_means(X, np.array([0, 3, 1]), 3)


def test_denoise_smooths_clips_at_public_floor_and_keeps_nan_rows():
    rng = np.random.default_rng(1)
    noisy = rng.normal(0, 1, (2, 64))
    noisy[1] = np.nan
    out = denoise_means(noisy, SHAPE, floor=0.0)
    assert np.isnan(out[1]).all() and (out[0] >= 0).all()
    assert out[0].std() < noisy[0].std()  # smoothing removes pixel noise
    assert smoothing_px((1, 28, 28)) == 1.0 and smoothing_px(SHAPE) == 0.5


def test_class_means_recover_the_shape_that_single_samples_lose():
    """At noise where every single sample is far from its class shape, the class mean (and more
    so the denoised mean) is close to it: the point of the picture."""
    X, y, protos = shapes_dataset()
    rel = generate_dpcda(X, y, l=4, T=3000, sigma_x=0.5, sigma_y=0.5, c=1.0, normalize="scale",
                         image_shape=SHAPE, class_names=["bar", "square", "diagonal"], seed=3,
                         accountant="class-aware", compare_accountants=False)
    pics = sample_pictures(rel, SHAPE, per_class=4)
    target = protos / np.linalg.norm(protos, axis=1, keepdims=True)

    def cos(a, b):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))

    single = [cos(rel.X[i], target[rel.y[i]]) for i in range(30)]
    means = [cos(pics.class_means[k], target[k]) for k in range(3)]
    den = [cos(pics.denoised_means[k], target[k]) for k in range(3)]
    assert max(single) < 0.6 and min(means) > 0.9 and min(den) > 0.85  # blur costs a thin diagonal a little
    assert pics.counts.sum() == rel.n and pics.class_names == ("bar", "square", "diagonal")
    # Layout: 3 rows of 4 cells (8 px, 1 px pads); the means tile is 3 rows of 2 cells.
    assert pics.grid.shape == (3 * 9 + 1, 4 * 9 + 1) and pics.grid.dtype == np.uint8
    assert pics.means_tile.shape == (3 * 9 + 1, 2 * 9 + 1)
    assert pics.mean_images.shape == (3, 8, 8)
    assert pics.floor == public_floor(rel.preprocess.normalizer) == 0.0


def test_tables_are_refused():
    X, y, _ = shapes_dataset(20)
    rel = generate_dpcda(X, y, l=2, T=60, sigma_x=0.1, normalize="scale", seed=0,
                         accountant="class-aware", compare_accountants=False)
    with pytest.raises(ValueError, match="image_shape is needed"):
        sample_pictures(rel, None)
