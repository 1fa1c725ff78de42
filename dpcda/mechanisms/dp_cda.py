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

from dataclasses import dataclass, replace

import numpy as np

from dpcda.mechanisms._torch import resolve_device
from dpcda.mechanisms.card import add_randomness, data_block, make_card
from dpcda.mechanisms.decoding import DEFAULT_DECODER, check_decoder
from dpcda.mechanisms.dp_cda_account import (BOUNDS_ACCOUNTANTS, COMPOSING_ACCOUNTANTS,  # noqa: F401
                                             DEFAULT_STATS_SHARE, account, check_l_bounds,
                                             class_bounds_for, release_stats_mu, stats_float_cost)
from dpcda.mechanisms.mixing import Mixed, mix_classwise
from dpcda.mechanisms.prepare import DP_NORMALIZE_CHOICES, affine_of, fit_preprocessor
from dpcda.mechanisms.release import Release
from dpcda.randomness.noise import aimed, calibration_aim, delta_aim
from dpcda.randomness.secure import SecureRandom
from dpcda.mechanisms.segments import segment_spans, snap_segments
from dpcda.privacy.allocation import ALLOCATION_TITLES
from dpcda.privacy.label_histogram import DEFAULT_LABEL_SHARE
from dpcda.randomness.noise import float_cost
from dpcda.util.notices import notice
from dpcda.mechanisms.validation import (check_delta, check_features, check_float, check_int,
                                         check_l_classwise, check_labels, check_release_size,
                                         check_sigmas, check_T)

DECODE_TEXT = {"argmax": "argmax", "sample": "a category drawn from the mixture weights",
               "posterior": "a category drawn from its calibrated posterior"}

