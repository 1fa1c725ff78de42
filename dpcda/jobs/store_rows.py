"""Row-level helpers of the job store (:mod:`dpcda.jobs.store`): preparing and inserting jobs,
finding an identical finished job, cancelling, a sweep's status, and the job event log.

Every function takes an open connection inside the caller's write transaction, so what it
writes commits (or rolls back) together with the caller's change.
"""

from __future__ import annotations

import time

from dpcda.jobs import db as _db

DEFAULT_TIME_LIMIT = 6 * 3600.0  # seconds a job may run before it fails with reason time-limit
DEFAULT_STALL_AFTER = 600.0  # seconds without progress before a running job counts as stalled
LIMIT_KEYS = ("time_limit", "stall_after")  # submission options a config may carry (not hashed)


def record_event(conn, job_id: int, event: str, *, worker_id: str | None = None,
                 reason: str | None = None, attempt: int | None = None) -> None:
    """Append one line to the job's history (claimed, requeued, done, failed, cancelled, ...)."""
    conn.execute("INSERT INTO job_events (job_id, at, event, worker_id, reason, attempt) "
                 "VALUES (?, ?, ?, ?, ?, ?)", (job_id, time.time(), event, worker_id, reason, attempt))


def check_limit(name: str, value) -> float:
    """A time limit in seconds: a finite number > 0."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a number of seconds > 0, got {name}={value!r}")
    return float(value)


def prepare(items, max_attempts, limits: dict) -> list[tuple]:
    """(kind, config JSON, hash, time limit, stall limit) per item, after the kind's
    normalisation and validation. ``limits``: the submission's ``time_limit``/``stall_after``
    (None: the defaults); a config may carry its own (taken out before hashing)."""
    from dpcda.jobs.kinds import get_kind, normalize_config

    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
        raise ValueError(f"max_attempts must be an integer >= 1, got max_attempts={max_attempts!r}")
    defaults = {"time_limit": DEFAULT_TIME_LIMIT, "stall_after": DEFAULT_STALL_AFTER}
    base = {k: check_limit(k, v) if v is not None else defaults[k] for k, v in limits.items()}
    prepared = []
    for kind, config in items:
        get_kind(kind)  # ValueError listing the known kinds
        own = dict(base)
        if isinstance(config, dict) and any(k in config for k in LIMIT_KEYS):
            config = dict(config)
            own.update({k: check_limit(k, config.pop(k)) for k in LIMIT_KEYS if k in config})
        config = normalize_config(kind, config)
        prepared.append((kind, _db.dumps(config), _db.config_hash(kind, config),
                         own["time_limit"], own["stall_after"]))
    return prepared


def insert_jobs(conn, prepared, sweep_id, force, max_attempts) -> list[int]:
    ids, now = [], time.time()
    for kind, config_text, chash, time_limit, stall_after in prepared:
        prior = None if force else done_with_hash(conn, chash)
        if prior is None:
            cur = conn.execute(
                "INSERT INTO jobs (sweep_id, kind, config, config_hash, status, force, "
                "max_attempts, created, message, time_limit, stall_after) "
                "VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, 'queued', ?, ?)",
                (sweep_id, kind, config_text, chash, int(force), max_attempts, now, time_limit,
                 stall_after))
        else:  # an identical configuration is done: link to its result
            cur = conn.execute(
                "INSERT INTO jobs (sweep_id, kind, config, config_hash, status, force, "
                "max_attempts, created, started, finished, result, reused_from, message, "
                "epoch, n_epochs, metrics, reason, time_limit, stall_after) VALUES "
                "(?, ?, ?, ?, 'done', 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'reused', ?, ?)",
                (sweep_id, kind, config_text, chash, max_attempts, now, now, now,
                 prior["result"], prior["origin"], reuse_message(prior["origin"]),
                 prior["epoch"], prior["n_epochs"], prior["metrics"], time_limit, stall_after))
        ids.append(cur.lastrowid)
    sync_sweep(conn, sweep_id)
    return ids


def reuse_message(origin: int) -> str:
    return f"reused the result of job {origin} (identical configuration)"


def done_with_hash(conn, chash: str, exclude: int | None = None):
    row = conn.execute(
        "SELECT id, reused_from, result, epoch, n_epochs, metrics FROM jobs WHERE config_hash = ? "
        "AND status = 'done' AND id != ? ORDER BY (reused_from IS NOT NULL), id LIMIT 1",
        (chash, -1 if exclude is None else exclude)).fetchone()
    if row is None:
        return None
    return dict(row, origin=row["reused_from"] or row["id"])


def cancel_where(conn, where: str, args: tuple) -> dict[int, str]:
    now = time.time()
    for (job_id,) in conn.execute(f"SELECT id FROM jobs WHERE status = 'queued' AND {where}",
                                  args).fetchall():
        record_event(conn, job_id, "cancelled", reason="cancelled")
    conn.execute(f"UPDATE jobs SET status = 'cancelled', finished = ?, reason = 'cancelled', message = "
                 f"'cancelled before it started' WHERE status = 'queued' AND {where}", (now, *args))
    conn.execute(f"UPDATE jobs SET cancel_requested = 1, message = 'cancel requested' "
                 f"WHERE status = 'running' AND {where}", args)
    out = {r[0]: r[1] for r in conn.execute(f"SELECT id, status FROM jobs WHERE {where}", args)}
    for (sweep_id,) in conn.execute(f"SELECT DISTINCT sweep_id FROM jobs WHERE {where}", args).fetchall():
        sync_sweep(conn, sweep_id)
    return out


def sync_sweep(conn, sweep_id: int | None) -> None:
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
