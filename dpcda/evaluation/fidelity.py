"""Fidelity of a release: how far its marginals are from the real test split (pure numpy).

Tabular data (Adult, uploaded tables), one entry per column:

* categorical (a one-hot segment, and the label): total-variation distance
  ``TV(p, q) = 1/2 sum_j |p_j - q_j|`` between the category shares. A row's category is its
  segment's largest entry when that entry is positive (exact for raw one-hot rows, for
  normalised and clipped real rows and for the re-encoded codes of a DP-CDA release, under both
  normalisations); a row whose segment has no positive entry (an unseen category) is left out.
* numeric: the Wasserstein-1 distance between the two empirical distributions divided by the
  range (max - min) of the real column (1 where that range is 0): the average distance mass
  moves, as a share of the real spread. The range (not the IQR) because many census columns
  have an IQR of 0 (capital-gain).

A column is flagged (a :class:`FidelityWarning`, code ``"marginal-far"``) when its distance
exceeds :data:`TV_THRESHOLD` (categorical) or :data:`W1_THRESHOLD` (numeric).

Images: per-class mean image of the real split and of the release (by released hard label),
with the relative L2 distance ``||mean_rel - mean_real|| / ||mean_real||`` per class; flagged
above :data:`IMAGE_THRESHOLD` or when a class has no released row.

Both sides must be in one feature space: :func:`real_in_release_space` maps real rows there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpcda.util.notices import notice

TV_THRESHOLD = 0.10
W1_THRESHOLD = 0.10
IMAGE_THRESHOLD = 0.5
FAR = "marginal-far"
NO_ROWS = "class-absent"


@dataclass(frozen=True)
class FidelityWarning:
    """A warning value: a stable ``code`` for programs and a ``text`` for people (the code and
    its words are rows of the library's one notice table, :data:`dpcda.util.notices.NOTICES`)."""

    code: str
    text: str


@dataclass(frozen=True)
class ColumnFidelity:
    """One column: ``real``/``synthetic`` summaries (category -> share, or quantiles)."""

    name: str
    kind: str  # "categorical" | "numeric"
    distance: float
    real: dict
    synthetic: dict
    warning: FidelityWarning | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "distance": float(self.distance),
                "warning": None if self.warning is None else self.warning.code}


@dataclass(frozen=True)
class TabularFidelity:
    columns: tuple[ColumnFidelity, ...]
    space: str = ""

    @property
    def warnings(self) -> list[FidelityWarning]:
        return [c.warning for c in self.columns if c.warning is not None]

    def to_dict(self) -> dict:
        return {"columns": [c.to_dict() for c in self.columns], "space": self.space,
                "thresholds": {"categorical_tv": TV_THRESHOLD, "numeric_w1": W1_THRESHOLD},
                "numeric_normalisation": "W1 / (max - min) of the real column"}


@dataclass(frozen=True)
class ImageFidelity:
    """Per-class mean images (K x d; NaN rows where a side has no row of that class)."""

    class_names: tuple[str, ...]
    real_means: np.ndarray = field(repr=False)
    synthetic_means: np.ndarray = field(repr=False)
    distances: np.ndarray
    warnings: tuple[FidelityWarning, ...] = ()
    space: str = ""

    def to_dict(self) -> dict:
        return {"classes": [{"name": n, "distance": None if not np.isfinite(d) else float(d)}
                            for n, d in zip(self.class_names, self.distances)],
                "space": self.space, "threshold": IMAGE_THRESHOLD,
                "distance": "||mean_release - mean_real||_2 / ||mean_real||_2 per class"}


