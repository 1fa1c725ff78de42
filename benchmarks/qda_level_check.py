"""Does the Wishart level of noise-aware QDA's rule bind on private releases? (issue 28, third pass)

    DPCDA_DATA_DIR=... python benchmarks/qda_level_check.py --datasets mnist fashion-mnist \\
        --points 10:64 1:8

For a fresh release at each point (every default, T = N) it prints the largest ratio, over the
classes and the pooled model, of ``qda_rule.wishart_level`` to the noise-based release bulk
``sigma_x^2 + f_k floor_k`` the rule finds without it. Below 1 the level never binds and the
rule's fit is the one it was before the level existed. Prints no noise and no class size.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def level_ratio(X, y, n_classes: int, noise_var: float, f) -> float:
    from dpcda.training.qda import class_moments
    from dpcda.training.qda_rule import spiked_eigenvalues, wishart_level

    X = np.asarray(X, dtype=np.float64).reshape(len(X), -1)
    _, S, counts = class_moments(X, np.asarray(y), n_classes)
    d, keep = X.shape[1], counts >= 2
    w = (counts[keep] - 1) / (counts[keep].sum() - keep.sum())
    pooled = (np.tensordot(w, S[keep], axes=1), float(np.sum(counts * f) / counts.sum()), counts.sum())
    ratios = []
    for Sk, fk, nk in [*zip(S[keep], np.asarray(f)[keep], counts[keep]), pooled]:
        ell = np.linalg.eigvalsh(Sk)
        gamma = d / max(int(nk) - 1, 1)
        floor = spiked_eigenvalues(ell, noise_var, float(fk), gamma, d)[2]
        ratios.append(wishart_level(ell, gamma, d) / (noise_var + float(fk) * floor))
    return float(max(ratios))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["mnist", "fashion-mnist"])
    ap.add_argument("--points", nargs="+", default=["10:64", "1:8"], help="eps:l")
    args = ap.parse_args(argv)

    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset
    from dpcda.training.qda import mixing_factors

    for name in args.datasets:
        ds = load_dataset(name)
        for point in args.points:
            eps, l = float(point.split(":")[0]), int(point.split(":")[1])
            rel = generate_from_dataset(ds, "dp-cda", l=l, T=ds.n_train, epsilon=eps)
            card = rel.data_card
            f = mixing_factors(l, card.data.get("class_bounds") or card.data.get("class_counts"))
            r = level_ratio(rel.X, rel.y, ds.n_classes, float(card.parameters["sigma_x"]) ** 2, f)
            print(f"{name:14s} eps={eps:<4g} l={l:<3d} max level / (sigma^2 + f floor): {r:.3f}"
                  + (" (never binds)" if r < 1 else " (binds)"), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
