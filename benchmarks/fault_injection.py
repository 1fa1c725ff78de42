"""Reliability figures of the job runner: SIGKILL trials, several workers on one store, time
to cancel per job kind, time to detect a stalled job.

Workers are processes forked from this one (:mod:`dpcda.experiments.fault_trials`), each running
:class:`dpcda.jobs.Worker` in its main thread as ``python -m dpcda worker`` does. Data: digits
(ships with scikit-learn). CPU only, one torch thread per worker.

    python benchmarks/fault_injection.py                 # 20 kill trials, 3 cancels per kind
    python benchmarks/fault_injection.py --trials 40 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpcda.jobs import JobStore, register_kind  # noqa: E402
from dpcda.jobs import db as _db  # noqa: E402
from dpcda.experiments import fault_trials as ft  # noqa: E402


@register_kind("bench-sleep")
def _sleep(config, ctx):
    """No checkpoints at all: only the watchdog's interrupt can stop it."""
    ctx.message("sleeping")
    time.sleep(float(config["seconds"]))
    return {"slept": True}


@register_kind("bench-hang")
def _hang(config, ctx):
    """Makes progress for a moment, then hangs (its process alive, its counter still)."""
    from dpcda.util.cancellation import checkpoint

    for _ in range(5):
        checkpoint()
        time.sleep(0.05)
    time.sleep(float(config["seconds"]))
    return {}


# (label, kind, config, the job's message once it is where the cancel should land)
CANCEL_CASES = [
    ("experiment: generation (dp-cda, digits)", "experiment",
     {"dataset": "digits", "sigma": 0.5, "l": 64, "T": 300_000,
      "train": {"model": "ncm", "epochs": 1, "device": "cpu"}}, "generating the release"),
    ("experiment: training (cnn, digits)", "experiment",
     {"dataset": "digits", "epsilon": float("inf"), "l": 1,
      "train": {"model": "cnn", "epochs": 500, "batch_size": 64, "device": "cpu"}}, "training"),
    ("audit (l=4, 40000 trials)", "audit",
     {"l": 4, "sigma_x": 1.0, "n_class": 200, "T_class": 200, "trials": 40_000}, None),
    ("no checkpoints (a 60 s sleep)", "bench-sleep", {"seconds": 60}, "sleeping"),
]


def _wait(pred, timeout=300.0, every=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(every)
    raise TimeoutError("condition not met")


def _cancel_once(store: JobStore, job_id: int, where: str | None, label: str) -> float:
    def ready():
        j = store.get_job(job_id)
        if j.status != "running":
            return False
        return (j.message == where) if where else (j.epoch or 0) >= 1

    def finished():
        j = store.get_job(job_id)
        return j if j.terminal else None

    _wait(ready)
    time.sleep(0.3)  # well inside the phase
    t0 = time.time()
    store.cancel_job(job_id)
    job = _wait(finished)
    assert job.status == "cancelled", (label, job.status, job.message)
    return job.finished - t0


def cancel_latency(folder: Path, label, kind, config, where, repeats: int) -> list[float]:
    out = []
    for r in range(repeats):
        store = JobStore(folder / f"cancel-{kind}-{abs(hash(label))}-{r}.sqlite3")
        job_id = store.submit(kind, dict(config), force=True)
        pid = ft.fork_worker(store.path, once=True)
        try:
            out.append(_cancel_once(store, job_id, where, label))
        finally:
            ft.wait(pid)
    return out


def stall_detection(folder: Path, repeats: int, stall_after: float = 2.0) -> list[float]:
    """Seconds from a job's last progress to its requeue as stalled (the limit included)."""
    out = []
    for r in range(repeats):
        store = JobStore(folder / f"stall-{r}.sqlite3")
        job_id = store.submit("bench-hang", {"seconds": 60}, stall_after=stall_after, max_attempts=1)
        ft.wait(ft.fork_worker(store.path, once=True))
        job = store.get_job(job_id)
        assert job.status == "failed" and job.reason == "stalled", (job.status, job.message)
        with _db.connection(store.path) as conn:
            claimed, failed = (conn.execute("SELECT at FROM job_events WHERE job_id = ? AND event = ?",
                                            (job_id, e)).fetchone()[0] for e in ("claimed", "failed"))
        out.append(failed - claimed - 0.25)  # the job's last progress came ~0.25 s after its claim
    return out


def _dist(xs: list[float]) -> str:
    xs = sorted(xs)
    return (f"median {statistics.median(xs):.2f} s, max {xs[-1]:.2f} s, min {xs[0]:.2f} s "
            f"(n={len(xs)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.environ.pop("DPCDA_FAULT", None)
    t0 = time.perf_counter()
    ft.preload()
    print(f"preload (imports, once): {time.perf_counter() - t0:.1f} s; cores: {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        k = ft.kill_trials(folder, trials=args.trials, seed=args.seed)
        print(f"\nSIGKILL trials: {k['trials']} ({k['killed']} killed: "
              + ", ".join(f"{p} {n}" for p, n in k["killed_at"].items()) + f") in {k['seconds']:.0f} s")
        print(f"  jobs {k['jobs']}: lost {k['lost']}, recorded twice {k['duplicated']}, done without a "
              f"result {k['done_without_result']}, final statuses {k['statuses']}, claims {k['claims']}, "
              f"most attempts of one job {k['max_attempts_used']}, integrity {k['integrity']}")
        for n in (2, 4):
            c = ft.concurrent_run(folder, workers=n, jobs=50)
            print(f"{n} workers, {c['jobs']} jobs: claimed once and done once {c['claimed_once']}, "
                  f"lost {c['lost']}, recorded twice {c['duplicated']}, jobs per worker "
                  f"{c['jobs_per_worker']}, {c['seconds']:.1f} s")
        print("\ntime to cancel (cancel request -> job recorded cancelled):")
        for label, kind, config, where in CANCEL_CASES:
            print(f"  {label:45s} {_dist(cancel_latency(folder, label, kind, config, where, args.repeats))}")
        print("\ntime to detect a stalled job (stall_after = 2 s; last progress -> failed as stalled):")
        print(f"  {_dist(stall_detection(folder, args.repeats))}")


if __name__ == "__main__":
    main()