def tv_distance(p, q) -> float:
    """``1/2 sum |p - q|`` of two probability vectors of one length."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if p.shape != q.shape or p.ndim != 1:
        raise ValueError(f"p and q must be 1-D of one length, got shapes {p.shape}, {q.shape}")
    return float(0.5 * np.abs(p - q).sum())


def wasserstein1(a, b) -> float:
    """Wasserstein-1 distance between the empirical distributions of samples ``a`` and ``b``."""
    a = np.sort(np.asarray(a, dtype=np.float64).ravel())
    b = np.sort(np.asarray(b, dtype=np.float64).ravel())
    if a.size == 0 or b.size == 0:
        raise ValueError("wasserstein1 needs at least one value on each side")
    grid = np.concatenate([a, b])
    grid.sort(kind="mergesort")
    fa = np.searchsorted(a, grid[:-1], side="right") / a.size
    fb = np.searchsorted(b, grid[:-1], side="right") / b.size
    return float(np.sum(np.abs(fa - fb) * np.diff(grid)))


def shares(codes, k: int) -> np.ndarray:
    """Share of each category ``0..k-1`` among the codes ``>= 0`` (zeros if there are none)."""
    codes = np.asarray(codes, dtype=np.int64)
    n = np.bincount(codes[codes >= 0], minlength=k)[:k].astype(np.float64)
    return n / n.sum() if n.sum() > 0 else n


def positive_codes(block: np.ndarray) -> np.ndarray:
    """Per row: the index of the largest entry if it is positive, else -1."""
    block = np.asarray(block, dtype=np.float64)
    codes = np.argmax(block, axis=1)
    codes[block.max(axis=1) <= 0] = -1
    return codes


def _warning(code: str, **fields) -> FidelityWarning:
    """A warning with its text from the one notice table (:data:`dpcda.util.notices.NOTICES`)."""
    return FidelityWarning(code, str(notice(code, **fields)))


def _flag(name: str, kind: str, dist: float) -> FidelityWarning | None:
    limit = TV_THRESHOLD if kind == "categorical" else W1_THRESHOLD
    if dist <= limit:
        return None
    what = "total-variation distance" if kind == "categorical" else "normalised Wasserstein-1"
    return _warning(FAR, name=name, what="marginal", measure=what, value=f"{dist:.3f}", limit=limit)


def categorical_column(name, categories, real_codes, synth_codes) -> ColumnFidelity:
    k = len(categories)
    p, q = shares(real_codes, k), shares(synth_codes, k)
    dist = tv_distance(p, q)
    cats = [str(c) for c in categories]
    return ColumnFidelity(name, "categorical", dist, dict(zip(cats, p.tolist())),
                          dict(zip(cats, q.tolist())), _flag(name, "categorical", dist))


def _quantiles(v: np.ndarray) -> dict:
    q = np.quantile(v, [0.1, 0.5, 0.9])
    return {"mean": float(v.mean()), "p10": float(q[0]), "median": float(q[1]), "p90": float(q[2])}


def numeric_column(name, real, synth) -> ColumnFidelity:
    real, synth = np.asarray(real, np.float64), np.asarray(synth, np.float64)
    spread = float(real.max() - real.min())
    dist = wasserstein1(real, synth) / (spread if spread > 0 else 1.0)
    return ColumnFidelity(name, "numeric", dist, _quantiles(real), _quantiles(synth),
                          _flag(name, "numeric", dist))


def tabular_fidelity(real_X, synth_X, segments=(), feature_names=None, *, real_y=None,
                     synth_y=None, class_names=None, space: str = "") -> TabularFidelity:
    """Per-column fidelity of ``synth_X`` against ``real_X`` (same columns, same space).

    ``segments``: one-hot segments (objects with ``name``, ``start``, ``stop``,
    ``categories``); the other columns are numeric, named from ``feature_names`` or ``x<j>``.
    With ``real_y``/``synth_y`` (and ``class_names``) the label is compared too, first.
    """
    real_X, synth_X = np.asarray(real_X), np.asarray(synth_X)
    if real_X.ndim != 2 or synth_X.ndim != 2 or real_X.shape[1] != synth_X.shape[1]:
        raise ValueError("real_X and synth_X must be 2-D with the same number of columns, got "
                         f"shapes {real_X.shape} and {synth_X.shape}")
    if len(real_X) == 0 or len(synth_X) == 0:
        raise ValueError("real_X and synth_X must each have at least one row")
    d = real_X.shape[1]
    if feature_names is not None and len(feature_names) != d:
        raise ValueError(f"feature_names must have {d} entries, got {len(feature_names)}")
    cols: list[ColumnFidelity] = []
    if real_y is not None and synth_y is not None:
        k = len(class_names) if class_names is not None else int(max(np.max(real_y),
                                                                    np.max(synth_y))) + 1
        names = class_names if class_names is not None else [str(i) for i in range(k)]
        cols.append(categorical_column("label", names, real_y, synth_y))
    starts = {int(s.start): s for s in segments}
    j = 0
    while j < d:
        s = starts.get(j)
        if s is not None:
            a, b = int(s.start), int(s.stop)
            if b > d:
                raise ValueError(f"segment {s.name!r} spans columns {a}:{b}, X has {d}")
            cols.append(categorical_column(s.name, s.categories, positive_codes(real_X[:, a:b]),
                                           positive_codes(synth_X[:, a:b])))
            j = b
        else:
            name = feature_names[j] if feature_names is not None else f"x{j}"
            cols.append(numeric_column(str(name), real_X[:, j], synth_X[:, j]))
            j += 1
    return TabularFidelity(tuple(cols), space)


def class_means(X, y, K: int) -> np.ndarray:
    """K x d mean row per class (NaN rows for a class with no row)."""
    X = np.asarray(X)
    y = np.asarray(y, dtype=np.int64)
    if y.size and (y.min() < 0 or y.max() >= K):
        raise IndexError(f"labels must be in 0..{K - 1}, got {int(y.min())}..{int(y.max())}")
    sums = np.zeros((K, X.shape[1]))
    for k in range(K):  # one pass per class (np.add.at took 0.2 s on MNIST's 10,000 rows)
        rows = X[y == k]
        if len(rows):
            sums[k] = rows.sum(axis=0, dtype=np.float64)
    n = np.bincount(y, minlength=K)[:K].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / n[:, None]


def image_fidelity(real_X, real_y, synth_X, synth_y, class_names, *,
                   space: str = "") -> ImageFidelity:
    """Per-class mean images and their relative L2 distance (see the module docstring)."""
    K = len(class_names)
    real_X, synth_X = np.asarray(real_X), np.asarray(synth_X)
    if real_X.ndim != 2 or synth_X.ndim != 2 or real_X.shape[1] != synth_X.shape[1]:
        raise ValueError("real_X and synth_X must be 2-D with the same number of columns, got "
                         f"shapes {real_X.shape} and {synth_X.shape}")
    mr, ms = class_means(real_X, real_y, K), class_means(synth_X, synth_y, K)
    norm = np.linalg.norm(mr, axis=1)
    diff = np.linalg.norm(ms - mr, axis=1)
    dist = np.where(norm > 0, diff / np.where(norm > 0, norm, 1.0), diff)
    warns = []
    for name, dv in zip(class_names, dist):
        if not np.isfinite(dv):
            warns.append(_warning(NO_ROWS, name=name))
        elif dv > IMAGE_THRESHOLD:
            warns.append(_warning(FAR, name=name, what="mean image", measure="relative L2",
                                  value=f"{dv:.2f}", limit=IMAGE_THRESHOLD))
    return ImageFidelity(tuple(str(c) for c in class_names), mr, ms, dist, tuple(warns), space)


def real_in_release_space(dataset, card: dict, preprocess=None) -> tuple[np.ndarray, str]:
    """The real test split mapped into the release's feature space, and how.

    ``preprocess`` (the release's own, in the process that generated it) is applied as is.
    Otherwise the data card decides: ``"scale"`` is public (the dataset's fixed ranges) and is
    rebuilt exactly; a z-score's statistics are never exported, so they are refitted on the
    real test split (an approximation of the training statistics); then rows are clipped to
    the card's clip norm.
    """
    from dpcda.data.preprocess import clip_rows, fit_dataset_normalizer, fit_normalizer

    X = np.asarray(dataset.X_test)
    if preprocess is not None:
        return np.asarray(preprocess(X)), "the release's own normalisation and clipping"
    norm = (card or {}).get("normalization") or {}
    method, c = norm.get("method"), norm.get("clip_norm")
    if method == "scale":
        X, how = fit_dataset_normalizer(dataset, "scale").transform(X), "public fixed ranges"
    elif method == "zscore":
        X = fit_normalizer(X, "zscore").transform(X)
        how = ("z-score refitted on the real test split (the training statistics are not "
               "exported; an approximation)")
    elif method in (None, "none"):
        X, how = X.astype(np.float32), "features as given"
    else:
        raise ValueError(f"the data card's normalization method must be scale, zscore or none, "
                         f"got {method!r}")
    if c is not None:
        X, how = clip_rows(X, float(c)), how + f", rows clipped to norm {float(c):g}"
    return X, how


def check_release(release, dataset) -> None:
    """``ValueError`` unless the release has rows, finite features and labels in
    ``0..K-1`` (K: the dataset's classes), one label per row."""
    X, y = np.asarray(release.X), np.asarray(release.y)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"the release must have at least one row and one feature (X of shape "
                         f"N x d), got X of shape {X.shape}")
    if not np.issubdtype(X.dtype, np.number) or not np.isfinite(X).all():
        bad = int(np.count_nonzero(~np.isfinite(X))) if np.issubdtype(X.dtype, np.number) else X.size
        raise ValueError(f"the release's features X must be finite numbers, got {bad} of "
                         f"{X.size} values that are not (NaN, inf or not a number)")
    K = len(dataset.class_names)
    if y.ndim != 1 or len(y) != len(X):
        raise ValueError(f"the release's labels y must be one per row ({len(X)}), got y of shape "
                         f"{y.shape}")
    if not (np.issubdtype(y.dtype, np.integer) or (
            np.issubdtype(y.dtype, np.floating) and np.isfinite(y).all()
            and np.array_equal(y, np.round(y)))):
        raise ValueError(f"the release's labels y must be integers in 0..{K - 1}, got dtype "
                         f"{y.dtype}")
    if y.size and (y.min() < 0 or y.max() >= K):
        raise ValueError(f"the release's labels y must be in 0..{K - 1} ({dataset.name} has {K} "
                         f"classes), got labels {int(y.min())}..{int(y.max())}")


def release_fidelity(release, dataset, *, preprocess=None):
    """:class:`TabularFidelity` (tables) or :class:`ImageFidelity` (images) of a release of
    ``dataset`` against its real test split (see :func:`real_in_release_space`).

    A release that cannot be compared raises ``ValueError``: no rows, features that are not
    finite numbers (a NaN-filled file), labels outside ``0..K-1`` for the dataset's K
    classes."""
    check_release(release, dataset)
    Xr, how = real_in_release_space(dataset, release.card, preprocess)
    if release.X.shape[1] != Xr.shape[1]:
        raise ValueError(f"the release has {release.X.shape[1]} features but {dataset.name} has "
                         f"{Xr.shape[1]}: fidelity needs a release in the dataset's own feature "
                         "space (not a random projection)")
    if dataset.image_shape is not None:
        return image_fidelity(Xr, dataset.y_test, release.X, release.y, dataset.class_names,
                              space=how)
    return tabular_fidelity(Xr, release.X, dataset.segments or (), dataset.feature_names,
                            real_y=dataset.y_test, synth_y=release.y,
                            class_names=dataset.class_names, space=how)
