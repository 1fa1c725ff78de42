"""``dpcda store``: check the job store file, or move a corrupt one aside and start afresh."""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("store", help="check the job store; move a corrupt one aside",
                       description="Check that the job store can be opened. With --move-aside, "
                                   "a corrupt store is renamed to <name>.corrupt-<UTC time> "
                                   "(never deleted) and a fresh, empty store is created.")
    p.add_argument("--db", metavar="PATH", help="job store (default: $DPCDA_HOME/jobs.sqlite3)")
    p.add_argument("--move-aside", action="store_true",
                   help="rename a corrupt store aside and start a fresh one")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_run)


def _run(args) -> int:
    from dpcda.jobs import JobStore
    from dpcda.jobs.db import resolve_db_path
    from dpcda.jobs.store_errors import StoreError, move_aside

    path = resolve_db_path(args.db)
    moved = None
    try:
        store = JobStore(path)
    except StoreError as exc:
        if not (args.move_aside and exc.code == "corrupt"):
            raise
        moved = move_aside(path)
        store = JobStore(path)
    if args.move_aside and moved is None:
        raise ValueError(f"the job store {str(path)!r} is not corrupt; --move-aside only moves "
                         "a store that cannot be read")
    jobs = store.jobs()
    out = {"path": str(store.path), "jobs": len(jobs), "moved_to": None if moved is None
           else str(moved)}
    if args.json:
        print(json.dumps(out))
    else:
        if moved is not None:
            print(f"moved the corrupt store to {moved}; started a fresh one at {store.path}")
        print(f"job store {store.path}: ok, {len(jobs)} jobs")
    return 0
