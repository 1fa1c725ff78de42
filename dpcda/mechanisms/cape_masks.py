"""The CAPE protocol's parts without a trusted dealer: pooled-subset counts and zero-sum masks.

* :func:`pooled_counts`: the coordinator draws, per synthetic sample of class k, a uniform
  l-subset of the pooled *slots* ``0..n_k - 1`` (site s owns slots ``off_s .. off_s + n_{k,s} - 1``)
  and tells each site only its count ``l_s``; site s then draws a uniform ``l_s``-subset of its
  own class-k records (:func:`site_subsets`). The pooled l-subset is then exactly uniform
  (docs/decentral.md, Theorem 1): the coordinator never learns which records were drawn, but it
  must know the per-site class sizes ``n_{k,s}``.
* :func:`site_masks`: every pair ``i < j`` of sites shares a 256-bit key (X25519 Diffie-Hellman
  and HKDF, :mod:`dpcda.mechanisms.cape_keys`) and expands it with ChaCha20 into uniform
  64-bit masks ``m_ij``. Site s quantises its noisy partial mean to the public fixed point
  ``2^-F`` (:func:`to_fixed`) and adds ``e_s = sum_{j>s} m_sj - sum_{j<s} m_js`` mod 2^64:
  the ``e_s`` cancel *exactly* in the ring, and each message alone (indeed any set of fewer
  than all messages) is uniform (secure aggregation, Bonawitz et al. 2017). Why not float64
  Gaussian masks (CAPE's real-valued ``e_s``): their cancellation error grows with the masks
  and, at MNIST scale, costs more epsilon than it saves (docs/decentral.md, "Why modular
  masks", measured).

Dropouts: a site that leaves after the masks were fixed leaves its masks uncancelled; this
implementation aborts the release (:class:`SiteDropout`) and publishes nothing (why not secure
aggregation's recovery: docs/cape_engine.md, "Dropouts"). An aggregate outside the range that
honest messages can reach (:func:`check_range`: masks that did not cancel, e.g. after a tampered
key) aborts too (:class:`MaskMismatch`).
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.randomness.secure import SecureRandom


class SiteDropout(RuntimeError):
    """A site left after masking: its masks cannot cancel, so nothing is released."""


class MaskMismatch(RuntimeError):
    """The masks did not cancel (an aggregate outside the reachable range): nothing is released."""


def uniform_subsets(n: int, c: int, m: int, *, generator) -> np.ndarray:
    """``(m, c)`` int64: ``m`` independent uniform ``c``-subsets of ``0..n - 1`` (numpy, no torch:
    a site's worker process need not import it). ``c = 1``: one uniform integer; when ``c``
    draws with replacement are all distinct with probability >= 1/2, rejection (a kept row is
    uniform over ordered ``c``-tuples of distinct indices, hence over subsets); otherwise
    :func:`dpcda.mechanisms.sampling.sample_subsets` (Floyd's algorithm)."""
    n, c, m = int(n), int(c), int(m)
    if not 1 <= c <= n:
        raise ValueError(f"c must be an integer in [1, {n}] (the set size n), got c={c}")
    if c > 1 and math.exp(sum(math.log1p(-i / n) for i in range(1, c))) < 0.5:
        from dpcda.mechanisms.sampling import sample_subsets

        return sample_subsets(n, c, m, generator=generator, device="cpu").numpy()
    idx = generator.below(n, (m, c))
    todo = np.arange(m)
    while c > 1 and todo.size:
        srt = np.sort(idx[todo], axis=1)
        todo = todo[(srt[:, 1:] == srt[:, :-1]).any(axis=1)]
        if todo.size:
            idx[todo] = generator.below(n, (todo.size, c))
    return idx


def pooled_counts(site_sizes, l: int, m: int, *, generator) -> np.ndarray:
    """``(m, S)`` counts: for each of ``m`` samples, how many of a uniform l-subset of the pooled
    slots fall at each site (``site_sizes``: the ``n_{k,s}`` of one class)."""
    sizes = np.asarray(site_sizes, dtype=np.int64)
    n, S = int(sizes.sum()), len(sizes)
    slots = uniform_subsets(n, int(l), int(m), generator=generator)
    owner = np.searchsorted(np.cumsum(sizes), slots, side="right")  # site of each slot
    cell = (np.arange(int(m))[:, None] * S + owner).reshape(-1)
    return np.bincount(cell, minlength=int(m) * S).reshape(int(m), S).astype(np.int64)


def site_subsets(n_site: int, counts, *, generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """For one site and class: ``[(rows, idx)]`` where ``idx[i]`` is a uniform
    ``counts[rows[i]]``-subset of ``0..n_site - 1``, grouped by count (count 0 left out)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = []
    for c in np.unique(counts):
        if c == 0:
            continue
        rows = np.flatnonzero(counts == c)
        out.append((rows, uniform_subsets(int(n_site), int(c), len(rows), generator=generator)))
    return out


def site_masks(index: int, streams: dict, shape) -> np.ndarray:
    """Site ``index``'s ``e_s`` (uint64) from its own pair streams ``{j: SecureRandom}``:
    ``sum_{j > s} m_sj - sum_{j < s} m_js`` mod 2^64. Both ends of a pair draw the same words,
    in the same order, so the ``e_s`` of all sites sum to 0 mod 2^64 exactly."""
    n = int(np.prod(shape))
    e = np.zeros(n, dtype=np.uint64)
    for j in sorted(streams):
        w = streams[j].words(n)
        if j > index:
            e += w  # uint64 arithmetic wraps: mod 2^64
        else:
            e -= w
    return e.reshape(shape)


class PairMasks:
    """The pairwise mask streams of ``S`` sites in one place (tests, and a picture of the
    protocol): pair ``(i, j)``, ``i < j``, draws uniform 64-bit words from a ChaCha20 stream
    keyed by the pair key. ``key_source``: the keys come from a real X25519 key agreement
    between ``S`` simulated sites (:mod:`dpcda.mechanisms.cape_keys`), each site's private key
    drawn from this secure source."""

    def __init__(self, S: int, key_source: SecureRandom) -> None:
        from dpcda.mechanisms.cape_keys import KeyPair, SESSION_BYTES

        self.S = int(S)
        session = key_source.bytes(SESSION_BYTES).tobytes()
        pairs = [KeyPair(i, key_source) for i in range(self.S)]
        self._streams = {(i, j): SecureRandom.from_key(pairs[i].pair_key(j, pairs[j].public, session))
                         for i in range(self.S) for j in range(i + 1, self.S)}

    def masks(self, shape) -> np.ndarray:
        """``e[s]`` (uint64) of the given shape for every site: ``e_s = sum_{j>s} m_sj -
        sum_{j<s} m_js`` mod 2^64 with uniform ``m``, so ``sum_s e_s = 0`` mod 2^64 exactly."""
        n = int(np.prod(shape))
        e = np.zeros((self.S, n), dtype=np.uint64)
        for (i, j), stream in self._streams.items():
            m = stream.words(n)
            e[i] += m  # uint64 arithmetic wraps: mod 2^64
            e[j] -= m
        return e.reshape((self.S, *shape))


def fixed_point_bits(S: int, value_bound: float) -> int:
    """The public fixed-point scale ``2^F`` of the messages: the largest ``F`` with
    ``S * value_bound * 2^F <= 2^62``, so that the S quantised values sum without overflow
    in int64 (and in the uint64 ring)."""
    return int(math.floor(62 - math.log2(int(S) * float(value_bound))))


def to_fixed(x, F: int, value_bound: float, *, inplace: bool = False) -> np.ndarray:
    """``round(x 2^F)`` as uint64 (two's complement), ``x`` clipped to ``+-value_bound`` first
    (a tail event: :func:`dpcda.mechanisms.cape_grid.lattice_cost` counts it).
    ``inplace``: ``x`` (float64) is overwritten on the way (one array less)."""
    q = np.clip(x, -value_bound, value_bound, out=x if inplace else None)
    q *= 2.0 ** int(F)  # exact: a power of two (as ldexp), no overflow below 2^62
    np.rint(q, out=q)
    return q.astype(np.int64).view(np.uint64)


def from_fixed(total, F: int) -> np.ndarray:
    """The ring sum back to float64: ``int64(total) 2^-F`` (one rounding, relative 2^-53)."""
    return np.ldexp(np.asarray(total, dtype=np.uint64).view(np.int64).astype(np.float64), -F)


def check_range(total, S: int, F: int, value_bound: float) -> None:
    """:class:`MaskMismatch` unless every ring sum reads as a signed value within ``S A 2^F``:
    ``S`` honest messages, each clipped to ``+-A``, never leave that range; masks that did not
    cancel leave a uniform word, outside it with probability at least 1/2 per value. The check
    reads no private value beyond the aggregate the aggregator holds anyway."""
    lim = np.int64(math.floor(int(S) * float(value_bound) * 2.0 ** int(F))) + np.int64(int(S))
    v = np.asarray(total, dtype=np.uint64).view(np.int64)
    if v.size and (int(v.max()) > lim or int(v.min()) < -lim):
        raise MaskMismatch("the sites' masks did not cancel (a tampered or mismatched pair key): "
                           "the release is aborted and nothing is published")
