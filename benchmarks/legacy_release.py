"""The *legacy* DP-CDA release path (commit fbbefed), kept only to be attacked.

A faithful, self-contained copy of what every DP-CDA release did before issue 17 was fixed:
one CPU ``torch.Generator`` (MT19937: ``manual_seed`` keeps only the low 32 bits of its seed)
drives everything, in this order: the output row order (``torch.randperm``), then per class and
per chunk the l-subsets (:func:`sample_subsets`, floats ``* bound``) and the feature noise
(float32 ``torch.randn``), then the label noise. Copied from ``git show
fbbefed:dpcda/mechanisms/{mixing,sampling,_torch}.py`` with the device, MPS and cancellation
branches removed (CPU only; they do not change a single draw on CPU).

NEVER use this module to make a release: ``benchmarks/seed_attack.py`` and
``tests/mechanisms/test_seed_attack.py`` show that an attacker recovers every private row from
its output. The library's release path is :func:`dpcda.mechanisms.generate_dpcda`.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

CHUNK_BYTES = 64 << 20


# -- fbbefed dpcda/mechanisms/_torch.py --------------------------------------------------------
def make_generator(seed: int):
    """The legacy ``make_generator('cpu', seed)`` (the OS-seeded path drew 63 bits here)."""
    import torch

    gen = torch.Generator(device="cpu")
    gen.manual_seed(int(seed))
    return gen


@contextmanager
def cpu_threads(n: int):
    import torch

    if torch.get_num_threads() <= n:
        yield
        return
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


# -- fbbefed dpcda/mechanisms/sampling.py (CPU path) ---------------------------------------------
def _below(bound, shape, gen):
    import torch

    out = (torch.rand(shape, generator=gen, dtype=torch.float64) * bound).long()
    if isinstance(bound, int):
        return out.clamp_(max=bound - 1)
    return torch.minimum(out, bound - 1, out=out)


def _all_distinct_probability(n: int, l: int) -> float:
    if l > n:
        return 0.0
    return math.exp(sum(math.log1p(-i / n) for i in range(1, l)))


def _rejection(n: int, l: int, m: int, gen):
    idx = _below(n, (m, l), gen)
    while True:
        srt, _ = idx.sort(dim=1)
        bad = (srt[:, 1:] == srt[:, :-1]).any(dim=1)
        n_bad = int(bad.sum())
        if n_bad == 0:
            return idx
        idx[bad] = _below(n, (n_bad, l), gen)


def _floyd_mask(n: int, l: int, m: int, gen):
    import torch

    mask = torch.zeros((m, n), dtype=torch.bool)
    flat = mask.view(-1)
    base = torch.arange(m) * n
    bound = torch.arange(n - l + 1, n + 1)
    pos = _below(bound[:, None], (l, m), gen)
    pos += base
    fallback = base + (bound - 1)[:, None]
    with cpu_threads(1):
        for s in range(l):
            p = pos[s]
            torch.where(flat[p], fallback[s], p, out=p)
            flat[p] = True
    return (pos - base).t(), mask


def _floyd(n: int, l: int, m: int, gen):
    import torch

    if 2 * l <= n:
        return _floyd_mask(n, l, m, gen)[0]
    if l == n:
        return torch.arange(n).expand(m, n).clone()
    _, mask = _floyd_mask(n, n - l, m, gen)
    return (~mask).nonzero()[:, 1].reshape(m, l)


def subset_method(n: int, l: int) -> str:
    if l == 1:
        return "single"
    if _all_distinct_probability(n, l) >= 0.95:
        return "rejection"
    return "floyd"


def sample_subsets(n: int, l: int, m: int, *, generator):
    import torch

    method = subset_method(n, l)
    if m == 0:
        return torch.empty((0, l), dtype=torch.long)
    if method == "single":
        return _below(n, (m, 1), generator)
    if method == "rejection":
        return _rejection(n, l, m, generator)
    step = max(1, CHUNK_BYTES // (n + 16 * min(l, n - l + 1)))
    parts = [_floyd(n, l, min(step, m - s), generator) for s in range(0, m, step)]
    return parts[0] if len(parts) == 1 else torch.cat(parts)


# -- fbbefed dpcda/mechanisms/mixing.py (CPU path) -----------------------------------------------
def _rows_per_chunk(n: int, l: int, width: int) -> int:
    return max(1, CHUNK_BYTES // (24 * l + n + 8 * width))


def bag_means(table, idx):
    import torch.nn.functional as F

    if idx.shape[1] == 1:
        return table.index_select(0, idx[:, 0])
    return F.embedding_bag(idx, table, mode="mean")


def iter_mixtures(table, m: int, l: int, *, generator):
    n = table.shape[0]
    step = _rows_per_chunk(n, l, table.shape[1])
    for s in range(0, m, step):
        e = min(m, s + step)
        idx = sample_subsets(n, l, e - s, generator=generator)
        yield s, e, bag_means(table, idx), idx


def add_noise_(x, sigma: float, *, generator):
    import torch

    if sigma > 0:
        x.add_(torch.randn(x.shape, generator=generator, dtype=x.dtype), alpha=sigma)
    return x


@dataclass(frozen=True)
class Mixed:
    X: np.ndarray
    y_soft: np.ndarray
    y: np.ndarray
    source: np.ndarray
    indices: np.ndarray | None = None


def mix_classwise(Xp, y, K: int, l: int, per_class, sigma_x: float, sigma_y: float, *,
                  generator, return_indices: bool = False) -> Mixed:
    """The legacy kernel, draw for draw (see the module docstring)."""
    import torch

    order = np.argsort(y, kind="stable")
    counts = np.bincount(y, minlength=K)
    starts = np.concatenate([[0], np.cumsum(counts)])
    X_sorted = torch.from_numpy(np.ascontiguousarray(Xp[order], dtype=np.float32))
    t_k = np.broadcast_to(np.asarray(per_class, dtype=np.int64), (K,))
    first = np.concatenate([[0], np.cumsum(t_k)])
    total, d = int(first[-1]), Xp.shape[1]
    out = torch.empty((total, d), dtype=torch.float32)
    source = torch.empty(total, dtype=torch.long)
    pos = torch.randperm(total, generator=generator)
    indices = torch.empty((total, l), dtype=torch.long) if return_indices else None
    order_t = torch.from_numpy(order) if return_indices else None
    for k in range(K):
        table = X_sorted[int(starts[k]):int(starts[k + 1])]
        for s, e, means, idx in iter_mixtures(table, int(t_k[k]), l, generator=generator):
            rows = pos[int(first[k]) + s:int(first[k]) + e]
            out.index_copy_(0, rows, add_noise_(means, sigma_x, generator=generator))
            source[rows] = k
            if return_indices:
                indices[rows] = order_t[idx + int(starts[k])]
    y_soft = torch.nn.functional.one_hot(source, K).to(torch.float32)
    add_noise_(y_soft, sigma_y, generator=generator)
    return Mixed(X=out.numpy(), y_soft=y_soft.numpy(),
                 y=y_soft.argmax(dim=1).numpy().astype(np.int64), source=source.numpy(),
                 indices=None if indices is None else indices.numpy())


# -- the legacy "scale" preprocessing (public range, then rows clipped to norm c) --------------
def preprocess(X, bounds=(0.0, 16.0), c: float = 1.0) -> np.ndarray:
    """``clip_rows((X - low) / (high - low), c)`` in float32, as the legacy ``normalize="scale"``."""
    lo, hi = bounds
    out = (np.asarray(X, dtype=np.float32) - np.float32(lo)) * np.float32(1.0 / (hi - lo))
    norms = np.sqrt(np.einsum("ij,ij->i", out.astype(np.float64), out.astype(np.float64)))
    out *= np.minimum(1.0, c / np.maximum(norms, np.finfo(np.float64).tiny)).astype(np.float32)[:, None]
    over = np.flatnonzero(np.linalg.norm(out.astype(np.float64), axis=1) > c)
    out[over] *= np.float32(1.0 - 4 * np.finfo(np.float32).eps)
    return out


def legacy_release(Xp, y, *, l: int, per_class, sigma_x: float, sigma_y: float | None = None,
                   seed: int, return_indices: bool = False) -> Mixed:
    """A legacy DP-CDA release of preprocessed rows ``Xp`` seeded with ``seed`` (MT19937 keeps
    its low 32 bits; the shipped code drew it from ``os.urandom``)."""
    y = np.asarray(y, dtype=np.int64)
    K = int(y.max()) + 1
    return mix_classwise(Xp, y, K, l, per_class, sigma_x,
                         sigma_x if sigma_y is None else sigma_y,
                         generator=make_generator(seed), return_indices=return_indices)
