"""What a screen has released from the private data, composed: several DP-CDA draws, each with
its own ``l``, noise and per-class sample counts, under the ``whole-record`` relation.

A dashboard shows more than the release: live previews, mosaic cells, full releases, a
``dp-center`` statistics release. Each is a fresh draw from the same private data, so what a
viewer has seen is their composition. :func:`compose_shown` bounds it by Rényi DP:

* one draw ``i`` at ``s_i = 2c / (l_i sigma_i)`` with ``T_ik`` samples of class k is dominated,
  for the ordered pair of classes ``(a, b)`` a whole-record change touches (a loses the record,
  b gains it), by ``S(s_i, l_i / n_a)^{T_ia} (x) S(s_i, l_i / (n_b + 1))^{T_ib}``
  (docs/whole-record.md, :mod:`dpcda.privacy.whole_record`); its Rényi divergence is at most
  ``T_ia D(s_i, l_i/n_a) + T_ib D(s_i, l_i/(n_b+1))`` with ``D`` of
  :func:`dpcda.privacy.whole_record_rdp.rdp_symmetrised`;
* Rényi divergences of the same neighbouring pair add up over independent draws, so for each
  pair the composition's RDP is ``L_a(alpha) + G_b(alpha)`` with ``L_a = sum_i T_ia D(...)``
  and ``G_b`` likewise, plus ``alpha mu_j^2 / 2`` for every ``mu_j``-GDP Gaussian release;
* converted once (Balle et al. 2020, Thm 21) at the best order of :data:`ORDERS`, the maximum
  over every ordered pair ``a != b`` (the label-kept change is dominated by any pair with it).

Two identical draws compose to exactly the RDP of one draw at ``2 T_k`` (tested against
:func:`dpcda.privacy.whole_record_rdp.whole_record_rdp`). RDP is looser than the PLD the release
itself is accounted with (for one digits release at sigma = 0.3, l = 4: 13.9 against 11.1), so
the composed epsilon is an upper bound that is larger than a single release's card even for
one draw. A draw with no noise (``sigma = 0``: real records shown) or from statistics outside
the guarantee (``covered=False``: z-score) makes the composition infinite; :class:`Composed`
keeps the epsilon of the covered noisy draws apart.

Pure numpy/scipy; no torch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: Rényi orders the composition is converted at (sparse: each divergence costs ~10-50 ms).
ORDERS: tuple[int, ...] = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128,
                           160, 192, 256)
#: The relation the composition is stated under.
RELATION = "whole-record"


@dataclass(frozen=True)
class Drawn:
    """One draw from the private data shown on a screen: ``kind`` (``"preview"``,
    ``"mosaic cell"``, ``"release"``, ``"statistics"``), feature noise ``sigma`` (0: no noise,
    real records or their means), order of mixture ``l``, samples per class ``steps`` (all 0 for
    a statistics release alone), clip norm ``c``, a ``mu``-GDP Gaussian release within it
    (``dp-center`` statistics; 0 for none) and ``covered`` (False: it used statistics of the
    private data outside the guarantee)."""

    kind: str
    sigma: float
    l: int
    steps: tuple[int, ...]
    c: float = 1.0
    mu: float = 0.0
    covered: bool = True
    #: False: a release of another mechanism (DP-MERF, DPMix, …), accounted on its own card by
    #: its own analysis and not composed here: the composition is then unbounded (said so).
    composable: bool = True

    @property
    def noisy(self) -> bool:
        """Whether the draw's mixing was private (noise on every sample it drew)."""
        return not any(self.steps) or self.sigma > 0


@dataclass(frozen=True)
class Composed:
    """The composition of ``releases`` draws at ``delta``: ``epsilon`` (inf when real records
    or uncovered draws are among them), ``noisy_epsilon`` (the covered noisy draws alone; 0 when
    there are none), ``alpha`` (the best order of ``noisy_epsilon``, None when none), and the
    counts ``real`` (draws without noise), ``uncovered`` and ``other`` (releases of other
    mechanisms, not composed here)."""

    epsilon: float
    noisy_epsilon: float
    delta: float
    alpha: int | None
    releases: int
    real: int
    uncovered: int
    other: int = 0


@lru_cache(maxsize=4096)
def _divergence(s: float, gamma: float, orders: tuple[int, ...]) -> np.ndarray:
    from dpcda.privacy.whole_record_rdp import rdp_symmetrised

    out = rdp_symmetrised(s, gamma, np.asarray(orders))
    out.setflags(write=False)
    return out


def _check(draws, lower_counts, delta, orders):
    from dpcda.privacy.whole_record import _ints

    n = _ints("lower_counts", lower_counts, 1)
    if len(n) < 2:
        raise ValueError(f"lower_counts must name at least 2 classes, got {len(n)}")
    if not 0.0 < float(delta) < 1.0:
        raise ValueError(f"delta must be in (0, 1), got delta={delta!r}")
    orders = tuple(int(a) for a in orders)
    if not orders or min(orders) < 2:
        raise ValueError(f"orders must be integers >= 2, got orders={orders!r}")
    for d in draws:
        if not isinstance(d, Drawn):
            raise ValueError(f"draws must be Drawn records, got {type(d).__name__}")
        if not d.composable:
            continue
        if len(d.steps) != len(n):
            raise ValueError(f"a {d.kind}'s steps must have one entry per class (K={len(n)}), "
                             f"got {len(d.steps)}")
        top = int(n[[k for k, t in enumerate(d.steps) if t > 0]].min()) - 1 if any(d.steps) else None
        if top is not None and not 1 <= d.l <= top:
            raise ValueError(f"l must be from 1 to {top} under the whole-record relation (a "
                             f"served class must keep l records after losing one), got "
                             f"l={d.l} in a {d.kind}")
        if not (d.sigma >= 0 and d.c > 0 and d.mu >= 0):
            raise ValueError(f"sigma and mu must be >= 0 and c > 0, got sigma={d.sigma!r}, "
                             f"c={d.c!r}, mu={d.mu!r}")
    return n, float(delta), orders


