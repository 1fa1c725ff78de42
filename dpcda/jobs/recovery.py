"""Recovery: running jobs whose worker died go back to the queue, or fail, never stay running.

A worker is presumed dead when its heartbeat is older than ``stale_after`` seconds, or when
it ran on this host and its process is gone (pid absent, a zombie, or recycled: see
:mod:`dpcda.jobs.procs`). Its job is requeued while ``attempts < max_attempts``, otherwise
marked failed with a message; a job whose cancel was requested is marked cancelled.

A job whose worker lives but which ran ``stale_after`` seconds past its time limit, or made no
progress for ``stall_after + stale_after`` seconds (the worker's own watchdog acts at the limit
itself; this is the backstop for a worker wedged in native code) is taken from it: failed
(``time-limit``) or requeued/failed (``stalled``). Every change carries a reason code
(:mod:`dpcda.jobs.reasons`) and a line in the job's event log.
"""

from __future__ import annotations

import time
from pathlib import Path

from dpcda.jobs import db as _db
from dpcda.jobs.procs import hostname, pid_alive

PRUNE_AFTER = 7 * 86400.0  # rows of stopped/dead workers are kept this long (seconds)


def recover_orphans(path: Path, *, stale_after: float) -> list[tuple[int, str, str]]:
    """See :meth:`dpcda.jobs.store.JobStore.recover`."""
    from dpcda.jobs.store_rows import record_event, sync_sweep

    if not stale_after > 0:
        raise ValueError(f"stale_after must be > 0 seconds, got stale_after={stale_after!r}")
    now, host, changed = time.time(), hostname(), []
    with _db.transaction(path) as conn:
        workers = {r["id"]: r for r in conn.execute(
            "SELECT * FROM workers WHERE status IN ('starting', 'running')")}
        for w in workers.values():
            if _worker_gone(w, now, host, stale_after):
                conn.execute("UPDATE workers SET status = 'dead', stopped = ?, current_job = NULL "
                             "WHERE id = ?", (now, w["id"]))
        conn.execute("DELETE FROM workers WHERE status IN ('stopped', 'dead') AND "
                     "COALESCE(stopped, heartbeat_at) < ?", (now - PRUNE_AFTER,))
        rows = conn.execute("SELECT j.*, w.pid AS w_pid, w.pid_token AS w_token, w.hostname AS "
                            "w_host, w.status AS w_status FROM jobs j LEFT JOIN workers w ON "
                            "w.id = j.worker_id WHERE j.status = 'running'").fetchall()
        for r in rows:
            code, reason = "worker-gone", _job_orphaned(r, now, host, stale_after)
            if reason is None:
                code, reason = _job_overdue(r, now, stale_after)
            if reason is None:
                continue
            if r["cancel_requested"]:
                new, msg, code = "cancelled", f"cancelled ({reason})", "cancelled"
            elif code == "time-limit":
                new, msg = "failed", f"failed: {reason}"
            elif r["attempts"] < r["max_attempts"]:
                new = "queued"
                msg = f"requeued: {reason} (attempt {r['attempts']} of {r['max_attempts']})"
            else:
                new = "failed"
                msg = f"failed: {reason}; gave up after {r['attempts']} attempt(s)"
            conn.execute("UPDATE jobs SET status = ?, message = ?, reason = ?, worker_id = NULL, "
                         "finished = ? WHERE id = ? AND status = 'running'",
                         (new, msg, code, None if new == "queued" else now, r["id"]))
            record_event(conn, r["id"], "requeued" if new == "queued" else new,
                         worker_id=r["worker_id"], reason=code, attempt=r["attempts"])
            sync_sweep(conn, r["sweep_id"])
            changed.append((r["id"], new, reason))
    return changed


def _worker_gone(w, now: float, host: str, stale_after: float) -> bool:
    if w["heartbeat_at"] < now - stale_after:
        return True
    return w["hostname"] == host and w["pid"] is not None and not pid_alive(w["pid"], w["pid_token"])


def _job_orphaned(r, now: float, host: str, stale_after: float) -> str | None:
    age = now - (r["heartbeat_at"] or 0.0)
    if age > stale_after:
        return f"no heartbeat from worker {r['worker_id']} for {age:.0f} s"
    if r["w_host"] == host and r["w_pid"] is not None and not pid_alive(r["w_pid"], r["w_token"]):
        return f"worker process {r['w_pid']} on {host} is gone"
    if r["w_status"] in ("stopped", "dead"):
        return f"worker {r['worker_id']} has stopped"
    return None


def _job_overdue(r, now: float, stale_after: float) -> tuple[str, str | None]:
    """(code, reason) for a live worker's job past its time limit or stalled, else (.., None)."""
    if r["time_limit"] is not None and r["started"] is not None and (
            now - r["started"] > r["time_limit"] + stale_after):
        return "time-limit", (f"ran {now - r['started']:.0f} s, past its time limit of "
                              f"{r['time_limit']:g} s (its worker {r['worker_id']} did not stop it)")
    since = r["progress_at"] if r["progress_at"] is not None else r["started"]
    if r["stall_after"] is not None and since is not None and (
            now - since > r["stall_after"] + stale_after):
        return "stalled", (f"no progress for {now - since:.0f} s (limit {r['stall_after']:g} s) "
                           f"while worker {r['worker_id']} kept beating")
    return "", None
