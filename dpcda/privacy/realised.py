"""A proven lower bound on the epsilon Algorithm 1 can spend: the per-direction pairs, which real
datasets realise, composed with *optimistic* rounding (docs/pld.md §4, docs/accounting.md).

If every other record of class k equals ``x_i`` and ``x_i' = -x_i`` (``||x_i|| = c``), one step
of class k is exactly ``(Q', P')`` on the line through ``x_i`` (the other coordinates have the
same law under both datasets); exchanging the datasets gives ``(P', Q')``, with
``P' = gamma N(2c/l, sigma^2) + (1 - gamma) N(0, sigma^2)``, ``Q' = N(0, sigma^2)`` and
``gamma = l / N_k``. That dataset pair's epsilon is therefore the larger of the two directions'
``T_k``-fold compositions, and it is a lower bound on the worst case over all neighbours. Such a
pair keeps the label, so it is a neighbour pair under the features-only relation and under the
whole-record one.

Computed as a lower bound: each bucket of the loss grid (an interval of x) is merged into one
outcome — a post-processing, which can only lower the hockey-stick divergence — whose loss
``l* = log(p/q)`` is rounded *down* to the grid; the roundings are added back by a Chernoff bound
holding with probability ``1 - eta`` (:func:`dpcda.privacy.pld_compose.rounding_shift`), and
the circular convolution's misplaced mass is added to delta. So ``epsilon_realised_lower <=``
the exact epsilon of the worst dataset pair ``<=`` the symmetrised upper bound.

Pure numpy/scipy; no torch.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.privacy.pld import _step_tail, _tail, auto_value_intervals
from dpcda.privacy.pld_compose import compose, epsilon_for_delta, rounding_shift
from dpcda.privacy.pld_step import _interval_mass, _mix_mass, _x_of_loss, _z_tail


def _buckets(s: float, gamma: float, h: float, tail: float):
    """``(edges, p, q)``: the loss grid ``edges`` of ``L = log P'/Q'`` and, per bucket
    ``(e_k, e_{k+1}]`` (the last one open above), its masses under ``P'`` and ``Q'``."""
    lo_loss = math.log1p(-gamma)
    x_top = s + _z_tail(tail)
    top = float(np.logaddexp(lo_loss, math.log(gamma) + s * x_top - s * s / 2.0))
    x_bot = -_z_tail(tail)
    bottom = float(np.logaddexp(lo_loss, math.log(gamma) + s * x_bot - s * s / 2.0))
    i_lo, i_hi = math.floor(bottom / h), math.ceil(top / h)
    edges = np.arange(i_lo, i_hi + 1) * h
    xs = _x_of_loss(edges, s, gamma)                # -inf below log(1 - gamma)
    xs = np.append(xs, np.inf)
    xs[0] = -np.inf                                  # the lowest bucket takes the lower tail
    p = _mix_mass(xs[:-1], xs[1:], s, gamma)
    q = _interval_mass(xs[:-1], xs[1:], 0.0)
    return edges, np.clip(p, 0.0, None), np.clip(q, 0.0, None)


def optimistic_direction(s: float, gamma: float, h: float, direction: str, tail: float = 1e-16):
    """One step of one direction, merged per bucket and rounded down:
    ``(i0, pmf, roundings, weights)`` on the grid ``{(i0 + k) h}``. ``"remove"``: the loss
    ``log P'/Q'`` under ``P'``; ``"add"``: ``log Q'/P'`` under ``Q'``. A merged bucket's loss
    ``l*`` goes to ``floor(l*/h) h`` (rounding ``l* - floor(l*/h) h`` in ``[0, h)``); a bucket
    whose loss is not finite (no mass on the other side) is dropped (less mass: still lower)."""
    _, p, q = _buckets(s, gamma, h, tail)
    if direction == "remove":
        w, other = p, q
    elif direction == "add":
        w, other = q, p
    else:
        raise ValueError(f"direction must be one of remove, add, got direction={direction!r}")
    ok = (w > 0) & (other > 0)
    w, other = w[ok], other[ok]
    loss = np.log(w) - np.log(other)
    idx = np.floor(loss / h).astype(np.int64)
    r = np.clip(loss - idx * h, 0.0, h)
    i0 = int(idx.min())
    pmf = np.zeros(int(idx.max()) - i0 + 1)
    np.add.at(pmf, idx - i0, w)
    return i0, pmf, r, w


def realised_lower_parts(s: float, parts, delta: float, value_interval: float | None = None) -> float:
    """A lower bound on the epsilon of one realised dataset pair whose steps are ``parts``:
    ``[(gamma, T, direction)]`` (independent classes; each direction ``"remove"`` or ``"add"``
    of ``(P'_gamma, Q')``), composed by one FFT; the roundings are added back per part (Chernoff,
    ``eta = 1e-3 delta`` split equally)."""
    from dpcda.privacy.whole_record import compose_parts

    parts = [(min(float(g), 1.0 - 1e-12), int(T), d) for g, T, d in parts if T > 0]
    if not s > 0 or not parts:
        return 0.0
    if not math.isfinite(s):
        return math.inf
    g_max, t_all = max(g for g, _, _ in parts), sum(T for _, T, _ in parts)
    h = value_interval or auto_value_intervals(s, g_max, t_all, delta)[1]
    eta = 1e-3 * delta
    steps = [(optimistic_direction(s, g, h, d, tail=min(1e-16, _step_tail(t_all, delta))), T)
             for g, T, d in parts]
    if len(steps) == 1:
        (i0, pmf, _, _), T = steps[0]
        j0, c, inf_T, misplaced = compose(i0, pmf, 0.0, T, h, _tail(delta))
    else:
        j0, c, inf_T, misplaced = compose_parts([(i0, pmf, 0.0, T) for (i0, pmf, _, _), T in steps],
                                                h, _tail(delta))
    with np.errstate(all="ignore"):
        shift = sum(rounding_shift(r, w, T, h, eta / len(steps)) for (_, _, r, w), T in steps)
    if not math.isfinite(shift):  # the Chernoff bound failed numerically: add nothing back
        shift = 0.0                # (the rounded-down losses alone are still a lower bound)
    low = epsilon_for_delta(j0, c, inf_T, h, delta + eta + misplaced, floor=-shift,
                            upper=False)
    return max(low + shift, 0.0) if math.isfinite(low) else 0.0


def realised_lower(*, s: float, gamma: float, T: int, delta: float,
                   value_interval: float | None = None) -> float:
    """A lower bound on the epsilon of ``T`` steps of the worse direction of ``(P', Q')`` at
    ``s = 2c/(l sigma)``, rate ``gamma`` (see the module docstring). ``value_interval``: the grid
    (None: the finest the automatic choice allows, as for the accountant's lower bound)."""
    return max(realised_lower_parts(s, [(gamma, T, d)], delta, value_interval)
               for d in ("remove", "add"))


def realised_lower_whole_record(*, sigma: float, l: int, c: float, counts, steps,
                                delta: float) -> float:
    """The label-changing pairs, realised: class k loses a record at ``x_i`` whose classmates
    all sit at ``-x_i`` (one step: ``(P'_{l/N_k}, Q')``), class k' gains a record ``x'`` whose
    classmates all sit at ``-x'`` (one step: ``(Q', P'_{l/(N_k'+1)})``); the two classes are
    independent, so that pair's epsilon is the larger direction of the composition of both.
    Maximum over the candidate pairs of :func:`dpcda.privacy.whole_record.worst_pairs` (data of
    class sizes ``counts``)."""
    from dpcda.privacy.whole_record import worst_pairs

    if not sigma > 0:
        return math.inf
    s = 2.0 * c / (l * sigma)
    n, T = np.asarray(counts, dtype=np.int64), np.asarray(steps, dtype=np.int64)
    best = 0.0
    for k, k2 in worst_pairs(n, T):
        if k2 is None:
            best = max(best, realised_lower(s=s, gamma=l / n[k], T=int(T[k]), delta=delta))
            continue
        lose, gain = (l / n[k], int(T[k])), (l / (n[k2] + 1), int(T[k2]))
        for d_lose, d_gain in (("remove", "add"), ("add", "remove")):
            best = max(best, realised_lower_parts(s, [(*lose, d_lose), (*gain, d_gain)], delta))
    return best


def realised_lower_classes(*, sigma: float, l: int, c: float, counts, steps, delta: float) -> float:
    """:func:`realised_lower` of the worst class: classes of ``counts`` records (``N_k``, the data's
    sizes: the pair is realised on data of these sizes) with ``steps`` mixtures each."""
    if not sigma > 0:
        return math.inf
    s = 2.0 * c / (l * sigma)
    counts, steps = np.asarray(counts), np.asarray(steps)
    groups = {(int(t), int(counts[steps == t].min())) for t in np.unique(steps) if t > 0}
    return max(realised_lower(s=s, gamma=l / n_k, T=t, delta=delta) for t, n_k in groups)


def epsilon_realised_lower(params, relation: str = "features") -> float | None:
    """A proven lower bound on what Algorithm 1 spends at the setting ``params`` (a
    :class:`~dpcda.privacy.PrivacyParams`), on data whose class sizes are its class counts
    (whether the sizes themselves or public lower bounds on them: such data meets the bounds).
    ``relation="features"``: the label-kept pairs (:func:`realised_lower_classes`);
    ``"whole-record"``: also the label-changing ones (:func:`realised_lower_whole_record`, equal
    allocation). ``inf`` for the non-private setting, None without class counts."""
    if not params.private:
        return math.inf
    if params.class_counts is None:
        return None
    kw = dict(sigma=params.sigma_x, l=params.l, c=params.c, counts=params.class_counts,
              steps=params.samples_per_class, delta=params.delta)
    if relation == "whole-record":
        return realised_lower_whole_record(**kw)
    if relation != "features":
        raise ValueError(f"relation must be one of features, whole-record, got relation={relation!r}")
    return realised_lower_classes(**kw)


def understatement(claimed: float, lower: float | None) -> float | None:
    """How much ``claimed`` (e.g. the published accountant's epsilon) understates what the code
    can spend, as a fraction of the proven lower bound (``(lower - claimed) / lower``), or None
    when it does not (or nothing is known)."""
    if lower is None or not math.isfinite(lower) or not lower > 0 or not claimed < lower:
        return None
    return (lower - claimed) / lower