def _sides(d: Drawn, n: np.ndarray, orders: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(lose, gain)``, each ``(K, len(orders))``: the draw's RDP per class on each side."""
    from dpcda.privacy.whole_record import class_rates, noise_ratio

    lose = np.zeros((len(n), len(orders)))
    gain = np.zeros((len(n), len(orders)))
    if not any(d.steps):
        return lose, gain
    s = noise_ratio(float(d.sigma), int(d.l), float(d.c))
    g_lose, g_gain = class_rates(int(d.l), n)
    for k, t in enumerate(d.steps):
        if t > 0:
            lose[k] = t * _divergence(s, float(g_lose[k]), orders)
            gain[k] = t * _divergence(s, float(g_gain[k]), orders)
    return lose, gain


def compose_shown(draws, *, lower_counts, delta: float, orders=ORDERS) -> Composed:
    """The whole-record (epsilon, ``delta``) of every draw in ``draws`` together (module
    docstring). ``lower_counts``: the public lower bounds ``n_k`` on the class sizes (those the
    accountant of the releases reads). Raises ``ValueError`` naming the parameter."""
    from dpcda.privacy.conversion import eps_improved

    draws = list(draws)
    n, delta, orders = _check(draws, lower_counts, delta, orders)
    other = sum(1 for d in draws if not d.composable)
    mine = [d for d in draws if d.composable]
    real = sum(1 for d in mine if not d.noisy)
    uncovered = sum(1 for d in mine if d.noisy and not d.covered)
    kept = [d for d in mine if d.noisy and d.covered]
    a = np.asarray(orders, dtype=float)
    L = np.zeros((len(n), len(a)))
    G = np.zeros((len(n), len(a)))
    mu2 = 0.0
    for d in kept:
        lose, gain = _sides(d, n, orders)
        L += lose
        G += gain
        mu2 += float(d.mu) ** 2
    eps, alpha = 0.0, None
    if kept:
        total = L[:, None, :] + G[None, :, :] + a * mu2 / 2.0          # (a, b, order)
        with np.errstate(invalid="ignore", over="ignore"):
            e = eps_improved(a, total, delta)
        e = np.where(np.isnan(e), np.inf, e)
        e[np.arange(len(n)), np.arange(len(n))] = -np.inf              # a == b is not a pair
        per_pair = e.min(axis=-1)
        a_, b_ = np.unravel_index(int(np.argmax(per_pair)), per_pair.shape)
        i = int(np.argmin(e[a_, b_]))
        eps = max(float(e[a_, b_, i]), 0.0)
        alpha = int(orders[i]) if math.isfinite(eps) else None
    full = math.inf if real or uncovered or other else eps
    return Composed(epsilon=full, noisy_epsilon=eps, delta=delta, alpha=alpha,
                    releases=len(draws), real=real, uncovered=uncovered, other=other)


def release_facts(mechanism: str, card) -> dict:
    """The public facts of a release's data card (a dict) that :func:`drawn_of` needs, as plain
    JSON for a job's result: a DP-CDA release's noise, ``l``, ``c``, samples per class, its
    ``dp-center`` statistics' GDP ``mu`` and whether its normalisation is covered; for any other
    mechanism only its name (it is not composed here)."""
    par, priv = card.get("parameters") or {}, card.get("privacy") or {}
    if mechanism != "dp-cda" or "T_per_class" not in par:
        return {"mechanism": str(mechanism)}
    mu = (priv.get("composed_with") or {}).get("mu_gdp") or 0.0
    norm = card.get("normalization") or {}
    return {"mechanism": "dp-cda", "sigma_x": float(par.get("sigma_x") or 0.0), "l": int(par["l"]),
            "T_per_class": [int(t) for t in par["T_per_class"]], "c": float(par["c"]),
            "mu": float(mu), "covered": bool(norm.get("covered_by_guarantee", True))}


def drawn_of(facts, *, kind: str, n_classes: int) -> Drawn:
    """The :class:`Drawn` of :func:`release_facts` (a job's result written before those facts
    were kept, ``None``, counts as a release not composed here)."""
    k = int(n_classes)
    if not facts or facts.get("mechanism") != "dp-cda" or len(facts.get("T_per_class", ())) != k:
        return Drawn(kind, 0.0, 1, (0,) * k, composable=False)
    return Drawn(kind, float(facts["sigma_x"]), int(facts["l"]),
                 tuple(int(t) for t in facts["T_per_class"]), float(facts["c"]),
                 mu=float(facts.get("mu") or 0.0), covered=bool(facts.get("covered", True)))
