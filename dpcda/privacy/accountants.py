"""The accountants of docs/specification.md §2 as a registry, and :func:`compute_epsilon`.

An RDP accountant maps a batch of settings (arrays ``l``, ``sigma_x``, ``sigma_y`` plus the
shared scalars of a :class:`~dpcda.privacy.params.PrivacyParams`) to the RDP of the whole release
at integer orders; a direct accountant (``class-aware-pld``) maps it to epsilon itself, with a
lower bound that states its discretisation error. Objects here only record what was asked and
what came out; the math is in :mod:`dpcda.privacy.rdp`, :mod:`dpcda.privacy.conversion` and
:mod:`dpcda.privacy.pld`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from dpcda.util.notices import notice
from dpcda.privacy.conversion import CONVERSIONS, best_epsilon
from dpcda.privacy.events import ReleaseEvent, Relation
from dpcda.privacy.params import MAX_ALPHA_LIMIT, PrivacyParams, check_int
from dpcda.privacy.rdp import rdp_subsampled_gaussian


@dataclass(frozen=True)
class Accountant:
    """One way of accounting a DP-CDA release.

    RDP accountants give ``rdp(p, l, sx, sy, max_alpha) -> (P, A)`` (RDP at orders 2..max_alpha);
    direct ones give ``rdp=None`` and ``direct(p, l, sx, sy, value_interval, lower) ->
    (eps, eps_lower, step)`` arrays (``eps`` an upper bound; ``eps_lower`` NaN unless ``lower``;
    ``step`` the loss-grid step behind ``eps_lower``, NaN where none).
    """

    name: str
    title: str
    assumptions: str
    min_alpha: int
    needs: tuple[str, ...]
    rdp: Callable[..., np.ndarray] | None
    # Optional closed form: (p, l, sx, sy, delta, conversion, max_alpha) -> (eps, alpha) arrays.
    closed_form: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None
    #: The neighbouring relation in plain words (shown next to every epsilon; default: the
    #: words of ``neighbours``).
    relation: str = ""
    #: The release kinds (:data:`dpcda.privacy.events.KINDS`) this is a valid bound for as
    #: implemented here, under the relation ``neighbours``; an epsilon for any other event must
    #: carry the words in :data:`NOT_A_BOUND` (see :meth:`supports`).
    kinds: tuple[str, ...] = ()
    neighbours: Relation = Relation.REPLACE_ONE
    #: False for accountants of a single Gaussian release (no mixtures, no RDP over T draws):
    #: their generators calibrate directly (see :mod:`dpcda.privacy.gaussian`).
    mixture: bool = True
    #: Direct (non-RDP) accountant, see above; it has no order alpha and no conversion.
    direct: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.neighbours, Relation):
            raise ValueError(f"neighbours must be a Relation ({', '.join(r.value for r in Relation)}), "
                             f"got neighbours={self.neighbours!r}")
        if not self.relation:
            object.__setattr__(self, "relation", self.neighbours.words)

    @property
    def uses_rdp(self) -> bool:
        return self.direct is None

    def supports(self, event: ReleaseEvent) -> bool:
        """Whether this accountant's epsilon is a valid bound for a release of ``event``: it
        accounts the event's kind, under a relation that covers the event's."""
        if not isinstance(event, ReleaseEvent):
            raise ValueError(f"event must be a ReleaseEvent, got {type(event).__name__}")
        return event.kind in self.kinds and self.neighbours.covers(event.relation)


ACCOUNTANTS: dict[str, Accountant] = {}

#: What an epsilon from an accountant that is not valid for the mechanism that ran must say.
NOT_A_BOUND = "as published, not a bound for this implementation"

RELATION_CLASS = Relation.CLASS_FEATURES.words
RELATION_REPLACE = Relation.REPLACE_ONE.words

#: The accountant behind every epsilon shown first (pages, CLI, data cards, jobs): a valid bound
#: for Algorithm 1 as implemented under the standard relation, one person's whole record (label
#: included) replaced by any other (``whole-record``, :mod:`dpcda.privacy.whole_record_accountant`,
#: docs/whole-record.md). ``class-aware-pld`` (features only: the label kept, the class counts
#: public) stays selectable, named for what it assumes.
DEFAULT_ACCOUNTANT = "whole-record"


def register_accountant(acc: Accountant) -> Accountant:
    if acc.name in ACCOUNTANTS:
        raise ValueError(f"accountant {acc.name!r} is already registered")
    ACCOUNTANTS[acc.name] = acc
    return acc


def list_accountants(*, every: bool = False) -> list[str]:
    """The accountants of mixture releases (what :func:`compute_epsilon` takes); ``every=True``
    adds those of single Gaussian releases (used by the generators that calibrate directly)."""
    return [n for n, a in ACCOUNTANTS.items() if every or a.mixture]


def get_accountant(name: str) -> Accountant:
    try:
        return ACCOUNTANTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown accountant {name!r}; known: "
                         f"{', '.join(ACCOUNTANTS)}") from None


def _inv2(s: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return 1.0 / np.square(s)


def _rdp_paper(p: PrivacyParams, l, sx, sy, max_alpha):
    r = (2.0 * p.c ** 2 * _inv2(sx) + _inv2(sy)) / np.square(l)
    return p.T * rdp_subsampled_gaussian(r, l / p.n, max_alpha)


def _dims(p: PrivacyParams, name: str) -> tuple[int, int]:
    if p.d_x is None or p.d_y is None:
        raise ValueError(f"accountant {name!r} needs d_x and d_y (feature and label dimensions, "
                         f"integers >= 1), got d_x={p.d_x!r}, d_y={p.d_y!r}")
    return p.d_x, p.d_y


def _delta_sq(p: PrivacyParams, sx, sy, name: str):
    d_x, d_y = _dims(p, name)
    return d_x * _inv2(sx) + d_y * _inv2(sy)


def _rdp_dpmix(p: PrivacyParams, l, sx, sy, max_alpha):
    r = _delta_sq(p, sx, sy, "dpmix") / (2.0 * np.square(l))
    return p.T * rdp_subsampled_gaussian(r, l / p.n, max_alpha)


def _rdp_class_aware(p: PrivacyParams, l, sx, sy, max_alpha):
    if p.class_counts is None:
        raise ValueError("accountant 'class-aware' needs class_counts (N_k, the records per "
                         "class, at least 2 classes), got class_counts=None")
    r = 2.0 * p.c ** 2 * _inv2(sx) / np.square(l)
    # max over classes of T_k * eps'_{l/N_k}(alpha). Every term of the bound grows with
    # gamma = l/N_k (and the cap alpha*r does not depend on gamma), so among classes with the
    # same T_k the smallest is the worst one: one evaluation per distinct T_k.
    counts = np.asarray(p.class_counts)
    t_k = np.asarray(p.samples_per_class)
    out = None
    for t in np.unique(t_k):
        n_min = int(counts[t_k == t].min())
        cur = int(t) * rdp_subsampled_gaussian(r, l / n_min, max_alpha)
        out = cur if out is None else np.maximum(out, cur)
    return out


def _rdp_dpmix_low(p: PrivacyParams, l, sx, sy, max_alpha):
    rho = p.T * (l / p.n) * _delta_sq(p, sx, sy, "dpmix-low") / (2.0 * np.square(l))
    orders = np.arange(2, max_alpha + 1, dtype=float)
    return rho[:, None] * orders[None, :]


def _closed_dpmix_low(p: PrivacyParams, l, sx, sy, delta, conversion, max_alpha):
    """DPMix Theorem 3: ``eps = a rho + log(1/delta)/(a-1)`` at ``a = 1 + sqrt(log(1/delta)/rho)``.

    ``rho = T p Delta^2 / (2 l^2)``; for the ``improved`` conversion the same Gaussian RDP curve
    is minimised numerically over real orders in ``(1, max_alpha]``.
    """
    rho = p.T * (l / p.n) * _delta_sq(p, sx, sy, "dpmix-low") / (2.0 * np.square(l))
    log_inv_delta = np.log(1.0 / delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.minimum(1.0 + np.sqrt(log_inv_delta / rho), float(max_alpha))
        if conversion == "mironov":
            eps = a * rho + log_inv_delta / (a - 1.0)
        else:
            grid = 1.0 + np.geomspace(1e-4, max_alpha - 1.0, 4000)
            vals = CONVERSIONS.get(conversion)(grid[None, :], rho[:, None] * grid[None, :], delta)
            i = np.argmin(vals, axis=1)
            a = grid[i]
            eps = vals[np.arange(len(i)), i]
    eps = np.where(np.isfinite(rho), np.maximum(eps, 0.0), np.inf)
    a = np.where(np.isfinite(rho), a, np.nan)
    return eps, a


_COMMON = (" Normalisation statistics computed on the private data (z-score) are not covered; "
           "the data-independent scaling is.")

register_accountant(Accountant(
    "paper", "DP-CDA Theorem 1 (as published)",
    "Replace-one neighbours. Each of the **T** synthetic samples is analysed as a mixture of "
    "**l** records drawn from **all N** records (rate l/N), with feature sensitivity 2c/l and "
    "label sensitivity √2/l, composed **T** times, orders α ≥ 3. Algorithm 1 actually draws each "
    "mixture from a single class, which this analysis does not model: at large l it can "
    "understate what Algorithm 1 spends (compare *class-aware*)." + _COMMON,
    3, (), _rdp_paper))
register_accountant(Accountant(
    "class-aware", "What Algorithm 1 actually does (class-aware)",
    "Replace-one neighbours that keep the label; the class counts N_k are public. A record of "
    "class k only enters the **T_k** mixtures of its own class (floor(T/K), or floor(T·N_k/N) "
    "with proportional allocation), each drawn from **N_k** records (rate l/N_k), with feature "
    "sensitivity 2c/l; labels carry no sensitivity because every mixture's label is its class. "
    "RDP = max_k T_k·ε'_{l/N_k}(α), orders α ≥ 2."
    + _COMMON,
    2, ("class_counts",), _rdp_class_aware, kinds=("class-mixture",),
    neighbours=Relation.CLASS_FEATURES))
register_accountant(Accountant(
    "dpmix", "DPMix Theorem 1",
    "Replace-one neighbours; features in [0, 1]^d_x and one-hot labels, so the sensitivity is "
    "√d_x/l for features and √d_y/l for labels (it grows with the dimension); mixtures drawn "
    "from all N records (rate l/N), composed T times, orders α ≥ 2.",
    2, ("d_x", "d_y"), _rdp_dpmix, relation=RELATION_REPLACE + " Features in [0, 1].",
    kinds=("mixture",)))
register_accountant(Accountant(
    "dpmix-clipped", "Subsampled Gaussian over all N (DPMix / local as implemented, clipped)",
    "Replace-one neighbours. Features normalised by a public range and clipped to L2 norm **c**, "
    "one-hot labels; each of the **T** synthetic samples is the mean of **l** distinct records "
    "drawn from **all N** records (rate l/N; local perturbation: l = 1) plus Gaussian noise, "
    "so the feature sensitivity is 2c/l and the label sensitivity √2/l, composed **T** times, "
    "orders α ≥ 3. The same analysis as DP-CDA's Theorem 1, here exactly what the DPMix and "
    "local generators do (they mix across classes, which Theorem 1 assumes)." + _COMMON,
    3, (), _rdp_paper, kinds=("mixture",)))
register_accountant(Accountant(
    "dpmix-low", "DPMix Theorem 3 (low-privacy closed form)",
    "DPMix's closed form for the low-privacy regime: it analyses a *variant* in which every "
    "record joins T·l/N mixtures, treated as one Gaussian mechanism, and optimises over real "
    "orders. An approximation of DPMix for large n and T, not a bound proven for Algorithm 1.",
    2, ("d_x", "d_y"), _rdp_dpmix_low, _closed_dpmix_low))


#: ``_rdp_over_cap`` refines its RDP bound (more orders) only above this epsilon.
PLD_RDP_CAP = 50.0
#: Above this epsilon the PLD is not trusted: its composed losses are clipped at +-700
#: (``pld_compose.epsilon_for_delta``), which could only lower it; the RDP bound is shown there.
PLD_TRUSTED_MAX = 500.0


def _rdp_over_cap(p: PrivacyParams, l, sx, sy):
    """A valid class-aware RDP epsilon (improved conversion) wherever it exceeds
    ``PLD_RDP_CAP``; elsewhere some value at most the cap. The exact RDP costs ~alpha^2, so
    orders 2..8 first, then 2..32 where that exceeds the cap (the minimum over fewer orders is
    never below the minimum over more), then 2..256 where the minimum sits at order 32."""
    eps = np.zeros(len(l))
    todo = np.arange(len(l))
    for top in (8, 32, 256):
        got, idx = best_epsilon(np.arange(2, top + 1), _rdp_class_aware(
            p, l[todo], sx[todo], sy[todo], top), p.delta, "improved")
        eps[todo] = got
        keep = got > PLD_RDP_CAP
        if top == 32:
            keep &= idx == top - 2
        todo = todo[keep]
        if not len(todo):
            break
    return eps


def _pld_class_aware(p: PrivacyParams, l, sx, sy, value_interval, lower):
    """max over classes of the PLD epsilon of T_k steps at rate l/N_k (docs/pld.md)."""
    from dpcda.privacy.pld import max_over_classes  # lazy: scipy.fft only when used

    if p.class_counts is None:
        raise ValueError("accountant 'class-aware-pld' needs class_counts (N_k, the records per "
                         "class, at least 2 classes), got class_counts=None")
    counts, t_k = np.asarray(p.class_counts), np.asarray(p.samples_per_class)
    # The epsilon grows with gamma = l/N_k: per distinct T_k only the smallest class counts.
    groups = [(int(t), int(counts[t_k == t].min())) for t in np.unique(t_k)]
    eps, low, step = np.zeros(len(l)), np.full(len(l), np.nan), np.full(len(l), np.nan)
    # The PLD everywhere (fast even at large epsilon: about 0.1 s); an RDP bound (improved
    # conversion, orders 2..8 and more where it is large) beside it, also valid, is reported
    # instead where it is smaller or where the PLD is out of its numerical range (then low is
    # NaN and the result says which was used). No silent jump: calibration sees one curve.
    rdp_eps = _rdp_over_cap(p, l, sx, sy)
    for i, (li, si) in enumerate(zip(l, sx)):
        with np.errstate(divide="ignore"):
            s = 2.0 * p.c / (li * si) if si > 0 else np.inf
        try:
            with np.errstate(all="ignore"):
                b = max_over_classes(float(s), [(float(li) / n_k, t) for t, n_k in groups],
                                     p.delta, value_interval, lower)
            ok = bool(np.isfinite(b.epsilon) and b.epsilon <= PLD_TRUSTED_MAX)
        except (ValueError, FloatingPointError, OverflowError, ArithmeticError):
            ok = False
        if ok and b.epsilon <= rdp_eps[i]:
            eps[i], low[i], step[i] = b.epsilon, b.epsilon_discretisation_lower, b.value_interval
        else:
            eps[i] = rdp_eps[i]
    return eps, low, step


register_accountant(Accountant(
    "class-aware-pld", "Features only: the label kept, class counts public (exact composition, PLD)",
    "Replace-one neighbours that keep the label; the class counts N_k are public. A record of "
    "class k only enters the **T_k** mixtures of its own class, each an l-subset drawn without "
    "replacement from **N_k** records (rate γ = l/N_k), with feature sensitivity 2c/l. One "
    "mixture is dominated by the pair (γ·N(2c/l, σ²) + (1−γ)·N(0, σ²), N(0, σ²)) in both "
    "directions; the **T_k** compositions are computed exactly on a privacy-loss grid "
    "(privacy loss distribution), maximum over classes. The epsilon is an upper bound; the "
    "discretisation error is reported beside it (the exact value lies between the two)."
    + _COMMON,
    2, ("class_counts",), None, kinds=("class-mixture",), neighbours=Relation.CLASS_FEATURES,
    direct=_pld_class_aware))

def _rdp_single_release(p, l, sx, sy, max_alpha):
    raise ValueError("this accountant accounts one Gaussian release of each record: its "
                     "generator calibrates the noise itself (it takes no PrivacyParams)")


RELATION_FEATURES = Relation.FEATURES.words

register_accountant(Accountant(
    "gaussian", "One Gaussian release of each record (exact, Balle & Wang 2018)",
    "Features-only neighbours: one record's features are replaced, its label kept (the labels "
    "are released unchanged and are not protected). Each record is released once, as "
    "clip(x)·Rᵀ + N(0, s² I): the L2 sensitivity is 2c·s(R) (s(R) the spectral norm of the "
    "public projection R), and s is the smallest std meeting (ε, δ) by the exact Gaussian "
    "privacy profile (Balle & Wang 2018, Theorem 8)." + _COMMON,
    2, (), _rdp_single_release, kinds=("gaussian-release",), neighbours=Relation.FEATURES,
    mixture=False))
register_accountant(Accountant(
    "dppro", "DPPro's Gaussian mechanism (as published)",
    "As DPMix's comparison states it for DPPro (Xu et al. 2017): noise std "
    "c·s(R)·√(log(1/(2δ)) + ε)/ε on each projected coordinate, i.e. sensitivity c·s(R). That "
    "classical form is not a valid (ε, δ) bound at large ε: at ε = 10, δ = 1e-5 the exact "
    "Gaussian profile gives δ ≈ 1e-4 even for sensitivity c·s(R), and replacing a record moves "
    "its row by up to 2c·s(R). Kept to reproduce the paper's Table 5." + _COMMON,
    2, (), _rdp_single_release, neighbours=Relation.FEATURES, mixture=False))

register_accountant(Accountant(
    "embedding-gaussian", "One Gaussian release of the mean embedding (exact, Balle & Wang 2018)",
    "Replace-one neighbours: one record, features and label, replaced by any other; N is "
    "public, the class counts are not. DP-MERF releases once the per-class mean embedding of "
    "unit-norm random features (L2 sensitivity 2/N) and, with labels='private', the class "
    "counts (sensitivity √2), each with Gaussian noise; the two compose exactly into one "
    "Gaussian release with μ² = (2/(N·s_E))² + (√2/s_n)² (Gaussian DP, Dong, Roth & Su 2022), "
    "calibrated by the exact Gaussian privacy profile (Balle & Wang 2018, Theorem 8). The "
    "generator trained on it is post-processing." + _COMMON,
    2, (), _rdp_single_release, kinds=("embedding-release",), mixture=False))


@dataclass(frozen=True)
class EpsilonResult:
    """What one accountant says about one setting."""

    epsilon: float
    alpha: float | None
    orders: np.ndarray = field(repr=False)
    rdp: np.ndarray = field(repr=False)
    accountant: str
    conversion: str
    delta: float
    warnings: tuple[str, ...]
    at_max_alpha: bool
    private: bool
    max_alpha: int
    #: Direct (PLD) accountants: a lower bound on the same analysis' epsilon and the loss-grid
    #: step behind it (chosen per setting unless one was asked for); ``epsilon -
    #: epsilon_discretisation_lower`` is the discretisation bound. Else None.
    epsilon_discretisation_lower: float | None = None
    value_interval: float | None = None

    @property
    def discretisation_bound(self) -> float | None:
        """Width of the interval holding the exact epsilon (None for RDP accountants)."""
        if self.epsilon_discretisation_lower is None:
            return None
        return float(self.epsilon - self.epsilon_discretisation_lower) if np.isfinite(self.epsilon) else 0.0

    @property
    def assumptions(self) -> str:
        return ACCOUNTANTS[self.accountant].assumptions


def check_max_alpha(max_alpha) -> int:
    return check_int("max_alpha", max_alpha, 3, MAX_ALPHA_LIMIT)


def batch_epsilon(p: PrivacyParams, l, sigma_x, sigma_y, *, accountant: str, conversion: str,
                  max_alpha: int, value_interval: float | None = None):
    """Vectorized core: epsilon, minimizing order and RDP for arrays of (l, sigma_x, sigma_y).

    Direct accountants return NaN orders and an empty RDP curve; ``value_interval`` is their
    loss-grid step (None: the accountant's default for one epsilon).
    """
    acc = get_accountant(accountant)
    CONVERSIONS.get(conversion)
    l, sx, sy = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (l, sigma_x, sigma_y))
    l, sx, sy = np.broadcast_arrays(l, sx, sy)
    if not acc.uses_rdp:
        eps, _, _ = acc.direct(p, l, sx, sy, _interval(value_interval), False)
        return eps, np.full(len(eps), np.nan), np.zeros(0, dtype=int), np.zeros((len(eps), 0))
    orders_all = np.arange(2, max_alpha + 1)
    rdp = acc.rdp(p, l, sx, sy, max_alpha)[:, acc.min_alpha - 2:]
    orders = orders_all[acc.min_alpha - 2:]
    if acc.closed_form is not None:
        eps, alpha = acc.closed_form(p, l, sx, sy, p.delta, conversion, max_alpha)
    else:
        eps, idx = best_epsilon(orders, rdp, p.delta, conversion)
        alpha = np.where(idx >= 0, orders[np.maximum(idx, 0)], np.nan)
    return eps, alpha, orders, rdp


def _interval(value_interval):
    """None: the PLD accountant's automatic grid (chosen per setting, docs/pld.md §6);
    ``pld.CURVE``: the curves' grid."""
    from dpcda.privacy.pld import CURVE, check_value_interval

    if value_interval is None or (isinstance(value_interval, str) and value_interval == CURVE):
        return value_interval
    return check_value_interval(value_interval)


def compute_epsilon(params: PrivacyParams, *, accountant: str = "paper",
                    conversion: str = "mironov", max_alpha: int = 256,
                    value_interval: float | None = None) -> EpsilonResult:
    """(epsilon, delta) of a DP-CDA release under one accountant and conversion.

    Returns the epsilon (``inf`` for the non-private setting), the minimizing order, the RDP
    curve of the whole release at the orders used, and warnings (minimizing order at
    ``max_alpha``; ``delta >= 1/N``). A direct accountant (``class-aware-pld``, ``whole-record``)
    has no order (``alpha`` None), no conversion (``conversion`` None) and reports
    ``epsilon_discretisation_lower``: the exact epsilon of the *same dominating pair* is at least
    that, so ``epsilon - epsilon_discretisation_lower`` bounds the discretisation error of the
    upper bound (``value_interval``: its grid). It is not a lower bound on what the mechanism
    spends: that is :func:`dpcda.privacy.realised.realised_lower` (``epsilon_realised_lower``).
    """
    if not isinstance(params, PrivacyParams):
        raise ValueError(f"params must be a PrivacyParams, got {type(params).__name__}")
    max_alpha = check_max_alpha(max_alpha)
    acc = get_accountant(accountant)
    if not acc.uses_rdp:
        return _direct_result(params, acc, conversion, max_alpha, _interval(value_interval))
    eps, alpha, orders, rdp = batch_epsilon(
        params, params.l, params.sigma_x, params.sigma_y, accountant=accountant,
        conversion=conversion, max_alpha=max_alpha)
    eps, alpha = float(eps[0]), float(alpha[0])
    at_max = bool(np.isfinite(eps) and alpha >= max_alpha)
    warnings = _warnings(params, at_max and params.private, max_alpha)
    alpha_out = None if not np.isfinite(alpha) else (
        int(alpha) if float(alpha).is_integer() else alpha)
    return EpsilonResult(
        epsilon=eps, alpha=alpha_out, orders=orders, rdp=rdp[0], accountant=accountant,
        conversion=conversion, delta=params.delta, warnings=tuple(warnings), at_max_alpha=at_max,
        private=params.private, max_alpha=max_alpha)


def _warnings(params: PrivacyParams, at_max: bool, max_alpha: int) -> list[str]:
    """The warnings of a result, as coded :class:`~dpcda.util.notices.Notice` strings."""
    warnings: list[str] = []
    if not params.private:
        warnings.append(notice("non_private"))
    elif at_max:
        warnings.append(notice("max_alpha_edge", max_alpha=max_alpha))
    if params.delta >= 1.0 / params.n:
        warnings.append(notice("delta_not_below_1_over_n", delta=params.delta,
                               n=params.n))
    return warnings


def _direct_result(params: PrivacyParams, acc: Accountant, conversion: str, max_alpha: int,
                   value_interval: float) -> EpsilonResult:
    CONVERSIONS.get(conversion)  # still validated: callers pass one for every accountant
    one = np.ones(1)
    eps, low, step = acc.direct(params, one * params.l, one * params.sigma_x,
                                one * params.sigma_y, value_interval, True)
    warnings = _warnings(params, False, max_alpha)
    low = float(low[0])
    if params.private and not np.isfinite(low):
        warnings.append(notice("pld_rdp_cap", trusted_max=PLD_TRUSTED_MAX))
    return EpsilonResult(
        epsilon=float(eps[0]), alpha=None, orders=np.zeros(0, dtype=int), rdp=np.zeros(0),
        accountant=acc.name, conversion=None, delta=params.delta,
        warnings=tuple(warnings), at_max_alpha=False,
        private=params.private, max_alpha=max_alpha,
        epsilon_discretisation_lower=low if np.isfinite(low) or not params.private else None,
        value_interval=float(step[0]) if np.isfinite(step[0]) else value_interval)
