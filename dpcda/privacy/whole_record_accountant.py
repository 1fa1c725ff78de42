"""The ``whole-record`` accountant: DP-CDA when one person's whole record, label included, may
be anyone's (the standard replace-one relation; the project's default for DP-CDA).

The maths is in :mod:`dpcda.privacy.whole_record` (proofs: ``docs/whole-record.md``). This
module turns a :class:`~dpcda.privacy.PrivacyParams` into its public inputs and registers the
accountant:

- ``class_counts`` are read as **public lower bounds** ``n_k`` on the class sizes (for the
  built-in datasets: their published class counts; a release of other data states where they
  came from on its card). The class sizes themselves are private under this relation.
- the allocation of ``T`` must be public, so it is computed from the public bounds:
  ``allocation="equal"`` (``floor(T/K)`` per class) or ``"proportional"`` to the bounds
  (``floor(T n_k / sum n)``; a release then draws ``T_k`` from the bounds too, never from the
  private class sizes: :func:`dpcda.mechanisms.generate_dpcda`). For a built-in dataset the bounds
  are its published counts, so the split keeps the class balance (UCI Adult's 76% / 24%).
- every class needs ``n_k >= l + 1`` (a class that loses the record still holds ``l``); ``l``
  above ``min(n_k) - 1`` is refused with the allowed range.

Pure numpy/scipy; no torch.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.privacy.accountants import _COMMON, Accountant, register_accountant
from dpcda.privacy.events import Relation
from dpcda.privacy.params import PrivacyParams

NAME = "whole-record"

#: The neighbouring relation in plain words (shown next to every epsilon of this accountant).
RELATION_WHOLE = ("Two datasets are neighbours when one record, features and label, is replaced "
                  "by any other record; the class sizes are private (only public lower bounds "
                  "on them are used).")


def public_inputs(p: PrivacyParams) -> tuple[np.ndarray, np.ndarray]:
    """``(n_k, T_k)``: the public lower bounds on the class sizes and the public step counts
    (from the bounds, under either allocation), or a ValueError naming what this relation needs."""
    if p.class_counts is None:
        raise ValueError("accountant 'whole-record' needs class_counts (public lower bounds n_k "
                         "on the records per class, at least 2 classes), got class_counts=None")
    # Both allocations are computed from class_counts, which here are the public bounds n_k
    # (PrivacyParams.samples_per_class): floor(T/K) or floor(T n_k / sum n), public either way.
    return np.asarray(p.class_counts, dtype=np.int64), np.asarray(p.samples_per_class, dtype=np.int64)


def max_l(class_bounds) -> int:
    """The largest ``l`` this relation allows: ``min(n_k) - 1``."""
    return int(min(int(n) for n in class_bounds)) - 1


def check_l(l: int, n: np.ndarray) -> int:
    top = int(n.min()) - 1
    if not 1 <= int(l) <= top:
        raise ValueError(f"l must be an integer from 1 to {top} under the whole-record relation (the "
                         f"smallest class, {int(n.min())} records, must keep l records after losing "
                         f"one), got l={int(l) if float(l).is_integer() else l}")
    return int(l)


def _direct(p: PrivacyParams, l, sx, sy, value_interval, lower):
    """``(eps, eps_lower, step)`` arrays (the :class:`Accountant` ``direct`` contract)."""
    from dpcda.privacy.whole_record_calibration import whole_record_epsilon

    eps, low, step = np.zeros(len(l)), np.full(len(l), np.nan), np.full(len(l), np.nan)
    if not (np.asarray(sx) > 0).any():  # the non-private setting: infinite whatever the split
        return np.full(len(l), np.inf), low, step
    n, T = public_inputs(p)
    for i, (li, si) in enumerate(zip(l, sx)):
        li = check_l(li, n)
        if not si > 0:
            eps[i] = math.inf
            continue
        r = whole_record_epsilon(sigma=float(si), l=li, lower_counts=n, steps=T, delta=p.delta,
                                 c=p.c, value_interval=value_interval, lower=lower)
        eps[i] = r.epsilon
        if r.method == "pld":
            low[i], step[i] = r.epsilon_discretisation_lower, r.value_interval
    return eps, low, step


def _composed(p: PrivacyParams, mu: float, value_interval, lower: bool):
    """:func:`whole_record_epsilon` with the ``mu``-GDP release composed in; None if the
    setting is not private (infinite epsilon)."""
    from dpcda.privacy.whole_record_calibration import whole_record_epsilon

    if not p.private:
        return None
    n, T = public_inputs(p)
    li = check_l(p.l, n)
    if not p.sigma_x > 0:
        return None
    return whole_record_epsilon(sigma=p.sigma_x, l=li, lower_counts=n, steps=T, delta=p.delta,
                                c=p.c, value_interval=value_interval, lower=lower,
                                extra_mu=float(mu))


def composed_epsilon(p: PrivacyParams, *, mu: float, value_interval: float | None = None) -> float:
    """Whole-record epsilon of a release whose normalisation statistics were one ``mu``-GDP
    Gaussian release (``dp-center``), composed exactly with the two affected classes' PLDs
    (``value_interval``: the loss grid; None: chosen per setting)."""
    r = _composed(p, mu, value_interval, lower=False)
    return math.inf if r is None else r.epsilon


def composed_bounds(p: PrivacyParams, *, mu: float, value_interval: float | None = None):
    """``(epsilon, epsilon_discretisation_lower, value_interval)``: :func:`composed_epsilon`
    and the lower bound of the same composition (the Gaussian's losses rounded down,
    docs/whole-record.md §7), with the grid step; the last two are None where the RDP bound
    was reported or the setting is not private."""
    r = _composed(p, mu, value_interval, lower=True)
    if r is None:
        return math.inf, None, None
    if r.method != "pld" or not math.isfinite(r.epsilon_discretisation_lower):
        return r.epsilon, None, None
    return r.epsilon, min(r.epsilon_discretisation_lower, r.epsilon), r.value_interval


def calibrate_composed(*, epsilon: float, mu: float, ratio: float = 1.0, **params):
    """``(sigma_x, sigma_y, epsilon)``: the smallest ``sigma_x`` whose :func:`composed_epsilon`
    meets ``epsilon`` (:func:`dpcda.privacy.composed.calibrate_composed`'s bisection, on this
    accountant's composed epsilon; never above the target)."""
    from dpcda.privacy.composed import calibrate_composed as calibrate_with

    return calibrate_with(epsilon=epsilon, mu=mu, ratio=ratio, accountant=NAME,
                          epsilon_of=composed_epsilon, fine=None, **params)


register_accountant(Accountant(
    NAME, "One person's whole record, label included (exact composition, PLD)",
    "Replace-one neighbours: one record, **features and label**, replaced by any other record. "
    "When the label changes, class k loses a record and class k' gains one; each of the **T_k** "
    "mixtures of class k is then (γA₁ + (1−γ)R, R) with R the mixture on the class without the "
    "record and γ = l/n_k, A₁ against R a shift of 2c/l (and the mirror for class k'). Both are "
    "dominated by the symmetrised pair of `class-aware-pld`; the T_k steps of both classes are "
    "composed exactly on a privacy-loss grid and the worst pair of classes is taken. The class "
    "sizes are private: only public lower bounds n_k on them enter (γ = l/n_k and l/(n_k + 1)), "
    "T is split equally or in proportion to the public bounds (a public allocation either way), "
    "and every class keeps at least l + 1 records "
    "(docs/whole-record.md). The epsilon is an upper bound; the discretisation error is "
    "reported beside it." + _COMMON,
    2, ("class_counts",), None, relation=RELATION_WHOLE, kinds=("class-mixture",),
    neighbours=Relation.REPLACE_ONE, direct=_direct))
