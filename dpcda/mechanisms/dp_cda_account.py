"""How a DP-CDA release accounts its privacy (:func:`account`, used by
:func:`dpcda.mechanisms.dp_cda.generate_dpcda`): calibrate to a target epsilon or account the
given noise under the chosen accountant, with the public inputs that accountant reads (the class
counts, or the public lower bounds under ``whole-record``: :func:`class_bounds_for`), the
``dp-center`` statistics composed in, the same noise under the compared accountants, and the
realised lower bound beside it (the card's bracket). ``cfg`` is a
:class:`~dpcda.mechanisms.dp_cda.DPCDAConfig`.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.mechanisms.card import privacy_from_result
from dpcda.mechanisms.validation import check_float, check_int

#: The accountants that compose ``dp-center``'s Gaussian release of statistics exactly.
COMPOSING_ACCOUNTANTS = ("whole-record", "class-aware-pld")
#: ``normalize="dp-center"``: the statistics' Gaussian alone is (share x epsilon, delta)-DP; the
#: release's epsilon composes both exactly, so the statistics cost much less than this share.
#: With a fixed sigma_x (no target epsilon) the statistics are (share x 1, delta)-DP.
DEFAULT_STATS_SHARE = 0.1


def release_stats_mu(epsilon: float | None, delta: float, share: float = DEFAULT_STATS_SHARE) -> float:
    """The GDP parameter of ``dp-center``'s statistics release in a release with target
    ``epsilon`` (None: an explicit noise, the share of 1) at ``delta``: the one rule the
    release, the pages and the candidates share."""
    from dpcda.privacy.composed import stats_mu

    share = check_float("stats_share", share, lo=0.0, lo_open=True, hi=1.0, hi_open=True)
    return stats_mu(share * (1.0 if epsilon is None else epsilon), delta)


def composing(accountant: str):
    """The module whose ``composed_epsilon`` / ``calibrate_composed`` compose ``dp-center``'s
    statistics under ``accountant`` (:mod:`dpcda.privacy.whole_record_accountant` or
    :mod:`dpcda.privacy.composed`); a ValueError naming the allowed accountants otherwise."""
    from dpcda.privacy import composed
    from dpcda.privacy import whole_record_accountant as wr

    if accountant not in COMPOSING_ACCOUNTANTS:
        raise ValueError("normalize='dp-center' is accounted by composing its Gaussian release "
                         "with the class-wise privacy loss distributions: accountant must be one "
                         f"of {', '.join(COMPOSING_ACCOUNTANTS)}, got accountant={accountant!r}")
    return wr if accountant == wr.NAME else composed

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
    given public bounds (``"given"``). The bounds are never compared with the private class
    sizes here: the guarantee covers every pair of neighbours of which one meets them
    (docs/whole-record.md §1, §6), so a dataset one record below a bound is released like any
    other (:func:`check_l_bounds` is the only check, and it reads no private size's value)."""
    counts = np.asarray(counts)
    if class_bounds is None or (isinstance(class_bounds, str) and class_bounds == "data"):
        return counts.copy(), "data"
    if isinstance(class_bounds, str):
        raise ValueError("class_bounds must be a sequence of positive integers (public lower "
                         "bounds on the records of each class) or 'data' (the class sizes, "
                         f"treated as public), got class_bounds={class_bounds!r}")
    try:
        b = np.asarray([check_int("class_bounds", k, 1) for k in class_bounds], dtype=np.int64)
    except TypeError:
        raise ValueError("class_bounds must be a sequence of positive integers (a public lower "
                         "bound on the records of each class)") from None
    if len(b) != len(counts):
        raise ValueError(f"class_bounds must have one entry per class (K={len(counts)}), got "
                         f"{len(b)}")
    return b, "given"


class BoundsRefusal(ValueError):
    """``l`` above what a DP label histogram's lower bounds allow (:func:`check_l_bounds`): a
    refusal decided from that histogram alone (a DP release), after it was drawn; a reader can
    tell it apart from a refusal of the inputs (the Samples page words it, and counts the draw)."""


def check_l_bounds(l: int, bounds, counts, source: str = "given") -> int:
    """``l`` against the public bounds (``1 <= l <= min n_k - 1``: a class keeps ``l`` records
    after losing one, docs/whole-record.md §6), worded from the bounds only; then a defensive
    check that every class holds ``l`` records, which can only fail on data at least two records
    below a bound (outside the guarantee) and names no size."""
    b = np.asarray(bounds, dtype=np.int64)
    top = int(b.min()) - 1
    l = check_int("l", l, 1)
    if l > top and source == "dp-histogram":
        raise BoundsRefusal(f"l={l} is too large for the lower bounds of the DP label histogram "
                         f"(l must be at most the smallest bound minus one, here {top}): give "
                         "class_bounds (public lower bounds, or 'data' to treat the class sizes as "
                         "public), a larger label_share or a smaller l")
    if l > top and source == "data":  # the data's own sizes: private, so no number
        raise ValueError(f"l must be at most the smallest class size minus one under the "
                         f"whole-record relation (a class must keep l records after losing one; "
                         f"the sizes were read from the data), got l={l}: give a smaller l")
    if l > top:
        raise ValueError(f"l must be an integer from 1 to {top} under the whole-record relation "
                         f"(the smallest public class bound minus one: a class must keep l records "
                         f"after losing one), got l={l}")
    if (np.asarray(counts) < l).any() and source == "dp-histogram":
        raise ValueError("the DP label histogram's lower bounds came out above a class's size (an "
                         "event of probability at most its failure_probability, part of delta): "
                         "nothing is released; give class_bounds (public lower bounds) or a "
                         "smaller l")
    if (np.asarray(counts) < l).any():
        raise ValueError("class_bounds must be lower bounds on these data's class sizes (to within "
                         "one record): a class holds fewer than l records, so the bounds were made "
                         "for other data")
    return l


