"""The durable job store: sweeps, jobs, per-epoch progress (SQLite, see :mod:`dpcda.jobs.db`).

Life of a job: ``queued`` -> ``running`` (claimed by exactly one worker) -> ``done`` |
``failed`` | ``cancelled``. A job whose worker died goes back to ``queued`` (while
``attempts < max_attempts``) or to ``failed`` with a message: see :meth:`JobStore.recover`.
An identical configuration (same kind, same canonical JSON) already done is not recomputed:
a new submission links to it (``reused_from``) unless ``force=True``. One that is queued or
running joins it: a queued job is not claimed while an identical job runs, and when it is
claimed after that job is done it reuses the result (see :meth:`JobStore.claim`), so two
identical sweeps compute each configuration once and report the same value for each cell.
"""

from __future__ import annotations

import os
import time
from typing import Any, Iterable

from dpcda.jobs import db as _db
from dpcda.jobs import faults
from dpcda.jobs.records import Job, Sweep, sweep_from_row
from dpcda.jobs.store_rows import (DEFAULT_STALL_AFTER, DEFAULT_TIME_LIMIT, cancel_where,  # noqa: F401
                                   done_with_hash, insert_jobs, prepare, record_event,
                                   reuse_message, sync_sweep)

_sync_sweep = sync_sweep  # the name recovery (and older callers) import

DEFAULT_STALE_AFTER = 60.0  # seconds without a heartbeat before a running job is presumed dead
DEFAULT_MAX_ATTEMPTS = 2


