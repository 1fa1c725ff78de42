"""Measured cost of one ``experiment`` job on this CPU (what :mod:`dpcda.experiments.estimate` is
calibrated on).

    DPCDA_DATA_DIR=/work/shared/datasets python benchmarks/job_timings.py --datasets digits mnist

Runs :func:`dpcda.experiments.run.run_experiment` directly (no store, no worker) for each
mechanism with its default learner, and for each learner on DP-CDA, and prints per job: load +
generation seconds, training seconds, total wall seconds and process CPU seconds, with the
estimate of :func:`dpcda.experiments.estimate.job_seconds` beside it (ratio measured / estimated).
"""

from __future__ import annotations

import argparse
import time


def configs(dataset: str, quick: bool) -> list[dict]:
    base = {"dataset": dataset, "epsilon": 10.0}
    out = [dict(base, mechanism="dp-cda", l=4), dict(base, mechanism="dp-cda", l=16),
           dict(base, mechanism="dpmix", l=16), dict(base, mechanism="local"),
           dict(base, mechanism="random-projection"), dict(base, mechanism="dp-merf")]
    epochs = 2 if dataset != "digits" else 30
    for model in ("ncm", "lda", "linear", "fc", "cnn"):
        out.append(dict(base, mechanism="dp-cda", l=4, train={"model": model, "epochs": epochs}))
    if quick:
        out = out[:6]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["digits"])
    ap.add_argument("--quick", action="store_true", help="default learners only")
    args = ap.parse_args()
    import torch

    try:
        from dpcda.experiments.estimate import job_seconds
    except ImportError:  # before the estimate existed (its calibration run)
        job_seconds = lambda cfg: float("nan")  # noqa: E731
    from dpcda.experiments.run import normalize, run_experiment

    torch.set_num_threads(1)
    print("dataset        mechanism          l  model   ep   gen s  train s   wall s    cpu s   est s  ratio")
    for ds in args.datasets:
        for cfg in configs(ds, args.quick):
            norm = normalize(cfg)
            t0, c0 = time.perf_counter(), time.process_time()
            res = run_experiment(cfg)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            est = job_seconds(norm)
            tr = norm["train"]
            print(f"{ds:14s} {norm['mechanism']:17s} {norm['l']:3d}  {tr['model']:6s} {tr['epochs']:3d} "
                  f"{res['generate_seconds']:7.2f} {res['train_seconds'] or 0:8.2f} {wall:8.2f} "
                  f"{cpu:8.2f} {est:7.2f} {wall / est:6.2f}  acc {res['accuracy']:.3f}", flush=True)


if __name__ == "__main__":
    main()
