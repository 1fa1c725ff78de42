"""Durable background jobs: a SQLite job store shared by every process, and workers.

>>> from dpcda.jobs import JobStore, ensure_worker
>>> store = JobStore()                        # $DPCDA_HOME/jobs.sqlite3 (default ~/.dpcda/)
>>> job_id = store.submit("experiment", {"dataset": "digits", "epsilon": 10, "l": 4,
...                                      "train": {"model": "linear", "epochs": 2}})
>>> ensure_worker(store)                       # a `python -m dpcda worker` process, if none is alive
>>> store.get_job(job_id).status, store.progress(job_id)   # later: 'done', one row per epoch
>>> store.cancel_job(job_id)

Workers claim jobs atomically (one job, one worker), beat a heartbeat from a thread, and a job
whose worker died is requeued (or failed once its attempts are spent), never left running.
Identical configurations are computed once (``force=True`` recomputes). Nothing here imports
torch, pandas, ray or streamlit at import time.

What runs the jobs is an executor (:mod:`dpcda.jobs.executors`): ``embedded`` (the worker
processes above, the default) or ``ray`` (each job a Ray task; the store stays the record):
``get_executor("ray", address="auto").run_sweep(store, sweep_id)``.
"""

from dpcda.jobs.db import default_db_path
from dpcda.jobs.executors import EXECUTORS, Executor, get_executor, list_executors, ray_setting
from dpcda.jobs.kinds import JOB_KINDS, JobCancelled, JobContext, JobKind, load_plugins, register_kind
from dpcda.jobs.store import Job, JobStore, Sweep
from dpcda.jobs.worker import Worker, ensure_worker, live_workers


def _store(db) -> JobStore:
    return db if isinstance(db, JobStore) else JobStore(db)


def cancel_job(job_id: int, db=None) -> str:
    """Cancel a job (queued: at once; running: at its next epoch). Returns its status."""
    return _store(db).cancel_job(job_id)


def cancel_sweep(sweep_id: int, db=None) -> dict[int, str]:
    """Cancel every unfinished job of a sweep."""
    return _store(db).cancel_sweep(sweep_id)


__all__ = ["EXECUTORS", "JOB_KINDS", "Executor", "Job", "JobCancelled", "JobContext", "JobKind", "JobStore",
           "Sweep", "Worker", "cancel_job", "cancel_sweep", "default_db_path", "ensure_worker",
           "get_executor", "list_executors", "live_workers", "load_plugins",
           "ray_setting", "register_kind"]
