"""The CAPE protocol's parts without a trusted dealer: pooled-subset counts and zero-sum masks.

* :func:`pooled_counts`: the coordinator draws, per synthetic sample of class k, a uniform
  l-subset of the pooled *slots* ``0..n_k - 1`` (site s owns slots ``off_s .. off_s + n_{k,s} - 1``)
  and tells each site only its count ``l_s``; site s then draws a uniform ``l_s``-subset of its
  own class-k records (:func:`site_subsets`). The pooled l-subset is then exactly uniform
  (docs/decentral.md, Theorem 1): the coordinator never learns which records were drawn, but it
  must know the per-site class sizes ``n_{k,s}``.
* :class:`PairMasks`: every pair ``i < j`` of sites shares a 256-bit key (the key agreement,
  e.g. Diffie-Hellman, simulated here by drawing the key from the secure source) and expands it
  with ChaCha20 into uniform 64-bit masks ``m_ij``. Site s quantises its noisy partial mean to
  the public fixed point ``2^-F`` (:func:`to_fixed`) and adds ``e_s = sum_{j>s} m_sj -
  sum_{j<s} m_js`` mod 2^64: the ``e_s`` cancel *exactly* in the ring, and each message alone
  (indeed any set of fewer than all messages) is uniform (secure aggregation, Bonawitz et al.
  2017). Why not float64 Gaussian masks (CAPE's real-valued ``e_s``): their cancellation error
  grows with the masks and, at MNIST scale, costs more epsilon than it saves
  (docs/decentral.md, "Why modular masks", measured).

Dropouts: a site that leaves after the masks were fixed leaves its masks uncancelled; this
implementation aborts the release (:class:`SiteDropout`) and publishes nothing. The survivors
revealing their pair masks with the missing site (secure aggregation's recovery) is not
implemented.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.randomness.secure import KEY_BYTES, SecureRandom


class SiteDropout(RuntimeError):
    """A site left after masking: its masks cannot cancel, so nothing is released."""


def pooled_counts(site_sizes, l: int, m: int, *, generator) -> np.ndarray:
    """``(m, S)`` counts: for each of ``m`` samples, how many of a uniform l-subset of the pooled
    slots fall at each site (``site_sizes``: the ``n_{k,s}`` of one class)."""
    from dpcda.mechanisms.sampling import sample_subsets

    sizes = np.asarray(site_sizes, dtype=np.int64)
    n = int(sizes.sum())
    slots = sample_subsets(n, int(l), int(m), generator=generator, device="cpu").numpy()
    owner = np.searchsorted(np.cumsum(sizes), slots, side="right")  # site of each slot
    out = np.zeros((int(m), len(sizes)), dtype=np.int64)
    np.add.at(out, (np.repeat(np.arange(int(m)), int(l)), owner.reshape(-1)), 1)
    return out


def site_subsets(n_site: int, counts, *, generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """For one site and class: ``[(rows, idx)]`` where ``idx[i]`` is a uniform
    ``counts[rows[i]]``-subset of ``0..n_site - 1``, grouped by count (count 0 left out)."""
    from dpcda.mechanisms.sampling import sample_subsets

    counts = np.asarray(counts, dtype=np.int64)
    out = []
    for c in np.unique(counts):
        if c == 0:
            continue
        rows = np.flatnonzero(counts == c)
        idx = sample_subsets(int(n_site), int(c), len(rows), generator=generator, device="cpu")
        out.append((rows, idx.numpy()))
    return out


class PairMasks:
    """The pairwise mask streams of ``S`` sites: pair ``(i, j)``, ``i < j``, draws uniform 64-bit
    words from a ChaCha20 stream keyed by the key the two sites agreed on (drawn from
    ``key_source`` here, simulating the key agreement)."""

    def __init__(self, S: int, key_source: SecureRandom) -> None:
        self.S = int(S)
        self._streams = {(i, j): SecureRandom.from_key(key_source.bytes(KEY_BYTES).tobytes())
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


def to_fixed(x, F: int, value_bound: float) -> np.ndarray:
    """``round(x 2^F)`` as uint64 (two's complement), ``x`` clipped to ``+-value_bound`` first
    (a tail event: :func:`dpcda.mechanisms.cape_grid.lattice_cost` counts it)."""
    q = np.rint(np.ldexp(np.clip(x, -value_bound, value_bound), F))
    return q.astype(np.int64).view(np.uint64)


def from_fixed(total, F: int) -> np.ndarray:
    """The ring sum back to float64: ``int64(total) 2^-F`` (one rounding, relative 2^-53)."""
    return np.ldexp(np.asarray(total, dtype=np.uint64).view(np.int64).astype(np.float64), -F)
