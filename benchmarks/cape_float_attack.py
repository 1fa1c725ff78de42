"""An exact-exclusion attack on CAPE's view at threat model (c) with t = S - 1 colluding sites.

The aggregator and the S - 1 colluders remove their masks and messages and hold the honest
site's ``fix(P_h + g_h)``: its partial mean plus its share ``g_h = fl(z * s)`` (``z`` a float64
standard normal, ``s = fl(sigma / sqrt(S))``), in a fixed point ``2^-F`` finer than float64's
spacing near the value, so the float64 sum itself. ``z -> fl(z * s)`` does not reach every
float64, so for the neighbour's partial mean ``P'`` there may be no share at all that gives the
observed message: the neighbour is then ruled out with certainty (Mironov 2012's attack on
floating-point noise). The test is sound (it never rules out the truth: counted below) and
assumes nothing about ``z`` beyond being a float64. It reproduces ``cape_run._chunk``'s
arithmetic with the library's own sampler and fixed point.

    PYTHONPATH=. python benchmarks/cape_float_attack.py            # ~2 s
"""

from __future__ import annotations

import math
import sys

import numpy as np

from dpcda.mechanisms.cape_float import value_bound
from dpcda.mechanisms.cape_masks import fixed_point_bits, to_fixed
from dpcda.randomness.noise import standard_normal
from dpcda.randomness.secure import SecureRandom


def in_image(g: float, s: float) -> bool:
    """Whether some float64 z has fl(z * s) == g (z near g / s: a few ulps either side)."""
    z0 = g / s
    for direction in (np.inf, -np.inf):
        z = z0
        for _ in range(5):
            if z * s == g:
                return True
            z = np.nextafter(z, direction)
    return False


def possible(q: int, P: float, s: float, fix, F: int, cap: int = 256) -> bool:
    """Whether some share g in the image of z -> fl(z * s) gives fix(fl(P + g)) == q. The g that
    give q form an interval of float64s (fl(P + g) is monotone in g): walk it both ways."""
    g0 = np.float64(q * 2.0 ** -F) - P
    cands = []
    for direction in (np.inf, -np.inf):
        g = g0 if direction == np.inf else np.nextafter(g0, -np.inf)
        for n in range(cap + 4):
            hit = fix(P + g) == q
            if hit:
                cands.append(g)
            elif n >= 3 and (cands or n > 8):
                break
            g = np.nextafter(g, direction)
        else:
            return True  # too many candidates: no conclusion (sound)
    return any(in_image(g, s) for g in cands)


def attack(S: int, sigma: float, d: int = 64, l: int = 4, c: float = 1.0, uses: int = 20):
    s = sigma / math.sqrt(S)
    A = value_bound(c, sigma, sigma, S)
    F = fixed_point_bits(S, A)

    def fix(v) -> int:
        return int(to_fixed(np.array([v], dtype=np.float64), F, A).view(np.int64)[0])

    rng, src = np.random.default_rng(0), SecureRandom()
    ruled_out, false, coords = 0, 0, []
    for _ in range(uses):
        rows = rng.uniform(-1, 1, (l, d))
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        other = rng.uniform(-1, 1, d)
        other /= np.linalg.norm(other)
        P = rows.sum(axis=0) / l                       # D: the honest site's partial mean
        P2 = (rows[1:].sum(axis=0) + other) / l        # D': one of its records replaced
        g = standard_normal(src, d)
        g *= s                                         # as cape_run._chunk draws the share
        q = [fix(v) for v in P + g]                    # the honest message, masks removed
        false += sum(not possible(q[j], P[j], s, fix, F) for j in range(d))
        n = sum(not possible(q[j], P2[j], s, fix, F) for j in range(d))
        coords.append(n)
        ruled_out += n > 0
    return F, ruled_out, false, coords


def main() -> int:
    print("S  sigma   F  uses with the neighbour ruled out  truth ruled out  coordinates ruling "
          "it out (median of 64)")
    for S, sigma in ((10, 0.985), (2, 0.985), (10, 0.25), (100, 2.0)):
        F, out, false, coords = attack(S, sigma)
        print(f"{S:<3d} {sigma:<6g} {F:3d}  {out:2d}/20{'':27s}{false:d}{'':16s}"
              f"{int(np.median(coords))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
