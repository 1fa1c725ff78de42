"""Records held at S sites, and a tool that splits one dataset into sites (a simulation).

A real deployment starts from data that already live at S sites (hospitals, banks); splitting
a pooled dataset only simulates where the records live, for experiments and teaching
(docs/decentral.md). Splits:

* ``iid``: a uniformly random permutation cut into S near-equal parts;
* ``skewed``: for every class k, site shares ``p ~ Dirichlet(alpha 1_S)`` and the class's
  records (in a random order) cut at ``round(cumsum(p) n_k)``;
* ``by-column``: a given column of the features names each record's site (an upload's site
  column); the column is removed from the features.

Every draw comes from :class:`~dpcda.randomness.secure.SecureRandom`. The checks' messages
name parameters and allowed values, never a private count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcda.mechanisms.validation import check_float, check_int

SPLITS = ("iid", "skewed", "by-column")


@dataclass(frozen=True)
class Site:
    """One site's own records: features ``X`` (n_s x d, float64) and labels ``y`` in 0..K-1."""

    X: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class Sites:
    """``S`` sites with the same ``d`` columns and ``K`` classes; ``split`` says how they came
    about (``"given"`` for data that arrived split)."""

    sites: tuple[Site, ...]
    n_classes: int
    split: str = "given"

    @property
    def S(self) -> int:
        return len(self.sites)

    @property
    def d(self) -> int:
        return int(self.sites[0].X.shape[1])

    def class_counts(self) -> np.ndarray:
        """``(S, K)`` records per site and class: private (the coordinator of the CAPE protocol
        learns them; nothing published carries them)."""
        return np.stack([np.bincount(s.y, minlength=self.n_classes) for s in self.sites])

    def pooled(self) -> tuple[np.ndarray, np.ndarray]:
        """All records in one array (the centralized reference only: a real deployment has
        no pooled copy)."""
        return (np.concatenate([s.X for s in self.sites]), np.concatenate([s.y for s in self.sites]))


def sites_from_arrays(parts, n_classes: int) -> Sites:
    """Sites from per-site ``(X_s, y_s)`` pairs; ValueError on mismatched columns or labels."""
    K = check_int("n_classes", n_classes, 2)
    out = []
    for X, y in parts:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
            raise ValueError("each site needs features X (n x d) and labels y (n) of the same length")
        if out and X.shape[1] != out[0].X.shape[1]:
            raise ValueError("sites must share the same feature columns: the sites' column counts "
                             "differ (mismatched columns)")
        if y.size and (not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= K):
            raise ValueError(f"labels must be integers in 0..{K - 1} (n_classes={K}) at every site")
        out.append(Site(X=X, y=y.astype(np.int64)))
    if not out:
        raise ValueError("sites must hold at least one site")
    return Sites(sites=tuple(out), n_classes=K)


def _gamma(alpha: float, n: int, rng) -> np.ndarray:
    """``n`` Gamma(alpha, 1) variates (Marsaglia & Tsang 2000; ``alpha < 1`` by the boost
    ``Gamma(alpha + 1) U^(1/alpha)``), from the secure source."""
    from dpcda.randomness.noise import standard_normal

    a = alpha + 1.0 if alpha < 1.0 else alpha
    d = a - 1.0 / 3.0
    cc = 1.0 / np.sqrt(9.0 * d)
    out = np.empty(n)
    todo = np.arange(n)
    while todo.size:
        x = standard_normal(rng, todo.size)
        u = rng.random(todo.size)
        v = (1.0 + cc * x) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(u) < 0.5 * x * x + d - d * v + d * np.log(v))
        out[todo[ok]] = d * v[ok]
        todo = todo[~ok]
    if alpha < 1.0:
        out *= rng.random(n) ** (1.0 / alpha)
    return out


def dirichlet(alpha: float, S: int, rng) -> np.ndarray:
    """One ``Dirichlet(alpha 1_S)`` draw from the secure source."""
    g = _gamma(alpha, S, rng)
    total = g.sum()
    return g / total if total > 0 else np.full(S, 1.0 / S)


def split_sites(X, y, *, sites: int, split: str = "iid", n_classes: int, alpha: float = 0.5,
                column: int | None = None, rng=None) -> Sites:
    """Simulate ``sites`` sites holding the records of ``(X, y)`` (see the module docstring).
    ``rng``: a :class:`~dpcda.randomness.secure.SecureRandom` (None: a fresh OS-keyed one)."""
    from dpcda.randomness.secure import as_source

    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got split={split!r}")
    S = check_int("sites", sites, 1)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    rng = as_source(rng)
    if split == "by-column":
        if column is None:
            raise ValueError("split='by-column' needs column (the index of the site column)")
        col = check_int("column", column, -X.shape[1], X.shape[1] - 1)
        names, where = np.unique(X[:, col], return_inverse=True)
        if len(names) != S:
            raise ValueError(f"sites={S} must equal the number of distinct values of the site "
                             "column (the column names a different number of sites)")
        rest = np.delete(X, col, axis=1)
        return _make(rest, y, [np.flatnonzero(where == s) for s in range(S)], n_classes, split)
    if split == "iid":
        order = rng.permutation(len(y))
        return _make(X, y, np.array_split(order, S), n_classes, split)
    a = check_float("alpha", alpha, lo=0.0, lo_open=True, why=" (the Dirichlet concentration)")
    parts: list[list[np.ndarray]] = [[] for _ in range(S)]
    for k in range(int(n_classes)):
        idx = np.flatnonzero(y == k)
        idx = idx[rng.permutation(len(idx))]
        cuts = np.rint(np.cumsum(dirichlet(a, S, rng)) * len(idx)).astype(np.int64)
        cuts[-1] = len(idx)
        for s, part in enumerate(np.split(idx, cuts[:-1])):
            parts[s].append(part)
    return _make(X, y, [np.concatenate(p) for p in parts], n_classes, split)


def _make(X, y, index_sets, n_classes, split) -> Sites:
    base = sites_from_arrays([(X[i], y[i]) for i in index_sets], n_classes)
    return Sites(sites=base.sites, n_classes=base.n_classes, split=split)


def check_sites_for(sites: Sites, l: int, *, every_site: bool) -> None:
    """ValueError unless the pooled classes (and with ``every_site``, every site's classes: the
    local mode) hold at least ``l`` records. The message names the parameters, no count."""
    check_counts_for(sites.class_counts(), l, every_site=every_site)


def check_counts_for(counts, l: int, *, every_site: bool) -> None:
    """:func:`check_sites_for` on an ``(S, K)`` table of records per site and class (the
    dashboard checks a split's public design with it). The message names no count."""
    counts = np.asarray(counts)
    S = counts.shape[0]
    if (counts.sum(axis=0) < l).any():
        raise ValueError(f"l={l} exceeds the records of a pooled class: lower l")
    if every_site and (counts.sum(axis=0) < S * l).any():
        raise ValueError(f"sites={S} is more than the classes allow: the local mode needs "
                         f"l={l} records of every class at every site (fewer sites, or lower l)")
    if every_site and (counts == 0).any():
        raise ValueError(f"a site holds no record of some class: every one of the sites={S} "
                         "needs every class for the local mode (fewer sites, or another split)")
    if every_site and (counts < l).any():
        raise ValueError(f"sites={S} is more than the classes allow: every site needs at least "
                         f"l={l} records of every class for the local mode (fewer sites, or lower l)")
