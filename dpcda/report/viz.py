"""Turning a synthetic release into something to look at: images, grids, mosaics, tables.

Pure numpy (no plotting library). The dashboard's Samples page uses it; so can a notebook:

>>> imgs = release_images(rel.X, (1, 28, 28), scale=display_scale(rel.preprocess.normalizer))
>>> grid = class_grid(imgs, rel.y, n_classes=10, per_class=8)       # uint8, rows = classes
>>> PIL.Image.fromarray(upscale(grid, 2))                           # doctest: +SKIP

**Display scale.** A released image is the average of ``l`` normalized rows, each clipped to
L2 norm ``c``, plus noise. Clipping shrinks every row by its own, unknown factor, so the
absolute brightness cannot be recovered, and adding a normalizer's shift back (a z-score's
per-pixel mean) would drown every sample in that mean image. :func:`release_images` therefore
undoes the normalizer's per-feature *scale* only (``display_scale``: the std for a z-score,
``high - low`` for a fixed range) and then stretches each image from its own minimum (black) to
its maximum (white). Without a normalizer it is a plain per-image min-max.

**Tables.** :func:`to_raw_units` maps normalized tabular rows back to the original units and
snaps one-hot segments to their argmax (as the mechanism decodes them), ready for
:func:`dpcda.data.decode_segments`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

BLANK = 200  # grey for a grid cell with no sample
PAD = 255    # white lines between cells


def as_images(X: np.ndarray, image_shape: Sequence[int]) -> np.ndarray:
    """Rows of ``X`` (n x d) as an ``(n, C, H, W)`` float64 array; ``image_shape`` is (C, H, W) or (H, W)."""
    X = np.asarray(X, dtype=np.float64)
    shape = tuple(int(s) for s in image_shape)
    if len(shape) == 2:
        shape = (1, *shape)
    if len(shape) != 3 or min(shape) < 1:
        raise ValueError(f"image_shape must be (C, H, W) or (H, W) with positive sizes, got {image_shape!r}")
    if X.ndim != 2 or X.shape[1] != int(np.prod(shape)):
        raise ValueError(f"X must be n x {int(np.prod(shape))} for image_shape {shape}, got shape {X.shape}")
    return X.reshape(len(X), *shape)


def display_scale(normalizer) -> np.ndarray | None:
    """Per-feature factor undoing a normalizer's scaling (``1 / inv_scale``; 0 for constant
    features), or ``None`` when there is no normalizer (or it has no ``inv_scale``)."""
    inv = getattr(normalizer, "inv_scale", None)
    if inv is None:
        return None
    inv = np.asarray(inv, dtype=np.float64)
    return np.divide(1.0, inv, out=np.zeros_like(inv), where=inv != 0)


def to_uint8(images: np.ndarray, *, low: float | None = None, high: float | None = None) -> np.ndarray:
    """Map each image (first axis) to 0..255: its own min -> 0 and max -> 255, or the fixed range
    ``[low, high]`` (values outside are clipped) when both are given. A constant image is mid-grey."""
    a = np.asarray(images, dtype=np.float64)
    if a.ndim < 2:
        raise ValueError(f"images must have a leading sample axis, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError("images must be finite (no NaN or inf)")
    if (low is None) != (high is None):
        raise ValueError("give both low and high (a fixed range) or neither (per-image min-max)")
    if low is not None:
        if not high > low:
            raise ValueError(f"need high > low, got low={low!r}, high={high!r}")
        out = (a - low) / (high - low)
    else:
        axes = tuple(range(1, a.ndim))
        lo = a.min(axis=axes, keepdims=True) if a.size else a
        span = (a.max(axis=axes, keepdims=True) - lo) if a.size else a
        out = np.divide(a - lo, span, out=np.full_like(a, 0.5), where=span > 0)
    return np.round(np.clip(out, 0.0, 1.0) * 255.0).astype(np.uint8)


def release_images(X: np.ndarray, image_shape: Sequence[int], *,
                   scale: np.ndarray | None = None) -> np.ndarray:
    """Released rows as displayable uint8 images: ``(n, H, W)`` for one channel, ``(n, H, W, 3)``
    for three. ``scale`` (from :func:`display_scale`) multiplies each feature first; then each
    image is stretched min-max (see the module docstring)."""
    X = np.asarray(X, dtype=np.float64)
    if scale is not None:
        scale = np.asarray(scale, dtype=np.float64)
        if X.ndim != 2 or scale.shape != (X.shape[1],):
            raise ValueError(f"scale must have one entry per feature ({X.shape[-1]}), "
                             f"got shape {scale.shape}")
        X = X * scale
    imgs = as_images(X, image_shape)
    if imgs.shape[1] not in (1, 3):
        raise ValueError(f"only 1- or 3-channel images can be shown, got {imgs.shape[1]} channels")
    u8 = to_uint8(imgs)
    return u8[:, 0] if u8.shape[1] == 1 else np.ascontiguousarray(u8.transpose(0, 2, 3, 1))


def first_per_class(y: np.ndarray, n_classes: int, per_class: int) -> np.ndarray:
    """``(n_classes, per_class)`` row indices: the first rows labelled k, in order; -1 where a
    class has fewer rows."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if int(n_classes) < 1 or int(per_class) < 1:
        raise ValueError(f"n_classes and per_class must be >= 1, got {n_classes}, {per_class}")
    out = np.full((int(n_classes), int(per_class)), -1, dtype=np.int64)
    for k in range(int(n_classes)):
        rows = np.flatnonzero(y == k)[:per_class]
        out[k, :len(rows)] = rows
    return out


