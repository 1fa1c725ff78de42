"""How long the Utility and Compare pages' default launches take, against their estimate.

    DPCDA_DATA_DIR=/work/shared/datasets python benchmarks/launch_defaults.py --datasets digits mnist

For each dataset: the Utility page's default sweep for DP-CDA (accuracy vs l) and for DP-MERF
(accuracy vs ε), and Compare's default comparison at ε = 10 (every mechanism), each queued in
a fresh job store and run by one in-process worker (what the page's background worker does),
one torch thread. Prints the estimate (:mod:`dpcda.experiments.estimate`), the wall time and this
process's CPU time (the machine may be shared: wall clock then overstates; the load average is
printed), and what the defaults trimmed to stay within two minutes.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def _run(store, sweep_id: int) -> tuple[float, float, int]:
    from dpcda.jobs import Worker

    t0, c0 = time.perf_counter(), time.process_time()
    Worker(store).run(idle_exit=0)  # a fresh store: only this sweep is queued
    failed = sum(j.status != "done" for j in store.jobs(sweep_id=sweep_id))
    return time.perf_counter() - t0, time.process_time() - c0, failed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["digits"])
    ap.add_argument("--only", nargs="*", default=["utility-dp-cda", "utility-dp-merf", "compare"])
    args = ap.parse_args()
    import torch

    from dpcda.experiments.compare import comparison_plan
    from dpcda.jobs import JobStore
    from dpcda.dashboard.launch_defaults import compare_defaults, utility_defaults
    from dpcda.mechanisms import MECHANISMS
    from dpcda.dashboard.sweep_request import SweepRequest

    torch.set_num_threads(1)
    print("launch                   dataset   jobs  estimate s   wall s    cpu s  load  trimmed")
    for ds in args.datasets:
        for what in args.only:
            with tempfile.TemporaryDirectory() as tmp:
                store = JobStore(Path(tmp) / "jobs.sqlite3")
                if what.startswith("utility"):
                    mech = what.split("-", 1)[1]
                    x = "l" if MECHANISMS.get(mech).mixes else "epsilon"
                    d = utility_defaults(ds, mech, x)
                    req = SweepRequest(dataset=ds, mechanism=mech, x=x, epsilons=d.epsilons,
                                       sigmas=d.sigmas, ls=d.ls, Ts=d.Ts, runs=d.runs,
                                       model=d.model, epochs=d.epochs)
                    est, trimmed = req.estimate(), d.trimmed
                    sid = req.submit(store)
                else:
                    names = MECHANISMS.names()
                    d = compare_defaults(ds, 10.0, names)
                    plan = comparison_plan(ds, 10.0, mechanisms=names, runs=d.runs, ls=d.ls,
                                           delta=1e-5, c=1.0, accountants={}, epochs=d.epochs)
                    est, trimmed = plan["estimate"], d.trimmed
                    sid = store.create_sweep(plan["name"], plan["config"], plan["jobs"])
                wall, cpu, failed = _run(store, sid)
                print(f"{what:24s} {ds:9s} {est.jobs:4d} {est.seconds:11.1f} {wall:8.1f} {cpu:8.1f} "
                      f"{os.getloadavg()[0]:5.1f}  {'; '.join(trimmed) or '-'}"
                      + (f"  ({failed} failed)" if failed else ""), flush=True)


if __name__ == "__main__":
    main()
