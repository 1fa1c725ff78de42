"""UCI Adult's *default* DP-CDA release (issue 26, item 4): every categorical marginal's and the
label's total variation against the real test split, and the default learner's accuracy.

    DPCDA_DATA_DIR=... python benchmarks/adult_default.py [--runs 2] [--eps 10] [--l 16]

Release: ``generate_from_dataset(adult, "dp-cda", l, T = N, epsilon)``, every other setting at
the library's default (accountant, allocation, normalisation, c, decoder; unseeded). Learner:
the default for Adult (``tree``, noise-aware settings from ``TrainConfig``), trained on the
release, tested on the real test split through the release's own preprocessing. Prints, per
run, the largest categorical TV, the label TV, the accuracy, and the test split's majority rate.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DPCDA_DATA_DIR", str(REPO.parent / "shared" / "datasets"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--eps", type=float, nargs="+", default=[10.0])
    ap.add_argument("--l", type=int, nargs="+", default=[16])
    ap.add_argument("--as-upload", action="store_true",
                    help="the same data under another name: no published counts, so the bounds "
                         "come from the DP label histogram (c = 3 as Adult's)")
    a = ap.parse_args()
    import torch

    torch.set_num_threads(1)  # shared CPU
    from dpcda.data import load_dataset
    from dpcda.evaluation.fidelity import release_fidelity, tv_distance
    from dpcda.mechanisms import generate_from_dataset
    from dpcda.training import TrainConfig, train_and_evaluate

    ds = load_dataset("adult")
    extra = {}
    if a.as_upload:
        import dataclasses

        ds = dataclasses.replace(ds, name="adult-as-upload")
        extra = {"c": 3.0}
    N = len(ds.y_train)
    real_share = np.bincount(ds.y_test, minlength=2) / len(ds.y_test)
    print(f"# adult N={N}, test majority {real_share.max():.4f}")
    for eps in a.eps:
        for l in a.l:
            for run in range(a.runs):
                t0 = time.time()
                rel = generate_from_dataset(ds, "dp-cda", l=l, T=N, epsilon=eps,
                                            compare_accountants=False, **extra)
                rep = release_fidelity(rel, ds)
                cat = {c.name: c.distance for c in rep.columns
                       if c.kind == "categorical" and c.name != "label"}
                label_tv = tv_distance(real_share, np.bincount(rel.y, minlength=2) / len(rel.y))
                sx = rel.card["parameters"]["sigma_x"]
                cfg = TrainConfig(model="tree", noise_std=float(sx))
                acc = train_and_evaluate(rel.X, rel.y, rel.preprocess(ds.X_test), ds.y_test,
                                         config=cfg)["accuracy"]
                worst = max(cat, key=cat.get)
                src = rel.card["data"].get("class_bounds_source", "")
                print(f"eps={eps:g} l={l} run={run} allocation={rel.card['parameters']['allocation']} "
                      f"bounds={rel.card['data'].get('class_bounds')} ({src[:20]}) "
                      f"sigma={sx:.4g} max categorical TV {cat[worst]:.3f} ({worst}) label TV "
                      f"{label_tv:.3f} tree accuracy {acc:.4f} ({time.time() - t0:.0f}s)",
                      flush=True)


if __name__ == "__main__":
    main()