def tile(cells: Sequence[Sequence[np.ndarray | None]], *, pad: int = 1) -> np.ndarray:
    """Tile a grid of equally sized uint8 images (rows of cells; ``None`` = blank cell) with
    ``pad`` white pixels between and around them."""
    rows = [list(r) for r in cells]
    if not rows or not any(rows):
        raise ValueError("cells must hold at least one row of cells")
    ncols = max(len(r) for r in rows)
    first = next((c for r in rows for c in r if c is not None), None)
    if first is None:
        raise ValueError("cells must hold at least one image")
    first = np.asarray(first)
    h, w = first.shape[:2]
    extra = first.shape[2:]
    if first.ndim not in (2, 3):
        raise ValueError(f"cells must be H x W or H x W x 3 images, got shape {first.shape}")
    out = np.full((len(rows) * (h + pad) + pad, ncols * (w + pad) + pad, *extra), PAD, dtype=np.uint8)
    for i, r in enumerate(rows):
        for j in range(ncols):
            cell = r[j] if j < len(r) else None
            y0, x0 = pad + i * (h + pad), pad + j * (w + pad)
            if cell is None:
                out[y0:y0 + h, x0:x0 + w] = BLANK
                continue
            cell = np.asarray(cell)
            if cell.shape != first.shape or cell.dtype != np.uint8:
                raise ValueError(f"every cell must be uint8 of shape {first.shape}, got {cell.dtype} "
                                 f"{cell.shape}")
            out[y0:y0 + h, x0:x0 + w] = cell
    return out


def class_grid(images: np.ndarray, y: np.ndarray, n_classes: int, per_class: int, *,
               pad: int = 1) -> np.ndarray:
    """The paper's Figure 1 layout: row k shows the first ``per_class`` images labelled k
    (blank cells where a class has fewer)."""
    images = np.asarray(images)
    idx = first_per_class(y, n_classes, per_class)
    if len(images) != len(np.asarray(y)):
        raise ValueError(f"images and y must have the same length, got {len(images)} and {len(y)}")
    return tile([[images[i] if i >= 0 else None for i in row] for row in idx], pad=pad)


def upscale(img: np.ndarray, factor: int) -> np.ndarray:
    """Nearest-neighbour enlargement by an integer ``factor`` (keeps pixels crisp in a browser)."""
    if int(factor) < 1:
        raise ValueError(f"factor must be an integer >= 1, got factor={factor!r}")
    img = np.asarray(img)
    return np.repeat(np.repeat(img, int(factor), axis=0), int(factor), axis=1)


def fit_factor(width: int, target: int) -> int:
    """The integer upscale factor that brings ``width`` closest to (at most) ``target`` pixels."""
    return max(1, int(target) // max(1, int(width)))


def to_raw_units(Z: np.ndarray, normalizer=None, segments: Sequence = ()) -> np.ndarray:
    """Normalized tabular rows back in the original units (float64).

    Numeric columns: ``shift + z / inv_scale`` (the normalizer's inverse; a constant column gets
    its shift). One-hot segments (objects with ``start``/``stop``, e.g. ``Dataset.segments``):
    exact one-hot at ``argmax_j z_j / inv_scale_j`` over the non-constant columns, the rule the
    mechanism decodes them with. Rows were clipped to norm ``c`` before mixing, which pulls
    numeric values towards the normalizer's centre; that is not undone.
    """
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"Z must be 2-D (n x d), got shape {Z.shape}")
    d = Z.shape[1]
    if normalizer is None:
        shift, inv = np.zeros(d), np.ones(d)
    else:
        shift = np.asarray(normalizer.shift, dtype=np.float64)
        inv = np.asarray(normalizer.inv_scale, dtype=np.float64)
        if shift.shape != (d,) or inv.shape != (d,):
            raise ValueError(f"the normalizer was fitted on {shift.shape[0]} features, Z has {d}")
    live = inv != 0
    centred = np.divide(Z, inv, out=np.zeros_like(Z), where=live)  # x - shift, per column
    out = shift + centred
    rows = np.arange(len(Z))
    for s in segments:
        a, b = int(s.start), int(s.stop)
        if not 0 <= a < b <= d:
            raise ValueError(f"segment {getattr(s, 'name', (a, b))!r} must lie within the {d} columns")
        ok = live[a:b]
        out[:, a:b] = 0.0
        if ok.any():
            code = np.argmax(np.where(ok, centred[:, a:b], -np.inf), axis=1)
            out[rows, a + code] = 1.0
    return out
