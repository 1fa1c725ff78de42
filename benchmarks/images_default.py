"""MNIST / Fashion-MNIST: the *default* DP-CDA release's accuracy with the default learner.

    DPCDA_DATA_DIR=... python benchmarks/images_default.py [--dataset mnist] [--eps 10 1] [--l 16]

Release: ``generate_from_dataset(ds, "dp-cda", l, T = N, epsilon)``, every other setting at the
library's default (unseeded); learner: the mechanism's ``auto`` choice for images (noise-aware
``lda``), tested on the real test split through the release's own preprocessing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DPCDA_DATA_DIR", str(REPO.parent / "shared" / "datasets"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="mnist")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--eps", type=float, nargs="+", default=[10.0, 1.0])
    ap.add_argument("--l", type=int, nargs="+", default=[16])
    a = ap.parse_args()
    import torch

    torch.set_num_threads(1)  # shared CPU
    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset
    from dpcda.training import TrainConfig, train_and_evaluate

    ds = load_dataset(a.dataset)
    N = len(ds.y_train)
    for eps in a.eps:
        for l in a.l:
            for run in range(a.runs):
                t0 = time.time()
                rel = generate_from_dataset(ds, "dp-cda", l=l, T=N, epsilon=eps,
                                            compare_accountants=False, device="cpu")
                sx = rel.card["parameters"]["sigma_x"]
                cfg = TrainConfig(model="lda", noise_std=float(sx))
                acc = train_and_evaluate(rel.X, rel.y, rel.preprocess(ds.X_test), ds.y_test,
                                         config=cfg)["accuracy"]
                print(f"{a.dataset} eps={eps:g} l={l} run={run} allocation="
                      f"{rel.card['parameters']['allocation']} T_k={rel.card['parameters']['T_per_class']} "
                      f"sigma={sx:.4g} lda accuracy {acc:.4f} ({time.time() - t0:.0f}s)", flush=True)


if __name__ == "__main__":
    main()
