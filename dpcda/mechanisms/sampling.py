"""Uniform random l-subsets of {0, ..., n-1}, many at once, on any torch device.

``sample_subsets(n, l, m)`` returns an ``(m, l)`` int64 tensor whose rows are independent and
each exactly uniform over the C(n, l) subsets of size ``l`` (within a row the indices are
distinct; their order carries no meaning). No Python loop runs over the ``m`` rows:

* ``l = 1``: one uniform integer per row.
* small ``l`` (probability that ``l`` draws with replacement are all distinct >= 0.95):
  draw ``l`` indices with replacement and redraw only the rows that contain a repeat.
  An accepted row is uniform over ordered l-tuples of distinct indices, hence over l-subsets.
* otherwise: Robert Floyd's algorithm, run for all rows at once (``l`` vectorised steps,
  membership kept in an ``m x n`` boolean mask); for ``l > n/2`` the complement, of size
  ``n - l``, is drawn instead and inverted.

Every random integer is drawn on the host from the release's cryptographically secure source
(:class:`~dpcda.randomness.secure.SecureRandom`, exactly uniform below its bound) and
moved to the device; the device only gathers and compares.
"""

from __future__ import annotations

import math

from dpcda.mechanisms._torch import CHUNK_BYTES, cpu_threads


def _below(bound, shape, gen, device):
    """Exactly uniform integers in ``[0, bound)`` (an int64 tensor on ``device``); ``bound`` an
    int or an integer array broadcasting to ``shape``."""
    import numpy as np
    import torch

    b = bound if isinstance(bound, int) else np.asarray(bound, dtype=np.int64)
    return torch.from_numpy(gen.below(b, shape)).to(device)


def _all_distinct_probability(n: int, l: int) -> float:
    """P(l uniform draws with replacement from n items are all distinct)."""
    if l > n:
        return 0.0
    return math.exp(sum(math.log1p(-i / n) for i in range(1, l)))


def _rejection(n: int, l: int, m: int, gen, device):
    idx = _below(n, (m, l), gen, device)
    while True:
        srt, _ = idx.sort(dim=1)
        bad = (srt[:, 1:] == srt[:, :-1]).any(dim=1)
        n_bad = int(bad.sum())
        if n_bad == 0:
            return idx
        idx[bad] = _below(n, (n_bad, l), gen, device)


def _floyd_mask(n: int, l: int, m: int, gen, device):
    """Floyd's algorithm for ``m`` rows at once: ``(indices (m, l), membership mask (m, n))``.

    Step ``s`` (``j = n - l + s``) draws ``t`` uniform in ``[0, j]`` and takes ``t``, or ``j`` if
    ``t`` is already in the row's set. All candidates ``t`` are drawn before the loop, as flat
    positions in the mask, so that each step is three tensor operations.
    """
    import numpy as np
    import torch

    mask = torch.zeros((m, n), dtype=torch.bool, device=device)
    flat = mask.view(-1)
    base = torch.arange(m, device=device) * n  # flat offset of each row
    bound = np.arange(n - l + 1, n + 1, dtype=np.int64)  # j + 1 for each step
    pos = _below(bound[:, None], (l, m), gen, device)
    pos += base
    fallback = base + torch.from_numpy(bound - 1).to(device)[:, None]  # position of j per row
    with cpu_threads(1, device):
        for s in range(l):
            p = pos[s]
            # j itself cannot be in the set yet (earlier steps only chose values < j).
            torch.where(flat[p], fallback[s], p, out=p)
            flat[p] = True
    return (pos - base).t(), mask


def _floyd(n: int, l: int, m: int, gen, device):
    if 2 * l <= n:
        return _floyd_mask(n, l, m, gen, device)[0]
    if l == n:
        import torch

        return torch.arange(n, device=device).expand(m, n).clone()
    _, mask = _floyd_mask(n, n - l, m, gen, device)
    return (~mask).nonzero()[:, 1].reshape(m, l)


def subset_method(n: int, l: int) -> str:
    """The algorithm :func:`sample_subsets` uses for ``(n, l)``: single, rejection or floyd."""
    if l == 1:
        return "single"
    if _all_distinct_probability(n, l) >= 0.95:
        return "rejection"
    return "floyd"


def sample_subsets(n: int, l: int, m: int, *, generator, device=None):
    """``m`` independent uniform ``l``-subsets of ``range(n)`` as an ``(m, l)`` int64 tensor.

    ``generator``: the release's :class:`~dpcda.randomness.secure.SecureRandom`;
    ``device``: where the tensor goes (default cpu).
    """
    import torch

    for name, v, lo in (("n", n, 1), ("l", l, 1), ("m", m, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {name}={v!r}")
    if l > n:
        raise ValueError(f"l must be an integer in [1, {n}] (the set size n), got l={l}")
    device = torch.device(device) if device is not None else torch.device("cpu")
    method = subset_method(n, l)
    if m == 0:
        return torch.empty((0, l), dtype=torch.long, device=device)
    if method == "single":
        return _below(n, (m, 1), generator, device)
    if method == "rejection":
        return _rejection(n, l, m, generator, device)
    # Floyd keeps an (rows x n) mask and two (steps x rows) int64 tables: chunk the rows.
    step = max(1, CHUNK_BYTES // (n + 16 * min(l, n - l + 1)))
    parts = [_floyd(n, l, min(step, m - s), generator, device) for s in range(0, m, step)]
    return parts[0] if len(parts) == 1 else torch.cat(parts)