#: Defaults of a DP-CDA release, chosen by measurement (README, "Honest defaults").
DEFAULT_NORMALIZE = "scale"
#: ``proportional``: floor(T n_k / sum n) per class, so the release keeps the class balance. Under
#: the default ``whole-record`` accountant n_k are the public class bounds (a built-in dataset's
#: published counts, or lower bounds from a DP label histogram), never the private class sizes;
#: under the accountants that treat the sizes as public, the sizes. ``equal``: floor(T/K), as
#: published (issue 26: equal left UCI Adult at its majority class).
DEFAULT_ALLOCATION = "proportional"

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
                          class_bounds=None,
                          label_share: float = DEFAULT_LABEL_SHARE) -> tuple[Release, Mixed]:
    """:func:`generate_dpcda` that also returns the raw :class:`Mixed` output (source class of
    each row and, with ``return_indices``, the rows mixed). For tests: never publish the trace."""
    cfg = DPCDAConfig(l=l, T=T, c=c, sigma_x=sigma_x, sigma_y=sigma_y, epsilon=epsilon,
                      delta=delta, accountant=accountant, conversion=conversion, ratio=ratio,
                      max_alpha=max_alpha, allocation=allocation)
    X = check_features(X)
    # whole-record, no public bounds, a target epsilon: the bounds (and so every refusal that
    # reads the class sizes) come from the DP label histogram; no check of its own on the labels
    may_histogram = (cfg.accountant in BOUNDS_ACCOUNTANTS and class_bounds is None
                     and cfg.epsilon is not None)
    k_given = n_classes if n_classes is not None else (
        len(class_names) if class_names is not None else None)
    y, K = check_labels(y, len(X), k_given, need_two_present=not may_histogram)
    if class_names is not None and len(class_names) != K:
        raise ValueError(f"class_names must name the K={K} classes, got {len(class_names)} names")
    counts = np.bincount(y, minlength=K)
    whole = cfg.accountant in BOUNDS_ACCOUNTANTS
    if not whole:  # the class sizes are public under the other accountants' relations
        check_l_classwise(cfg.l, counts)
    n_bounds, bounds_source = class_bounds_for(counts, class_bounds)
    check_T(cfg.T, K)
    check_release_size(cfg.T, X.shape[1])
    spans = segment_spans(segments, X.shape[1]) if segments else []
    check_decoder(decode)
    from dpcda.privacy import samples_per_class
    from dpcda.privacy.label_histogram import check_label_share, noisy_bounds, target_plan

    check_label_share(label_share)
    # floating point's share kept back (docs/security.md): at most T samples of d + K noisy
    # values, the statistics' d and the histogram's K
    n_values = cfg.T * (X.shape[1] + K) + X.shape[1] + K
    aim = calibration_aim(cfg.epsilon, n_values)
    d_aim = delta_aim(cfg.delta, cfg.epsilon, n_values)  # and delta's share, with a target epsilon
    # Whole-record without public bounds and with a target epsilon: the bounds come from a DP
    # histogram of the labels (a share of epsilon; docs/whole-record.md §11).
    plan = (target_plan(cfg.epsilon, cfg.delta, N=len(X), K=K, d=X.shape[1], T=cfg.T, l=cfg.l,
                        share=label_share)  # None where it could not serve l (public inputs)
            if whole and class_bounds is None and cfg.epsilon is not None else None)
    stats_mu = None
    if isinstance(normalize, str) and normalize in DP_NORMALIZE_CHOICES:
        target = aim if plan is None else plan.epsilon_rest
        stats_mu = release_stats_mu(target, d_aim if plan is None else plan.delta_rest,
                                    stats_share)
    source = SecureRandom(seed)  # every private draw of this release; never stored
    hist_cost = None
    if plan is not None:
        _, n_bounds, grid = noisy_bounds(counts, plan, source)
        bounds_source, hist_cost = "dp-histogram", float_cost((K, grid))
    if whole:  # worded from the public bounds only
        check_l_bounds(cfg.l, n_bounds, counts, bounds_source)
    # Under whole-record the class sizes are private: the split comes from the public bounds.
    t_k = samples_per_class(cfg.T, n_bounds if whole else counts, cfg.allocation)  # ValueError names T
    pre = fit_preprocessor(X, normalize, c=cfg.c, bounds=bounds, stats_mu=stats_mu, rng=source)
    sx, sy, privacy = account(replace(cfg, epsilon=aim, delta=d_aim) if aim != cfg.epsilon else cfg,
                              N=len(X), counts=counts, d=X.shape[1], K=K,
                              compare=compare_accountants, stats_mu=pre.stats_mu, bounds=n_bounds,
                              plan=plan)
    aimed(privacy, cfg.epsilon, aim, delta=cfg.delta, delta_aimed=d_aim)
    if whole and bounds_source == "data" and privacy.get("private"):
        privacy["warnings"] = [*privacy.get("warnings", []), notice("class_sizes_from_data")]
    if plan is not None and k_given is None and privacy.get("private"):
        privacy["warnings"] = [*privacy.get("warnings", []), notice("classes_from_labels")]
    dev = resolve_device(device)
    mixed = mix_classwise(pre(X), y, K, cfg.l, t_k, sx, sy, generator=source, device=dev,
                          bound=cfg.c, return_indices=return_indices)
    cost = mixed.float_cost + stats_float_cost(pre)
    add_randomness(privacy, source, cost if hist_cost is None else cost + hist_cost)
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
                   class_bounds=None, label_share: float = DEFAULT_LABEL_SHARE) -> Release:
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
    ``"proportional"`` (default: floor(T n_k / sum n) of the public class bounds under
    ``whole-record``, of the class sizes under the other accountants) or ``"equal"`` (floor(T/K)
    samples per class, as published); accounted per class. ``segments``: one-hot column ranges
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
    class sizes, treated as public, and the card says so, where the noise is given as
    ``sigma_x``; with a target ``epsilon``, lower confidence bounds from a DP histogram of the
    labels, :mod:`dpcda.privacy.label_histogram`; :func:`generate_from_dataset` passes a
    built-in dataset's published class counts, and nothing is spent on a histogram; ``"data"``:
    the data's own class sizes, treated as public, whatever the noise). The bounds are never
    compared with the class sizes: a class one record below its bound is released.
    ``label_share``: the share of ``epsilon`` the DP label histogram spends (default 0.05); the
    rest, at half of ``delta``, goes to the mixing (docs/whole-record.md §11).
    """
    rel, _ = generate_dpcda_traced(
        X, y, l=l, T=T, c=c, sigma_x=sigma_x, sigma_y=sigma_y, epsilon=epsilon, delta=delta,
        accountant=accountant, conversion=conversion, ratio=ratio, max_alpha=max_alpha,
        normalize=normalize, bounds=bounds, allocation=allocation, segments=segments,
        n_classes=n_classes, class_names=class_names, image_shape=image_shape, dataset=dataset,
        device=device, seed=seed, compare_accountants=compare_accountants, decode=decode,
        stats_share=stats_share, class_bounds=class_bounds, label_share=label_share)
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
         Param("label_share", "float", DEFAULT_LABEL_SHARE, lo=0.0, lo_open=True, hi=1.0,
               hi_open=True, doc="whole-record without public class bounds (not a built-in "
                                 "dataset) and a target epsilon: the share of epsilon spent on a "
                                 "DP histogram of the labels, whose lower bounds split T"),
         Param("allocation", "str", DEFAULT_ALLOCATION, choices=ALLOCATIONS,
               doc="samples per class: proportional (floor(T n_k / sum n), n_k the public class "
                   "bounds under whole-record) or equal (floor(T/K))"),
         Param("decode", "str", DEFAULT_DECODER, choices=DECODERS,
               doc="one-hot segments (tabular data): how each category is chosen after mixing "
                   "(post-processing): posterior (calibrated), sample, or argmax (the paper's)")),
        accountants, DEFAULT_NORMALIZE,
        label_mode="hard", learner="auto", l_bound="class", onehot_label_noise=True,
        paper_name="DP-CDA", compare_ls=(4, 16), event=CLASS_MIXTURE, cost_model="mixing"))


_register()
