"""The public bounds of a CAPE release's fixed-point messages (docs/decentral.md, Theorems 2-3).

:func:`value_bound` is the public ``A`` every share ``|P_s + g_s|`` stays below in the bulk (the
messages clip there; beyond is a tail event that
:func:`dpcda.mechanisms.cape_grid.lattice_cost` counts). :func:`band` bounds the computed
aggregate's distance from the float64 sum of the unrounded shares (the share grid's roundings,
the int64 -> float64 conversion, the shares' float error): what a test or a benchmark checks
(:class:`dpcda.mechanisms.cape_run.CapeTrace`). What floating point adds to the guarantees is
:mod:`dpcda.mechanisms.cape_grid`'s.
"""

from __future__ import annotations

import math

from dpcda.randomness.noise import NDTRI_REL_ERR, TAIL_B

_U = 2.0 ** -53


def value_bound(c: float, sigma_x: float, sigma_y: float, S: int) -> float:
    """The public bound ``A`` on every share ``|P_s + g_s|`` in the bulk: ``max(c, 1)`` (the
    partial mean, the label share) plus ``TAIL_B`` share standard deviations."""
    return max(float(c), 1.0) + TAIL_B * max(float(sigma_x), float(sigma_y)) / math.sqrt(S)


def band(S: int, sigma: float, A: float, F: int) -> float:
    """The public bound ``w`` on ``|computed aggregate - sum of the unrounded shares|`` in the
    bulk: ``S`` roundings to ``2^-F``, the conversion, each share's sampler and sum errors."""
    share = sigma / math.sqrt(S) * TAIL_B * (NDTRI_REL_ERR + 8 * _U) + 2 * _U * A
    return S * 2.0 ** -(F + 1) + _U * S * A + S * share
