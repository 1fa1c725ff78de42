"""DP-CDA across sites: the masks' float64 cancellation error, the release time, the three modes.

    PYTHONPATH=. python benchmarks/bench_sites.py                      # cancellation (digits, s)
    PYTHONPATH=. DPCDA_DATA_DIR=... python benchmarks/bench_sites.py --release mnist --sites 10
    PYTHONPATH=. DPCDA_DATA_DIR=... python benchmarks/bench_sites.py --dataset mnist --sites 10

``--release`` times the centralized release and the CAPE release (``--engine``, default the
local worker processes) of the same data, prints both, their ratio, the CAPE release's parts
(engine start, the coordinator's set-up, the sites' stream, the rest) and the per-site critical
path: what one machine per site would take (the release without the engine's start and with the
stream replaced by the slowest site's own compute, in CPU seconds with its sampler's threads
summed: an upper bound that other processes' load does not inflate; the transport between
machines is not in it).

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


def release_time(dataset: str, S: int, epsilon: float, engine: str, repeats: int) -> None:
    """Centralized vs CAPE release seconds on ``dataset``'s training split (l = 4, T = N)."""
    import time

    from dpcda.data import load_dataset
    from dpcda.data.presets import default_clip_norm
    from dpcda.mechanisms.cape import generate_sites
    from dpcda.mechanisms.cape_run import CapeTrace, run_cape
    from dpcda.mechanisms.sites import split_sites

    ds = load_dataset(dataset)
    placed = split_sites(ds.X_train, ds.y_train, sites=S, split="iid", n_classes=ds.n_classes)
    c, bounds = default_clip_norm(dataset), getattr(ds, "feature_bounds", None)
    T = ds.n_train
    common = dict(l=4, c=c, epsilon=epsilon, sigma_x=None, delta=1e-5, normalize="scale",
                  bounds=bounds, accountant=None, dataset=dataset, n_classes=ds.n_classes,
                  compare_accountants=False, class_bounds="data")
    for rep in range(repeats):  # interleaved, so that both see the same load
        t0, c0 = time.perf_counter(), _cpu()
        generate_sites(placed, mode="centralized", l=4, T=T, epsilon=epsilon, c=c,
                       normalize="scale", bounds=bounds, dataset=dataset)
        central, central_cpu = time.perf_counter() - t0, _cpu() - c0
        tr = CapeTrace(errors=False)
        t0, c0 = time.perf_counter(), _cpu()
        run_cape(placed, l=4, T=T, common=common, ts=[1, S // 2, S - 1], seed=None, drop=(),
                 trace=tr, engine=engine)
        cape, cape_cpu = time.perf_counter() - t0, _cpu() - c0
        critical = cape - tr.start_seconds - tr.stream_seconds + max(tr.site_seconds)
        print(f"{dataset} S={S} eps={epsilon} run {rep + 1}: centralized {central:.1f} s, "
              f"cape ({tr.engine}) {cape:.1f} s, ratio {cape / central:.2f}; cape parts: start "
              f"{tr.start_seconds:.1f}, set-up {tr.setup_seconds:.1f}, stream "
              f"{tr.stream_seconds:.1f}, rest {tr.finish_seconds:.1f}; site compute (CPU) max "
              f"{max(tr.site_seconds):.1f} s, sum {sum(tr.site_seconds):.1f} s; per-site critical "
              f"path {critical:.1f} s, ratio {critical / central:.2f}; CPU seconds (this process "
              f"and its finished children: not Ray's workers) centralized {central_cpu:.1f}, cape "
              f"{cape_cpu:.1f}, ratio {cape_cpu / central_cpu:.2f}")


def _cpu() -> float:
    """CPU seconds of this process and its waited-for children (the local engine's workers)."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", default=None, help="time the releases on this dataset")
    ap.add_argument("--engine", default="local")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--dataset", default=None)
    ap.add_argument("--sites", type=int, default=10)
    ap.add_argument("--split", default="iid")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    if a.release is not None:
        release_time(a.release, a.sites, a.epsilon, a.engine, a.repeats)
        return
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
