"""``dp-center`` across sites: the per-feature DP mean by the CAPE protocol (docs/decentral.md,
Theorem 6), before the mixtures.

The centralized ``dp-center`` (:func:`dpcda.data.dp_normalize.fit_dp_center`) releases
``sum_i u_i + N(0, (sqrt(d)/mu)^2 I)`` once, ``u = sqrt(clip((x - low)/(high - low), 0, 1))``,
and divides by the public ``N``. Across sites the same sum is computed as the mixtures' are:
site s sends ``fix(U_s + g_s) + e_s`` mod 2^64 with ``U_s`` its own clipped column sums (the
same chunks and the same public shrink ``1 - max(2^-20, 4 N^2 2^-53)`` as the centralized code,
with the pooled ``N``: a site's float64 sum of ``n_s <= N`` rows errs by less), ``g_s ~ N(0,
(sqrt(d)/mu)^2/S I)`` on the public share grid (8 to 16 cells per share std), ``e_s`` the next
words of its pairwise mask streams. The aggregator's sum carries only the centralized noise; it
is rounded to the centralized public grid (a multiple of the share grid: exact) and divided by
``N``. ``N`` is public here as it is centrally (the coordinator holds the pooled class sizes;
every mode of :func:`~dpcda.mechanisms.cape.generate_sites` treats them as public).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcda.randomness.noise import TAIL_B, FloatCost

#: The statistics step's rows are read in chunks of this many (as the centralized code does).
CHUNK = 8192


@dataclass(frozen=True)
class CenterPlan:
    """The public parameters of the statistics step: ``mu`` (the centralized GDP parameter),
    ``noise_std`` on the sum (``sqrt(d)/mu``), ``F`` (share grid ``2^-F``), ``A`` (every share's
    bound in the bulk), ``shrink``, ``N`` and the public range ``low``, ``high``."""

    mu: float
    noise_std: float
    F: int
    A: float
    shrink: float
    N: int
    low: np.ndarray
    high: np.ndarray

    @property
    def d(self) -> int:
        return int(len(self.low))


def center_plan(*, S: int, N: int, d: int, mu: float, bounds) -> CenterPlan:
    """The step's public parameters (from ``S``, the pooled ``N``, ``d``, ``mu``, ``bounds``)."""
    from dpcda.data.preprocess import PIXEL_BOUNDS, _bounds
    from dpcda.mechanisms.cape_grid import share_grid_bits

    low, high = _bounds(PIXEL_BOUNDS if bounds is None else bounds, int(d))
    noise_std = math.sqrt(int(d)) / float(mu)
    F = share_grid_bits(S, noise_std, noise_std)
    A = float(N) + TAIL_B * noise_std / math.sqrt(S)
    if not S * A * 2.0 ** F < 2.0 ** 62:  # the ring must hold the sum of S shares
        raise ValueError(f"normalize='dp-center' across sites={S}: the statistics' noise is too "
                         "small for the fixed point; choose a smaller epsilon or normalize='scale'")
    shrink = 1.0 - max(2.0 ** -20, 4.0 * float(N) ** 2 * 2.0 ** -53)
    return CenterPlan(mu=float(mu), noise_std=noise_std, F=int(F), A=A, shrink=shrink, N=int(N),
                      low=np.asarray(low, dtype=np.float64), high=np.asarray(high, dtype=np.float64))


def site_sum(X, plan: CenterPlan) -> np.ndarray:
    """A site's clipped column sums ``U_s`` (float64, shrunk), as the centralized code reads them."""
    total = np.zeros(plan.d)
    for i in range(0, len(X), CHUNK):
        with np.errstate(over="ignore", invalid="ignore"):
            U = (np.asarray(X[i:i + CHUNK], dtype=np.float64) - plan.low) / (plan.high - plan.low)
        total += np.sqrt(np.clip(np.nan_to_num(U, nan=0.0), 0.0, 1.0)).sum(axis=0) * plan.shrink
    return total


def center_cost(H: int, S: int, plan: CenterPlan) -> FloatCost:
    """What floating point adds to the step's ``d`` values as a lattice sum of ``H`` of the ``S``
    shares (``H = S``: the release; Theorem 3 with the step's own grid and bound)."""
    from dpcda.mechanisms.cape_grid import lattice_cost

    return lattice_cost(H, S, plan.A, plan.F, (plan.d, plan.noise_std))


def run_center(eng, S: int, plan: CenterPlan, c: float):
    """The step over the engine's sites: their masked messages summed (the masks cancel), rounded
    to the centralized public grid, over ``N``: the fitted ``dp-center`` preprocessor."""
    from dpcda.data.dp_normalize import DPCenterNormalizer
    from dpcda.mechanisms.cape_masks import SiteDropout, check_range, from_fixed
    from dpcda.mechanisms.prepare import Preprocessor
    from dpcda.randomness.noise import grid_for

    msgs = eng.call("center_message", {s: (plan,) for s in range(S)})
    if any(msgs[s] is None for s in range(S)):
        raise SiteDropout("a site left after masking: the masks cannot cancel, so the "
                          "release is aborted and nothing is published")
    agg = msgs[0].copy()
    for s in range(1, S):
        agg += msgs[s]  # mod 2^64
    check_range(agg, S, plan.F, plan.A)
    g = grid_for(plan.noise_std, float(plan.N))
    total = np.rint(from_fixed(agg, plan.F) * (1.0 / g.gamma)) * g.gamma  # exact: powers of 2
    mean = np.clip(total / plan.N, 0.0, 1.0)
    norm = DPCenterNormalizer(low=plan.low.copy(), high=plan.high.copy(), mean=mean, mu=plan.mu,
                              noise_std=plan.noise_std, n=plan.N)
    return Preprocessor("dp-center", norm, c)


def composed_note(mu: float, t: int | None = None, S: int | None = None) -> dict:
    """The card's entry for the extra step under one threat model (``t`` None: the outside
    reader, the centralized ``mu``; else the view of the aggregator with ``t`` colluders)."""
    out = {"release": "dp-center normalisation statistics (per-feature means), one Gaussian "
                      "release summed across the sites by the same masked protocol",
           "mu_gdp": float(mu)}
    if t is None:
        out["method"] = "as centralized: composed exactly with the mixing (docs/dp_normalisation.md)"
    else:
        out["method"] = (f"its view's mu = centralized mu x sqrt(S/H) (S={S}, H={S - t}), "
                         "composed with the mixing's view in both bounds (docs/decentral.md, "
                         "Theorem 6)")
    return out
