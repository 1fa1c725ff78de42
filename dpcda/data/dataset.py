"""The :class:`Dataset` container every loader returns, and the one-hot :class:`Segment` metadata.

Arrays are numpy and stay in their raw feature scale (images 0..255 flattened, Adult numeric
columns in their own units plus 0/1 one-hot columns): normalization is a separate, recorded
step (:mod:`dpcda.data.preprocess`). Loaders cache datasets per process, so the arrays are
marked read-only; copy them (``X.copy()``) before changing them in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpcda.util.checks import shape_text


class DatasetUnavailable(ValueError):
    """A dataset's files were not found (and could not be downloaded); the message says where to put them."""


@dataclass(frozen=True)
class Segment:
    """One one-hot encoded categorical column: feature columns ``start:stop`` hold its categories."""

    name: str
    start: int
    stop: int
    categories: tuple[str, ...]

    def __post_init__(self) -> None:
        if not (0 <= self.start < self.stop):
            raise ValueError(f"segment {self.name!r}: need 0 <= start < stop, got start={self.start}, "
                             f"stop={self.stop}")
        if len(self.categories) != self.stop - self.start:
            raise ValueError(f"segment {self.name!r}: {len(self.categories)} categories for "
                             f"{self.stop - self.start} columns")

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.stop)

    @property
    def size(self) -> int:
        return self.stop - self.start


_F32_MAX = float(np.finfo(np.float32).max)


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Dataset:
    """A labelled train/test split.

    ``X_*`` are float32 ``N x d`` in raw feature scale, ``y_*`` int64 in ``0..K-1``.
    ``image_shape`` is ``(C, H, W)`` for images and ``None`` for tabular data; ``segments`` lists
    the one-hot categorical column ranges (empty for images). ``feature_bounds`` is a public,
    data-independent ``(low, high)`` range per feature (scalars or length-d arrays) used by the
    ``"scale"`` normalizer, or ``None`` when no such range is known (uploads).
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    class_names: tuple[str, ...]
    image_shape: tuple[int, ...] | None = None
    segments: tuple[Segment, ...] = ()
    feature_names: tuple[str, ...] | None = None
    source: str = ""
    feature_bounds: tuple[object, object] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        fix = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731  (frozen dataclass)
        for split in ("train", "test"):
            X = np.asarray(getattr(self, f"X_{split}"))
            y = np.asarray(getattr(self, f"y_{split}"))
            if X.ndim != 2:
                raise ValueError(f"X_{split} must be 2-D (N x d), got shape {shape_text(X.shape)}")
            if y.ndim != 1 or len(y) != len(X):
                # the row counts are the data's own: said without them
                raise ValueError(f"y_{split} must be 1-D with one label per row of X_{split}, "
                                 f"got a {y.ndim}-D y_{split}" if y.ndim != 1 else
                                 f"y_{split} must be 1-D with one label per row of X_{split}; "
                                 "their lengths differ")
            if X.dtype != np.float32:
                if np.issubdtype(X.dtype, np.floating) and X.dtype.itemsize > 4 and \
                        np.nanmax(np.abs(np.where(np.isinf(X), 0, X)), initial=0.0) > _F32_MAX:
                    # a finite value float32 cannot hold would become inf: refused (no value shown)
                    raise ValueError(f"X_{split} must fit in float32 (finite values up to "
                                     "3.4e38 in magnitude): a Dataset stores float32; rescale "
                                     "the features")
                X = X.astype(np.float32)
            if y.dtype != np.int64:
                y = y.astype(np.int64)
            fix(f"X_{split}", _readonly(X))
            fix(f"y_{split}", _readonly(y))
        d = self.X_train.shape[1]
        if self.X_test.shape[1] != d:
            raise ValueError(f"X_test has {self.X_test.shape[1]} features, X_train has {d}")
        fix("class_names", tuple(str(c) for c in self.class_names))
        k = len(self.class_names)
        if k < 2:
            raise ValueError(f"class_names must name at least 2 classes, got {self.class_names!r}")
        for split in ("train", "test"):
            y = getattr(self, f"y_{split}")
            if len(y) and (y.min() < 0 or y.max() >= k):
                raise ValueError(f"y_{split} must lie in 0..{k - 1} (one per class name), "
                                 f"got values {y.min()}..{y.max()}")
        if self.image_shape is not None:
            fix("image_shape", tuple(int(s) for s in self.image_shape))
            if int(np.prod(self.image_shape)) != d:
                raise ValueError(f"image_shape {self.image_shape} does not match d={d} features")
        fix("segments", tuple(self.segments))
        for s in self.segments:
            if s.stop > d:
                raise ValueError(f"segment {s.name!r} ends at column {s.stop} > d={d}")
        if self.feature_names is not None:
            fix("feature_names", tuple(str(f) for f in self.feature_names))
            if len(self.feature_names) != d:
                raise ValueError(f"{len(self.feature_names)} feature_names for d={d} features")

    @property
    def n_classes(self) -> int:
        return len(self.class_names)

    @property
    def class_counts(self) -> tuple[int, ...]:
        """Training examples per class, ``N_k`` for k = 0..K-1."""
        return tuple(int(c) for c in np.bincount(self.y_train, minlength=self.n_classes))

    @property
    def n_train(self) -> int:
        return int(self.X_train.shape[0])

    @property
    def n_test(self) -> int:
        return int(self.X_test.shape[0])

    @property
    def d_x(self) -> int:
        return int(self.X_train.shape[1])

    @property
    def is_image(self) -> bool:
        return self.image_shape is not None

    def summary(self) -> dict:
        """JSON-safe facts for a data card: no data values and no class counts (the counts of a
        private upload are themselves private; add them only where they are public)."""
        return {"name": self.name, "n_train": self.n_train, "n_test": self.n_test, "d_x": self.d_x,
                "n_classes": self.n_classes, "class_names": list(self.class_names),
                "image_shape": list(self.image_shape) if self.image_shape else None,
                "n_categorical_segments": len(self.segments), "source": self.source}
