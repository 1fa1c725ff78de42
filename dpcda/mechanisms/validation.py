"""Array checks of the generators (features, labels, class sizes, release size), built on the
scalar checks of :mod:`dpcda.util.checks` (the one family of input checks)."""

from __future__ import annotations

import numpy as np

from dpcda.util.checks import (  # noqa: F401
    check_delta,
    check_float,
    check_int,
    check_sigma_pair,
    check_sigmas,  # the scalar checks, re-exported for the generators
    shape_text,
)


def check_features(X) -> np.ndarray:
    """``X`` as a 2-D finite real array (not copied when it already is one)."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array (N x d), got shape {shape_text(X.shape)}")
    if not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.complexfloating):
        raise ValueError(f"X must be a real numeric array, got dtype {X.dtype}")
    if np.issubdtype(X.dtype, np.floating) and not np.isfinite(X).all():
        # no count or position of the bad rows: those are private facts (docs/security.md)
        raise ValueError("X must be finite: NaN and inf are not allowed (any finite value is: "
                         "rows are clipped to norm c); remove or impute them before a release")
    return X


def check_labels(y, n_rows: int, n_classes: int | None = None, *,
                 need_two_present: bool = True) -> tuple[np.ndarray, int]:
    """``(y as int64, K)``. Labels must be integers in ``0..K-1``; K >= 2.
    ``need_two_present``: also refuse labels that hold fewer than 2 distinct classes (a check on
    the private labels: a release whose refusals must be functions of a DP release, the DP label
    histogram's, turns it off and leaves an empty class to the public bounds)."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of integer labels, got shape {shape_text(y.shape)}")
    if len(y) != n_rows:
        # the row counts are the data's own (private): named, never printed
        raise ValueError("X and y must have the same length (one label per row of X); their "
                         "lengths differ")
    if y.dtype.kind == "f":
        if not (np.isfinite(y).all() and (y == np.round(y)).all()):
            raise ValueError("y must hold integer class labels 0..K-1, got non-integer values")
    elif y.dtype.kind not in "iub":
        raise ValueError(f"y must hold integer class labels 0..K-1, got dtype {y.dtype}")
    y = y.astype(np.int64)
    if y.min() < 0:
        raise ValueError(f"y must hold class labels 0..K-1, got a label {int(y.min())}")
    k = int(y.max()) + 1 if n_classes is None else check_int("n_classes", n_classes, 2)
    if int(y.max()) >= k:
        raise ValueError(f"y must hold class labels 0..{k - 1} (n_classes={k}), got a label "
                         f"{int(y.max())}")
    present = int(np.count_nonzero(np.bincount(y, minlength=k)))
    if k < 2 or (need_two_present and present < 2):
        raise ValueError(f"y must contain at least 2 classes, got {present} "
                         f"({'label ' + str(int(y[0])) + ' only' if present == 1 else 'none'})")
    return y, k


def check_T(T, K: int) -> int:
    return check_int("T", T, K, None, f" (at least the number of classes K={K}: floor(T/K) "
                     "samples per class)")


def check_l_classwise(l, counts) -> int:
    """``l`` must be a positive integer and at most every class size ``N_k`` (``counts``).

    The refusal is worded from ``l`` alone: the class sizes are the data's own counts, so neither
    they, nor the smallest of them, nor which class is short (by number or by name) is in the
    message; neighbouring datasets give one message (docs/security.md, "No private count in a
    message")."""
    l = check_int("l", l, 1)
    if (np.asarray(counts) < l).any():
        raise ValueError(f"l must be an integer from 1 to the size of the smallest class (l records "
                         f"of one class are averaged per sample), got l={l}: a class of this "
                         "dataset has fewer records than that; lower l")
    return l


MAX_RELEASE_BYTES = 8 << 30  # 8 GiB of float32 features


def check_release_size(n_rows: int, d: int) -> None:
    """Refuse releases whose feature matrix alone would exceed ``MAX_RELEASE_BYTES``."""
    if n_rows * d * 4 > MAX_RELEASE_BYTES:
        raise ValueError(f"T is too large: {n_rows} synthetic samples x {d} features would take "
                         f"{n_rows * d * 4 / 2**30:.1f} GiB (limit {MAX_RELEASE_BYTES >> 30} GiB)")
