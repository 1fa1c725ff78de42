"""Fault-injection trials of the job runner (the reliability suite and its benchmark).

Workers here are processes forked from the calling process (which must not have run torch
yet: :func:`preload` only imports it), so a trial costs the job's work, not an interpreter
and a torch import. Each worker process runs :class:`dpcda.jobs.Worker` in its main thread,
exactly as ``python -m dpcda worker`` does; a fault plan (:mod:`dpcda.jobs.faults`, through
``$DPCDA_FAULT``) makes it SIGKILL itself at the planned point.

- :func:`kill_trials`: tiny ``experiment`` jobs (digits, no files needed); trial i forks a
  worker that kills itself at a random pass through a random point (claim, generation,
  training, result write); the next trial's worker recovers the orphan; a last fault-free
  worker finishes the queue. Then :func:`audit_store` counts lost and duplicated results.
- :func:`concurrent_run`: ``workers`` processes on one store with ``jobs`` queued jobs; every
  job must be claimed once and finished once.

The evidence is the store's own job event log (``job_events``): one ``claimed`` line per
attempt, one line per outcome, written in the same transaction as the change it records.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

from dpcda.jobs import db as _db
from dpcda.jobs import faults
from dpcda.jobs.store import JobStore

# The largest pass number drawn per point for a tiny job (digits: 10 classes -> about 10
# generation checkpoints; fc training, 2 epochs of ~10 batches plus evaluation -> ~25).
MAX_PASS = {"claim": 1, "generation": 8, "training": 20, "result-write": 1}


def tiny_experiment(i: int, *, model: str = "fc", epochs: int = 2, T: int = 300) -> dict:
    """A digits experiment that takes well under a second (fixed sigma: no calibration)."""
    return {"dataset": "digits", "sigma": 0.5, "l": 2, "T": T, "run": int(i),
            "train": {"model": model, "epochs": epochs, "batch_size": 32, "device": "cpu"}}


def preload() -> None:
    """Import what the jobs need once, in the parent, so forked workers start at once."""
    import importlib

    import torch

    torch.set_num_threads(1)  # no thread pool exists when the children fork
    for mod in ("torch.nn", "torch.nn.functional", "torch.optim", "torch._dynamo", "dpcda.mechanisms",
                "dpcda.mechanisms.dp_cda", "dpcda.mechanisms.mixing", "dpcda.training.loop",
                "dpcda.privacy", "dpcda.experiments.run"):
        importlib.import_module(mod)
    from dpcda.data import load_dataset
    from dpcda.experiments.run import normalize

    load_dataset("digits")
    normalize(tiny_experiment(0))  # imports what validation and accountants need


def fork_worker(db: Path, *, fault: str | None = None, once: bool = False,
                idle_exit: float | None = 0.0, stale_after: float = 5.0) -> int:
    """Fork a worker process on the store; returns its pid (reap it with :func:`wait`)."""
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        if fault:
            os.environ[faults.FAULT_ENV] = fault
        else:
            os.environ.pop(faults.FAULT_ENV, None)
        faults.arm(fault)
        import torch

        torch.set_num_threads(1)
        from dpcda.jobs.worker import Worker

        # isolate=False: the job's code runs in the worker's process, so a planned kill at a
        # generation or training checkpoint ends the worker, as a machine dying there would
        # (a worker killed while an isolated job runs takes the job's process with it).
        Worker(db, heartbeat_interval=0.2, stale_after=stale_after, poll_interval=0.05,
               isolate=False).run(once=once, idle_exit=idle_exit)
        code = 0
    except BaseException:  # noqa: BLE001 - report, then leave the child without cleanup
        import traceback

        traceback.print_exc()
    finally:
        os._exit(code)


def wait(pid: int) -> str:
    """Reap a forked worker: ``"killed"`` (SIGKILL), ``"exited 0"``, ...."""
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return "killed" if os.WTERMSIG(status) == signal.SIGKILL else f"signal {os.WTERMSIG(status)}"
    return f"exited {os.WEXITSTATUS(status)}"


def audit_store(db: Path) -> dict:
    """Lost, duplicated and unfinished jobs, from the jobs table and the event log."""
    with _db.connection(Path(db)) as conn:
        jobs = {r["id"]: dict(r) for r in conn.execute("SELECT id, status, attempts, result FROM jobs")}
        events: dict[int, list[str]] = {}
        for r in conn.execute("SELECT job_id, event FROM job_events ORDER BY id"):
            events.setdefault(r["job_id"], []).append(r["event"])
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    terminal = {"done", "failed", "cancelled"}
    return {
        "jobs": len(jobs),
        "lost": sum(j["status"] not in terminal for j in jobs.values()),
        "duplicated": sum(events.get(i, []).count("done") > 1 for i in jobs),
        "done_without_result": sum(j["status"] == "done" and j["result"] is None for j in jobs.values()),
        "statuses": {s: sum(j["status"] == s for j in jobs.values()) for s in sorted(terminal)},
        "claims": sum(e.count("claimed") for e in events.values()),
        "max_attempts_used": max((j["attempts"] for j in jobs.values()), default=0),
        "integrity": integrity,
        "events": events,
    }


def kill_trials(folder: Path, *, trials: int = 20, seed: int = 0) -> dict:
    """``trials`` workers, each SIGKILLed at a random point; then one finishes the queue."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "kill-trials.sqlite3"
    store = JobStore(db)
    store.submit_many([("experiment", tiny_experiment(i)) for i in range(trials)],
                      max_attempts=trials + 2)  # a job may be killed in several trials
    rng = random.Random(seed)
    points = list(MAX_PASS)
    plans = []
    t0 = time.perf_counter()
    for t in range(trials):
        point = points[t % len(points)]  # every point, in turn
        fault = f"{point}@{rng.randint(1, MAX_PASS[point])}"
        outcome = wait(fork_worker(db, fault=fault, once=True))
        plans.append({"fault": fault, "outcome": outcome})
    final = wait(fork_worker(db, idle_exit=0.0))
    seconds = time.perf_counter() - t0
    audit = audit_store(db)
    return {"trials": trials, "killed": sum(p["outcome"] == "killed" for p in plans),
            "killed_at": {p: sum(x["outcome"] == "killed" and x["fault"].startswith(p + "@")
                                 for x in plans) for p in points},
            "plans": plans, "final_worker": final, "seconds": seconds, "db": str(db), **audit}


def concurrent_run(folder: Path, *, workers: int, jobs: int = 50) -> dict:
    """``workers`` worker processes on one store with ``jobs`` tiny queued jobs."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / f"concurrent-{workers}.sqlite3"
    store = JobStore(db)
    ids = store.submit_many([("experiment", tiny_experiment(i, model="ncm", T=100))
                             for i in range(jobs)])
    t0 = time.perf_counter()
    pids = [fork_worker(db, idle_exit=0.0) for _ in range(workers)]
    outcomes = [wait(p) for p in pids]
    seconds = time.perf_counter() - t0
    audit = audit_store(db)
    per_job = audit["events"]
    with _db.connection(db) as conn:
        by_worker = dict(conn.execute("SELECT worker_id, COUNT(*) FROM job_events WHERE event = "
                                      "'claimed' GROUP BY worker_id").fetchall())
    return {"workers": workers, "jobs": len(ids), "outcomes": outcomes, "seconds": seconds,
            "claimed_once": sum(per_job.get(i, []) == ["claimed", "done"] for i in ids),
            "jobs_per_worker": sorted(by_worker.values()), "db": str(db), **audit}
