"""Overhead of the durable job store: a no-op job with 10 epochs of progress, run through the
store and an in-process worker, against the same function called directly (one process)."""

import tempfile
import time
from pathlib import Path

from dpcda.jobs import JobContext, JobStore, Worker, register_kind

EPOCHS, N = 10, 200


@register_kind("bench-noop")
def noop(config, ctx):
    for e in range(1, EPOCHS + 1):
        ctx.on_epoch(e, EPOCHS, {"loss": 1.0 / e})
    return {"i": config["i"]}


def main() -> None:
    t0 = time.perf_counter()
    for i in range(N):
        noop({"i": i}, JobContext())
    direct = (time.perf_counter() - t0) / N
    with tempfile.TemporaryDirectory() as tmp:
        store = JobStore(Path(tmp) / "jobs.sqlite3")
        t0 = time.perf_counter()
        store.submit_many([("bench-noop", {"i": i}) for i in range(N)])
        submit = (time.perf_counter() - t0) / N
        t0 = time.perf_counter()
        ran = Worker(store, heartbeat_interval=1, stale_after=30, poll_interval=0.01).run(idle_exit=0)
        through = (time.perf_counter() - t0) / ran
        t0 = time.perf_counter()
        store.submit_many([("bench-noop", {"i": i}) for i in range(N)])
        dedup = (time.perf_counter() - t0) / N
    print(f"jobs: {N}, epochs per job: {EPOCHS}")
    print(f"direct call:          {direct * 1e3:8.3f} ms/job")
    print(f"submit (batched):     {submit * 1e3:8.3f} ms/job")
    print(f"through the store:    {through * 1e3:8.3f} ms/job "
          f"(claim + {EPOCHS} progress writes + finish; ratio to direct {through / direct:,.0f}x)")
    print(f"resubmit (dedup hit): {dedup * 1e3:8.3f} ms/job")


if __name__ == "__main__":
    main()