class JobStore:
    """Handle on one store file; cheap to create, safe to share between threads."""

    def __init__(self, db: str | os.PathLike | None = None) -> None:
        self.path = _db.resolve_db_path(db)
        _db.initialise(self.path)

    def __repr__(self) -> str:
        return f"JobStore({str(self.path)!r})"

    # --- submitting ---------------------------------------------------------------------

    def submit(self, kind: str, config: dict, *, sweep_id: int | None = None, force: bool = False,
               max_attempts: int = DEFAULT_MAX_ATTEMPTS, time_limit: float | None = None,
               stall_after: float | None = None) -> int:
        """Queue one job and return its id (an identical done job is linked, not rerun).

        ``time_limit``: seconds the job may run before it fails (reason ``time-limit``; default
        :data:`DEFAULT_TIME_LIMIT`); ``stall_after``: seconds without progress before it counts
        as stalled (default :data:`DEFAULT_STALL_AFTER`). A config may carry either key itself;
        neither is part of the deduplication key."""
        return self.submit_many([(kind, config)], sweep_id=sweep_id, force=force,
                                max_attempts=max_attempts, time_limit=time_limit,
                                stall_after=stall_after)[0]

    def submit_many(self, items: Iterable[tuple[str, dict]], *, sweep_id: int | None = None,
                    force: bool = False, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                    time_limit: float | None = None, stall_after: float | None = None) -> list[int]:
        """Queue several jobs in one transaction; returns their ids in order."""
        if sweep_id is not None:
            self.get_sweep(sweep_id)  # ValueError for an unknown sweep
        prepared = prepare(items, max_attempts, dict(time_limit=time_limit, stall_after=stall_after))
        with _db.transaction(self.path) as conn:
            return insert_jobs(conn, prepared, sweep_id, force, max_attempts)

    def create_sweep(self, name: str, config: dict, jobs: list[tuple[str, dict]], *,
                     force: bool = False, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                     time_limit: float | None = None, stall_after: float | None = None) -> int:
        """Record a sweep (its own config is kept for display) and queue its jobs, atomically."""
        if not jobs:
            raise ValueError("a sweep needs at least one job, got jobs=[]")
        prepared = prepare(jobs, max_attempts, dict(time_limit=time_limit, stall_after=stall_after))
        with _db.transaction(self.path) as conn:
            sweep_id = conn.execute(
                "INSERT INTO sweeps (created, name, config, status) VALUES (?, ?, ?, 'queued')",
                (time.time(), str(name), _db.dumps(config))).lastrowid
            insert_jobs(conn, prepared, sweep_id, force, max_attempts)
        return sweep_id

    # --- reading ------------------------------------------------------------------------

    def get_job(self, job_id: int) -> Job:
        with _db.connection(self.path) as conn:
            row = conn.execute("SELECT * FROM jobs WHERE id = ?", (int(job_id),)).fetchone()
        if row is None:
            raise ValueError(f"job_id must be the id of a job in {self.path}, got job_id={job_id!r}")
        return Job.from_row(row)

    def jobs(self, *, sweep_id: int | None = None, status: str | None = None) -> list[Job]:
        where, args = [], []
        if sweep_id is not None:
            where.append("sweep_id = ?")
            args.append(int(sweep_id))
        if status is not None:
            if status not in _db.JOB_STATUSES:
                raise ValueError(f"status must be one of {', '.join(_db.JOB_STATUSES)}, "
                                 f"got status={status!r}")
            where.append("status = ?")
            args.append(status)
        sql = "SELECT * FROM jobs" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        with _db.connection(self.path) as conn:
            return [Job.from_row(r) for r in conn.execute(sql, args)]

    def get_sweep(self, sweep_id: int) -> Sweep:
        with _db.connection(self.path) as conn:
            row = conn.execute("SELECT * FROM sweeps WHERE id = ?", (int(sweep_id),)).fetchone()
        if row is None:
            raise ValueError(f"sweep_id must be the id of a sweep in {self.path}, got sweep_id={sweep_id!r}")
        return sweep_from_row(row)

    def sweeps(self) -> list[Sweep]:
        with _db.connection(self.path) as conn:
            return [sweep_from_row(r) for r in conn.execute("SELECT * FROM sweeps ORDER BY id")]

    def progress(self, job_id: int) -> list[dict]:
        """One row per finished epoch of the job's current (or last) attempt (for a reused
        result: those of the job that computed it)."""
        with _db.connection(self.path) as conn:
            rows = conn.execute(
                "SELECT epoch, n_epochs, metrics, at FROM progress WHERE job_id = COALESCE("
                "(SELECT reused_from FROM jobs WHERE id = ?1), ?1) ORDER BY epoch",
                (int(job_id),)).fetchall()
        return [dict(epoch=r["epoch"], n_epochs=r["n_epochs"], metrics=_db.loads(r["metrics"]),
                     at=r["at"]) for r in rows]

    # --- worker side --------------------------------------------------------------------

    def claim(self, worker_id: str, kinds: Iterable[str], *, sweep_id: int | None = None) -> Job | None:
        """Atomically take the oldest queued job of one of ``kinds`` (None if there is none).
        Two workers never get the same job: the read and the update share one write lock. A
        job with an identical twin running is passed over until the twin ends (then it reuses
        the twin's result, or runs if the twin failed or was cancelled)."""
        kinds = list(kinds)
        if not kinds:
            return None
        marks = ",".join("?" * len(kinds))
        # A job whose identical twin (same configuration key) is running waits for it (it is
        # not claimed; once the twin is done, its claim reuses the result): identical
        # submissions join one computation. ``force`` jobs recompute regardless.
        pick = (f"SELECT q.id FROM jobs AS q WHERE q.status = 'queued' AND q.kind IN ({marks}) "
                "AND (q.force = 1 OR NOT EXISTS (SELECT 1 FROM jobs AS twin WHERE "
                "twin.config_hash = q.config_hash AND twin.status = 'running'))")
        args: list[Any] = list(kinds)
        if sweep_id is not None:
            pick += " AND q.sweep_id = ?"
            args.append(int(sweep_id))
        pick += " ORDER BY q.id LIMIT 1"
        with _db.transaction(self.path) as conn:
            while True:
                now = time.time()
                row = conn.execute(
                    "UPDATE jobs SET status = 'running', worker_id = ?, heartbeat_at = ?, started = ?, "
                    "attempts = attempts + 1, epoch = NULL, n_epochs = NULL, metrics = NULL, "
                    "message = 'running', error = NULL, reason = NULL, steps = 0, fraction = NULL, "
                    f"progress_at = ? WHERE id = ({pick}) AND status = 'queued' "
                    "RETURNING *", [worker_id, now, now, now, *args]).fetchone()
                if row is None:
                    return None
                job = Job.from_row(row)
                conn.execute("DELETE FROM progress WHERE job_id = ?", (job.id,))
                prior = None if job.force else done_with_hash(conn, job.config_hash, exclude=job.id)
                if prior is not None:  # an identical job finished while this one waited
                    conn.execute(
                        "UPDATE jobs SET status = 'done', finished = ?, result = ?, reused_from = ?, "
                        "message = ?, attempts = attempts - 1, epoch = ?, n_epochs = ?, metrics = ?, "
                        "reason = 'reused' WHERE id = ?",
                        (now, prior["result"], prior["origin"], reuse_message(prior["origin"]),
                         prior["epoch"], prior["n_epochs"], prior["metrics"], job.id))
                    record_event(conn, job.id, "done", worker_id=worker_id, reason="reused")
                    sync_sweep(conn, job.sweep_id)
                    continue
                conn.execute("UPDATE workers SET current_job = ? WHERE id = ?", (job.id, worker_id))
                record_event(conn, job.id, "claimed", worker_id=worker_id, attempt=job.attempts)
                sync_sweep(conn, job.sweep_id)
                faults.hit("claim")
                return job

    def heartbeat(self, worker_id: str, job_id: int | None = None, *, steps: int | None = None,
                  fraction: float | None = None, progress_at: float | None = None) -> str:
        """Refresh the worker's (and its job's) heartbeat, with the job's progress counter
        (``steps``, advanced by the work itself), ``fraction`` done and when the counter last
        moved (``progress_at``). Returns ``"ok"``, ``"cancel"`` (a cancel was requested) or
        ``"lost"`` (the job is no longer this worker's)."""
        now = time.time()
        with _db.transaction(self.path) as conn:
            conn.execute("UPDATE workers SET heartbeat_at = ?, current_job = ?, status = CASE WHEN "
                         "status = 'dead' THEN 'running' ELSE status END WHERE id = ?",
                         (now, job_id, worker_id))
            if job_id is None:
                return "ok"
            row = conn.execute(
                "UPDATE jobs SET heartbeat_at = ?, steps = COALESCE(?, steps), fraction = COALESCE(?, "
                "fraction), progress_at = COALESCE(?, progress_at) WHERE id = ? AND worker_id = ? AND "
                "status = 'running' RETURNING cancel_requested",
                (now, steps, fraction, progress_at, job_id, worker_id)).fetchone()
        if row is None:
            return "lost"
        return "cancel" if row[0] else "ok"

    def beat_jobs(self, worker_id: str) -> dict[int, bool]:
        """Refresh the heartbeat of a worker and of every job it is running (a Ray driver has
        several in flight); returns {job id: cancel requested} for those jobs."""
        now = time.time()
        with _db.transaction(self.path) as conn:
            conn.execute("UPDATE workers SET heartbeat_at = ?, status = CASE WHEN status = 'dead' "
                         "THEN 'running' ELSE status END WHERE id = ?", (now, worker_id))
            rows = conn.execute("UPDATE jobs SET heartbeat_at = ? WHERE worker_id = ? AND status = "
                                "'running' RETURNING id, cancel_requested", (now, worker_id)).fetchall()
        return {r[0]: bool(r[1]) for r in rows}

    def report_progress(self, job_id: int, worker_id: str, epoch: int, n_epochs: int | None,
                        metrics: dict | None = None) -> str:
        """Record one finished epoch (it also counts as progress); returns like :meth:`heartbeat`."""
        now = time.time()
        metrics_text = _db.dumps(metrics or {})
        with _db.transaction(self.path) as conn:
            row = conn.execute(
                "UPDATE jobs SET epoch = ?, n_epochs = ?, metrics = ?, heartbeat_at = ?, progress_at = ? "
                "WHERE id = ? AND worker_id = ? AND status = 'running' RETURNING cancel_requested",
                (int(epoch), n_epochs, metrics_text, now, now, job_id, worker_id)).fetchone()
            if row is None:
                return "lost"
            conn.execute("INSERT OR REPLACE INTO progress (job_id, epoch, n_epochs, metrics, at) "
                         "VALUES (?, ?, ?, ?, ?)", (job_id, int(epoch), n_epochs, metrics_text, now))
        return "cancel" if row[0] else "ok"

    def set_message(self, job_id: int, worker_id: str, message: str) -> None:
        with _db.transaction(self.path) as conn:
            conn.execute("UPDATE jobs SET message = ? WHERE id = ? AND worker_id = ? AND status = "
                         "'running'", (str(message), job_id, worker_id))

    def cancel_requested(self, job_id: int) -> bool:
        """Whether a cancel was requested for the job (a cheap read, polled by workers)."""
        with _db.connection(self.path) as conn:
            row = conn.execute("SELECT cancel_requested FROM jobs WHERE id = ?", (int(job_id),)).fetchone()
        return bool(row and row[0])

    def finish(self, job_id: int, worker_id: str, status: str, *, result: dict | None = None,
               message: str | None = None, error: str | None = None, reason: str | None = None,
               refund: bool = True, attempts: int | None = None) -> bool:
        """Record the outcome (``reason``: a code of :data:`dpcda.jobs.reasons.REASONS`); False
        (and nothing written) if the job is no longer this worker's (it was recovered from
        under a worker presumed dead). ``status="queued"`` hands the job back; ``refund``: the
        attempt does not count (the worker stopped, not the job's fault). ``attempts``: the
        number of times the job was really started, when its executor retried it without a new
        claim (Ray reruns a task whose worker process died); None keeps the store's count."""
        if status not in _db.TERMINAL_STATUSES and status != "queued":
            raise ValueError(f"status must be one of done, failed, cancelled, queued, got status={status!r}")
        now = time.time()
        with _db.transaction(self.path) as conn:
            if status == "queued":  # handing the job back (worker shutting down)
                row = conn.execute(
                    "UPDATE jobs SET status = 'queued', worker_id = NULL, message = ?, reason = ?, "
                    "attempts = MAX(attempts - ?, 0) WHERE id = ? AND worker_id = ? AND "
                    "status = 'running' RETURNING sweep_id", (message, reason, int(refund), job_id,
                                                               worker_id)).fetchone()
            else:
                row = conn.execute(
                    "UPDATE jobs SET status = ?, result = ?, message = ?, error = ?, finished = ?, "
                    "reason = ?, attempts = MAX(attempts, COALESCE(?, 0)) WHERE id = ? AND "
                    "worker_id = ? AND status = 'running' RETURNING sweep_id",
                    (status, None if result is None else _db.dumps(result), message, error, now,
                     reason, attempts, job_id, worker_id)).fetchone()
            conn.execute("UPDATE workers SET current_job = NULL WHERE id = ?", (worker_id,))
            if row is None:
                return False
            record_event(conn, job_id, "requeued" if status == "queued" else status,
                         worker_id=worker_id, reason=reason)
            sync_sweep(conn, row[0])
            faults.hit("result-write")  # a crash here must roll all of it back
        return True

    # --- cancelling and recovery --------------------------------------------------------

    def cancel_job(self, job_id: int) -> str:
        """Queued -> cancelled at once; running -> flagged (the worker stops at its next epoch).
        Returns the job's status afterwards ('running' while the flag waits)."""
        self.get_job(job_id)  # ValueError for an unknown id
        with _db.transaction(self.path) as conn:
            status = cancel_where(conn, "id = ?", (int(job_id),))
        return status.get(int(job_id), "")

    def cancel_sweep(self, sweep_id: int) -> dict[int, str]:
        """Cancel every unfinished job of a sweep; returns {job id: status afterwards}."""
        self.get_sweep(sweep_id)
        with _db.transaction(self.path) as conn:
            conn.execute("UPDATE sweeps SET cancel_requested = 1 WHERE id = ?", (int(sweep_id),))
            return cancel_where(conn, "sweep_id = ?", (int(sweep_id),))

    def recover(self, *, stale_after: float = DEFAULT_STALE_AFTER) -> list[tuple[int, str, str]]:
        """Requeue (or fail, or cancel) running jobs whose worker is gone: heartbeat older than
        ``stale_after`` seconds, or its process is no longer alive on this host. Also marks
        such workers dead. Returns [(job id, new status, reason)]."""
        from dpcda.jobs.recovery import recover_orphans

        return recover_orphans(self.path, stale_after=stale_after)

