"""The sites' public share grid, and what floating point adds towards each party
(docs/decentral.md, Theorem 3).

Each site quantises its noisy share ``P_s + g_s`` to the public grid ``gamma_F = 2^-F`` with
``gamma_F`` in ``(tau/16, tau/8]``, ``tau = sigma/sqrt(S)`` the share's noise
(:func:`share_grid_bits`; the smaller of the feature and label noises), before masking. Then:

* *each share* (:func:`share_eta`): the realised cell of ``fl(P_s + g_s)`` has a probability
  within ``1 +- eta_h`` of the ideal rounded Gaussian's in the bulk (the lemma of
  :class:`dpcda.randomness.noise.Grid` with the share's float error band), because ``gamma_F``
  is far coarser than that band;
* *the lattice sum of H shares* (:func:`aliasing`): by Poisson summation its pmf is
  ``gamma_F f_Y(v)`` up to a relative ``xi`` in the bulk, where ``Y`` is the ideal sum plus
  ``H - 1`` independent uniforms on a cell, rounded to the grid: a post-processing of the ideal
  Gaussian sum. ``xi`` is about ``H exp(-pi^2 tau^2 / (2 gamma_F^2))``, below ``e^-300``.

So the aggregate of all S sites (threat model (a); the release grid is a multiple of ``gamma_F``,
its rounding exact) and the honest sum of H sites (the view of (b), (c)) are each within a factor
``(1 +- eta_h)^H (1 +- xi)`` per value of a post-processing of the ideal Gaussian mechanism:
:func:`lattice_cost` returns that :class:`~dpcda.randomness.noise.FloatCost`.
"""

from __future__ import annotations

import math

import numpy as np

from dpcda.randomness.noise import NDTRI_REL_ERR, TAIL_B, FloatCost

_U = 2.0 ** -53
#: The share grid's cells per share standard deviation: ``tau / gamma_F`` in [8, 16).
GRID_PER_STD = 8
METHOD = ("each site's float64 share (inverse CDF of ChaCha20 uniforms) quantised to a public "
          "grid 2^-F of 8 to 16 cells per share std before masking (mod 2^64, exact "
          "cancellation); the lattice sum is a post-processing of the ideal Gaussian sum up to "
          "a relative error per value (docs/decentral.md, Theorem 3)")


def share_grid_bits(S: int, sigma_x: float, sigma_y: float) -> int | None:
    """``F`` with ``2^-F`` in ``(tau/16, tau/8]`` for the smaller positive share noise
    ``tau = sigma/sqrt(S)``; None without noise."""
    taus = [s / math.sqrt(S) for s in (float(sigma_x), float(sigma_y)) if s > 0]
    if not taus:
        return None
    return int(math.log2(GRID_PER_STD)) - math.floor(math.log2(min(taus)))


def share_eta(S: int, sigma: float, A: float, F: int) -> float:
    """Per-value bound on ``|realised / ideal - 1|`` of one share's cell in the bulk: the lemma of
    :meth:`dpcda.randomness.noise.Grid.eta` with the share's own error band ``w`` (the sampler's
    relative error over the bulk and the float64 sum ``P_s + g_s``) in place of the centralized
    sampler's, plus its term for the uniform's 2^-191 grid."""
    tau = float(sigma) / math.sqrt(S)
    gamma = 2.0 ** -F
    h = gamma / tau
    w = tau * TAIL_B * (NDTRI_REL_ERR + 8 * _U) + 2 * _U * A
    width = w / tau
    grid_v = 2.0 ** -190 / (h * _phi(TAIL_B + h))
    return 2.0 * (w / gamma) * math.exp((TAIL_B + h + width) * (h + 2.0 * width)) + grid_v


def _phi(z: float) -> float:
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def aliasing(H: int, tau: float, gamma: float) -> float:
    """Relative error ``xi`` of ``P(sum of H rounded N(m_h, tau^2) = v) = gamma f_Y(v)`` for
    ``|v - sum m_h| <= TAIL_B sqrt(H) tau + H gamma/2``. Absolute error (Poisson summation, each
    characteristic function's aliases beyond the first cell, and the Gaussian tail beyond
    ``pi/gamma``) ``<= H rho + gamma^2 e^{-H a} / (pi^2 H tau^2)`` with ``a = pi^2 tau^2 /
    (2 gamma^2)``, ``rho = 2 e^{-a} / (1 - e^{-8a})``; over ``gamma f_Y(v) >= gamma
    phi(TAIL_B + sqrt(H) gamma / tau) / (sqrt(H) tau)``, computed in logs."""
    a = (math.pi * tau / gamma) ** 2 / 2.0
    log_alias = math.log(2.0 * H) - a - math.log1p(-math.exp(-8.0 * a))
    log_beyond = 2.0 * math.log(gamma) - H * a - math.log(math.pi ** 2 * H * tau * tau)
    log_abs = float(np.logaddexp(log_alias, log_beyond))
    z = TAIL_B + math.sqrt(H) * gamma / tau
    log_den = (math.log(gamma) - 0.5 * z * z - 0.5 * math.log(2.0 * math.pi)
               - math.log(math.sqrt(H) * tau))
    return math.exp(min(log_abs - log_den, 700.0))


def lattice_cost(H: int, S: int, A: float, F: int, *parts: tuple[int, float]) -> FloatCost:
    """The floating-point cost of ``n`` values per ``(n, sigma)`` part, each the lattice sum of
    ``H`` of the ``S`` sites' shares (``H = S``: the release; ``H = S - t``: the honest sum)."""
    from scipy.special import ndtr

    live = [(int(n), float(s)) for n, s in parts if s > 0 and n > 0]
    if not live:
        return FloatCost(0, 0.0, 0.0)
    gamma = 2.0 ** -F
    eta = 0.0
    for _, sigma in live:
        tau = sigma / math.sqrt(S)
        e_h = share_eta(S, sigma, A, F)
        eta = max(eta, (1.0 + e_h) ** H * (1.0 + aliasing(H, tau, gamma)) - 1.0)
    if not eta < 0.5:
        raise ValueError(f"the lattice sum's error bound eta = {eta:g} is outside the lemma's range")
    # the margin of the centralized lemma, every share's bulk, and the sum's bulk region
    tail = 2.0 * float(ndtr(-(TAIL_B - 1.0))) + (H + 1) * 2.0 * float(ndtr(-TAIL_B))
    return FloatCost(n_values=sum(n for n, _ in live), eta=eta, tail=tail)
