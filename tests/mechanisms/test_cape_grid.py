"""The sites' share grid and its floating-point accounting (dpcda.mechanisms.cape_grid)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr

from dpcda.mechanisms.cape_grid import aliasing, lattice_cost, share_eta, share_grid_bits


def test_share_grid_has_8_to_16_cells_per_share_std():
    for S, sx, sy in [(10, 0.36, 0.5), (3, 2.0, 0.1), (100, 0.05, 0.05)]:
        F = share_grid_bits(S, sx, sy)
        tau = min(sx, sy) / math.sqrt(S)
        assert tau / 16 < 2.0 ** -F <= tau / 8
    assert share_grid_bits(4, 0.0, 0.0) is None
    assert share_grid_bits(4, 0.0, 0.8) == share_grid_bits(4, 0.8, 0.0)


def _cells(m, tau, gamma, ks):
    """Exact cell masses of round(N(m, tau^2)) on the lattice gamma * ks."""
    return ndtr((ks * gamma + gamma / 2 - m) / tau) - ndtr((ks * gamma - gamma / 2 - m) / tau)


def test_lattice_sum_is_the_rounded_gaussian_plus_uniforms():
    """Poisson summation, checked exactly for H = 2: the pmf of round(y1) + round(y2) equals
    P(round(Y'') = v), Y'' = m1 + m2 + N(0, 2 tau^2) + one uniform on a cell (a post-processing
    of the ideal sum), to quadrature precision in the bulk; the theorem's bound is far below."""
    tau, gamma = 1.0, 1.0 / 8
    m1, m2 = 0.3141, -0.0577
    ks = np.arange(-200, 201)
    p1, p2 = _cells(m1, tau, gamma, ks), _cells(m2, tau, gamma, ks)
    pmf = np.convolve(p1, p2)  # lattice -400..400
    vs = np.arange(-400, 401) * gamma
    u = (np.arange(4000) + 0.5) / 4000 * gamma - gamma / 2  # midpoint rule over the uniform
    s2 = math.sqrt(2) * tau
    bulk = np.abs(vs - (m1 + m2)) < 6 * s2
    want = np.array([np.mean(ndtr((v + gamma / 2 - m1 - m2 - u) / s2)
                             - ndtr((v - gamma / 2 - m1 - m2 - u) / s2)) for v in vs[bulk]])
    assert np.max(np.abs(pmf[bulk] / want - 1)) < 1e-6
    assert aliasing(2, tau, gamma) < 1e-80
    # a grid too coarse for the sum (one cell per std) is refused by the bound
    assert aliasing(2, tau, 1.0) > 1


def test_lattice_cost_grows_with_the_honest_sites_and_covers_the_shares():
    S, sx, sy, A = 10, 0.36, 0.5, 3.3
    F = share_grid_bits(S, sx, sy)
    costs = [lattice_cost(H, S, A, F, (1000, sx), (100, sy)) for H in (1, 5, 10)]
    assert costs[0].eta < costs[1].eta < costs[2].eta
    e_h = max(share_eta(S, sx, A, F), share_eta(S, sy, A, F))
    assert costs[2].eta == pytest.approx((1 + e_h) ** 10 - 1, rel=1e-6)
    assert 0 < e_h < 1e-10
    assert costs[2].n_values == 1100 and costs[2].tail < 1e-30
    assert lattice_cost(3, S, A, F, (10, 0.0)).n_values == 0
