"""The same 12-job digits sweep (epsilon inf, 10, 5 x l 1, 2 x 2 runs, default learners) through
the embedded executor and through a local Ray instance, wall time side by side in one process.

- embedded: ``dpcda sweep``'s way, one in-process worker running the jobs one after another;
- embedded x2: two ``python -m dpcda worker`` processes sharing the store (what the dashboard
  would get with two workers);
- ray: a local Ray instance with ``--num-cpus`` CPUs (one task per CPU), its start-up timed apart.

Each run uses a fresh store (nothing reused). Usage: python benchmarks/bench_ray.py [--num-cpus 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpcda.experiments.sweep import submit_sweep, sweep_finished, sweep_results  # noqa: E402
from dpcda.jobs import JobStore, get_executor  # noqa: E402

BASE = {"dataset": "digits"}
GRID = {"epsilons": [float("inf"), 10.0, 5.0], "ls": [1, 2], "runs": 2}


def new_sweep(tmp: Path, name: str) -> tuple[JobStore, int]:
    store = JobStore(tmp / f"{name}.sqlite3")
    return store, submit_sweep(store, BASE, force=True, **GRID)


def embedded(tmp: Path) -> tuple[float, JobStore, int]:
    store, sid = new_sweep(tmp, "embedded")
    t0 = time.perf_counter()
    get_executor("embedded").run_sweep(store, sid)
    return time.perf_counter() - t0, store, sid


def embedded_procs(tmp: Path, n: int) -> tuple[float, JobStore, int]:
    store, sid = new_sweep(tmp, "embedded-procs")
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "dpcda", "worker", "--db", str(store.path),
                               "--idle-exit", "0"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for _ in range(n)]
    for p in procs:
        p.wait()
    seconds = time.perf_counter() - t0
    assert sweep_finished(store, sid)
    return seconds, store, sid


def on_ray(tmp: Path, num_cpus: int) -> tuple[float, float, JobStore, int]:
    import ray

    store, sid = new_sweep(tmp, "ray")
    ex = get_executor("ray", address="local", num_cpus=num_cpus)
    t0 = time.perf_counter()
    ex.open()
    started = time.perf_counter() - t0
    try:
        ex.run_sweep(store, sid)
    finally:
        ex.close()
    assert not ray.is_initialized()
    return started, time.perf_counter() - t0, store, sid


def summary(store: JobStore, sid: int) -> str:
    jobs = store.jobs(sweep_id=sid)
    done = sum(j.status == "done" for j in jobs)
    table = sweep_results(store, sid)
    acc = table[table["epsilon"] == float("inf")]["mean"].mean()
    return f"{done}/{len(jobs)} done, mean accuracy at epsilon=inf {acc:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance (default 2)")
    ap.add_argument("--workers", type=int, default=2, help="embedded worker processes (default 2)")
    args = ap.parse_args()
    n_jobs = len(GRID["epsilons"]) * len(GRID["ls"]) * GRID["runs"]
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp_name:
        tmp = Path(tmp_name)
        os.environ["DPCDA_HOME"] = str(tmp / "home")
        t_emb, s1, i1 = embedded(tmp)
        t_procs, s2, i2 = embedded_procs(tmp, args.workers)
        t_start, t_ray, s3, i3 = on_ray(tmp, args.num_cpus)
        print(f"digits sweep, {n_jobs} jobs; {os.cpu_count()} CPU core(s); load average "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        print(f"embedded, in-process worker:       {t_emb:7.1f} s  ({summary(s1, i1)})")
        print(f"embedded, {args.workers} worker processes:     {t_procs:7.1f} s  ({summary(s2, i2)})")
        print(f"ray, local ({args.num_cpus} CPUs), total:         {t_ray:7.1f} s  ({summary(s3, i3)})")
        print(f"  of which starting Ray:           {t_start:7.1f} s; jobs {t_ray - t_start:.1f} s")
        print(f"ratio ray / embedded in-process:   {t_ray / t_emb:7.2f}x "
              f"(jobs only {(t_ray - t_start) / t_emb:.2f}x)")


if __name__ == "__main__":
    main()
