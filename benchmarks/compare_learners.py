"""Compare's mechanisms under each learner: what ``auto`` should train on each release.

    DPCDA_DATA_DIR=... python benchmarks/compare_learners.py --dataset mnist --epsilon 10 \
        --mechanisms dp-merf local random-projection dpmix --learners lda qda --runs 1

Each (mechanism, learner, run) is one experiment job of Compare's own pipeline
(:func:`dpcda.experiments.run.run_experiment`: a fresh release at the target ε under the
mechanism's default accountant, δ = 1e-5, the dataset's default c, the learner given the
release's public noise as the job runner gives it), scored on the real test split. DP-CDA's
``l``-mixing mechanisms get ``--l``. Prints accuracy mean ± std per cell and the seconds (wall
clock, shared machine). ``auto`` for a mechanism is what the job runner resolves today.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="mnist")
    ap.add_argument("--epsilon", type=float, default=10.0)
    ap.add_argument("--mechanisms", nargs="+", default=["dp-merf", "local", "random-projection"])
    ap.add_argument("--learners", nargs="+", default=["lda", "qda"])
    ap.add_argument("--l", type=int, default=16)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args(argv)

    import torch

    from dpcda.experiments.run import normalize, run_experiment
    from dpcda.mechanisms import MECHANISMS

    torch.set_num_threads(1)
    print(f"# {args.dataset}, epsilon = {args.epsilon:g}, delta = 1e-5, runs = {args.runs}")
    for mech in args.mechanisms:
        base = dict(dataset=args.dataset, mechanism=mech, epsilon=args.epsilon, delta=1e-5)
        if MECHANISMS.get(mech).mixes:
            base["l"] = args.l
        auto = normalize(dict(base, model="auto"))["train"]["model"]
        for learner in args.learners:
            acc, secs = [], []
            for run in range(args.runs):
                t0 = time.perf_counter()
                acc.append(run_experiment(dict(base, model=learner, run=run))["accuracy"])
                secs.append(time.perf_counter() - t0)
            sd = statistics.stdev(acc) if len(acc) > 1 else float("nan")
            print(f"{mech:18s} {learner:4s}{' (auto)' if learner == auto else '       '} "
                  f"{statistics.fmean(acc):.4f} ± {sd:.4f}  {statistics.fmean(secs):.1f} s/run",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
