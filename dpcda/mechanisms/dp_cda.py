"""DP-CDA (Algorithm 1 of the paper, as fixed by docs/specification.md §1): class-centric mixing plus noise.

>>> from dpcda.mechanisms import generate_dpcda
>>> rel = generate_dpcda(X, y, l=4, T=60000, epsilon=10, delta=1e-5)     # doctest: +SKIP
>>> rel.X.shape, rel.card["privacy"]["epsilon"], rel.card["privacy"]["accountant"]

Steps: normalize (a public scale, or z-score) and clip rows to norm ``c``; for each class k,
``T_k`` samples (``allocation``: ``floor(T/K)`` each, or ``floor(T N_k / N)``), each the mean
of ``l`` distinct points of class k (a fresh uniform
l-subset per sample) plus ``N(0, sigma_x^2 I)``, with soft label ``onehot(k) + N(0, sigma_y^2 I)``
and hard label its argmax. The noise comes either as ``sigma_x``/``sigma_y`` or from a target
``epsilon`` calibrated under the chosen accountant (default
:data:`dpcda.privacy.DEFAULT_ACCOUNTANT`, a valid bound for this implementation).
``sigma_x = sigma_y = 0`` is the
non-private setting (epsilon = infinity) and the card says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcda.mechanisms._torch import resolve_device
from dpcda.mechanisms.card import add_randomness, data_block, make_card, privacy_from_result
from dpcda.mechanisms.decoding import DEFAULT_DECODER, check_decoder
from dpcda.mechanisms.mixing import Mixed, mix_classwise
from dpcda.mechanisms.prepare import DP_NORMALIZE_CHOICES, affine_of, fit_preprocessor
from dpcda.mechanisms.release import Release
from dpcda.randomness.secure import SecureRandom
from dpcda.mechanisms.segments import segment_spans, snap_segments
from dpcda.privacy.allocation import ALLOCATION_TITLES
from dpcda.util.notices import notice
from dpcda.mechanisms.validation import (check_delta, check_features, check_float, check_int,
                                         check_l_classwise, check_labels, check_release_size,
                                         check_sigmas, check_T)

DECODE_TEXT = {"argmax": "argmax", "sample": "a category drawn from the mixture weights",
               "posterior": "a category drawn from its calibrated posterior"}

#: Defaults of a DP-CDA release, chosen by measurement (README, "Honest defaults").
DEFAULT_NORMALIZE = "scale"
#: ``equal``: floor(T/K) per class, as published. Under the default ``whole-record`` accountant
#: ``proportional`` is split by the public class bounds, never by the private class sizes.
DEFAULT_ALLOCATION = "equal"
#: The accountants that compose ``dp-center``'s Gaussian release of statistics exactly.
COMPOSING_ACCOUNTANTS = ("whole-record", "class-aware-pld")
#: ``normalize="dp-center"``: the statistics' Gaussian alone is (share x epsilon, delta)-DP; the
#: release's epsilon composes both exactly, so the statistics cost much less than this share.
#: With a fixed sigma_x (no target epsilon) the statistics are (share x 1, delta)-DP.
DEFAULT_STATS_SHARE = 0.1

def check_noise_choice(sigma_x, sigma_y, epsilon, ratio) -> tuple:
    """Exactly one of (sigma_x[, sigma_y]) or epsilon; sigma_y defaults to ratio * sigma_x."""
    if epsilon is not None and (sigma_x is not None or sigma_y is not None):
        raise ValueError("give either epsilon (the noise is calibrated) or sigma_x/sigma_y, not "
                         f"both; got epsilon={epsilon!r}, sigma_x={sigma_x!r}, sigma_y={sigma_y!r}")
    if epsilon is None:
        if sigma_x is None:
            raise ValueError("give either epsilon (and delta) or the noise scale sigma_x "
                             "(sigma_y defaults to ratio * sigma_x); got neither")
        if sigma_y is None:
            sigma_y = check_float("sigma_x", sigma_x, lo=0.0) * ratio
        return (*check_sigmas(sigma_x, sigma_y), None)
    return None, None, check_float("epsilon", epsilon, lo=0.0, lo_open=True)


@dataclass(frozen=True, kw_only=True)
class DPCDAConfig:
    """Validated settings of one DP-CDA release (data-independent checks)."""

    l: int
    T: int
    c: float = 1.0
    sigma_x: float | None = None
    sigma_y: float | None = None
    epsilon: float | None = None
    delta: float = 1e-5
    accountant: str | None = None  # None: dpcda.privacy.DEFAULT_ACCOUNTANT (read at creation)
    conversion: str = "mironov"
    ratio: float = 1.0
    max_alpha: int = 256
    allocation: str = DEFAULT_ALLOCATION

    def __post_init__(self) -> None:
        from dpcda.privacy import default_accountant, list_accountants, list_conversions
        from dpcda.privacy.allocation import check_allocation

        set_ = object.__setattr__
        if self.accountant is None:
            set_(self, "accountant", default_accountant())
        set_(self, "allocation", check_allocation(self.allocation))
        set_(self, "l", check_int("l", self.l, 1))
        set_(self, "T", check_int("T", self.T, 1))
        set_(self, "c", check_float("c", self.c, lo=0.0, lo_open=True, why=" (the clip norm)"))
        set_(self, "delta", check_delta(self.delta))
        set_(self, "ratio", check_float("ratio", self.ratio, lo=0.0, lo_open=True))
        set_(self, "max_alpha", check_int("max_alpha", self.max_alpha, 3, 2048))
        sx, sy, eps = check_noise_choice(self.sigma_x, self.sigma_y, self.epsilon, self.ratio)
        set_(self, "sigma_x", sx)
        set_(self, "sigma_y", sy)
        set_(self, "epsilon", eps)
        if self.accountant not in list_accountants():
            raise ValueError(f"accountant must be one of {', '.join(list_accountants())}, got "
                             f"accountant={self.accountant!r}")
        if self.conversion not in list_conversions():
            raise ValueError(f"conversion must be one of {', '.join(list_conversions())}, got "
                             f"conversion={self.conversion!r}")


#: Accountants whose relation keeps the class sizes private: they read ``class_counts`` as public
#: lower bounds ``n_k`` (:mod:`dpcda.privacy.whole_record_accountant`).
BOUNDS_ACCOUNTANTS = ("whole-record",)


def _params_for(accountant: str, base: dict, N: int, counts, bounds) -> dict:
    """The PrivacyParams keywords of ``accountant``: the class counts for the accountants that
    treat them as public, the public lower bounds (their sum as n) for the others."""
    if accountant in BOUNDS_ACCOUNTANTS:
        return dict(base, n=int(sum(bounds)), class_counts=tuple(int(k) for k in bounds))
    return dict(base, n=int(N), class_counts=tuple(int(k) for k in counts))


def class_bounds_for(counts, class_bounds) -> tuple[np.ndarray, str]:
    """``(n_k, source)``: the public lower bounds on the class sizes the ``whole-record``
    accountant uses. ``class_bounds=None``: the class sizes of the data themselves (``source
    "data"``: the guarantee then also treats them as public, and the card says so); else the
    given public bounds (``"given"``), which must not exceed the data's class sizes (a contract
    on the input: the check can only fail on data the bounds were not made for)."""
    counts = np.asarray(counts)
    if class_bounds is None:
        return counts.copy(), "data"
    try:
        b = np.asarray([check_int("class_bounds", k, 1) for k in class_bounds], dtype=np.int64)
    except TypeError:
        raise ValueError("class_bounds must be a sequence of positive integers (a public lower "
                         f"bound on the records of each class), got class_bounds={class_bounds!r}") from None
    if len(b) != len(counts):
        raise ValueError(f"class_bounds must have one entry per class (K={len(counts)}), got "
                         f"{len(b)}")
    if (b > counts).any():
        k = int(np.nonzero(b > counts)[0][0])
        raise ValueError(f"class_bounds must be lower bounds on the class sizes: class {k} holds "
                         f"fewer records than its bound {int(b[k])} (the bounds were made for "
                         "other data)")
    return b, "given"


def account(cfg: DPCDAConfig, *, N: int, counts, d: int, K: int, compare: bool = True,
            stats_mu: float | None = None, bounds=None):
    """``(sigma_x, sigma_y, privacy card block)``: calibrate to ``cfg.epsilon`` or account for
    the given sigmas (with n = N, class_counts = counts, d_x = d, d_y = K, the allocation).
    ``compare``: also record the epsilon of the same noise under
    :func:`dpcda.privacy.compared_accountants` (the published one labelled as not a bound).
    ``stats_mu``: the normalisation statistics were one ``mu``-GDP Gaussian release, composed
    exactly with the mixing (:mod:`dpcda.privacy.composed`; ``class-aware-pld`` only)."""
    from dpcda.privacy import PrivacyParams, calibrate, compared_accountants, compute_epsilon

    bounds = counts if bounds is None else bounds
    base = dict(delta=cfg.delta, l=cfg.l, c=cfg.c, T=cfg.T, d_x=int(d), d_y=int(K),
                allocation=cfg.allocation)
    common = _params_for(cfg.accountant, base, N, counts, bounds)
    if stats_mu is not None:
        return _account_with_stats(cfg, common, stats_mu)
    if cfg.epsilon is not None:
        cal = calibrate(epsilon=cfg.epsilon, accountant=cfg.accountant, conversion=cfg.conversion,
                        ratio=cfg.ratio, max_alpha=cfg.max_alpha, **common)
        sx, sy, res = cal.sigma_x, cal.sigma_y, cal.result
    else:
        sx, sy = cfg.sigma_x, cfg.sigma_y
        res = compute_epsilon(PrivacyParams(sigma_x=sx, sigma_y=sy, **common),
                              accountant=cfg.accountant, conversion=cfg.conversion,
                              max_alpha=cfg.max_alpha)
    others = {}
    if compare and res.private:
        for name in compared_accountants():
            if name != cfg.accountant:
                kw = _params_for(name, base, N, counts, bounds)
                try:
                    o = compute_epsilon(PrivacyParams(sigma_x=sx, sigma_y=sy, **kw),
                                        accountant=name, conversion=cfg.conversion,
                                        max_alpha=cfg.max_alpha)
                except ValueError as exc:  # e.g. whole-record under a proportional allocation
                    others[name] = {"epsilon": None, "alpha": None, "not_accounted": str(exc)}
                    continue
                others[name] = {"epsilon": float(o.epsilon), "alpha": o.alpha}
    block = privacy_from_result(res, calibrated_to=cfg.epsilon, others=others, mechanism="dp-cda")
    return sx, sy, _with_bracket(block, PrivacyParams(sigma_x=sx, sigma_y=sy, **common),
                                 cfg.accountant)


def _with_bracket(block: dict, p, accountant: str) -> dict:
    """The card's ``epsilon_realised_lower``: a proven lower bound on what this code spends at
    the release's public setting (:mod:`dpcda.privacy.realised`; the label-changing pairs too
    under ``whole-record``); beside a valid bound the exact epsilon lies between the two, beside
    one that is not (the published accountant) ``understates_by_at_least`` says by how much."""
    from dpcda.privacy.realised import epsilon_realised_lower, understatement

    if not block.get("private") or p.class_counts is None:
        return block
    try:
        low = epsilon_realised_lower(p, "whole-record" if accountant in BOUNDS_ACCOUNTANTS
                                     else "features")
    except (ValueError, ArithmeticError):
        return block
    if low is None or not math.isfinite(low):
        return block
    block["epsilon_realised_lower"] = float(low)
    if block.get("valid_bound"):
        block["epsilon_text"] += f" (the exact value for this code is at least {low:.4g})"
    else:
        under = understatement(float(block["epsilon"]), low)
        if under is not None:
            block["understates_by_at_least"] = float(under)
    return block


def _account_with_stats(cfg: DPCDAConfig, common: dict, mu: float):
    """:func:`account` when the normaliser released ``mu``-GDP statistics."""
    from dpcda.privacy import PrivacyParams
    from dpcda.privacy.accountants import EpsilonResult
    from dpcda.privacy.composed import VALUE_INTERVAL, calibrate_composed, composed_epsilon

    from dpcda.privacy import whole_record_accountant as wr

    if cfg.accountant not in COMPOSING_ACCOUNTANTS:
        raise ValueError("normalize='dp-center' is accounted by composing its Gaussian release "
                         "with the class-wise privacy loss distributions: accountant must be one "
                         f"of {', '.join(COMPOSING_ACCOUNTANTS)}, got accountant={cfg.accountant!r}")
    whole = cfg.accountant == wr.NAME
    if cfg.epsilon is not None:
        cal = wr.calibrate_composed if whole else calibrate_composed
        sx, sy, eps = cal(epsilon=cfg.epsilon, mu=mu, ratio=cfg.ratio, **common)
    else:
        sx, sy = cfg.sigma_x, cfg.sigma_y
        eps = None if whole else composed_epsilon(PrivacyParams(sigma_x=sx, sigma_y=sy, **common),
                                                  mu=mu)
    low, step = None, None if whole else VALUE_INTERVAL
    if whole:  # the discretisation lower bound too (docs/whole-record.md §7)
        upper, low, step = wr.composed_bounds(PrivacyParams(sigma_x=sx, sigma_y=sy, **common),
                                              mu=mu)
        eps = upper if eps is None else eps
        low = None if low is None else min(low, eps)
    private = bool(sx > 0 or sy > 0)
    res = EpsilonResult(epsilon=eps if private else float("inf"), alpha=None,
                        orders=np.zeros(0, dtype=int), rdp=np.zeros(0), accountant=cfg.accountant,
                        conversion=None, delta=cfg.delta, warnings=(), at_max_alpha=False,
                        private=private, max_alpha=cfg.max_alpha,
                        epsilon_discretisation_lower=low if private else None,
                        value_interval=step)
    block = privacy_from_result(res, calibrated_to=cfg.epsilon, mechanism="dp-cda")
    block["composed_with"] = {
        "release": "normalisation statistics (per-feature means), one Gaussian release",
        "mu_gdp": float(mu), "method": "privacy loss distributions convolved, maximum over "
                                       "classes (docs/dp_normalisation.md)"}
    block["epsilon_text"] += " (mixing and normalisation statistics together)"
    return sx, sy, _with_bracket(block, PrivacyParams(sigma_x=sx, sigma_y=sy, **common),
                                 cfg.accountant)


def stats_float_cost(pre):
    """The floating-point cost of ``dp-center``'s one noisy release of d column sums (none for
    the other normalisations)."""
    from dpcda.randomness import FloatCost, float_cost, grid_for

    norm = pre.normalizer
    if pre.stats_mu is None or norm is None or not hasattr(norm, "noise_std"):
        return FloatCost(0, 0.0, 0.0)
    return float_cost((len(norm.mean), grid_for(norm.noise_std, float(norm.n))))


def generate_dpcda_traced(X, y, *, l: int, T: int, c: float = 1.0, sigma_x=None, sigma_y=None,
                          epsilon=None, delta: float = 1e-5, accountant: str | None = None,
                          conversion: str = "mironov", ratio: float = 1.0, max_alpha: int = 256,
                          normalize=DEFAULT_NORMALIZE, bounds=None, allocation=DEFAULT_ALLOCATION,
                          segments=None, n_classes=None,
                          class_names=None, image_shape=None, dataset: str | None = None,
                          device=None, seed: int | None = None, compare_accountants: bool = True,
                          return_indices: bool = False,
                          decode: str = DEFAULT_DECODER,
                          stats_share: float = DEFAULT_STATS_SHARE,
                          class_bounds=None) -> tuple[Release, Mixed]:
    """:func:`generate_dpcda` that also returns the raw :class:`Mixed` output (source class of
    each row and, with ``return_indices``, the rows mixed). For tests: never publish the trace."""
    cfg = DPCDAConfig(l=l, T=T, c=c, sigma_x=sigma_x, sigma_y=sigma_y, epsilon=epsilon,
                      delta=delta, accountant=accountant, conversion=conversion, ratio=ratio,
                      max_alpha=max_alpha, allocation=allocation)
    X = check_features(X)
    y, K = check_labels(y, len(X), n_classes if n_classes is not None else
                        (len(class_names) if class_names is not None else None))
    if class_names is not None and len(class_names) != K:
        raise ValueError(f"class_names must name the K={K} classes, got {len(class_names)} names")
    counts = np.bincount(y, minlength=K)
    check_l_classwise(cfg.l, counts, class_names)
    n_bounds, bounds_source = class_bounds_for(counts, class_bounds)
    check_T(cfg.T, K)
    from dpcda.privacy import samples_per_class

    whole = cfg.accountant in BOUNDS_ACCOUNTANTS
    # Under whole-record the class sizes are private: the split comes from the public bounds.
    t_k = samples_per_class(cfg.T, n_bounds if whole else counts, cfg.allocation)  # ValueError names T
    check_release_size(int(t_k.sum()), X.shape[1])
    spans = segment_spans(segments, X.shape[1]) if segments else []
    check_decoder(decode)
    stats_mu = None
    if isinstance(normalize, str) and normalize in DP_NORMALIZE_CHOICES:
        from dpcda.privacy.composed import stats_mu as _mu

        share = check_float("stats_share", stats_share, lo=0.0, lo_open=True, hi=1.0, hi_open=True)
        stats_mu = _mu(share * (cfg.epsilon if cfg.epsilon is not None else 1.0), cfg.delta)
    source = SecureRandom(seed)  # every private draw of this release; never stored
    pre = fit_preprocessor(X, normalize, c=cfg.c, bounds=bounds, stats_mu=stats_mu, rng=source)
    sx, sy, privacy = account(cfg, N=len(X), counts=counts, d=X.shape[1], K=K,
                              compare=compare_accountants, stats_mu=pre.stats_mu, bounds=n_bounds)
    if whole and bounds_source == "data" and privacy.get("private"):
        privacy["warnings"] = [*privacy.get("warnings", []), notice("class_sizes_from_data")]
    dev = resolve_device(device)
    mixed = mix_classwise(pre(X), y, K, cfg.l, t_k, sx, sy, generator=source, device=dev,
                          bound=cfg.c, return_indices=return_indices)
    add_randomness(privacy, source, mixed.float_cost + stats_float_cost(pre))
    Xs = mixed.X
    post = []
    if spans:
        shift, inv = affine_of(pre, X.shape[1])
        Xs = snap_segments(Xs, spans, shift, inv, decode=decode, sigma=sx, c=cfg.c, rng=source,
                           groups=mixed.y)
        post.append({"step": f"one-hot segments decoded ({DECODE_TEXT[decode]}) and re-encoded",
                     "decode": decode, "segments": len(spans), "costs_privacy": False})
    card = make_card(
        algorithm="dp-cda", title="DP-CDA (class-centric data aggregation, Algorithm 1)",
        parameters={"l": cfg.l, "T": cfg.T, "allocation": cfg.allocation,
                    "T_per_class": [int(t) for t in t_k], "c": cfg.c,
                    "sigma_x": sx, "sigma_y": sy, "delta": cfg.delta},
        privacy=privacy,
        data=data_block(dataset=dataset, N=len(X), class_counts=counts, class_names=class_names,
                        image_shape=image_shape, d=X.shape[1],
                        class_bounds=n_bounds if whole else None, bounds_source=bounds_source),
        normalization=pre.card(),
        release={"n_samples": int(t_k.sum()), "samples_per_class": [int(t) for t in t_k],
                 "allocation": ALLOCATION_TITLES[cfg.allocation] + (
                     " (the public class bounds n_k, not the private class sizes)"
                     if whole and cfg.allocation == "proportional" else ""),
                 "hard_label": "argmax of the soft label (ties on the grid broken at random)",
                 "row_order": "uniformly shuffled",
                 "device": dev.type},
        postprocessing=post)
    rel = Release(X=Xs, y=mixed.y, y_soft=mixed.y_soft, card=card, preprocess=pre)
    return rel, mixed


def generate_dpcda(X, y, *, l: int, T: int, c: float = 1.0, sigma_x=None, sigma_y=None,
                   epsilon=None, delta: float = 1e-5, accountant: str | None = None,
                   conversion: str = "mironov", ratio: float = 1.0, max_alpha: int = 256,
                   normalize=DEFAULT_NORMALIZE, bounds=None, allocation=DEFAULT_ALLOCATION,
                   segments=None, n_classes=None,
                   class_names=None, image_shape=None, dataset: str | None = None, device=None,
                   seed: int | None = None, compare_accountants: bool = True,
                   decode: str = DEFAULT_DECODER, stats_share: float = DEFAULT_STATS_SHARE,
                   class_bounds=None) -> Release:
    """A DP-CDA release of raw features ``X`` (N x d) with labels ``y`` in 0..K-1.

    Noise: ``sigma_x`` (and ``sigma_y``, default ``ratio * sigma_x``) or a target ``epsilon``
    at ``delta`` calibrated under ``accountant`` (default :data:`dpcda.privacy.DEFAULT_ACCOUNTANT`,
    a valid bound for this implementation; ``"paper"`` reproduces the published tables and is
    not a bound) and ``conversion`` (n = N, class counts, d_x = d, d_y = K).
    ``normalize``: ``"scale"`` (public ``bounds``, default pixels [0, 255]; covered by the
    guarantee), ``"zscore"`` (statistics from the private data, not covered by the guarantee),
    ``"none"``, ``"dp-center"`` (public range, square root, minus a mean estimated under DP:
    one Gaussian release that alone is ``(stats_share * epsilon, delta)``-DP, composed exactly
    into the reported epsilon; see :mod:`dpcda.data.dp_normalize`) or a fitted normalizer;
    rows are then clipped to norm ``c``. ``allocation``:
    ``"equal"`` (floor(T/K) samples per class, as published) or ``"proportional"``
    (floor(T N_k / N), the public class balance); accounted per class. ``segments``: one-hot column ranges
    (``Dataset.segments``), decoded and re-encoded after mixing. ``device``: torch device
    (default cuda, then mps, then cpu). ``seed``: for tests and teaching only: the release is
    then reproducible and *not private* (its card says ``privacy.seeded: true``); by default
    every draw comes from ChaCha20 keyed by the operating system (docs/security.md).
    ``compare_accountants``: also record the epsilon of the same noise under the other compared
    accountants (:func:`dpcda.privacy.compared_accountants`) on the card.
    ``decode``: how a one-hot segment's category is chosen after mixing (post-processing; see
    :mod:`dpcda.mechanisms.decoding`): ``"posterior"`` (default), ``"sample"`` or ``"argmax"``.
    ``class_bounds``: public lower bounds ``n_k`` on the class sizes, for the default
    ``whole-record`` accountant, under which the class sizes are private (None: the data's own
    class sizes, treated as public, and the card says so; :func:`generate_from_dataset` passes a
    built-in dataset's published class counts).
    """
    rel, _ = generate_dpcda_traced(
        X, y, l=l, T=T, c=c, sigma_x=sigma_x, sigma_y=sigma_y, epsilon=epsilon, delta=delta,
        accountant=accountant, conversion=conversion, ratio=ratio, max_alpha=max_alpha,
        normalize=normalize, bounds=bounds, allocation=allocation, segments=segments,
        n_classes=n_classes, class_names=class_names, image_shape=image_shape, dataset=dataset,
        device=device, seed=seed, compare_accountants=compare_accountants, decode=decode,
        stats_share=stats_share, class_bounds=class_bounds)
    return rel


# --- the registry entry (what the CLI, the jobs and the pages offer) ------------------------------
def _register() -> None:
    from dpcda.mechanisms.decoding import DECODERS
    from dpcda.mechanisms.prepare import ALL_NORMALIZE_CHOICES
    from dpcda.mechanisms.spec import CLIP_PARAM, Mechanism, Param, noise_params, norm_param
    from dpcda.mechanisms.spec import register_mechanism
    from dpcda.privacy import ALLOCATIONS, CLASS_MIXTURE, DEFAULT_ACCOUNTANT

    # The project's default (the tightest valid bound for Algorithm 1) first, then the published
    # ones, kept for reproducing the papers. Defaults measured: README "Honest defaults".
    accountants = tuple(dict.fromkeys((DEFAULT_ACCOUNTANT, "class-aware-pld", "class-aware",
                                       "paper", "dpmix", "dpmix-low")))
    register_mechanism(Mechanism(
        "dp-cda", "DP-CDA", generate_dpcda,
        "Mean of l random points of one class plus Gaussian noise; T_k per class (equal or "
        "proportional to the public class counts).",
        (Param("l", "int", None, lo=1, required=True, doc="order of mixture (<= the smallest class)"),
         *noise_params(accountants), CLIP_PARAM,
         norm_param(DEFAULT_NORMALIZE, ALL_NORMALIZE_CHOICES),
         Param("stats_share", "float", DEFAULT_STATS_SHARE, lo=0.0, lo_open=True, hi=1.0,
               hi_open=True, doc="dp-center only: the statistics' Gaussian alone is (stats_share x "
                                 "epsilon, delta)-DP; the epsilon composes both exactly"),
         Param("allocation", "str", DEFAULT_ALLOCATION, choices=ALLOCATIONS,
               doc="samples per class: equal (floor(T/K)) or proportional (floor(T N_k / N))"),
         Param("decode", "str", DEFAULT_DECODER, choices=DECODERS,
               doc="one-hot segments (tabular data): how each category is chosen after mixing "
                   "(post-processing): posterior (calibrated), sample, or argmax (the paper's)")),
        accountants, DEFAULT_NORMALIZE,
        label_mode="hard", learner="auto", l_bound="class", onehot_label_noise=True,
        paper_name="DP-CDA", compare_ls=(4, 16), event=CLASS_MIXTURE, cost_model="mixing"))


_register()
