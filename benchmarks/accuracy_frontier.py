"""Measure the accuracy table the Privacy page ships (dpcda/experiments/accuracy_table.csv).

Every row is one DP-CDA release setting (l, sigma_x = sigma_y, default c, T = N, the registry's
default normalisation and allocation) measured ``--runs`` times with a fresh release each, with
the fast learner of a one-click measurement (:func:`dpcda.experiments.frontier.fast_config`: the
project's default learner, ``auto`` as the job runner resolves it for the dataset and privacy
level, the noise-aware LDA in place of a neural network: today ``lda`` for MNIST and
Fashion-MNIST, ``ncm`` for private digits, ``tree`` for Adult), or ``--learner`` (e.g. the
opt-in ``qda``: its rows are labelled with it and never read as the default's). The row
records the learner and the hyper-parameters it chose from the release (``learner_setting``).
The experiment pipeline is the job system's (``dpcda.experiments.run.run_experiment``), run in this process.

    python benchmarks/accuracy_frontier.py --dataset digits --runs 3          # ~10 min
    DPCDA_DATA_DIR=... python benchmarks/accuracy_frontier.py --dataset mnist --ls 4,16,64 \
        --sigma-min 0.15 --sigma-max 0.65 --no-zero --runs 3                   # ~20 min
    DPCDA_DATA_DIR=... python benchmarks/accuracy_frontier.py --dataset mnist --ls 16 \
        --sigmas 0.251189 --runs 3 [--learner qda]                             # one row

The sigmas are every ``--sigma-step``-th value of the dashboard's sigma slider (0.01 .. 10, 40
values a decade), so a slider position lands on a row, or ``--sigmas`` (each snapped to the
nearest slider value); sigma = 0 (no privacy) is measured too unless ``--no-zero``. The measured
rows replace the table's rows of the same release and learner
(:func:`dpcda.experiments.table.merge`); the dataset's other rows are kept (each labelled with
its learner), all of them dropped with ``--replace-dataset``. Rows of other datasets are kept.
The table is written after every row (an interrupted run keeps what it measured).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.experiments.frontier import MEASURE_ACCOUNTANT, fast_config  # noqa: E402
from dpcda.experiments.table import (TABLE_PATH, load_table, merge, setting_text,  # noqa: E402
                                     summarize, write_table)

SLIDER = np.geomspace(0.01, 10.0, 121)


def sigmas_of(args) -> list[float]:
    """The sigmas to measure: ``--sigmas`` snapped to the slider, or every k-th slider value."""
    if args.sigmas:
        want = [float(v) for v in args.sigmas.split(",")]
        return [0.0 if s == 0 else float(SLIDER[np.argmin(abs(np.log(SLIDER / s)))]) for s in want]
    grid = [float(v) for v in SLIDER[::args.sigma_step]]
    return [0.0] * (not args.no_zero) + [s for s in grid
                                         if args.sigma_min <= s <= args.sigma_max * 1.0001]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="digits")
    ap.add_argument("--ls", default="1,2,4,8,16,32,64,128")
    ap.add_argument("--sigma-step", type=int, default=8, help="every k-th slider value")
    ap.add_argument("--sigma-min", type=float, default=0.0)
    ap.add_argument("--sigma-max", type=float, default=10.0)
    ap.add_argument("--sigmas", default="", help="comma-separated sigmas instead of the grid")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-zero", action="store_true", help="skip sigma = 0 (no privacy)")
    ap.add_argument("--learner", default="",
                    help="train this learner instead of the default's (its rows say so)")
    ap.add_argument("--replace-dataset", action="store_true",
                    help="drop every row of the dataset that is not measured again")
    ap.add_argument("--out", default=str(TABLE_PATH))
    args = ap.parse_args()

    import torch

    from dpcda.experiments.run import normalize, run_experiment

    torch.set_num_threads(1)
    old = load_table(args.out) if Path(args.out).exists() else []
    rows, dropped, t_all = [], [], time.perf_counter()
    for l in (int(v) for v in args.ls.split(",")):
        for s in sigmas_of(args):
            cfg = fast_config(args.dataset, l=l, sigma_x=s, accountant=MEASURE_ACCOUNTANT)
            cfg = dict(cfg, model=args.learner) if args.learner else cfg
            acc, secs, choices = [], [], []
            for run in range(args.runs):
                t0 = time.perf_counter()
                out = run_experiment(dict(cfg, run=run))
                acc.append(out["accuracy"])
                choices.append(setting_text(out.get("learner_choice")))
                secs.append(time.perf_counter() - t0)
            norm = normalize(cfg)
            row = dict(dataset=args.dataset, l=l, sigma_x=s, ratio=1.0, c=norm["c"],
                       T=norm["T"], normalization=norm["normalization"],
                       allocation=norm.get("allocation", "equal"), learner=norm["train"]["model"],
                       learner_setting="; ".join(dict.fromkeys(c for c in choices if c)),
                       **summarize(acc))
            rows.append(row)
            print(f"l={l:4d} sigma={s:7.4g} {row['learner']:4s} {row['mean']:.4f} ± "
                  f"{row['std']:.4f} [{row['min']:.4f}, {row['max']:.4f}] "
                  f"{row['learner_setting']} {np.mean(secs):.2f} s/run", flush=True)
            table, dropped = merge(old, rows, drop_dataset=args.replace_dataset)
            write_table(table, args.out)
    for r in dropped:
        print(f"dropped: {r['dataset']} l={r['l']} sigma={r['sigma_x']:.4g} {r['learner']} "
              f"(not measured again)")
    print(f"{len(rows)} rows, {len(rows) * args.runs} releases in {time.perf_counter() - t_all:.0f} s"
          f" -> {args.out}")


if __name__ == "__main__":
    main()
