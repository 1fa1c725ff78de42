"""DP-CDA across sites: the masks' float64 cancellation error, and the three modes measured.

    PYTHONPATH=. python benchmarks/bench_sites.py                      # cancellation (digits, s)
    PYTHONPATH=. DPCDA_DATA_DIR=... python benchmarks/bench_sites.py --dataset mnist --sites 10

Part 1 prints, for S sites and a mask ratio (mask std / aggregate noise std), the largest
``|fl(sum_s M_s) - sum_s (P_s + g_s)|`` over the aggregate noise std, and over the proved bound
(docs/decentral.md, Theorem 3). Part 2 (``--dataset``) runs ``python -m dpcda sites``' measurement:
per mode the accuracy of the default learner on the real test split, the epsilon and the release
seconds. Figures go to docs/decentral.md.
"""

from __future__ import annotations

import argparse
import json


def cancellation() -> None:
    """The aggregate's error against the float64 sum of the shares (digits, S = 3 and 10), and
    the floating-point epsilon the card adds at MNIST's size (60,000 x 794 values, sigma of
    epsilon = 1, l = 4, computed from public facts; the lattice sum on the share grid)."""
    from sklearn.datasets import load_digits

    from dpcda.mechanisms.cape_float import value_bound
    from dpcda.mechanisms.cape_grid import lattice_cost, share_grid_bits
    from dpcda.mechanisms.cape_run import CapeTrace, run_cape
    from dpcda.mechanisms.sites import split_sites
    from dpcda.randomness.secure import SecureRandom

    X, y = load_digits(return_X_y=True)
    for S in (3, 10):
        sites = split_sites(X, y, sites=S, split="iid", n_classes=10, rng=SecureRandom())
        tr = CapeTrace()
        common = dict(l=4, c=1.0, epsilon=1.0, sigma_x=None, delta=1e-5, normalize="scale",
                      bounds=(0, 16), accountant=None, dataset="digits", n_classes=10,
                      compare_accountants=False)
        rel = run_cape(sites, l=4, T=len(y), common=common, ts=[], seed=None, drop=(), trace=tr)
        fp = rel.card["privacy"]["floating_point"]
        print(f"digits S={S:3d}: values {tr.n_values}, max error / sigma {tr.err_over_sigma:.2e}, "
              f"max error / bound {tr.err_over_bound:.3f}, epsilon_added {fp['epsilon_added']:.2e}")
    from dpcda.privacy import calibrate

    counts = (5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949)
    cal = calibrate(epsilon=1.0, l=4, c=1.0, T=60000, delta=1e-5, d_x=784, d_y=10, n=60000,
                    class_counts=counts, allocation="equal")
    for S in (10, 100):
        A = value_bound(1.0, cal.sigma_x, cal.sigma_y, S)
        F = share_grid_bits(S, cal.sigma_x, cal.sigma_y)
        cost = lattice_cost(S, S, A, F, (60000 * 784, cal.sigma_x), (60000 * 10, cal.sigma_y))
        print(f"MNIST size S={S:3d}: sigma_x {cal.sigma_x:.3f}, F {F}, eta {cost.eta:.2e}, "
              f"epsilon_added {cost.epsilon_added:.2e}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=None)
    ap.add_argument("--sites", type=int, default=10)
    ap.add_argument("--split", default="iid")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    if a.dataset is None:
        cancellation()
        return
    from dpcda.experiments.sites_run import run_sites

    res = run_sites(dataset=a.dataset, sites=a.sites, split=a.split, epsilon=a.epsilon, runs=a.runs)
    for mode, r in res.items():
        print(f"{mode:12s} accuracy {r['accuracy']:.4f} epsilon {r['epsilon']} "
              f"release {r['release_seconds']:.1f} s learner {r['learner']}")
    print(json.dumps({m: {"accuracy": r["accuracy"], "release_seconds": r["release_seconds"],
                          "threat_models": [(t["key"], t["colluding_sites"], t["epsilon"])
                                            for t in r["threat_models"]]} for m, r in res.items()}))


if __name__ == "__main__":
    main()
