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

Uniform integers below a bound are ``floor(u * bound)`` with ``u`` a 53-bit uniform float, so
their bias is at most ``n / 2**53`` (torch's own ``randint`` is modulo 2**32 for small ranges);
see :func:`_below` for MPS.
"""

from __future__ import annotations

import math

from dpcda.mechanisms._torch import CHUNK_BYTES, cpu_threads

# Use the float32-only integer construction (MPS's) on every device; tests set it on CPU.
FLOAT32_ONLY = False

def _below(bound, shape, gen, device):
    """Uniform integers in ``[0, bound)`` (int64); ``bound`` an int or an int64 tensor that
    broadcasts to ``shape``. ``floor(u * bound)`` with ``u`` a 53-bit uniform float (bias at
    most ``bound / 2**53``); on MPS, which has no float64, a 40-bit integer built from two
    float32 draws, times ``bound``, shifted right by 40 (bias at most ``bound / 2**40``; needs
    ``bound < 2**23``)."""
    import torch

    dev = torch.device(device)
    if dev.type != "mps" and not FLOAT32_ONLY:
        out = (torch.rand(shape, generator=gen, device=dev, dtype=torch.float64) * bound).long()
    else:
        hi = (torch.rand(shape, generator=gen, device=dev) * 2**24).long()
        lo = (torch.rand(shape, generator=gen, device=dev) * 2**16).long()
        out = ((hi * 2**16 + lo) * bound) >> 40
    if isinstance(bound, int):
        return out.clamp_(max=bound - 1)  # float rounding can reach bound itself
    return torch.minimum(out, bound - 1, out=out)


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
    import torch

    mask = torch.zeros((m, n), dtype=torch.bool, device=device)
    flat = mask.view(-1)
    base = torch.arange(m, device=device) * n  # flat offset of each row
    bound = torch.arange(n - l + 1, n + 1, device=device)  # j + 1 for each step
    pos = _below(bound[:, None], (l, m), gen, device)
    pos += base
    fallback = base + (bound - 1)[:, None]  # flat position of j in each row
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

    ``generator`` is a ``torch.Generator`` on ``device`` (see :func:`make_generator`).
    """
    import torch

    for name, v, lo in (("n", n, 1), ("l", l, 1), ("m", m, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {name}={v!r}")
    if l > n:
        raise ValueError(f"l must be an integer in [1, {n}] (the set size n), got l={l}")
    device = torch.device(device) if device is not None else generator.device
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