def account(cfg, *, N: int, counts, d: int, K: int, compare: bool = True,
            stats_mu: float | None = None, bounds=None, plan=None):
    """:func:`account_parts`, with a label histogram's :class:`~dpcda.privacy.label_histogram.
    LabelPlan` (``plan``) composed in: the rest is calibrated to ``(plan.epsilon_rest,
    plan.delta_rest)`` on the DP bounds, and the card reports the total (basic composition plus
    the failure probability, docs/whole-record.md §11); no compared accountants then."""
    if plan is None:
        return account_parts(cfg, N=N, counts=counts, d=d, K=K, compare=compare,
                             stats_mu=stats_mu, bounds=bounds)
    from dataclasses import replace

    from dpcda.mechanisms.release import epsilon_text

    rest = replace(cfg, epsilon=plan.epsilon_rest, delta=plan.delta_rest)
    sx, sy, block = account_parts(rest, N=N, counts=counts, d=d, K=K, compare=False,
                                  stats_mu=stats_mu, bounds=bounds, bracket=False)
    if block.get("epsilon") is None:
        return sx, sy, block
    total = float(block["epsilon"]) + plan.epsilon_hist
    block.update(epsilon=total, delta=plan.delta, calibrated_to_epsilon=plan.epsilon,
                 label_histogram=plan.card())
    block["epsilon_text"] = (epsilon_text(total) + " (label histogram, mixing"
                             + (" and normalisation statistics" if stats_mu is not None else "")
                             + " together)")
    if block.get("epsilon_discretisation_lower") is not None:
        block["epsilon_discretisation_lower"] = min(
            total, block["epsilon_discretisation_lower"] + plan.epsilon_hist)
    from dpcda.privacy import PrivacyParams

    common = _params_for(cfg.accountant, dict(delta=plan.delta, l=cfg.l, c=cfg.c, T=cfg.T,
                                              d_x=int(d), d_y=int(K), allocation=cfg.allocation),
                         N, counts, bounds)
    return sx, sy, _with_bracket(block, PrivacyParams(sigma_x=sx, sigma_y=sy, **common),
                                 cfg.accountant)


def account_parts(cfg, *, N: int, counts, d: int, K: int, compare: bool = True,
                  stats_mu: float | None = None, bounds=None, bracket: bool = True):
    """``(sigma_x, sigma_y, privacy card block)``: calibrate to ``cfg.epsilon`` or account for
    the given sigmas (with n = N, class_counts = counts, d_x = d, d_y = K, the allocation).
    ``compare``: also record the epsilon of the same noise under
    :func:`dpcda.privacy.compared_accountants` (the published one labelled as not a bound).
    ``stats_mu``: the normalisation statistics were one ``mu``-GDP Gaussian release, composed
    exactly with the mixing (:mod:`dpcda.privacy.composed`; ``class-aware-pld`` only)."""
    from dpcda.privacy import PrivacyParams, calibrate, compared_accountants, compute_epsilon

    bounds = counts if bounds is None else bounds
    if cfg.accountant in BOUNDS_ACCOUNTANTS:  # the class sizes are private: every accountant
        counts, N = bounds, int(sum(int(k) for k in bounds))  # compared reads the public bounds
    base = dict(delta=cfg.delta, l=cfg.l, c=cfg.c, T=cfg.T, d_x=int(d), d_y=int(K),
                allocation=cfg.allocation)
    common = _params_for(cfg.accountant, base, N, counts, bounds)
    if stats_mu is not None:
        return _account_with_stats(cfg, common, stats_mu, bracket)
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
    if not bracket:
        return sx, sy, block
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


def _account_with_stats(cfg, common: dict, mu: float, bracket: bool = True):
    """:func:`account` when the normaliser released ``mu``-GDP statistics."""
    from dpcda.privacy import PrivacyParams
    from dpcda.privacy.accountants import EpsilonResult
    from dpcda.privacy.composed import VALUE_INTERVAL

    from dpcda.privacy import whole_record_accountant as wr

    how = composing(cfg.accountant)
    whole = how is wr
    if cfg.epsilon is not None:
        sx, sy, eps = how.calibrate_composed(epsilon=cfg.epsilon, mu=mu, ratio=cfg.ratio, **common)
    else:
        sx, sy = cfg.sigma_x, cfg.sigma_y
        eps = None if whole else how.composed_epsilon(PrivacyParams(sigma_x=sx, sigma_y=sy, **common),
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
    if not bracket:
        return sx, sy, block
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
