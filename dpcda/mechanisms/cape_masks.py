"""The CAPE protocol's parts without a trusted dealer: pooled-subset counts and zero-sum masks.

* :func:`pooled_counts`: the coordinator draws, per synthetic sample of class k, a uniform
  l-subset of the pooled *slots* ``0..n_k - 1`` (site s owns slots ``off_s .. off_s + n_{k,s} - 1``)
  and tells each site only its count ``l_s``; site s then draws a uniform ``l_s``-subset of its
  own class-k records (:func:`site_subsets`). The pooled l-subset is then exactly uniform
  (docs/decentral.md, Theorem 1): the coordinator never learns which records were drawn, but it
  must know the per-site class sizes ``n_{k,s}``.
* :class:`PairMasks`: every pair ``i < j`` of sites shares a 256-bit key (the key agreement,
  e.g. Diffie-Hellman, simulated here by drawing the key from the secure source) and expands it
  with ChaCha20 into Gaussian masks ``m_ij`` (:func:`dpcda.randomness.noise.standard_normal`,
  float64). Site s adds ``e_s = sum_{j>s} m_sj - sum_{j<s} m_js``; the ``e_s`` sum to zero up
  to float64 rounding (:func:`cancellation_bound`).

Dropouts: a site that leaves after the masks were fixed leaves its masks uncancelled; this
implementation aborts the release (:class:`SiteDropout`) and publishes nothing. The survivors
revealing their pair masks with the missing site (secure aggregation's recovery) is not
implemented.
"""

from __future__ import annotations

import numpy as np

from dpcda.randomness.noise import standard_normal
from dpcda.randomness.secure import KEY_BYTES, SecureRandom

_U = 2.0 ** -53


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
    """The pairwise mask streams of ``S`` sites: pair ``(i, j)``, ``i < j``, draws from a
    ChaCha20 stream keyed by the key the two sites agreed on (drawn from ``key_source`` here).
    ``drop``: sites that leave after masking (the release then aborts)."""

    def __init__(self, S: int, key_source: SecureRandom, scale: float) -> None:
        self.S, self.scale = int(S), float(scale)
        self._streams = {(i, j): SecureRandom.from_key(key_source.bytes(KEY_BYTES).tobytes())
                         for i in range(self.S) for j in range(i + 1, self.S)}

    def masks(self, shape) -> tuple[np.ndarray, np.ndarray]:
        """``(e, abs_sum)``: ``e[s]`` of the given shape for every site (float64, zero-sum up to
        rounding) and ``sum_{j != s} |m_sj|`` per site (for :func:`cancellation_bound`)."""
        n = int(np.prod(shape))
        e = np.zeros((self.S, n))
        a = np.zeros((self.S, n))
        for (i, j), stream in self._streams.items():
            m = standard_normal(stream, n)
            m *= self.scale
            e[i] += m
            e[j] -= m
            np.abs(m, out=m)
            a[i] += m
            a[j] += m
        return e.reshape((self.S, *shape)), a.reshape((self.S, *shape))


def cancellation_bound(abs_terms) -> np.ndarray:
    """Elementwise bound on ``|fl(sum_s M_s) - sum_s (P_s + g_s)|`` where every site's message
    ``M_s = (P_s + e_s) + g_s`` is formed in float64 (``e_s`` a running sum of ``S - 1``
    masks) and the aggregator sums the ``S`` messages in order: at most ``2S`` roundings lie on
    any path, so the error is below ``gamma_{2S} sum |terms|`` with ``gamma_n = n u/(1 - n u)``.
    ``abs_terms``: ``(S, ...)`` per site ``|P_s| + |g_s| + sum_j |m_sj|``, summed over sites here
    (times 2 for the intermediate partial sums, a safe over-estimate)."""
    a = np.asarray(abs_terms, dtype=np.float64)
    S = a.shape[0]
    n = 2 * S
    return 2.0 * (n * _U / (1.0 - n * _U)) * a.sum(axis=0)
