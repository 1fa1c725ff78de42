"""Validated privacy parameters of one DP-CDA release (what an accountant needs to know)."""

from __future__ import annotations

from dataclasses import dataclass

from dpcda.util.checks import check_delta, check_float, check_int, check_sigmas, is_int
from dpcda.privacy.allocation import check_allocation, samples_per_class

MAX_ALPHA_LIMIT = 2048


@dataclass(frozen=True, kw_only=True)
class PrivacyParams:
    """Everything an accountant needs about one release. All fields are keyword-only.

    ``l`` order of mixture; ``sigma_x``/``sigma_y`` feature/label noise scales
    (``sigma_x = sigma_y = 0`` is the explicit non-private setting, epsilon = infinity);
    ``c`` L2 clipping norm; ``T`` number of synthetic samples; ``delta``; ``n`` number of private
    training records and/or ``class_counts`` (N_k, needed by the class-aware accountant; their sum
    is N); ``d_x``/``d_y`` feature and label dimensions (needed by the DPMix accountants);
    ``allocation`` how T is split over the classes (``"equal"``: floor(T/K) each, as published;
    ``"proportional"``: floor(T·N_k/N); see :mod:`dpcda.privacy.allocation`).
    """

    l: int
    sigma_x: float
    sigma_y: float
    c: float = 1.0
    T: int
    delta: float
    n: int | None = None
    class_counts: tuple[int, ...] | None = None
    d_x: int | None = None
    d_y: int | None = None
    allocation: str = "equal"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        counts = self.class_counts
        if counts is not None:
            try:
                counts = tuple(counts)
            except TypeError:
                raise ValueError("class_counts must be a sequence of at least 2 positive "
                                 f"integers (N_k per class), got class_counts={counts!r}") from None
            if len(counts) < 2 or not all(
                    is_int(k) and k >= 1
                    for k in counts):
                raise ValueError("class_counts must be a sequence of at least 2 positive "
                                 f"integers (N_k per class), got class_counts={counts!r}")
            counts = tuple(int(k) for k in counts)
            set_(self, "class_counts", counts)
        if self.n is None and counts is None:
            raise ValueError("give n (the number of private training records) or class_counts "
                             "(records per class), got neither")
        if self.n is not None:
            set_(self, "n", check_int("n", self.n, 1))
            if counts is not None and sum(counts) != self.n:
                raise ValueError(f"class_counts must add up to n={self.n}, got "
                                 f"sum(class_counts)={sum(counts)}")
        else:
            set_(self, "n", sum(counts))
        if counts is not None:
            set_(self, "l", check_int("l", self.l, 1, min(counts), " (the smallest class)"))
        else:
            set_(self, "l", check_int("l", self.l, 1, self.n, " (the number of records n)"))
        sx, sy = check_sigmas(self.sigma_x, self.sigma_y)
        set_(self, "sigma_x", sx)
        set_(self, "sigma_y", sy)
        set_(self, "c", check_float("c", self.c, lo=0.0, lo_open=True))
        set_(self, "T", check_int("T", self.T, 1))
        if counts is not None:
            check_int("T", self.T, len(counts), None,
                      " (the number of classes K: floor(T/K) samples per class)")
        set_(self, "delta", check_delta(self.delta))
        set_(self, "allocation", check_allocation(self.allocation))
        if counts is not None:
            samples_per_class(self.T, counts, self.allocation)  # every class gets a sample
        elif self.allocation != "equal":
            raise ValueError("allocation='proportional' needs class_counts (N_k per class), got "
                             "class_counts=None")
        for name in ("d_x", "d_y"):
            v = getattr(self, name)
            if v is not None:
                set_(self, name, check_int(name, v, 1))

    @property
    def private(self) -> bool:
        """False for the explicit non-private setting ``sigma_x = sigma_y = 0``."""
        return self.sigma_x > 0.0

    @property
    def samples_per_class(self) -> tuple[int, ...] | None:
        """``T_k`` per class under :attr:`allocation` (None without class counts)."""
        if self.class_counts is None:
            return None
        return tuple(int(t) for t in samples_per_class(self.T, self.class_counts, self.allocation))

    @property
    def n_classes(self) -> int | None:
        return None if self.class_counts is None else len(self.class_counts)
