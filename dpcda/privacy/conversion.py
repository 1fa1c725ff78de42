"""RDP -> (epsilon, delta) conversions: pure functions over arrays of orders.

- ``mironov`` — as published (Mironov 2017, Proposition 3; DP-CDA Theorem 1):
  ``epsilon(alpha) = RDP(alpha) + log(1/delta) / (alpha - 1)``.
- ``improved`` — Balle et al. 2020 (Theorem 21; what Google's dp_accounting uses):
  ``epsilon(alpha) = RDP(alpha) + log((alpha-1)/alpha) - (log(delta) + log(alpha)) / (alpha - 1)``.

Both are valid for every order ``alpha > 1``; the reported epsilon is the minimum over the
orders offered, never below 0.
"""

from __future__ import annotations

import numpy as np

from dpcda.util.registry import Registry

CONVERSIONS: Registry = Registry("conversion")

CONVERSION_TITLES = {
    "mironov": "Mironov 2017, Prop. 3 (as published in the paper)",
    "improved": "Balle et al. 2020, Thm. 21 (tighter; used by dp_accounting)",
}


@CONVERSIONS.register("mironov")
def eps_mironov(orders, rdp, delta: float) -> np.ndarray:
    """epsilon at each order: ``rdp + log(1/delta)/(alpha-1)`` (``inf`` where rdp is inf)."""
    orders = np.asarray(orders, dtype=float)
    return np.asarray(rdp, dtype=float) + np.log(1.0 / delta) / (orders - 1.0)


@CONVERSIONS.register("improved")
def eps_improved(orders, rdp, delta: float) -> np.ndarray:
    """epsilon at each order: ``rdp + log1p(-1/alpha) - (log delta + log alpha)/(alpha-1)``."""
    orders = np.asarray(orders, dtype=float)
    return (np.asarray(rdp, dtype=float) + np.log1p(-1.0 / orders)
            - (np.log(delta) + np.log(orders)) / (orders - 1.0))


def list_conversions() -> list[str]:
    return CONVERSIONS.names()


def best_epsilon(orders, rdp, delta: float, conversion: str):
    """Minimise a conversion over the orders (last axis). Returns ``(epsilon, index)`` arrays.

    Where every order gives infinity the epsilon is ``inf`` and the index ``-1``.
    """
    eps = CONVERSIONS.get(conversion)(orders, rdp, delta)
    eps = np.where(np.isnan(eps), np.inf, eps)
    idx = np.argmin(eps, axis=-1)
    best = np.take_along_axis(eps, idx[..., None], axis=-1)[..., 0]
    idx = np.where(np.isfinite(best), idx, -1)
    return np.maximum(best, 0.0), idx


def epsilon_floor(delta: float, max_alpha: int, conversion: str, min_alpha: int = 2) -> float:
    """The smallest epsilon any noise level can reach with orders up to ``max_alpha`` (RDP = 0)."""
    orders = np.arange(min_alpha, int(max_alpha) + 1, dtype=float)
    eps, _ = best_epsilon(orders, np.zeros_like(orders), delta, conversion)
    return float(eps)
