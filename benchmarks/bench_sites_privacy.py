"""DP-CDA across sites: every threat model's epsilon for a setting, without a release.

    PYTHONPATH=. DPCDA_DATA_DIR=... python benchmarks/bench_sites_privacy.py --dataset mnist

Loads the dataset, splits it over S sites (iid by default: a fresh random split, so the last
digits move from run to run), calibrates the noise as the CAPE release does (the target epsilon
under the project's accountant, with CAPE's floating-point reserve), and prints (a) with its
floating-point total, the outside reader's epsilon under the inside relation, and for
t = 0 (b) and the card's t (c): the counts-mixture PLD, the known-indices bound (the old (b)),
the RDP cross-check, the seconds each took, and what floating point adds
(Theorem 3). Figures go to docs/decentral.md.
"""

from __future__ import annotations

import argparse
import math
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="mnist")
    ap.add_argument("--sites", type=int, default=10)
    ap.add_argument("--split", default="iid")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--l", type=int, default=4)
    ap.add_argument("--delta", type=float, default=1e-5)
    a = ap.parse_args()

    from dpcda.data import load_dataset
    from dpcda.data.presets import default_clip_norm
    from dpcda.mechanisms.cape import default_colluding
    from dpcda.mechanisms.cape_card import outside_same_relation
    from dpcda.mechanisms.cape_float import value_bound
    from dpcda.mechanisms.cape_grid import lattice_cost, share_grid_bits
    from dpcda.mechanisms.cape_reserve import cape_epsilon_added
    from dpcda.mechanisms.cape_run import _calibrate
    from dpcda.mechanisms.sites import split_sites
    from dpcda.privacy.decentral import view_epsilon, view_mu
    from dpcda.privacy.decentral_pld import counts_epsilon, counts_rdp_epsilon

    ds = load_dataset(a.dataset)
    sites = split_sites(ds.X_train, ds.y_train, sites=a.sites, split=a.split,
                        n_classes=ds.n_classes)
    c = default_clip_norm(a.dataset)
    common = dict(l=a.l, c=c, epsilon=a.epsilon, sigma_x=None, delta=a.delta, normalize="scale",
                  bounds=getattr(ds, "feature_bounds", None), accountant=None,
                  dataset=a.dataset, n_classes=ds.n_classes, compare_accountants=False,
                  class_bounds="data")
    t0 = time.perf_counter()
    cfg, sx, sy, privacy, t_k, counts, _, _ = _calibrate(sites, sites.class_counts(), a.l,
                                                         ds.n_train, common)
    n_x, n_y = int(t_k.sum()) * sites.d, int(t_k.sum()) * sites.n_classes
    added = cape_epsilon_added(sites.S, c, sx, sy, n_x, n_y)
    print(f"{a.dataset}, S = {sites.S} {a.split}, epsilon = {a.epsilon}, l = {a.l}, "
          f"T = {int(t_k.sum())}, delta = {a.delta}: sigma_x = {sx:.4f}, calibration "
          f"{time.perf_counter() - t0:.1f} s")
    print(f"(a) {privacy['epsilon']:.4f} ({privacy['accountant']}), floating point adds "
          f"{added:.2e}: total {privacy['epsilon'] + added:.6f}; reserve kept "
          f"{privacy.get('calibration_aim', {}).get('float_reserve', 0.0):.2e}")
    same = outside_same_relation(sigma=sx, c=c, l=a.l, per_class=t_k, class_counts=counts,
                                 delta=a.delta)
    print(f"(a) under the inside relation: {same['epsilon']:.4f} ({same['accountant']})")
    site_counts = sites.class_counts()
    A, F = value_bound(c, sx, sy, sites.S), share_grid_bits(sites.S, sx, sy)
    for t in [0, *default_colluding(sites.S)]:
        s = view_mu(S=sites.S, t=t, sigma=sx, c=c, l=a.l)
        t1 = time.perf_counter()
        new = counts_epsilon(s=s, l=a.l, per_class=t_k, site_counts=site_counts, delta=a.delta)
        t2 = time.perf_counter()
        old = view_epsilon(S=sites.S, t=t, sigma=sx, c=c, l=a.l, per_class=t_k,
                           class_counts=counts, delta=a.delta, mask_ratio=math.inf)
        t3 = time.perf_counter()
        rdp = counts_rdp_epsilon(s=s, l=a.l, per_class=t_k, site_counts=site_counts,
                                 delta=a.delta)
        t4 = time.perf_counter()
        fp = lattice_cost(sites.S - t, sites.S, A, F, (n_x, sx), (n_y, sy)).epsilon_added
        print(f"{'(b)' if t == 0 else '(c)'} t = {t}: counts-subsampled-pld {new:.4f} "
              f"({t2 - t1:.1f} s), known indices {old:.3f} ({t3 - t2:.1f} s), RDP cross-check "
              f"{rdp:.3f} ({t4 - t3:.1f} s); card: {min(new, old):.4f}, floating point adds {fp:.1e}")


if __name__ == "__main__":
    main()
