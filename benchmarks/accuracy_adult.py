"""UCI Adult: learners trained on a DP-CDA release (the library's generator), real test split.

    .venv/bin/python benchmarks/accuracy_adult.py [--runs 3] [--ls 16 64] [--eps 10 20]

Release: ``dpcda.mechanisms.generate_from_dataset(adult, "dp-cda", l, T = N, epsilon,
delta = 1e-5)`` (paper accountant, Mironov conversion, z-score, c = 1, one-hot segments
decoded by argmax and re-encoded). The test split goes through the release's own
preprocessing. Learners: the decision tree with the library defaults (max_depth 8,
min_samples_leaf 20), a fully grown tree (the sklearn default), a depth-5 tree, noise-aware
LDA, linear softmax; each also with ``class_prior`` = the public training class proportions
(24,720 : 7,841; class counts are public under the class-aware accountant's assumption).
The DP-CDA release is 50/50 by construction; the test split is 76/24.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DPCDA_DATA_DIR", str(REPO.parent / "shared" / "datasets"))

LEARNERS = {
    "tree (depth 8, leaf 20)": dict(model="tree"),
    "tree (fully grown)": dict(model="tree", tree_max_depth=0, tree_min_samples_leaf=1),
    "tree (depth 5, leaf 20)": dict(model="tree", tree_max_depth=5),
    "lda (noise-aware)": dict(model="lda"),
    "linear": dict(model="linear", epochs=5),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ls", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--eps", type=float, nargs="+", default=[10.0, 20.0])
    args = ap.parse_args()

    import torch

    torch.set_num_threads(1)  # this script only (shared CPU)
    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset
    from dpcda.training import TrainConfig, train_and_evaluate

    ds = load_dataset("adult")
    N = len(ds.y_train)
    counts = np.bincount(ds.y_train)
    prior = tuple(float(c) for c in counts / counts.sum())
    print(f"# adult: N={N}, d={ds.X_train.shape[1]}, train classes {counts.tolist()}, test "
          f"majority {np.mean(ds.y_test == 0):.4f}; T=N, c=1, delta=1e-5, paper accountant")
    for eps in args.eps:
        for l in args.ls:
            accs: dict[str, list[float]] = {}
            sigma = None
            for run in range(args.runs):
                rel = generate_from_dataset(ds, "dp-cda", l=l, T=N, epsilon=eps, delta=1e-5,
                                            seed=5000 + run, compare_accountants=False)
                sigma = rel.card["parameters"]["sigma_x"]
                Xte = rel.preprocess(ds.X_test)
                for name, kw in LEARNERS.items():
                    for with_prior in (False, True):
                        cfg = TrainConfig(noise_std=float(sigma or 0.0),
                                          class_prior=prior if with_prior else None, **kw)
                        r = train_and_evaluate(rel.X, rel.y, Xte, ds.y_test, config=cfg, seed=run)
                        key = name + (" + prior" if with_prior else "")
                        accs.setdefault(key, []).append(r["accuracy"])
            print(f"## eps={eps} l={l} sigma_x=sigma_y={sigma:.4f} runs={args.runs}")
            for key, a in accs.items():
                a = np.asarray(a)
                sd = a.std(ddof=1) if len(a) > 1 else float("nan")
                print(f"adult eps={eps} l={l} {key:34s} {a.mean():.4f} +- {sd:.4f}", flush=True)


if __name__ == "__main__":
    main()
