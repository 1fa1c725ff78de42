"""Does the per-direction maximum bound every dataset pair of Algorithm 1? A numerical check.

    /work/venv/bin/python benchmarks/pld_directions.py                # N = 6000, l = 64 (~2 min)
    /work/venv/bin/python benchmarks/pld_directions.py 600 4 0.3 600  # N l sigma T

The open question of docs/pld.md §4. One class of N records on a line, c = 1: record i is at +1
in D and at -1 in D' (the largest change), k other records at +1 and the rest at -1. One step
releases the mean of an l-subset drawn without replacement plus N(0, sigma^2): a mixture over
the hypergeometric number of +1 records in the subset. For every k the script computes a
*lower bound* on the epsilon of T compositions of that dataset pair, in both orders: the output
is quantised to cells of sigma/200 (post-processing: it can only lower the divergence), the
losses are rounded down on the grid 1e-4 and shifted back by the Chernoff bound on the total
rounding (as ``class-aware-pld``'s lower bound, docs/pld.md §5). It prints them beside the
per-direction maximum (dp_accounting's way; an upper bound of each direction, connect the dots)
and the symmetrised pair that ``class-aware-pld`` reports. A lower bound above the per-direction
maximum would show that the per-direction maximum is not an upper bound.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from scipy.special import ndtr
from scipy.stats import hypergeom

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.privacy import pld  # noqa: E402

DELTA, H = 1e-5, 1e-4


def cells(N: int, K: int, l: int, sigma: float, edges: np.ndarray) -> np.ndarray:
    """Mass of every output cell when K of the N records are at +1 (the rest at -1)."""
    m = np.arange(l + 1)
    w = hypergeom.pmf(m, N, K, l)
    keep = w > 1e-300
    mu = (2 * m[keep] - l) / l
    cdf = ndtr((edges[None, :] - mu[:, None]) / sigma)
    mass = np.diff(cdf, axis=1)
    mass[:, 0] += cdf[:, 0]
    mass[:, -1] += 1 - cdf[:, -1]
    return w[keep] @ mass


def lower_epsilon(a: np.ndarray, b: np.ndarray, T: int) -> float:
    """A lower bound on the epsilon of T compositions of the quantised pair (a, b)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.log(a) - np.log(b)
    inf_mass = float(a[(b == 0) & (a > 0)].sum())
    ok = (a > 0) & (b > 0)
    loss, w = loss[ok], a[ok]
    k = np.floor(loss / H).astype(np.int64)
    i0 = int(k.min())
    j0, pmf, inf_T, misplaced = pld.compose(i0, np.bincount(k - i0, weights=w), inf_mass, T, H,
                                            tail=1e-5 * DELTA)
    eta = 1e-3 * DELTA
    shift = pld.rounding_shift(loss - k * H, w, T, H, eta)
    eps = pld.epsilon_for_delta(j0, pmf, inf_T, H, DELTA + eta + misplaced, floor=-math.inf,
                                upper=False)
    return max(eps + shift, 0.0)


def main(N=6000, l=64, sigma=0.0354, T=6000) -> None:
    edges = np.arange(-1 - 12 * sigma, 1 + 12 * sigma, sigma / 200)
    kw = {"s": 2.0 / (l * sigma), "gamma": l / N, "T": T, "delta": DELTA, "value_interval": H}
    sym = pld.pld_bounds(**kw).epsilon
    per = pld.directional_epsilon(**kw)
    print(f"N={N} l={l} sigma={sigma} T={T} delta={DELTA:g}: symmetrised pair {sym:.4f}, "
          f"per-direction maximum {per:.4f} (upper bounds)")
    worst = 0.0
    for k in sorted({0, 1, 3, 10, 30, 100, N // 10, N // 2, N - N // 6, N - 2, N - 1}):
        a, b = cells(N, k + 1, l, sigma, edges), cells(N, k, l, sigma, edges)
        e = max(lower_epsilon(a, b, T), lower_epsilon(b, a, T))
        worst = max(worst, e)
        print(f"  k = {k:5d} other records at +1: epsilon >= {e:.4f}", flush=True)
    print(f"largest lower bound {worst:.4f} vs per-direction maximum {per:.4f}: "
          + ("ABOVE (the per-direction maximum is not an upper bound)" if worst > per
             else "below (no counterexample in this family)"))


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*(int(args[0]), int(args[1]), float(args[2]), int(args[3]))) if args else main()
