"""``dpcda jobs``: the jobs in the store with their status, the reason code of how they ended
(or why they went back to the queue) and the progress of running ones; ``dpcda jobs cancel ID
[ID ...]`` cancels jobs (``--sweep ID``: every unfinished job of a sweep)."""

from __future__ import annotations

import argparse
import json


def _job_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"a job id must be an integer >= 1, got {text!r}")
    return value


def register(sub) -> None:
    p = sub.add_parser("jobs", help="list the store's jobs: status, reason, progress; cancel jobs",
                       description="List the jobs of the job store: status, the reason code of a "
                                   "job that failed, was cancelled or was requeued (time-limit, "
                                   "stalled, worker-gone, worker-stopped, cancelled, error), "
                                   "attempts and the progress of running jobs. `jobs cancel ID "
                                   "[ID ...]` cancels jobs: a queued job at once, a running one "
                                   "at its worker's next check (`jobs cancel --sweep ID`: every "
                                   "unfinished job of that sweep).")
    p.add_argument("action", nargs="?", choices=("list", "cancel"), default="list",
                   help="list (default) or cancel")
    p.add_argument("ids", nargs="*", type=_job_id, metavar="ID", help="job ids (with cancel)")
    p.add_argument("--db", metavar="PATH", help="job store (default: $DPCDA_HOME/jobs.sqlite3)")
    p.add_argument("--sweep", type=int, metavar="ID", help="only this sweep's jobs")
    p.add_argument("--status", choices=("queued", "running", "done", "failed", "cancelled"))
    p.add_argument("--json", action="store_true", help="print JSON (one object per job)")
    p.set_defaults(handler=_run)


def _run(args) -> int:
    from dpcda.jobs import JobStore
    from dpcda.jobs.status import format_rows, job_rows

    if args.action == "cancel":
        return _cancel(args)
    if args.ids:
        raise ValueError(f"job ids are for `jobs cancel`, got {' '.join(map(str, args.ids))}")
    store = JobStore(args.db)
    if args.sweep is not None:
        store.get_sweep(args.sweep)  # ValueError (one line, exit 2) for an unknown sweep
    rows = job_rows(store, sweep_id=args.sweep, status=args.status)
    if args.json:
        print(json.dumps(rows))
    else:
        print(format_rows(rows))
    return 0


def _cancel(args) -> int:
    from dpcda.jobs import JobStore

    if args.status is not None:
        raise ValueError("--status applies to listing, not to `jobs cancel`")
    if bool(args.ids) == (args.sweep is not None):
        raise ValueError("`jobs cancel` needs job ids or --sweep ID (not both), e.g. "
                         "`dpcda jobs cancel 12`")
    store = JobStore(args.db)
    if args.sweep is not None:
        before = {j.id: j.status for j in store.jobs(sweep_id=store.get_sweep(args.sweep).id)}
        after = store.cancel_sweep(args.sweep)
    else:  # every id known (ValueError otherwise) before anything is cancelled
        before = {job_id: store.get_job(job_id).status for job_id in args.ids}
        after = {job_id: store.cancel_job(job_id) for job_id in args.ids}
    finished = {j for j, s in before.items() if s in ("done", "failed", "cancelled")}
    if args.json:
        print(json.dumps([{"job_id": j, "status": s, "was_finished": j in finished}
                          for j, s in sorted(after.items())]))
        return 0
    for job_id, status in sorted(after.items()):
        if job_id in finished:
            what = f"{status} already: nothing to cancel"
        elif status == "running":
            what = "running: cancel requested (its worker stops it at its next check)"
        else:
            what = status
        print(f"job {job_id}: {what}")
    return 0
