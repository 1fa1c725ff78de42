"""What floating point adds to a CAPE release's guarantee (docs/decentral.md, Theorem 3).

The released value is the public grid's rounding of ``fl(sum_s M_s)``; the ideal is the rounding
of ``mean + N(0, sigma^2)``. Whenever every share ``Z_s`` lies in the sampler's bulk
(``|Z_s| <= TAIL_B``; the complement has probability ``S 2 G(TAIL_B)`` per value), the computed
aggregate is within the public band ``w`` of the ideal (:func:`band`): the fixed-point
quantisation (``S 2^-(F+1)``), the int64 -> float64 conversion (``2^-53 S A``), the shares'
inverse-CDF error (``S (sigma/sqrt S) TAIL_B (NDTRI_REL_ERR + 8u)``) and the float64 sums
``P_s + g_s`` (``S 2u A``). Every grid cell in the bulk then has a probability within a factor
``1 +- eta`` of the ideal's, with ``eta`` as in :class:`dpcda.randomness.noise.Grid`'s lemma for a
band of width ``w`` (plus the centralized sampler's own ``eta``, kept as a margin), and the
release is accounted like the centralized one (:class:`~dpcda.randomness.noise.FloatCost`).
The modular masks cancel exactly and add nothing.
"""

from __future__ import annotations

import math

from dpcda.randomness.noise import NDTRI_REL_ERR, TAIL_B, FloatCost, Grid

_U = 2.0 ** -53
METHOD = ("the sum of S float64 Gaussian shares (inverse CDF of ChaCha20 uniforms), quantised to "
          "a public fixed point, masked mod 2^64 (exact cancellation), rounded to a public "
          "power-of-two grid (docs/decentral.md, Theorem 3)")


def value_bound(c: float, sigma_x: float, sigma_y: float, S: int) -> float:
    """The public bound ``A`` on every share ``|P_s + g_s|`` in the bulk: ``max(c, 1)`` (the
    partial mean, the label share) plus ``TAIL_B`` share standard deviations."""
    return max(float(c), 1.0) + TAIL_B * max(float(sigma_x), float(sigma_y)) / math.sqrt(S)


def band(S: int, sigma: float, A: float, F: int) -> float:
    """The public bound ``w`` on ``|computed aggregate - ideal aggregate|`` in the bulk."""
    share = sigma / math.sqrt(S) * TAIL_B * (NDTRI_REL_ERR + 8 * _U) + 2 * _U * A
    return S * 2.0 ** -(F + 1) + _U * S * A + S * share


def cape_eta(grid: Grid, w: float) -> float:
    """Per-value bound on ``|realised / ideal - 1|`` for a cell of ``grid`` in the bulk."""
    h = grid.gamma / grid.sigma
    width = w / grid.sigma
    return grid.eta() + 2.0 * (w / grid.gamma) * math.exp((TAIL_B + h + width) * (h + 2 * width))


def cape_float_cost(S: int, A: float, F: int, *parts: tuple[int, Grid | None]) -> FloatCost:
    """The floating-point cost of ``n`` released values per ``(n, grid)`` part."""
    from scipy.special import ndtr

    live = [(int(n), g) for n, g in parts if g is not None and n > 0]
    if not live:
        return FloatCost(0, 0.0, 0.0)
    eta = max(cape_eta(g, band(S, g.sigma, A, F)) for _, g in live)
    if not eta < 0.5:
        raise ValueError(f"the aggregate's error bound eta = {eta:g} is outside the lemma's range")
    tail = 2.0 * float(ndtr(-(TAIL_B - 1.0))) + S * 2.0 * float(ndtr(-TAIL_B))
    return FloatCost(n_values=sum(n for n, _ in live), eta=eta, tail=tail)
