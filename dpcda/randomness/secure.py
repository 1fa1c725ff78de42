"""The one random source of every draw that touches private data: ChaCha20 keyed per release.

An attacker who knows the code, the release and its card must not be able to predict or replay
the randomness (subsets, row order, noise). :class:`SecureRandom` is the ChaCha20 stream cipher
(RFC 8439, 20 rounds) of the ``cryptography`` package (OpenSSL underneath), keyed with 256 bits
from the operating system (``os.urandom``) for every release, its keystream read as random
bits. Nothing returns or stores the key. With ``seed=`` (tests, teaching) the key is SHA-256 of
the seed's full decimal digits, so ``seed`` and ``seed + 2**32`` give unrelated streams; such a
release is reproducible, *not private*, and its card says so (``privacy.seeded``).

Why this source (measured, ``benchmarks/bench_randomness.py``, docs/security.md): OpenSSL's
ChaCha20 produces 47 M 64-bit words (MNIST-sized noise) in about 0.1 s on this project's CPU,
about 9x faster than ``randomgen``'s ChaCha bit generator behind ``numpy.random.Generator``;
AES-256-CTR is as fast only where AES-NI exists. torch's ``Generator`` (MT19937, 32-bit seed)
and numpy's PCG64 are not cryptographic.

The draws are exact: integers below a bound by rejection on masked words (no modulo bias),
permutations by sorting 128-bit random keys (a tie, probability below n^2 / 2^129, redraws),
uniforms with 53 random bits. Gaussian noise is in :mod:`dpcda.randomness.noise`.

A source belongs to the process that created it: a child made by ``os.fork`` (or
``multiprocessing``'s fork start method) inherits the parent's ChaCha20 state and would repeat
the parent's draws, so every draw compares ``os.getpid()`` with the creator's and refuses in a
child (:class:`ForkedSourceError`); create a new ``SecureRandom()`` in the child instead.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np

KEY_BYTES = 32
#: ChaCha20 (RFC 8439) counts 64-byte blocks in 32 bits: one key, one nonce, 256 GiB at most.
MAX_BYTES = 64 << 32
#: Bytes of keystream produced per call into the cipher (bounded temporary memory).
_BLOCK = 1 << 22
_ZEROS = bytes(_BLOCK)
_SEED_DOMAIN = b"dpcda seeded release v1\x00"


class ForkedSourceError(RuntimeError):
    """A :class:`SecureRandom` was used in a process forked from the one that created it."""


def _cipher(key: bytes):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

    # 16-byte nonce = 32-bit block counter + 96-bit nonce, all zero: the key is fresh per source.
    return Cipher(algorithms.ChaCha20(key, bytes(16)), mode=None).encryptor()


def seed_key(seed: int) -> bytes:
    """The 256-bit key of a seeded (reproducible, not private) source: SHA-256 of the seed."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got seed={seed!r}")
    return hashlib.sha256(_SEED_DOMAIN + str(int(seed)).encode()).digest()


