"""``dpcda store``: check the job store file, or move a corrupt one aside and start afresh."""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("store", help="check the job store; move a corrupt one aside",
                       description="Check that the job store can be opened (SQLite's quick check "
                                   "of every page). With --check, SQLite's full integrity check "
                                   "as well. With --move-aside, a malformed store (one either "
                                   "check finds damaged) is renamed to <name>.corrupt-<UTC time> "
                                   "(never deleted) and a fresh, empty store is created.")
    p.add_argument("--db", metavar="PATH", help="job store (default: $DPCDA_HOME/jobs.sqlite3)")
    p.add_argument("--check", action="store_true",
                   help="run the full integrity check (reads every page and index); exit 2 if "
                        "the store is damaged")
    p.add_argument("--move-aside", action="store_true",
                   help="rename a malformed store aside and start a fresh one")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_run)


def _damage(path) -> str | None:
    """Why the store at ``path`` is malformed (its own StoreError, or what the full integrity
    check reports), or None if it opens and passes the full check."""
    from dpcda.jobs import JobStore
    from dpcda.jobs.db import check
    from dpcda.jobs.store_errors import StoreError

    try:
        JobStore(path)
        problems = check(path, full=True)
    except StoreError as exc:
        if exc.code != "corrupt":
            raise
        return exc.detail or "corrupt"
    return "; ".join(problems[:5]) if problems else None


def _run(args) -> int:
    from dpcda.jobs import JobStore
    from dpcda.jobs.db import resolve_db_path
    from dpcda.jobs.store_errors import StoreError, move_aside

    path = resolve_db_path(args.db)
    moved = None
    if args.move_aside:
        if _damage(path) is None:
            raise ValueError(f"the job store {str(path)!r} is not corrupt (it passes SQLite's "
                             "integrity check); --move-aside only moves a malformed store")
        moved = move_aside(path)
    elif args.check:
        why = _damage(path)
        if why is not None:
            raise StoreError("corrupt", path, why)
    store = JobStore(path)
    jobs = store.jobs()
    out = {"path": str(store.path), "jobs": len(jobs), "checked": "integrity" if (
        args.check or args.move_aside) else "quick", "moved_to": None if moved is None
           else str(moved)}
    if args.json:
        print(json.dumps(out))
    else:
        if moved is not None:
            print(f"moved the corrupt store to {moved}; started a fresh one at {store.path}")
        what = "integrity check" if out["checked"] == "integrity" else "quick check"
        print(f"job store {store.path}: ok ({what}), {len(jobs)} jobs")
    return 0
