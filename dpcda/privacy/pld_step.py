"""One step of the ``class-aware-pld`` pair on a loss grid (docs/pld.md §3, §5).

The symmetrised pair's bucket masses (:func:`_step_masses`), their pessimistic ("connect the
dots", an upper bound) and optimistic (contracted and rounded down, a lower bound) grids, and the
two directions of the pair (:func:`directional_step`). Re-exported by :mod:`dpcda.privacy.pld`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

#: Mass allowed outside the one-step grid (and at least this outside the composition window).
TAIL_MASS = 1e-15


def _interval_mass(lo, hi, shift):
    """``Phi(hi - shift) - Phi(lo - shift)`` without cancellation in the upper tail."""
    a, b = lo - shift, hi - shift
    return np.where(a > 0, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))


def _x_of_loss(loss, s, gamma):
    """Point where ``L(x) = log(1 - gamma + gamma exp(s x - s^2/2))`` reaches ``loss``."""
    loss = np.asarray(loss, dtype=float)
    out = np.full(loss.shape, -np.inf)
    ok = loss > math.log1p(-gamma)
    lv = loss[ok]
    # log(e^L - (1 - gamma)) = L + log1p(-(1 - gamma) e^{-L})
    out[ok] = (lv + np.log1p(-(1.0 - gamma) * np.exp(-lv)) - math.log(gamma)) / s + s / 2.0
    return out


def _loss_of_x(x, s, gamma):
    return np.logaddexp(math.log1p(-gamma), math.log(gamma) + s * x - s * s / 2.0)


def _mix_mass(lo, hi, s, gamma):
    return gamma * _interval_mass(lo, hi, s) + (1.0 - gamma) * _interval_mass(lo, hi, 0.0)


def _z_tail(tail: float = TAIL_MASS) -> float:
    return -float(ndtri(tail))  # Phi(-z) = tail


def _connect_dots(p_int, q_int, a, h):
    """Share of each bucket ``(a, a + h]`` put at ``a + h``: the chord through the exact
    hockey-stick values at ``e^a`` and ``e^{a+h}`` (Doroshenko et al. 2022)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lstar = np.log(p_int) - np.log(q_int)          # the bucket's e^-L-mean loss, in (a, a+h]
        share = -np.expm1(np.minimum(a - lstar, 0.0)) / -math.expm1(-h)
    return np.where(p_int > 0, np.clip(p_int * share, 0.0, p_int), 0.0)


@dataclass(frozen=True)
class _Masses:
    """One step's masses on the grid ``{k h}``: bucket ``k`` is ``(k h, (k+1) h]`` of positive
    loss, with ``p[k] = P'(L in it)`` for ``k < K_p`` and ``q[k] = Q'(L in it)`` for
    ``k < K_n`` (the mirrored negative side, cut at ``-K_n h``); ``p_tail = P'(L > K_p h)``,
    ``q_tail = Q'(L > K_n h)``, ``zero`` the symmetrised PLD's atom at 0."""

    h: float
    p: np.ndarray
    q: np.ndarray
    p_tail: float
    q_tail: float
    zero: float


#: A cut grid ends at a multiple of this (when it is a multiple of the step), so that the grids
#: of the automatic choice, which all divide it, end at the same loss: then a finer grid's
#: epsilon is never above a coarser one's (docs/pld.md §6).
_CUT_UNIT = 0.016


def _buckets(top: float, h: float, cut: bool) -> int:
    """Number of buckets of step h up to the loss ``top`` (rounded up to a multiple of
    ``_CUT_UNIT`` where h divides it and the grid is cut)."""
    ratio = _CUT_UNIT / h
    if cut and ratio >= 1 and abs(ratio - round(ratio)) < 1e-9:
        return max(1, math.ceil(top / _CUT_UNIT - 1e-12)) * round(ratio)
    return max(1, math.ceil(top / h))


