"""The durable job store: sweeps, jobs, per-epoch progress (SQLite, see :mod:`dpcda.jobs.db`).

Life of a job: ``queued`` -> ``running`` (claimed by exactly one worker) -> ``done`` |
``failed`` | ``cancelled``. A job whose worker died goes back to ``queued`` (while
``attempts < max_attempts``) or to ``failed`` with a message: see :meth:`JobStore.recover`.
An identical configuration (same kind, same canonical JSON) already done is not recomputed:
a new submission links to it (``reused_from``) unless ``force=True``.
"""

from __future__ import annotations

import os
import time
from typing import Any, Iterable

from dpcda.jobs import db as _db
from dpcda.jobs.records import Job, Sweep, sweep_from_row

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
               max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> int:
        """Queue one job and return its id (an identical done job is linked, not rerun)."""
        return self.submit_many([(kind, config)], sweep_id=sweep_id, force=force,
                                max_attempts=max_attempts)[0]

    def submit_many(self, items: Iterable[tuple[str, dict]], *, sweep_id: int | None = None,
                    force: bool = False, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[int]:
        """Queue several jobs in one transaction; returns their ids in order."""
        if sweep_id is not None:
            self.get_sweep(sweep_id)  # ValueError for an unknown sweep
        prepared = _prepare(items, max_attempts)
        with _db.transaction(self.path) as conn:
            return _insert_jobs(conn, prepared, sweep_id, force, max_attempts)

    def create_sweep(self, name: str, config: dict, jobs: list[tuple[str, dict]], *,
                     force: bool = False, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> int:
        """Record a sweep (its own config is kept for display) and queue its jobs, atomically."""
        if not jobs:
            raise ValueError("a sweep needs at least one job, got jobs=[]")
        prepared = _prepare(jobs, max_attempts)  # validates every config before writing
        with _db.transaction(self.path) as conn:
            sweep_id = conn.execute(
                "INSERT INTO sweeps (created, name, config, status) VALUES (?, ?, ?, 'queued')",
                (time.time(), str(name), _db.dumps(config))).lastrowid
            _insert_jobs(conn, prepared, sweep_id, force, max_attempts)
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
        Two workers never get the same job: the read and the update share one write lock."""
        kinds = list(kinds)
        if not kinds:
            return None
        marks = ",".join("?" * len(kinds))
        pick = f"SELECT id FROM jobs WHERE status = 'queued' AND kind IN ({marks})"
        args: list[Any] = list(kinds)
        if sweep_id is not None:
            pick += " AND sweep_id = ?"
            args.append(int(sweep_id))
        pick += " ORDER BY id LIMIT 1"
        with _db.transaction(self.path) as conn:
            while True:
                now = time.time()
                row = conn.execute(
                    "UPDATE jobs SET status = 'running', worker_id = ?, heartbeat_at = ?, started = ?, "
                    "attempts = attempts + 1, epoch = NULL, n_epochs = NULL, metrics = NULL, "
                    f"message = 'running', error = NULL WHERE id = ({pick}) AND status = 'queued' "
                    "RETURNING *", [worker_id, now, now, *args]).fetchone()
                if row is None:
                    return None
                job = Job.from_row(row)
                conn.execute("DELETE FROM progress WHERE job_id = ?", (job.id,))
                prior = None if job.force else _done_with_hash(conn, job.config_hash, exclude=job.id)
                if prior is not None:  # an identical job finished while this one waited
                    conn.execute(
                        "UPDATE jobs SET status = 'done', finished = ?, result = ?, reused_from = ?, "
                        "message = ?, attempts = attempts - 1, epoch = ?, n_epochs = ?, metrics = ? "
                        "WHERE id = ?", (now, prior["result"], prior["origin"],
                                         _reuse_message(prior["origin"]), prior["epoch"],
                                         prior["n_epochs"], prior["metrics"], job.id))
                    _sync_sweep(conn, job.sweep_id)
                    continue
                conn.execute("UPDATE workers SET current_job = ? WHERE id = ?", (job.id, worker_id))
                _sync_sweep(conn, job.sweep_id)
                return job

    def heartbeat(self, worker_id: str, job_id: int | None = None) -> str:
        """Refresh the worker's (and its job's) heartbeat. Returns ``"ok"``, ``"cancel"`` (a
        cancel was requested) or ``"lost"`` (the job is no longer this worker's)."""
        now = time.time()
        with _db.transaction(self.path) as conn:
            conn.execute("UPDATE workers SET heartbeat_at = ?, current_job = ?, status = CASE WHEN "
                         "status = 'dead' THEN 'running' ELSE status END WHERE id = ?",
                         (now, job_id, worker_id))
            if job_id is None:
                return "ok"
            row = conn.execute("UPDATE jobs SET heartbeat_at = ? WHERE id = ? AND worker_id = ? AND "
                               "status = 'running' RETURNING cancel_requested",
                               (now, job_id, worker_id)).fetchone()
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
        """Record one finished epoch; returns like :meth:`heartbeat`."""
        now = time.time()
        metrics_text = _db.dumps(metrics or {})
        with _db.transaction(self.path) as conn:
            row = conn.execute(
                "UPDATE jobs SET epoch = ?, n_epochs = ?, metrics = ?, heartbeat_at = ? "
                "WHERE id = ? AND worker_id = ? AND status = 'running' RETURNING cancel_requested",
                (int(epoch), n_epochs, metrics_text, now, job_id, worker_id)).fetchone()
            if row is None:
                return "lost"
            conn.execute("INSERT OR REPLACE INTO progress (job_id, epoch, n_epochs, metrics, at) "
                         "VALUES (?, ?, ?, ?, ?)", (job_id, int(epoch), n_epochs, metrics_text, now))
        return "cancel" if row[0] else "ok"

    def set_message(self, job_id: int, worker_id: str, message: str) -> None:
        with _db.transaction(self.path) as conn:
            conn.execute("UPDATE jobs SET message = ? WHERE id = ? AND worker_id = ? AND status = "
                         "'running'", (str(message), job_id, worker_id))

    def finish(self, job_id: int, worker_id: str, status: str, *, result: dict | None = None,
               message: str | None = None, error: str | None = None) -> bool:
        """Record the outcome; False (and nothing written) if the job is no longer this
        worker's (it was recovered from under a worker presumed dead)."""
        if status not in _db.TERMINAL_STATUSES and status != "queued":
            raise ValueError(f"status must be one of done, failed, cancelled, queued, got status={status!r}")
        now = time.time()
        with _db.transaction(self.path) as conn:
            if status == "queued":  # handing the job back (worker shutting down)
                row = conn.execute(
                    "UPDATE jobs SET status = 'queued', worker_id = NULL, message = ?, "
                    "attempts = MAX(attempts - 1, 0) WHERE id = ? AND worker_id = ? AND "
                    "status = 'running' RETURNING sweep_id", (message, job_id, worker_id)).fetchone()
            else:
                row = conn.execute(
                    "UPDATE jobs SET status = ?, result = ?, message = ?, error = ?, finished = ? "
                    "WHERE id = ? AND worker_id = ? AND status = 'running' RETURNING sweep_id",
                    (status, None if result is None else _db.dumps(result), message, error, now,
                     job_id, worker_id)).fetchone()
            conn.execute("UPDATE workers SET current_job = NULL WHERE id = ?", (worker_id,))
            if row is None:
                return False
            _sync_sweep(conn, row[0])
        return True

    # --- cancelling and recovery --------------------------------------------------------

    def cancel_job(self, job_id: int) -> str:
        """Queued -> cancelled at once; running -> flagged (the worker stops at its next epoch).
        Returns the job's status afterwards ('running' while the flag waits)."""
        self.get_job(job_id)  # ValueError for an unknown id
        with _db.transaction(self.path) as conn:
            status = _cancel(conn, "id = ?", (int(job_id),))
        return status.get(int(job_id), "")

    def cancel_sweep(self, sweep_id: int) -> dict[int, str]:
        """Cancel every unfinished job of a sweep; returns {job id: status afterwards}."""
        self.get_sweep(sweep_id)
        with _db.transaction(self.path) as conn:
            conn.execute("UPDATE sweeps SET cancel_requested = 1 WHERE id = ?", (int(sweep_id),))
            return _cancel(conn, "sweep_id = ?", (int(sweep_id),))

    def recover(self, *, stale_after: float = DEFAULT_STALE_AFTER) -> list[tuple[int, str, str]]:
        """Requeue (or fail, or cancel) running jobs whose worker is gone: heartbeat older than
        ``stale_after`` seconds, or its process is no longer alive on this host. Also marks
        such workers dead. Returns [(job id, new status, reason)]."""
        from dpcda.jobs.recovery import recover_orphans

        return recover_orphans(self.path, stale_after=stale_after)

def _prepare(items, max_attempts) -> list[tuple[str, str, str]]:
    """(kind, config JSON, hash) per item, after the kind's normalisation and validation."""
    from dpcda.jobs.kinds import get_kind, normalize_config

    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
        raise ValueError(f"max_attempts must be an integer >= 1, got max_attempts={max_attempts!r}")
    prepared = []
    for kind, config in items:
        get_kind(kind)  # ValueError listing the known kinds
        config = normalize_config(kind, config)
        prepared.append((kind, _db.dumps(config), _db.config_hash(kind, config)))
    return prepared


def _insert_jobs(conn, prepared, sweep_id, force, max_attempts) -> list[int]:
    ids, now = [], time.time()
    for kind, config_text, chash in prepared:
        prior = None if force else _done_with_hash(conn, chash)
        if prior is None:
            cur = conn.execute(
                "INSERT INTO jobs (sweep_id, kind, config, config_hash, status, force, "
                "max_attempts, created, message) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, 'queued')",
                (sweep_id, kind, config_text, chash, int(force), max_attempts, now))
        else:  # an identical configuration is done: link to its result
            cur = conn.execute(
                "INSERT INTO jobs (sweep_id, kind, config, config_hash, status, force, "
                "max_attempts, created, started, finished, result, reused_from, message, "
                "epoch, n_epochs, metrics) VALUES (?, ?, ?, ?, 'done', 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (sweep_id, kind, config_text, chash, max_attempts, now, now, now,
                 prior["result"], prior["origin"], _reuse_message(prior["origin"]),
                 prior["epoch"], prior["n_epochs"], prior["metrics"]))
        ids.append(cur.lastrowid)
    _sync_sweep(conn, sweep_id)
    return ids


def _reuse_message(origin: int) -> str:
    return f"reused the result of job {origin} (identical configuration)"


def _done_with_hash(conn, chash: str, exclude: int | None = None):
    row = conn.execute(
        "SELECT id, reused_from, result, epoch, n_epochs, metrics FROM jobs WHERE config_hash = ? "
        "AND status = 'done' AND id != ? ORDER BY (reused_from IS NOT NULL), id LIMIT 1",
        (chash, -1 if exclude is None else exclude)).fetchone()
    if row is None:
        return None
    return dict(row, origin=row["reused_from"] or row["id"])


def _cancel(conn, where: str, args: tuple) -> dict[int, str]:
    now = time.time()
    conn.execute(f"UPDATE jobs SET status = 'cancelled', finished = ?, message = 'cancelled before it "
                 f"started' WHERE status = 'queued' AND {where}", (now, *args))
    conn.execute(f"UPDATE jobs SET cancel_requested = 1, message = 'cancel requested' "
                 f"WHERE status = 'running' AND {where}", args)
    out = {r[0]: r[1] for r in conn.execute(f"SELECT id, status FROM jobs WHERE {where}", args)}
    for (sweep_id,) in conn.execute(f"SELECT DISTINCT sweep_id FROM jobs WHERE {where}", args).fetchall():
        _sync_sweep(conn, sweep_id)
    return out


def _sync_sweep(conn, sweep_id: int | None) -> None:
    """Derive a sweep's status from its jobs' statuses."""
    if sweep_id is None:
        return
    counts = dict.fromkeys(_db.JOB_STATUSES, 0)
    for status, n in conn.execute("SELECT status, COUNT(*) FROM jobs WHERE sweep_id = ? GROUP BY status",
                                  (sweep_id,)):
        counts[status] = n
    cancelled = conn.execute("SELECT cancel_requested FROM sweeps WHERE id = ?", (sweep_id,)).fetchone()
    finished = counts["done"] + counts["failed"] + counts["cancelled"]
    if counts["running"] or (counts["queued"] and finished):
        status = "running"
    elif counts["queued"]:
        status = "queued"
    elif cancelled and cancelled[0]:
        status = "cancelled"
    elif counts["failed"]:
        status = "failed"
    elif counts["cancelled"]:
        status = "cancelled"
    else:
        status = "done"
    conn.execute("UPDATE sweeps SET status = ? WHERE id = ?", (status, sweep_id))
