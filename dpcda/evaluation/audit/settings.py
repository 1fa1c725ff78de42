"""The validated settings of one privacy audit (see ``docs/audit.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from dpcda.util.checks import check_delta, check_float, check_int

#: Statistics the auditor can apply to a release (:mod:`dpcda.evaluation.audit.simulate`).
STATISTICS = ("lr", "sum")
#: The canaries (:mod:`dpcda.evaluation.audit.simulate`): ``"label"`` moves one record to another
#: class (the worst realised pair of the default ``whole-record`` relation); ``"features"`` replaces one
#: record's features, its label kept (the features-only ``class-aware-pld`` relation).
CANARIES = ("label", "features")
#: The accountant each canary is audited against (the exact accountant of its relation).
AUDITED_AGAINST = {"label": "whole-record", "features": "class-aware-pld"}
#: Work of the default run: trials per arm x T_k x l x classes run (2 for the label canary) is
#: kept near this many sampled indices,
#: which measured <= 5 min on the project's shared 2-core CPU (README, "Privacy audit").
DEFAULT_WORK = 1.2e8
DEFAULT_TRIALS_MAX = 10_000
DEFAULT_TRIALS_MIN = 100


def default_trials(l: int, T_class: int, classes: int = 1) -> int:
    """Trials per arm of the default run: ``DEFAULT_WORK / (T_k l classes)`` within [100, 10000]
    (``classes``: the classes run per trial, 2 for the label canary)."""
    return int(min(DEFAULT_TRIALS_MAX,
                   max(DEFAULT_TRIALS_MIN, DEFAULT_WORK // (T_class * l * classes))))


def canary_classes(canary: str) -> int:
    """The classes one trial runs: 2 for the label canary (the one that loses it and the one that
    gains it), 1 for the features canary."""
    return 2 if canary == "label" else 1


@dataclass(frozen=True, kw_only=True)
class AuditSettings:
    """One audit of DP-CDA's class-wise mixing (Algorithm 1), all fields keyword-only.

    ``l`` order of mixture; ``sigma_x`` feature noise; ``n_class`` N_k, the records of the
    audited (canary) class, and with ``canary="label"`` of the class that gains it; ``T_class``
    T_k, the mixtures released for each audited class; ``c`` clip norm; ``delta``;
    ``n_classes`` K, only used for what the accountants claim (the real release has K classes of
    N_k records, the public lower bounds of ``whole-record``, and T = K T_k samples, split
    equally); ``canary``: ``"label"`` (default: the record moves to another class, both affected
    classes are run) or ``"features"`` (its features replaced, label kept); ``trials`` runs of the
    generator per arm (with and without the canary; None: :func:`default_trials`);
    ``statistic``: ``"lr"`` (the log-likelihood ratio of the worst-case pair, the most powerful
    test) or ``"sum"`` (the summed projection onto the canary direction); ``select_fraction``:
    share of each arm's trials used only to choose the thresholds (the rest give the bounds).
    """

    l: int
    sigma_x: float
    n_class: int = 6000
    T_class: int = 6000
    c: float = 1.0
    delta: float = 1e-5
    n_classes: int = 10
    trials: int | None = None
    statistic: str = "lr"
    canary: str = "label"
    select_fraction: float = 0.5
    confidence: float = 0.95

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if self.canary not in CANARIES:
            raise ValueError(f"canary must be one of {', '.join(CANARIES)}, got canary={self.canary!r}")
        label = self.canary == "label"
        set_(self, "n_class", check_int("n_class", self.n_class, 2 if label else 1, 10**7,
                                        " (the label canary's class must keep a record)"
                                        if label else ""))
        top = self.n_class - 1 if label else self.n_class
        set_(self, "l", check_int("l", self.l, 1, top,
                                  " (n_class - 1: the class that loses the label canary keeps l "
                                  "records)" if label else " (n_class, the records of the audited class)"))
        set_(self, "T_class", check_int("T_class", self.T_class, 1, 10**7))
        set_(self, "sigma_x", check_float("sigma_x", self.sigma_x, lo=0.0, lo_open=True,
                                          why=" (the audit needs noise)"))
        set_(self, "c", check_float("c", self.c, lo=0.0, lo_open=True))
        set_(self, "delta", check_delta(self.delta))
        set_(self, "n_classes", check_int("n_classes", self.n_classes, 2, 10**5))
        trials = (default_trials(self.l, self.T_class, canary_classes(self.canary))
                  if self.trials is None else self.trials)
        set_(self, "trials", check_int("trials", trials, 20, 10**7))
        if self.statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, got "
                             f"statistic={self.statistic!r}")
        set_(self, "select_fraction", check_float("select_fraction", self.select_fraction,
                                                  lo=0.0, lo_open=True, hi=1.0, hi_open=True))
        set_(self, "confidence", check_float("confidence", self.confidence, lo=0.5,
                                             hi=1.0, hi_open=True))
        n_sel = round(self.trials * self.select_fraction)
        if n_sel < 10 or self.trials - n_sel < 10:
            raise ValueError("trials * select_fraction and trials * (1 - select_fraction) must "
                             f"both be >= 10, got trials={self.trials}, "
                             f"select_fraction={self.select_fraction:g}")

    @property
    def gamma(self) -> float:
        """The chance that the canary joins one mixture of its class k, l / N_k."""
        return self.l / self.n_class

    @property
    def gamma_gain(self) -> float:
        """The label canary: the chance that it joins one mixture of the class that gains it,
        l / (N_k' + 1)."""
        return self.l / (self.n_class + 1)

    @property
    def against(self) -> str:
        """The accountant this canary is audited against (:data:`AUDITED_AGAINST`)."""
        return AUDITED_AGAINST[self.canary]

    @property
    def shift(self) -> float:
        """How far the canary moves a mixture it joins: 2c / l (replacing -c u by +c u)."""
        return 2.0 * self.c / self.l

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}
