"""DP-MERF (the library's generator): learners trained on its release, real test split.

    .venv/bin/python benchmarks/accuracy_dp_merf.py [--datasets mnist fashion-mnist]
        [--eps 10 1] [--runs 3] [--learners lda cnn] [--set n_features=4000 c=1.0 ...]

Release: ``generate_from_dataset(ds, "dp-merf", epsilon=eps, delta=1e-5, **set)`` with the
library defaults (pixels / 255, rows clipped to c = 1, D = 4000 random features, length scale
= c, noisy class counts with 5% of mu^2, 600 generator steps of 500 samples, N samples
released), accounted by the exact analytic Gaussian mechanism. The test split goes through
the release's own preprocessing (x / 255, clip). Learners with the library defaults
(``lda``: plain LDA, the release has no additive noise; ``cnn``: 5 epochs). Prints per
setting the generation seconds (wall clock and this process's CPU time: the machine is shared) and
accuracy mean +- std over the runs (one thread).
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DPCDA_DATA_DIR", str(REPO.parent / "shared" / "datasets"))


def _kv(text: str):
    k, v = text.split("=", 1)
    try:
        return k, ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return k, v


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["mnist", "fashion-mnist"])
    ap.add_argument("--eps", type=float, nargs="+", default=[10.0, 1.0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--learners", nargs="+", default=["lda"])
    ap.add_argument("--set", nargs="*", default=[], type=_kv, help="generator keyword=value")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset
    from dpcda.training import TrainConfig, train_and_evaluate

    extra = dict(args.set)
    print(f"# dp-merf, delta=1e-5, runs={args.runs}, settings {extra or 'library defaults'}")
    for name in args.datasets:
        ds = load_dataset(name)
        for eps in args.eps:
            accs: dict[str, list[float]] = {m: [] for m in args.learners}
            secs, cpu = [], []
            for run in range(args.runs):
                t0, c0 = time.perf_counter(), time.process_time()
                rel = generate_from_dataset(ds, "dp-merf", epsilon=eps, delta=1e-5, seed=run,
                                            **extra)
                secs.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                X_test = rel.preprocess(ds.X_test)
                c = rel.card["parameters"]["c"] or 1.0
                for m in args.learners:
                    cfg = TrainConfig(model=m, clip_norm=c, n_classes=ds.n_classes, device="cpu")
                    out = train_and_evaluate(rel.X, rel.y, X_test, ds.y_test, y_soft=rel.y_soft,
                                             image_shape=ds.image_shape, config=cfg, seed=run)
                    accs[m].append(out["accuracy"])
            cells = "  ".join(f"{m} {np.mean(a):.4f} ± {np.std(a):.4f}" for m, a in accs.items())
            print(f"{name:14s} eps={eps:<5g} gen {np.mean(secs):5.1f}s wall {np.mean(cpu):5.1f}s cpu  "
                  f"{cells}  "
                  f"(runs: {', '.join(f'{x:.3f}' for a in accs.values() for x in a)})",
                  flush=True)


if __name__ == "__main__":
    main()