def _step_masses(s: float, gamma: float, h: float, tail: float, cut: bool) -> _Masses:
    """Bucket masses of one step (docs/pld.md §5). ``cut``: the grid ends where ``P'`` (top) and
    ``Q'`` (mirrored bottom) leave at most ``tail`` each; else both sides end at ``s + z``."""
    z = _z_tail(tail)
    x_top = s + z
    if cut and gamma < 0.5:  # P'(x > x_top) <= gamma Phi(s - x_top) + Phi(-x_top) <= tail
        x_top = max(s + _z_tail(tail / (2.0 * gamma)), _z_tail(tail / 2.0))
    K_p = _buckets(float(_loss_of_x(np.array(x_top), s, gamma)), h, cut)
    K_n = max(1, min(K_p, _buckets(float(_loss_of_x(np.array(z), s, gamma)), h, cut))) if cut \
        else K_p
    edges = np.arange(K_p + 1) * h                                  # buckets (e_k, e_k+1], L > 0
    xs = _x_of_loss(edges, s, gamma)                                # >= s/2 > 0: L > 0 <=> x > s/2
    sf0 = ndtr(-xs)                                                 # Q'(x > edge), no cancellation
    sf_p = gamma * ndtr(s - xs) + (1.0 - gamma) * sf0
    p = sf_p[:-1] - sf_p[1:]
    q = sf0[:K_n] - sf0[1:K_n + 1]
    zero = max(0.0, 1.0 - float(sf_p[0]) - float(sf0[0]))
    return _Masses(h, p, q, float(sf_p[-1]), float(sf0[K_n]), zero)


def _pessimistic(m: _Masses):
    """Connect the dots (Doroshenko et al. 2022): each bucket's mass split between its ends so
    that the hockey-stick curve is the chord through the exact values at the grid points."""
    h, p, q = m.h, m.p, m.q
    K_p, K_n = len(p), len(q)
    k_big = min(K_p, math.floor(600.0 / h))                         # e^a overflows beyond
    ea = np.exp(np.arange(k_big) * h)                               # e^a, a the bucket's bottom
    c = 1.0 / -math.expm1(-h)
    eq = np.zeros(K_p)                                              # e^a q (<= p: l* > a)
    n = min(K_n, k_big)
    eq[:n] = ea[:n] * q[:n]
    if K_n > k_big:
        with np.errstate(divide="ignore", invalid="ignore"):
            big = np.arange(k_big, K_n)
            eq[big] = np.where(q[big] > 0, np.exp(big * h + np.log(q[big])), 0.0)
    up = np.clip((p - eq) * c, 0.0, p)                              # positive part at (k+1) h
    # mirrored bucket (-(k+1)h, -k h]: mass q there, the other side p; its part at -k h:
    with np.errstate(over="ignore", under="ignore"):
        e_neg = np.exp(-(np.arange(K_n) + 1.0) * h)
    dn = np.clip((q - p[:K_n] * e_neg) * c, 0.0, q)
    pmf = np.zeros(K_n + K_p + 1)                                   # losses -K_n h .. K_p h
    mid = K_n
    pmf[mid + 1:] += up
    pmf[mid:-1] += p - up
    pmf[1:mid + 1] += dn[::-1]
    pmf[:mid] += (q - dn)[::-1]
    pmf[0] += m.q_tail                                              # rounded up to -K_n h
    pmf[mid] += m.zero
    return -K_n, pmf, m.p_tail


def _optimistic(m: _Masses):
    """Each bucket contracted to ``l* = log(p/q)`` (the conditional mean of e^-L) and rounded
    down; returns ``(i0, pmf, r, w)``: the roundings ``r`` with their masses ``w``."""
    h, p, q = m.h, m.p, m.q
    K_p, K_n = len(p), len(q)
    a = np.arange(K_p) * h
    with np.errstate(divide="ignore", invalid="ignore"):
        lstar = np.log(p) - np.log(np.append(q, np.zeros(K_p - K_n)))
    # beyond the mirrored side's cut q (so l*) is not known: rounding 0 there (a valid minimum)
    r_pos = np.where((p > 0) & (np.arange(K_p) < K_n), np.clip(lstar - a, 0.0, h), 0.0)
    r_neg = np.where(q > 0, np.clip(a[:K_n] + h - lstar[:K_n], 0.0, h), 0.0)
    pmf = np.zeros(K_n + K_p + 1)
    mid = K_n
    pmf[mid:-1] += p
    pmf[:mid] += q[::-1]
    pmf[mid] += m.zero
    pmf[-1] += m.p_tail                                             # rounded down to K_p h
    return -K_n, pmf, np.concatenate([r_pos, r_neg]), np.concatenate([p, q])


