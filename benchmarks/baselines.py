"""Measure the baselines every accuracy is shown with (dpcda/evaluation/baselines.csv).

For each dataset: the majority-class rate of its test split and, for each learner, the
non-private ceiling (the learner trained on the real training data, normalised and clipped as a
release: dpcda.experiments.ceiling.measure_ceiling). The learners default to those of the shipped
accuracy table for that dataset (dpcda/experiments/accuracy_table.csv: every learner with rows
there, the opt-in ``qda`` beside the default ``lda`` on MNIST). A measured (dataset, learner)
replaces its row; every other row is kept (one learner's ceiling never overwrites another's);
datasets whose files are absent are skipped with a note.

    DPCDA_DATA_DIR=... python benchmarks/baselines.py --datasets digits,mnist,fashion-mnist,adult
    DPCDA_DATA_DIR=... python benchmarks/baselines.py --datasets mnist,fashion-mnist --learners qda
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.evaluation.baselines import (BASELINE_PATH, load_baselines, majority_rate,  # noqa: E402
                                        write_baselines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="digits,mnist,fashion-mnist,adult")
    ap.add_argument("--learners", default="", help="comma-separated; default: the accuracy table's")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--out", default=str(BASELINE_PATH))
    args = ap.parse_args()

    import torch

    from dpcda.data import dataset_availability, load_dataset
    from dpcda.experiments.ceiling import measure_ceiling
    from dpcda.experiments.frontier import load_table

    torch.set_num_threads(1)
    names = [n for n in args.datasets.split(",") if n]
    rows, t_all = [], time.perf_counter()
    for name in names:
        if not dataset_availability(name).present:
            print(f"{name}: files absent, skipped", flush=True)
            continue
        ds = load_dataset(name)
        maj = majority_rate(ds)
        learners = [v for v in args.learners.split(",") if v] or sorted(
            {r["learner"] for r in load_table(dataset=name)})
        for learner in learners:
            t0 = time.perf_counter()
            s = measure_ceiling(ds, learner, runs=args.runs)
            rows.append(dict(dataset=name, n_test=maj.n_test, majority_class=maj.label,
                             majority_rate=maj.rate, learner=learner, runs=s["runs"],
                             ceiling=s["mean"], ceiling_std=s["std"]))
            print(f"{name:14s} majority '{maj.label}' {maj.rate:.4f} (n_test={maj.n_test}); "
                  f"{learner:5s} ceiling {s['mean']:.4f}  {time.perf_counter() - t0:.1f} s", flush=True)
    done = {(r["dataset"], r["learner"]) for r in rows}
    kept = [r for r in load_baselines(args.out) if (r["dataset"], r["learner"]) not in done]
    write_baselines(kept + rows, args.out)
    print(f"{len(rows)} rows in {time.perf_counter() - t_all:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
