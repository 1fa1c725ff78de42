"""Tests of dpcda.report.viz (display helpers, pure numpy)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from dpcda.report import viz
from dpcda.data import Segment, decode_segments, fit_normalizer


def test_viz_imports_no_streamlit_plotly_or_torch():
    import subprocess

    code = ("import sys, dpcda.report.viz; bad = [m for m in ('streamlit', 'plotly', 'torch') "
            "if m in sys.modules]; print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_to_uint8_min_max_per_image_and_fixed_range():
    imgs = np.array([[[0.0, 1.0], [2.0, 4.0]], [[-3.0, -3.0], [-1.0, -2.0]], [[5.0, 5.0], [5.0, 5.0]]])
    u = viz.to_uint8(imgs)
    assert u.dtype == np.uint8 and u.shape == imgs.shape
    assert u[0].min() == 0 and u[0].max() == 255 and u[0, 0, 1] == round(255 / 4)
    assert u[1].min() == 0 and u[1].max() == 255 and u[1, 1, 1] == round(255 / 2)
    assert (u[2] == 128).all()  # constant image -> mid-grey, no division by zero
    f = viz.to_uint8(imgs, low=0.0, high=4.0)
    assert f[0, 1, 1] == 255 and f[0, 0, 1] == round(255 / 4) and (f[1] == 0).all()
    with pytest.raises(ValueError, match="both low and high"):
        viz.to_uint8(imgs, low=0.0)
    with pytest.raises(ValueError, match="finite"):
        viz.to_uint8(np.array([[np.nan, 1.0]]))


def test_display_scale_undoes_normalizer_scale_only():
    X = np.array([[0.0, 1.0, 7.0], [2.0, 3.0, 7.0], [4.0, 8.0, 7.0]])
    norm = fit_normalizer(X, "zscore")
    s = viz.display_scale(norm)
    np.testing.assert_allclose(s, [X[:, 0].std(), X[:, 1].std(), 0.0])
    assert viz.display_scale(None) is None
    # z * std is the deviation from the mean in the original units (up to clipping).
    Z = norm.transform(X)
    expected = X - X.mean(axis=0)
    np.testing.assert_allclose(Z * s, expected, atol=1e-5)  # the constant column: 0 either way


def test_release_images_gray_and_rgb_and_scale():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 16))
    g = viz.release_images(X, (1, 4, 4))
    assert g.shape == (5, 4, 4) and g.dtype == np.uint8
    assert (g.reshape(5, -1).min(1) == 0).all() and (g.reshape(5, -1).max(1) == 255).all()
    # The per-feature scale changes which pixel is brightest.
    scale = np.ones(16)
    scale[3] = 1000.0
    X2 = np.abs(X)
    assert (viz.release_images(X2, (4, 4), scale=scale).reshape(5, -1).argmax(1) == 3).all()
    rgb = viz.release_images(rng.normal(size=(2, 3 * 2 * 2)), (3, 2, 2))
    assert rgb.shape == (2, 2, 2, 3)
    with pytest.raises(ValueError, match="1- or 3-channel"):
        viz.release_images(rng.normal(size=(2, 8)), (2, 2, 2))
    with pytest.raises(ValueError, match="image_shape"):
        viz.release_images(X, (1, 3, 3))
    with pytest.raises(ValueError, match="one entry per feature"):
        viz.release_images(X, (1, 4, 4), scale=np.ones(3))


def test_first_per_class_and_class_grid_layout():
    y = np.array([1, 0, 1, 1, 2, 0])
    idx = viz.first_per_class(y, 4, 2)
    np.testing.assert_array_equal(idx, [[1, 5], [0, 2], [4, -1], [-1, -1]])
    images = np.stack([np.full((2, 3), 10 * i, dtype=np.uint8) for i in range(len(y))])
    grid = viz.class_grid(images, y, 4, 2, pad=1)
    assert grid.shape == (4 * 3 + 1, 2 * 4 + 1)
    cell = lambda i, j: grid[1 + 3 * i:3 + 3 * i, 1 + 4 * j:4 + 4 * j]  # noqa: E731
    assert (cell(0, 1) == 50).all() and (cell(1, 0) == 0).all() and (cell(2, 0) == 40).all()
    assert (cell(2, 1) == viz.BLANK).all() and (cell(3, 0) == viz.BLANK).all()
    assert (grid[0] == viz.PAD).all() and (grid[:, 0] == viz.PAD).all()


def test_tile_rgb_and_errors():
    a = np.zeros((2, 2, 3), dtype=np.uint8)
    t = viz.tile([[a, None], [a]], pad=0)
    assert t.shape == (4, 4, 3) and (t[:2, 2:] == viz.BLANK).all() and (t[2:, :2] == 0).all()
    with pytest.raises(ValueError, match="at least one image"):
        viz.tile([[None]])
    with pytest.raises(ValueError, match="every cell"):
        viz.tile([[a, np.zeros((3, 3, 3), dtype=np.uint8)]])


def test_upscale_and_fit_factor():
    img = np.array([[1, 2], [3, 4]], dtype=np.uint8)
    up = viz.upscale(img, 3)
    assert up.shape == (6, 6) and (up[:3, :3] == 1).all() and (up[3:, 3:] == 4).all()
    assert viz.fit_factor(90, 400) == 4 and viz.fit_factor(900, 400) == 1
    with pytest.raises(ValueError):
        viz.upscale(img, 0)


def test_to_raw_units_inverts_numeric_columns_and_snaps_segments():
    rng = np.random.default_rng(1)
    n = 50
    age = rng.uniform(18, 80, n)
    cat = rng.integers(0, 3, n)
    onehot = np.eye(3)[cat]
    const = np.full(n, 5.0)
    X = np.column_stack([age, onehot, const])
    seg = Segment("color", 1, 4, ("red", "green", "blue"))
    norm = fit_normalizer(X, "zscore")
    Z = norm.transform(X)
    raw = viz.to_raw_units(Z, norm, [seg])
    np.testing.assert_allclose(raw[:, 0], age, rtol=1e-5)
    np.testing.assert_array_equal(raw[:, 1:4], onehot)
    np.testing.assert_allclose(raw[:, 4], 5.0)
    df = decode_segments(raw, [seg], ["age", "c_r", "c_g", "c_b", "const"])
    assert list(df["color"]) == [("red", "green", "blue")[k] for k in cat]
    # Noisy, shrunk segment values still decode to the largest centred value.
    Zn = Z.copy()
    Zn[:, 1:4] *= 0.1
    np.testing.assert_array_equal(viz.to_raw_units(Zn, norm, [seg])[:, 1:4], onehot)
    # No normalizer: identity on numeric columns.
    np.testing.assert_allclose(viz.to_raw_units(X, None)[:, 0], age)
    with pytest.raises(ValueError, match="fitted on"):
        viz.to_raw_units(Z[:, :3], norm)
