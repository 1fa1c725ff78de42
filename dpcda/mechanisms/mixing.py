"""The vectorised mixing kernel: means of random l-subsets of rows, plus Gaussian noise.

The means run in torch on one device, in chunks of rows so that temporary tensors stay under
``CHUNK_BYTES`` (64 MB): no Python loop runs over the samples. The sum of the selected rows is
``torch.nn.functional.embedding_bag(idx, table, mode="sum")`` over blocks of 32 indices, which
reduces while it gathers (it never materialises the ``chunk x l x d`` tensor); the block sums
are added in float64 (:func:`bag_means`); on MPS, where that kernel may be missing, a chunked
``index_select`` + sum does the same. Measured on this project's 2-core CPU
(6000 x 784 table, 6000 mixtures, float32): embedding_bag 0.01 s (l = 4) / 0.2 s (l = 512),
against 0.1 s / 3.1 s for index_select + sum, 0.3 s / 0.2 s for a dense 0/1 weight matmul and
0.007 s / 0.17 s for a CSR sparse matmul (which needs the beta sparse-CSR API).

Privacy (docs/security.md): every random draw (the subsets, the row order, the noise) comes
from the release's :class:`~dpcda.randomness.secure.SecureRandom`; the means are computed
(float32 blocks, float64 sums) from rows scaled by :func:`shrink_factor`, so that their rounding
errors never push the sensitivity above its exact value; the noise is float64 and the noisy value is
rounded to a public grid (:mod:`dpcda.randomness.noise`), which float32 stores exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcda.util.cancellation import checkpoint
from dpcda.mechanisms._torch import CHUNK_BYTES
from dpcda.mechanisms.sampling import sample_subsets


#: Indices summed in float32 before the running sum moves to float64 (see :func:`bag_means`).
BLOCK = 32
_U32 = 2.0 ** -24


def shrink_factor(l: int) -> float:
    """The public factor ``1 - m`` applied to every row before mixing (noisy releases only).

    :func:`bag_means` sums blocks of ``b = min(l, BLOCK)`` float32 rows (error at most
    ``(b - 1) u32 sum_j |x_j|`` per coordinate, ``u32 = 2^-24``) and adds the block sums in
    float64: in L2 the mean is off by at most ``(b - 1) u32 c`` (plus float64 terms), so two
    neighbouring means differ by at most ``2c/l (1 - m) + 2 (b - 1) u32 c + ...``, which stays
    below ``2c/l`` with ``m = max(2^-20, (l (b - 1) + 4) u32 + 2^-30)``: under 1e-4 for
    l <= 64, 9.5e-4 at l = 512 (docs/security.md, "The sensitivity survives rounding")."""
    b = min(int(l), BLOCK)
    return 1.0 - max(2.0 ** -20, (l * (b - 1) + 4) * _U32 + 2.0 ** -30)


def private_table(rows, l: int, device, *, noisy: bool = True):
    """Rows as the float32 tensor the kernel mixes, scaled by :func:`shrink_factor` when the
    release is ``noisy`` (the non-private setting mixes the rows as they are)."""
    import numpy as np
    import torch

    t = torch.from_numpy(np.ascontiguousarray(rows, dtype=np.float32)).to(device)
    return t.mul_(shrink_factor(l)) if noisy else t


def _rows_per_chunk(n: int, l: int, width: int) -> int:
    """Rows of mixtures per chunk: indices and Floyd's tables (24 l), its mask (n), a float32
    block sum, float64 means, two noise words per value and the noisy values (44 width)."""
    return max(1, CHUNK_BYTES // (24 * l + n + 44 * width))


def _bag_sums(table, idx):
    """``out[i] = sum(table[idx[i, j]] for j)`` in the table's dtype."""
    import torch
    import torch.nn.functional as F

    m, k = idx.shape
    if k == 1:  # a plain gather (3x faster than embedding_bag for one row per bag)
        return table.index_select(0, idx[:, 0])
    if table.device.type != "mps":
        return F.embedding_bag(idx, table, mode="sum")
    out = torch.empty((m, table.shape[1]), dtype=table.dtype, device=table.device)
    step = max(1, CHUNK_BYTES // (4 * k * table.shape[1]))
    for s in range(0, m, step):
        part = idx[s:s + step]
        out[s:s + step] = table.index_select(0, part.reshape(-1)).view(len(part), k, -1).sum(1)
    return out


def bag_means(table, idx):
    """``out[i] = mean(table[idx[i, j]] for j)`` for an ``(m, l)`` index tensor, as float64.

    Blocks of :data:`BLOCK` indices are summed in the table's float32 (``embedding_bag``,
    which reduces while it gathers), the block sums added in float64 and divided by ``l``; the
    error this leaves is what :func:`shrink_factor` pays for. On MPS (no float64) the float64
    part runs on the CPU."""
    import torch

    m, l = idx.shape
    acc = table.device if table.device.type != "mps" else torch.device("cpu")
    out = _bag_sums(table, idx[:, :BLOCK]).to(acc, torch.float64)
    for a in range(BLOCK, l, BLOCK):  # float64 += float32: exact conversion, one rounding
        out.add_(_bag_sums(table, idx[:, a:a + BLOCK]).to(acc))
    return out.div_(l)


def iter_mixtures(table, m: int, l: int, *, generator):
    """Yield ``(start, stop, means, idx)`` chunks covering ``m`` mixtures of ``l`` distinct rows.

    ``idx`` holds the chosen row numbers of ``table`` (each row of ``idx`` a uniform l-subset,
    drawn afresh for every mixture from ``generator``, a ``SecureRandom``); ``means`` their
    average (on the table's device and dtype).
    """
    n = table.shape[0]
    step = _rows_per_chunk(n, l, table.shape[1])
    for s in range(0, m, step):
        checkpoint()  # a running job's cancel / time limit takes effect between chunks
        e = min(m, s + step)
        idx = sample_subsets(n, l, e - s, generator=generator, device=table.device)
        yield s, e, bag_means(table, idx), idx


def hard_labels(y_soft, gamma: float, generator):
    """Argmax of each noisy soft label, ties on the grid broken uniformly at random."""
    import numpy as np

    jitter = generator.random(y_soft.shape) * (0.5 * gamma) if gamma > 0 else 0.0
    return np.argmax(np.asarray(y_soft, dtype=np.float64) + jitter, axis=1).astype(np.int64)


def grids(sigma_x: float, sigma_y: float, bound: float):
    """The public output grids of features and soft labels (None where the noise is 0)."""
    from dpcda.randomness.noise import grid_for

    gx = grid_for(sigma_x, bound) if sigma_x > 0 else None
    gy = grid_for(sigma_y, 1.0) if sigma_y > 0 else None
    return gx, gy


@dataclass(frozen=True)
class Mixed:
    """Raw output of a mixing run (numpy). ``source`` and ``indices`` are for tests only: with
    ``y_soft`` they would reveal the label noise, so no release or export carries them.
    ``float_cost``: what the floating-point mitigation adds to the guarantee
    (:class:`dpcda.randomness.noise.FloatCost`)."""

    X: object
    y_soft: object
    y: object
    source: object
    indices: object = None
    float_cost: object = None


def mix_classwise(Xp, y, K: int, l: int, per_class, sigma_x: float, sigma_y: float, *,
                  generator, device, bound: float = 1.0, return_indices: bool = False) -> Mixed:
    """DP-CDA step 4 on preprocessed features ``Xp`` (N x d, rows clipped) and labels ``y``.

    ``per_class``: one ``T_k`` for every class (a sequence of K integers, e.g. from
    :func:`dpcda.privacy.samples_per_class`), or one integer for all classes.
    For each class k: ``T_k`` mixtures of ``l`` distinct rows of class k, each plus
    ``N(0, sigma_x^2 I_d)``; soft label ``onehot(k) + N(0, sigma_y^2 I_K)``; hard label its
    argmax. Rows come out in a uniformly random order (so that the position of a row does not
    reveal its class, which with ``y_soft`` would reveal the label noise).
    ``generator``: the release's :class:`~dpcda.randomness.secure.SecureRandom`.
    ``bound``: a public bound on every feature's absolute value (the clip norm ``c``); the grid
    values are exact in float32 when ``bound + 15 sigma_x < 2^24 gamma`` (all but near-noiseless
    settings; otherwise the float32 output is their rounding, post-processing).
    ``return_indices`` also returns, per output row, the original row numbers mixed (tests).
    """
    import numpy as np

    from dpcda.randomness.noise import add_gaussian, float_cost

    order = np.argsort(y, kind="stable")
    counts = np.bincount(y, minlength=K)
    starts = np.concatenate([[0], np.cumsum(counts)])
    X_sorted = private_table(np.asarray(Xp)[order], l, device, noisy=sigma_x > 0)
    t_k = np.broadcast_to(np.asarray(per_class, dtype=np.int64), (K,))
    first = np.concatenate([[0], np.cumsum(t_k)])  # output slots of class k: first[k]:first[k+1]
    total, d = int(first[-1]), Xp.shape[1]
    gx, gy = grids(sigma_x, sigma_y, bound)
    out = np.empty((total, d), dtype=np.float32)
    source = np.empty(total, dtype=np.int64)
    pos = generator.permutation(total)
    indices = np.empty((total, l), dtype=np.int64) if return_indices else None
    for k in range(K):
        table = X_sorted[int(starts[k]):int(starts[k + 1])]
        for s, e, means, idx in iter_mixtures(table, int(t_k[k]), l, generator=generator):
            rows = pos[int(first[k]) + s:int(first[k]) + e]
            out[rows] = add_gaussian(means.cpu().numpy(), sigma_x, generator, bound=bound, grid=gx)
            source[rows] = k
            if return_indices:
                indices[rows] = order[idx.cpu().numpy() + int(starts[k])]
    y_soft = add_gaussian(np.eye(K)[source], sigma_y, generator, bound=1.0, grid=gy)
    return Mixed(X=out, y_soft=y_soft.astype(np.float32),
                 y=hard_labels(y_soft, gy.gamma if gy else 0.0, generator), source=source,
                 indices=indices, float_cost=float_cost((total * d, gx), (total * K, gy)))


def mix_any_class(Xp, y, K: int, l: int, T: int, sigma_x: float, sigma_y: float, *,
                  generator, device, bound: float = 1.0, return_indices: bool = False) -> Mixed:
    """DPMix: ``T`` mixtures of ``l`` distinct rows drawn from the whole dataset (any class),
    weights 1/l; the one-hot labels are mixed with the same weights (soft labels), then noise
    ``N(0, sigma_x^2)`` on features and ``N(0, sigma_y^2)`` on labels; hard label = argmax.
    ``generator``, ``bound``: as in :func:`mix_classwise`."""
    import numpy as np

    from dpcda.randomness.noise import add_gaussian, float_cost

    d = Xp.shape[1]
    rows = np.concatenate([np.asarray(Xp, dtype=np.float32),
                           np.eye(K, dtype=np.float32)[np.asarray(y)]], axis=1)
    table = private_table(rows, l, device, noisy=sigma_x > 0 or sigma_y > 0)
    del rows
    gx, gy = grids(sigma_x, sigma_y, bound)
    X = np.empty((T, d), dtype=np.float32)
    y_soft = np.empty((T, K), dtype=np.float64)
    indices = np.empty((T, l), dtype=np.int64) if return_indices else None
    for s, e, means, idx in iter_mixtures(table, T, l, generator=generator):
        m = means.cpu().numpy()
        X[s:e] = add_gaussian(m[:, :d], sigma_x, generator, bound=bound, grid=gx)
        y_soft[s:e] = add_gaussian(m[:, d:], sigma_y, generator, bound=1.0, grid=gy)
        if return_indices:
            indices[s:e] = idx.cpu().numpy()
    return Mixed(X=X, y_soft=y_soft.astype(np.float32),
                 y=hard_labels(y_soft, gy.gamma if gy else 0.0, generator), source=None,
                 indices=indices, float_cost=float_cost((T * d, gx), (T * K, gy)))


