"""Measure the accuracy table the Privacy page ships (dpcda/experiments/accuracy_table.csv).

Every row is one DP-CDA release setting (l, sigma_x = sigma_y, default c, T = N, the registry's
default normalisation and allocation) measured ``--runs`` times with a fresh release each, with
the fast learner of a one-click measurement (:func:`dpcda.experiments.frontier.fast_config`: the project's
default learner, the noise-aware LDA in place of a neural network). The experiment pipeline is
the job system's (``dpcda.experiments.run.run_experiment``), run in this process.

    python benchmarks/accuracy_frontier.py --dataset digits --runs 3          # ~3 min on 1 CPU
    DPCDA_DATA_DIR=... python benchmarks/accuracy_frontier.py --dataset mnist --ls 4,16,64 \
        --sigma-min 0.15 --sigma-max 0.65 --no-zero --runs 3                   # ~15 min

The sigmas are every ``--sigma-step``-th value of the dashboard's sigma slider (0.01 .. 10, 40
values a decade), so a slider position lands on a row; sigma = 0 (no privacy) is measured too.
Rows of other datasets already in the table are kept.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.experiments.frontier import (MEASURE_ACCOUNTANT, TABLE_PATH, fast_config, load_table,  # noqa: E402
                            summarize, write_table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="digits")
    ap.add_argument("--ls", default="1,2,4,8,16,32,64,128")
    ap.add_argument("--sigma-step", type=int, default=8, help="every k-th slider value")
    ap.add_argument("--sigma-min", type=float, default=0.0)
    ap.add_argument("--sigma-max", type=float, default=10.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-zero", action="store_true", help="skip sigma = 0 (no privacy)")
    ap.add_argument("--out", default=str(TABLE_PATH))
    args = ap.parse_args()

    import torch

    from dpcda.experiments.run import normalize, run_experiment

    torch.set_num_threads(1)
    grid = [float(v) for v in np.geomspace(0.01, 10.0, 121)[::args.sigma_step]]
    sigmas = [0.0] * (not args.no_zero) + [s for s in grid if args.sigma_min <= s <= args.sigma_max * 1.0001]
    rows, t_all = [], time.perf_counter()
    for l in (int(v) for v in args.ls.split(",")):
        for s in sigmas:
            cfg = fast_config(args.dataset, l=l, sigma_x=s, accountant=MEASURE_ACCOUNTANT)
            acc, secs = [], []
            for run in range(args.runs):
                t0 = time.perf_counter()
                acc.append(run_experiment(dict(cfg, run=run))["accuracy"])
                secs.append(time.perf_counter() - t0)
            norm = normalize(cfg)
            row = dict(dataset=args.dataset, l=l, sigma_x=s, ratio=1.0, c=norm["c"],
                       T=norm["T"], normalization=norm["normalization"],
                       allocation=norm.get("allocation", "equal"), learner=norm["train"]["model"],
                       **summarize(acc))
            rows.append(row)
            print(f"l={l:4d} sigma={s:7.4g} {row['learner']:4s} {row['mean']:.4f} ± "
                  f"{row['std']:.4f} [{row['min']:.4f}, {row['max']:.4f}]  "
                  f"{np.mean(secs):.2f} s/run", flush=True)
    kept = [r for r in load_table(args.out) if r["dataset"] != args.dataset] \
        if Path(args.out).exists() else []
    write_table(kept + rows, args.out)
    print(f"{len(rows)} rows, {len(rows) * args.runs} releases in {time.perf_counter() - t_all:.0f} s"
          f" -> {args.out}")


if __name__ == "__main__":
    main()
