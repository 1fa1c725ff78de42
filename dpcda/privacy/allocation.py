"""How the T synthetic samples of a DP-CDA release are split over the K classes.

Both rules use only public facts (T and the class counts N_k, which the class-aware relation
treats as public; under ``whole-record`` the public lower bounds n_k in their place: a built-in
dataset's published counts or a DP label histogram's bounds), so the split itself costs no
privacy. DP-CDA's default is ``proportional`` (issue 26):

- ``"equal"`` (docs/specification.md §1, Algorithm 1 as published): ``T_k = floor(T / K)`` for every class;
- ``"proportional"``: ``T_k = floor(T * N_k / N)``, so the release keeps the class balance of the
  private data (UCI Adult is 76% / 24%).

A record of class k enters only the ``T_k`` mixtures of its own class, each drawn from ``N_k``
records, so a class-aware accountant takes the maximum over classes of ``T_k`` compositions at
rate ``l / N_k``.
"""

from __future__ import annotations

import numpy as np

ALLOCATIONS = ("equal", "proportional")
ALLOCATION_TITLES = {
    "equal": "equal: floor(T/K) samples per class (as in the paper)",
    "proportional": "proportional to the public class counts: floor(T·N_k/N) per class",
}


def check_allocation(allocation) -> str:
    if allocation not in ALLOCATIONS:
        raise ValueError(f"allocation must be one of {', '.join(ALLOCATIONS)}, got "
                         f"allocation={allocation!r}")
    return allocation


def samples_per_class(T: int, class_counts, allocation: str = "equal") -> np.ndarray:
    """``T_k`` for every class (int64 array of length K); every ``T_k`` is at least 1.

    Raises ``ValueError`` naming ``T`` when a class would get no sample.
    """
    check_allocation(allocation)
    counts = np.asarray(class_counts, dtype=np.int64)
    K, N = len(counts), int(counts.sum())
    if allocation == "equal":
        t_k = np.full(K, int(T) // K, dtype=np.int64)
    else:
        t_k = (int(T) * counts) // N
    if K and t_k.min() < 1:
        need = K if allocation == "equal" else int(-(-N // int(counts.min())))
        raise ValueError(f"T must be an integer >= {need} so that every class gets at least one "
                         f"sample under the {allocation!r} allocation, got T={T}")
    return t_k
