"""``dpcda jobs``: the jobs in the store with their status, the reason code of how they ended
(or why they went back to the queue) and the progress of running ones."""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("jobs", help="list the store's jobs: status, reason, progress",
                       description="List the jobs of the job store: status, the reason code of a "
                                   "job that failed, was cancelled or was requeued (time-limit, "
                                   "stalled, worker-gone, worker-stopped, cancelled, error), "
                                   "attempts and the progress of running jobs.")
    p.add_argument("--db", metavar="PATH", help="job store (default: $DPCDA_HOME/jobs.sqlite3)")
    p.add_argument("--sweep", type=int, metavar="ID", help="only this sweep's jobs")
    p.add_argument("--status", choices=("queued", "running", "done", "failed", "cancelled"))
    p.add_argument("--json", action="store_true", help="print JSON (one object per job)")
    p.set_defaults(handler=_run)


def _run(args) -> int:
    from dpcda.jobs import JobStore
    from dpcda.jobs.status import format_rows, job_rows

    store = JobStore(args.db)
    if args.sweep is not None:
        store.get_sweep(args.sweep)  # ValueError (one line, exit 2) for an unknown sweep
    rows = job_rows(store, sweep_id=args.sweep, status=args.status)
    if args.json:
        print(json.dumps(rows))
    else:
        print(format_rows(rows))
    return 0
