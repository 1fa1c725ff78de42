"""Adult: total-variation distance of every categorical marginal, real test split vs release,
for each one-hot decoder (argmax / sample / posterior) on the same mixed rows.

    DPCDA_DATA_DIR=... python benchmarks/adult_fidelity.py [--runs 3] [--eps 10 1] [--l 4 16 64]

Prints, per (normalisation, epsilon, l, decoder), the mean over runs of the largest and the
mean TV over the 8 categorical feature columns, and the per-column TV (mean over runs) at
each setting, "as released" (equal allocation floor(T/K) per class) and "reweighted" (rows
kept by released label in the public class shares, as allocation proportional to N_k gives).
Accountant: the library default; T = N.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adult_decoding_common import decoded_releases  # noqa: E402

from dpcda.data import load_dataset  # noqa: E402
from dpcda.evaluation.fidelity import tabular_fidelity  # noqa: E402
from dpcda.mechanisms.decoding import DECODERS  # noqa: E402
from dpcda.privacy import DEFAULT_ACCOUNTANT  # noqa: E402


def reweighted(y: np.ndarray, counts) -> np.ndarray:
    """Rows to keep so the released labels have the public class shares (first rows of each
    label; the release is shuffled): what allocation proportional to N_k would give."""
    share = np.asarray(counts, np.float64) / np.sum(counts)
    n = np.bincount(y, minlength=len(share))
    total = min(n[k] / share[k] for k in range(len(share)) if share[k] > 0)
    keep = [np.flatnonzero(y == k)[:int(total * share[k])] for k in range(len(share))]
    return np.sort(np.concatenate(keep))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--eps", type=float, nargs="+", default=[10.0, 1.0])
    ap.add_argument("--l", type=int, nargs="+", default=[4, 16, 64])
    ap.add_argument("--norms", nargs="+", default=["zscore", "scale"])
    a = ap.parse_args()
    torch.set_num_threads(1)
    ds = load_dataset("adult")
    print(f"accountant={DEFAULT_ACCOUNTANT}, T=N={ds.n_train}, runs={a.runs}")
    per_col = {}
    for norm in a.norms:
        for eps in a.eps:
            for l in a.l:
                rows = {dec: [] for dec in DECODERS}
                rew = {dec: [] for dec in DECODERS}
                t0 = time.time()
                for rel, mixed, real, decoded in decoded_releases(ds, norm=norm, eps=eps, l=l,
                                                                  runs=a.runs):
                    sx = rel.card["parameters"]["sigma_x"]
                    for dec, Xs in decoded.items():
                        rep = tabular_fidelity(real, Xs, ds.segments, ds.feature_names)
                        rows[dec].append({c.name: c.distance for c in rep.columns
                                          if c.kind == "categorical"})
                        keep = reweighted(mixed.y, ds.class_counts)
                        rep = tabular_fidelity(real, Xs[keep], ds.segments, ds.feature_names)
                        rew[dec].append({c.name: c.distance for c in rep.columns
                                         if c.kind == "categorical"})
                for dec in DECODERS:
                    tv = np.array([[r[k] for k in r] for r in rows[dec]])
                    tw = np.array([[r[k] for k in r] for r in rew[dec]])
                    print(f"{norm:6s} eps={eps:<4g} l={l:<3d} sigma={sx:.3g} {dec:9s} "
                          f"as released: max TV {tv.max(axis=1).mean():.3f} ± "
                          f"{tv.max(axis=1).std():.3f}, mean {tv.mean():.3f} | reweighted: max "
                          f"TV {tw.max(axis=1).mean():.3f} ± {tw.max(axis=1).std():.3f}, mean "
                          f"{tw.mean():.3f}  ({time.time() - t0:.0f}s)", flush=True)
                    per_col[(norm, eps, l, dec, "as released")] = {
                        k: np.mean([r[k] for r in rows[dec]]) for k in rows[dec][0]}
                    per_col[(norm, eps, l, dec, "reweighted")] = {
                        k: np.mean([r[k] for r in rew[dec]]) for k in rew[dec][0]}
    print("\nper-column TV (mean over runs)")
    for key, cols in per_col.items():
        print(key, " ".join(f"{k}={v:.3f}" for k, v in cols.items()))


if __name__ == "__main__":
    main()