def symmetric_step(s: float, gamma: float, h: float, pessimistic: bool, rounding: bool = False,
                   tail: float = TAIL_MASS):
    """One step of the symmetrised dominating pair, discretised on ``{i h}`` (docs/pld.md §3).

    Returns ``(i0, pmf, inf_mass, mean_r)``: grid point ``k`` is loss ``(i0 + k) h``; ``mean_r``
    (optimistic only) is the mean amount by which the contracted losses were rounded down, or
    with ``rounding=True`` the pair ``(r, w)``: the roundings and their masses (the rest of the
    mass is rounded by 0), for a tail bound on their sum (:func:`rounding_shift`). Losses
    beyond ``x = s + z`` with ``Phi(-z) = tail`` are the ``+inf`` loss (pessimistic; at most
    ``tail`` mass) or rounded down to the top (optimistic).
    """
    m = _step_masses(s, gamma, h, tail, cut=False)
    if pessimistic:
        i0, pmf, inf_mass = _pessimistic(m)
        return i0, pmf, inf_mass, 0.0
    i0, pmf, r, w = _optimistic(m)
    return i0, pmf, 0.0, ((r, w) if rounding else float(np.dot(r, w)))


def directional_step(s: float, gamma: float, h: float, direction: str):
    """Pessimistic (connect-the-dots) PLD of one direction of the pair: ``"remove"`` is
    ``log P'/Q'`` under ``P'``, ``"add"`` ``log Q'/P'`` under ``Q'``. ``(i0, pmf, inf_mass)``.

    The maximum over both directions is what ``dp_accounting`` reports for this pair; it is a
    lower bound on what Algorithm 1 can spend, not an upper bound (docs/pld.md §4).
    """
    z_t = _z_tail()
    lo_loss = math.log1p(-gamma)
    if direction == "remove":
        top = float(_loss_of_x(np.array(s + z_t), s, gamma))
        i_lo, i_hi = math.floor(lo_loss / h), math.ceil(top / h)
        edges = np.arange(i_lo, i_hi + 1) * h
        xs = np.append(_x_of_loss(edges, s, gamma), np.inf)
        p_int = _mix_mass(xs[:-1], xs[1:], s, gamma)
        q_int = _interval_mass(xs[:-1], xs[1:], 0.0)
        inf_mass, low_tail = float(p_int[-1]), 0.0
        p_int, q_int = p_int[:-1], q_int[:-1]
    elif direction == "add":
        bottom = -float(_loss_of_x(np.array(z_t), s, gamma))
        i_lo, i_hi = math.floor(bottom / h), math.ceil(-lo_loss / h)
        edges = np.arange(i_lo, i_hi + 1) * h                      # -L in (e_k, e_k+1]
        xs = _x_of_loss(-edges, s, gamma)                          # decreasing
        p_int = _interval_mass(xs[1:], xs[:-1], 0.0)
        q_int = _mix_mass(xs[1:], xs[:-1], s, gamma)
        inf_mass, low_tail = 0.0, float(ndtr(-xs[0]))
    else:
        raise ValueError(f"direction must be one of remove, add, got direction={direction!r}")
    pmf = np.zeros(len(edges))
    up = _connect_dots(p_int, q_int, edges[:-1], h)
    pmf[1:] += up
    pmf[:-1] += p_int - up
    pmf[0] += low_tail
    return i_lo, pmf, inf_mass
