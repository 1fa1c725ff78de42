"""A preview of a DP-CDA release: a few samples per class, drawn like the release's, in milliseconds.

A full release of MNIST (T = N = 60,000) takes seconds, most of it normalising and clipping all
N rows. A sample of class k is the mean of ``l`` distinct rows of class k (a uniform l-subset,
drawn afresh for every sample), normalised and clipped to ``c``, plus ``N(0, sigma_x^2 I)``; its
label is ``onehot(k) + N(0, sigma_y^2 I)``, then its argmax. :func:`preview_dpcda` draws
``per_class`` such samples of every class with the release's own code (the same subset sampler,
:func:`~dpcda.mechanisms.mixing.private_table`'s shrink, :func:`~dpcda.mechanisms.mixing.bag_means`,
the gridded float64 noise and the tie-breaking of the labels), but normalises and clips only the
``K x per_class x l`` rows it mixes: every preview sample has exactly the distribution of a
sample of the full release at the same setting, and the samples are independent as there.

The preview is not part of a release (the full release draws its own samples) and is not
exported: it is for the data curator's screen. On its own it is a DP-CDA release of
``K x per_class`` samples at the given noise, so its privacy loss is below that of the full
release at the same noise (fewer samples); a screen that shows both shows the composition of two
releases (docs/security.md, "What the dashboard shows"). Every draw comes from a
:class:`~dpcda.randomness.SecureRandom` (``seed`` is for tests only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Most samples per class a preview draws (the page's grid shows at most 16).
MAX_PER_CLASS = 64


@dataclass(frozen=True, eq=False)
class Preview:
    """``per_class`` samples of every class: features ``X`` (float32, on the public grid, in the
    preprocessed units), released hard labels ``y`` and soft labels ``y_soft`` (as a release's),
    the class each was mixed from (``source``: for the screen's rows only; with ``y_soft`` it
    would reveal the label noise, so nothing exports a preview), the ``preprocess`` that was
    applied (for display: its scale) and a minimal ``card``
    (``{"preview": True, "data": {"class_names": ...}}``; it names no noise and no seed)."""

    X: np.ndarray
    y: np.ndarray
    y_soft: np.ndarray
    source: np.ndarray
    preprocess: object = field(repr=False)
    card: dict = field(default_factory=dict)


def preview_dpcda(X, y, *, l: int, per_class: int, sigma_x: float, sigma_y: float, preprocess,
                  n_classes: int, c: float, class_names=None, seed: int | None = None) -> Preview:
    """``per_class`` samples of each of the ``n_classes`` classes of ``(X, y)`` at order of mixture
    ``l`` and noise ``sigma_x`` (features) / ``sigma_y`` (labels), rows normalised and clipped by
    ``preprocess`` (a fitted :class:`~dpcda.mechanisms.prepare.Preprocessor` with clip norm ``c``,
    e.g. :func:`~dpcda.mechanisms.prepare.fit_preprocessor`). Raises ``ValueError`` naming the
    parameter when ``l`` exceeds a class or a value is out of range."""
    import torch

    from dpcda.mechanisms.mixing import bag_means, grids, hard_labels, private_table
    from dpcda.mechanisms.sampling import sample_subsets
    from dpcda.randomness import SecureRandom
    from dpcda.randomness.noise import add_gaussian
    from dpcda.util.checks import check_float, check_int, check_sigma_pair

    per_class = check_int("per_class", per_class, 1, MAX_PER_CLASS)
    K = check_int("n_classes", n_classes, 1)
    l = check_int("l", l, 1)
    sigma_x = check_float("sigma_x", sigma_x, lo=0.0)
    sigma_y = check_float("sigma_y", sigma_y, lo=0.0)
    check_sigma_pair(sigma_x, sigma_y)
    c = check_float("c", c, lo=0.0, lo_open=True)
    if getattr(preprocess, "c", None) != c:
        raise ValueError(f"preprocess must clip rows to c={c:g} (the release's clip norm), "
                         f"got a preprocessor with c={getattr(preprocess, 'c', None)!r}")
    X, y = np.asarray(X), np.asarray(y)
    counts = np.bincount(y, minlength=K)
    if len(counts) > K or len(y) != len(X):
        raise ValueError(f"y must hold one label in 0..{K - 1} per row of X")
    if l > counts.min():
        # worded from l alone: the class sizes of the private data are never in a message
        raise ValueError(f"l must be at most the number of records of every class, got l={l}: a class "
                         "of this dataset has fewer records than that; lower l")
    gen = SecureRandom(seed)
    cpu = torch.device("cpu")
    gx, gy = grids(sigma_x, sigma_y, c)
    d = X.shape[1]
    out = np.empty((K * per_class, d), dtype=np.float32)
    source = np.repeat(np.arange(K), per_class)
    pos = gen.permutation(K * per_class)  # rows in a random order, as a release's
    for k in range(K):
        rows_k = np.flatnonzero(y == k)
        chosen = rows_k[sample_subsets(len(rows_k), l, per_class, generator=gen).numpy()]
        used, where = np.unique(chosen, return_inverse=True)  # only these rows are preprocessed
        table = private_table(preprocess(X[used]), l, cpu, noisy=sigma_x > 0)
        means = bag_means(table, torch.from_numpy(where.reshape(per_class, l).astype(np.int64)))
        out[pos[k * per_class:(k + 1) * per_class]] = add_gaussian(
            means.numpy(), sigma_x, gen, bound=c, grid=gx)
    mixed_from = source[np.argsort(pos)]  # the class of each output row
    y_soft = add_gaussian(np.eye(K)[mixed_from], sigma_y, gen, bound=1.0, grid=gy)
    names = list(class_names) if class_names is not None else [str(k) for k in range(K)]
    return Preview(X=out, y=hard_labels(y_soft, gy.gamma if gy else 0.0, gen),
                   y_soft=y_soft.astype(np.float32), source=mixed_from, preprocess=preprocess,
                   card={"preview": True, "data": {"class_names": names}})