class SecureRandom:
    """Cryptographically secure random draws for one release (see the module docstring).

    ``SecureRandom()`` keys itself with 32 bytes of ``os.urandom``; ``SecureRandom(seed=s)``
    derives the key from ``s`` and sets :attr:`seeded`. The object is not thread-safe.
    """

    __slots__ = ("_enc", "_pid", "_used", "seeded")

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            key = os.urandom(KEY_BYTES)
            if len(key) != KEY_BYTES:
                raise RuntimeError("the operating system returned too few random bytes")
            self.seeded = False
        else:
            key = seed_key(seed)
            self.seeded = True
        self._enc = _cipher(key)
        self._pid = os.getpid()
        self._used = 0
        del key

    @classmethod
    def from_key(cls, key: bytes) -> "SecureRandom":
        """A source keyed by a 256-bit secret ``key`` that parties agreed on (a pair of sites'
        shared mask key, :mod:`dpcda.mechanisms.cape_masks`): both ends draw the same stream.
        Private while the key stays secret (never stored here); not marked ``seeded``."""
        if not isinstance(key, bytes) or len(key) != KEY_BYTES:
            raise ValueError(f"key must be {KEY_BYTES} bytes, got a {type(key).__name__}")
        self = cls.__new__(cls)
        self._enc = _cipher(key)
        self._pid = os.getpid()  # a forked child refuses to draw (as a source made by __init__)
        self._used = 0
        self.seeded = False
        return self

    def __repr__(self) -> str:
        return f"SecureRandom(ChaCha20, {'seeded: NOT private' if self.seeded else 'OS-keyed'})"

    def __reduce__(self):
        raise TypeError("a SecureRandom holds a release's key: it cannot be pickled or copied")

    # -- raw bits -----------------------------------------------------------------------------
    def bytes(self, n: int) -> np.ndarray:
        """``n`` bytes of keystream (a uint8 array)."""
        if os.getpid() != self._pid:  # a forked child shares the parent's keystream position
            raise ForkedSourceError(
                "this SecureRandom was created in another process (pid changed: a fork) and "
                "would repeat the parent's draws; create a new SecureRandom() in the child "
                "process (or start workers with the 'spawn' method)")
        n = int(n)
        self._used += n
        if self._used > MAX_BYTES:  # ChaCha20's 32-bit block counter would wrap (nonce reuse)
            raise RuntimeError("one key's keystream is exhausted (256 GiB): use a new source")
        out = np.empty(n, dtype=np.uint8)
        view = memoryview(out)
        for s in range(0, n, _BLOCK):
            e = min(n, s + _BLOCK)
            self._enc.update_into(_ZEROS[:e - s], view[s:e])
        return out

    def words(self, shape) -> np.ndarray:
        """Uniform 64-bit words (``uint64``) of the given shape."""
        shape = (shape,) if np.isscalar(shape) else tuple(shape)
        n = int(np.prod(shape, dtype=np.int64))
        return np.frombuffer(self.bytes(8 * n), dtype=np.uint64).reshape(shape)

    # -- uniform draws ------------------------------------------------------------------------
    def random(self, shape) -> np.ndarray:
        """Uniform floats in [0, 1) on the 2^-53 grid (float64)."""
        return (self.words(shape) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53

    def below(self, bound, shape) -> np.ndarray:
        """Exactly uniform integers in ``[0, bound)`` (int64); ``bound`` a positive int or an
        integer array broadcasting to ``shape``. Rejection on words masked to the bit length of
        ``bound - 1``: every value is accepted with probability > 1/2, no modulo bias."""
        shape = (shape,) if np.isscalar(shape) else tuple(shape)
        b = np.broadcast_to(np.asarray(bound, dtype=np.int64), shape)
        if b.size and int(b.min()) < 1:
            raise ValueError(f"bound must be >= 1, got {int(b.min())}")
        mask = _bit_masks(b)
        out = (self.words(shape) & mask).astype(np.int64)
        bad = np.flatnonzero(out.reshape(-1) >= b.reshape(-1))
        flat, bflat, mflat = out.reshape(-1), b.reshape(-1), mask.reshape(-1)
        while bad.size:
            flat[bad] = (self.words(bad.size) & mflat[bad]).astype(np.int64)
            bad = bad[flat[bad] >= bflat[bad]]
        return out

    def permutation(self, n: int) -> np.ndarray:
        """A uniformly random permutation of ``range(n)`` (int64): the order of 128-bit random
        keys, drawn again in the (astronomically rare) case of a tie."""
        n = int(n)
        while True:
            w = self.words((2, n))
            order = np.lexsort((w[1], w[0]))
            hi, lo = w[0][order], w[1][order]
            if n < 2 or not np.any((hi[1:] == hi[:-1]) & (lo[1:] == lo[:-1])):
                return order.astype(np.int64)

    def torch_seed(self) -> int:
        """A 63-bit seed for a fast, *public-only* generator (model initialisation, public random
        features): drawn from this source so a seeded release stays reproducible."""
        return int(self.words(1)[0] >> np.uint64(1))


def _bit_masks(b: np.ndarray) -> np.ndarray:
    """``2^bitlength(b - 1) - 1`` element-wise (uint64); 0 for ``b = 1``."""
    m = np.asarray(b, dtype=np.int64) - 1
    bits = np.zeros(m.shape, dtype=np.uint64)
    v = m.astype(np.uint64)
    for shift in (1, 2, 4, 8, 16, 32):  # smear the highest set bit downwards
        v = v | (v >> np.uint64(shift))
    bits[...] = v
    return bits


def as_source(rng, seed: int | None = None) -> SecureRandom:
    """``rng`` if it is a :class:`SecureRandom`, else a new one (OS-keyed unless ``seed``)."""
    if rng is None:
        return SecureRandom(seed)
    if isinstance(rng, SecureRandom):
        return rng
    raise ValueError(f"rng must be a dpcda SecureRandom or None, got {type(rng).__name__}: a "
                     "private draw needs the cryptographically secure source")
