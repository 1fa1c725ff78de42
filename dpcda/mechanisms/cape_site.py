"""One CAPE site as a party of its own: it holds its records, its secure source and its keys.

Whatever engine runs it (in the caller's process, in a local worker process, as a Ray actor:
:mod:`dpcda.mechanisms.cape_engine`), a :class:`CapeSite` only answers the coordinator's
messages, in this order:

0. only a site built from a public locator (:mod:`.site_source`): :meth:`load` -> it reads its
   own records where it runs and returns its columns (the coordinator checks they match);
1. :meth:`enrol` -> its Ed25519 identity's public key (pinned by the other sites out of band);
2. :meth:`class_sizes` -> its ``n_{k,s}`` (the coordinator must know them: docs/decentral.md);
3. :meth:`hello` -> its X25519 public key for this release, signed (:mod:`.cape_keys`);
4. :meth:`agree` -> checks every other site's signature, derives its ``S - 1`` pair keys and
   their ChaCha20 mask streams; with ``dp-center``, :meth:`center_message` (its masked column
   sums plus its share of the statistics' noise: :mod:`.cape_center`); then :meth:`prepare`
   with the public parameters (noise scale per column, fixed point, clip bound) and the public
   preprocessing;
5. :meth:`message` per chunk of samples of class ``k``, given its counts ``l_s``: draws its own
   uniform ``l_s``-subsets, its partial mean, its noise share ``g_s ~ N(0, sigma^2/S)`` and
   returns ``fix(P_s + g_s) + e_s`` mod 2^64 (uint64) -- nothing else leaves the site.

Every draw comes from the site's own :class:`~dpcda.randomness.secure.SecureRandom` (OS-keyed,
or derived from a test seed the coordinator hands it: then not private, as the card says).
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.mechanisms.cape_keys import Identity, KeyPair, verify_directory
from dpcda.mechanisms.cape_masks import site_masks, site_subsets, to_fixed
from dpcda.randomness.secure import SecureRandom


class CapeSite:
    """Site ``index`` of ``S`` with records ``X`` (n_s x d float64) and labels ``y`` in 0..K-1,
    or (``source``: a :mod:`.site_source` locator, ``classes``: the public class names) with
    none yet: it reads them in :meth:`load`, where it runs.

    ``key``: 32 bytes keying the site's source (seeded test runs only; None: OS-keyed).
    ``leaves``: simulate a site that leaves after masking (its messages never arrive)."""

    def __init__(self, index: int, S: int, X=None, y=None, K: int = 0, key: bytes | None = None,
                 leaves: bool = False, source=None, classes=None) -> None:
        self.index, self.S, self.K = int(index), int(S), int(K)
        if (source is None) == (X is None):
            raise ValueError("a site needs either its records (X, y) or a source to load them from")
        self._source, self._classes = source, classes
        self._X = np.zeros((0, 0)) if X is None else np.asarray(X, dtype=np.float64)
        self._y = np.zeros(0, np.int64) if y is None else np.asarray(y, dtype=np.int64)
        self._src = SecureRandom() if key is None else SecureRandom.from_key(key)
        self._identity = Identity(self._src)
        self._pair: KeyPair | None = None
        self._streams: dict[int, SecureRandom] = {}
        self._leaves = bool(leaves)
        self._tables: list[np.ndarray] = []
        self._busy = 0.0

    def __reduce__(self):
        raise TypeError("a site holds its records and keys: it is created where it runs, "
                        "never pickled")

    def load(self, normalize: str, bounds, c):
        """Read the site's records from its locator (here, where it runs) and check them
        against the public normalisation as the coordinator checks records in memory (for
        ``scale`` without bounds: pixel values in [0, 255]); returns ``(d, a SHA-256 digest of
        the header's feature names or None)``: the coordinator only compares them, and a file
        without a header whose first row holds a text cell reads that row as the header (as an
        upload does), so the names themselves could be a record's values."""
        if self._source is None:
            return self._X.shape[1], None
        from dpcda.mechanisms.site_source import load_site, names_digest

        failed = None
        try:
            X, y, names = load_site(self._source, self.index, self.S, self._classes)
        except ValueError as exc:  # its cause (where in the file) stays here: a remote engine
            failed = str(exc)  # (Ray) ships a site's formatted traceback, chained causes and all
        if failed is not None:  # raised outside the handler: no cause, no context to carry
            raise ValueError(failed)
        if normalize in ("scale", "none"):
            from dpcda.mechanisms.prepare import fit_preprocessor

            fit_preprocessor(X, normalize, c=c, bounds=bounds)
        self._X, self._y = X, y
        return X.shape[1], None if names is None else names_digest(names)

    def enrol(self) -> bytes:
        return self._identity.public

    def class_sizes(self) -> np.ndarray:
        return np.bincount(self._y, minlength=self.K).astype(np.int64)

    def hello(self, session: bytes):
        self._pair = KeyPair(self.index, self._src)
        return self._pair.share(session, self._identity)

    def agree(self, shares, identities, session: bytes) -> int:
        """Check the directory and key the pair streams; returns the number of pairs."""
        if self._pair is None:
            raise RuntimeError("agree() before hello()")
        public = verify_directory(shares, identities, session, self.S)
        if public[self.index] != self._pair.public:
            from dpcda.mechanisms.cape_keys import KeyAgreementError

            raise KeyAgreementError("the directory does not carry this site's own public key")
        self._streams = {j: SecureRandom.from_key(self._pair.pair_key(j, public[j], session))
                         for j in range(self.S) if j != self.index}
        return len(self._streams)

    def center_message(self, plan):
        """``fix(U_s + g_s) + e_s`` mod 2^64 for ``dp-center``'s statistics (a
        :class:`~dpcda.mechanisms.cape_center.CenterPlan`; None: the site has left)."""
        from dpcda.mechanisms.cape_center import site_sum
        from dpcda.randomness.noise import standard_normal

        g = standard_normal(self._src, plan.d) * (plan.noise_std / math.sqrt(self.S))
        g += site_sum(self._X, plan)
        e = site_masks(self.index, self._streams, (plan.d,))
        if self._leaves:
            return None
        M = to_fixed(g, plan.F, plan.A, inplace=True)
        M += e
        return M

    def prepare(self, pre, shrink: float, sig, F: int, A: float, l: int) -> None:
        """The public parameters; the site's rows as the centralized kernel mixes them."""
        rows = (pre(self._X).astype(np.float32) * np.float32(shrink)).astype(np.float64)
        self._tables = [np.ascontiguousarray(rows[self._y == k]) for k in range(self.K)]
        self._sig = np.asarray(sig, dtype=np.float64) / math.sqrt(self.S)
        self._F, self._A, self._l = int(F), float(A), int(l)

    def busy_seconds(self) -> float:
        """CPU seconds spent in :meth:`message`, the threads of its noise sampler summed (a
        benchmark's per-site critical path: an upper bound on the site's own compute that
        other processes' load does not inflate)."""
        return self._busy

    def message(self, k: int, counts, trace: bool = False):
        """``fix(P_s + g_s) + e_s`` mod 2^64 for the samples of class ``k`` with counts
        ``counts`` (None: the site has left). ``trace`` (tests): also ``P_s + g_s``."""
        import time

        t0 = time.process_time()
        try:
            return self._message(int(k), counts, trace)
        finally:
            self._busy += time.process_time() - t0

    def _message(self, k: int, counts, trace: bool):
        from dpcda.randomness.noise import standard_normal

        counts = np.asarray(counts, dtype=np.int64)
        m, width = len(counts), len(self._sig)
        table = self._tables[int(k)]
        d = table.shape[1]
        x = np.zeros((m, width))
        for rows, idx in site_subsets(len(table), counts, generator=self._src):
            x[rows, :d] = table[idx].sum(axis=1)
        x[:, :d] /= self._l
        g = standard_normal(self._src, m * width).reshape(m, width)
        g *= self._sig
        g[:, :d] += x[:, :d]
        g[:, d + int(k)] += counts / self._l
        e = site_masks(self.index, self._streams, (m, width))
        if self._leaves:  # it drew and masked, then left: its message never arrives
            return None
        M = to_fixed(g, self._F, self._A, inplace=not trace)
        M += e
        return (M, g) if trace else M
