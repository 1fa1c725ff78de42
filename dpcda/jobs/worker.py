"""The worker: claims queued jobs from the store and runs them, one at a time.

Run it as its own process (``python -m dpcda worker``), apart from the Streamlit server;
:func:`ensure_worker` starts one with ``subprocess.Popen`` (never a ``multiprocessing`` fork:
CUDA cannot be re-initialised in a forked child, and page scripts do not pickle). A watchdog
thread (:mod:`dpcda.jobs.watchdog`) beats the heartbeat and enforces cancel requests, the time
limit and stall detection; the job code itself runs in the main thread and only talks to its
:class:`JobContext` (and :func:`dpcda.util.cancellation.checkpoint`).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
import uuid
from pathlib import Path
from typing import Callable

from dpcda.util.cancellation import watching
from dpcda.jobs import db as _db
from dpcda.jobs.code_version import STARTED_WITH, stale_code_message
from dpcda.jobs.kinds import JobCancelled, JobContext, get_kind, load_plugins
from dpcda.jobs.procs import hostname, pid_alive, pid_token
from dpcda.jobs.store import DEFAULT_STALE_AFTER, Job, JobStore
from dpcda.jobs.watchdog import DEFAULT_GRACE, Watchdog

log = logging.getLogger("dpcda.jobs")

DEFAULT_HEARTBEAT = 5.0  # seconds between heartbeats
DEFAULT_IDLE_EXIT = 600.0  # a worker started by ensure_worker exits after this long without work
INTERRUPT_SIGNAL = signal.SIGUSR1  # sent to a worker's own main thread to interrupt a job


class WorkerStop(BaseException):
    """Raised in the worker's main thread (e.g. on SIGTERM) to stop it; the job it was running
    goes back to the queue."""


def new_worker_id(prefix: str = "w") -> str:
    """``w-...`` for an embedded worker, ``r-...`` for a Ray driver."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def register_worker(store: JobStore, worker_id: str, *, sweep_id: int | None = None) -> None:
    """Record this process as a running worker of the store (pid, host, heartbeat)."""
    now, pid = time.time(), os.getpid()
    with _db.transaction(store.path) as conn:
        conn.execute("INSERT OR REPLACE INTO workers (id, pid, pid_token, hostname, started, "
                     "heartbeat_at, status, sweep_id) VALUES (?, ?, ?, ?, ?, ?, 'running', ?)",
                     (worker_id, pid, pid_token(pid), hostname(), now, now, sweep_id))


def unregister_worker(store: JobStore, worker_id: str) -> None:
    with _db.transaction(store.path) as conn:
        conn.execute("UPDATE workers SET status = 'stopped', stopped = ?, current_job = NULL "
                     "WHERE id = ?", (time.time(), worker_id))


class Worker:
    """Claims and runs jobs from one store until told to stop.

    ``sweep_id`` restricts it to one sweep's jobs (the sweep CLI); ``kinds`` defaults to every
    registered kind (built-in plus ``$DPCDA_JOB_PLUGINS``). A :class:`~dpcda.jobs.watchdog.Watchdog`
    thread beats the heartbeat and enforces cancel, time limit and stall detection; run in a
    process's main thread, the worker also interrupts a job that reaches no checkpoint within
    ``grace`` seconds of being told to stop. A kind registered ``isolated`` (the experiment and
    audit kinds) runs in a child process that is killed ``grace`` seconds after a stop it did
    not obey (``isolate=False``: in this process). :meth:`request_stop` (what SIGTERM calls)
    hands the running job back to the queue and makes :meth:`run` return.
    """

    def __init__(self, db=None, *, worker_id: str | None = None,
                 heartbeat_interval: float = DEFAULT_HEARTBEAT,
                 stale_after: float = DEFAULT_STALE_AFTER, poll_interval: float = 0.5,
                 sweep_id: int | None = None, kinds: list[str] | None = None,
                 on_finish: Callable[[Job], None] | None = None, grace: float = DEFAULT_GRACE,
                 isolate: bool = True) -> None:
        for name, value in (("heartbeat_interval", heartbeat_interval), ("stale_after", stale_after),
                            ("poll_interval", poll_interval), ("grace", grace)):
            if not value > 0:
                raise ValueError(f"{name} must be > 0 seconds, got {name}={value!r}")
        if stale_after <= heartbeat_interval:
            raise ValueError(f"stale_after must exceed heartbeat_interval ({heartbeat_interval}), "
                             f"got stale_after={stale_after!r}")
        self.store = db if isinstance(db, JobStore) else JobStore(db)
        self.worker_id = worker_id or new_worker_id()
        self.heartbeat_interval = heartbeat_interval
        self.stale_after = stale_after
        self.poll_interval = poll_interval
        self.sweep_id = sweep_id
        self.kinds = kinds
        self.on_finish = on_finish
        self.grace = grace
        self.isolate = isolate  # run isolated kinds in a child process (dpcda.jobs.isolation)
        self._ctx: JobContext | None = None
        self._in_job = False
        self._main: int | None = None  # thread id to interrupt (set when run in the main thread)
        self._stopping = threading.Event()
        #: the code this worker runs (:mod:`dpcda.jobs.code_version`; tests may set another)
        self.started_with = STARTED_WITH

    # --- stopping -----------------------------------------------------------------------

    def request_stop(self, why: str = "its worker was asked to stop") -> None:
        """Hand the running job (if any) back to the queue and return from :meth:`run`; safe to
        call from a signal handler or another thread."""
        self._stopping.set()
        ctx = self._ctx
        if ctx is not None:
            ctx.stop("worker-stopped", why)

    def _interrupt(self) -> None:  # watchdog thread: the job ignored its stop for `grace` s
        if self._in_job and self._main is not None:
            signal.pthread_kill(self._main, INTERRUPT_SIGNAL)

    def _on_interrupt(self, signum, frame) -> None:  # main thread, between bytecodes
        ctx = self._ctx
        if self._in_job and ctx is not None and ctx.cancelled:
            ctx.check_cancelled()  # raises JobCancelled with the stop reason

    # --- the loop -----------------------------------------------------------------------

    def run(self, *, once: bool = False, idle_exit: float | None = None,
            until: Callable[[], bool] | None = None) -> int:
        """Run jobs; returns how many it ran. ``once``: at most one job, and return at once if
        none is queued. ``idle_exit``: return after that many seconds with nothing to claim
        (0: as soon as the queue is empty). ``until``: return when it becomes true."""
        kinds = self.kinds if self.kinds is not None else load_plugins()
        register_worker(self.store, self.worker_id, sweep_id=self.sweep_id)
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(INTERRUPT_SIGNAL, self._on_interrupt) if main else None
        self._main = threading.get_ident() if main else None
        watchdog = Watchdog(self.store, self.worker_id, heartbeat_interval=self.heartbeat_interval,
                            grace=self.grace, interrupt=self._interrupt if main else None)
        self._watchdog = watchdog
        watchdog.start()
        log.info("worker %s started (pid %d, store %s, kinds %s)", self.worker_id, os.getpid(),
                 self.store.path, ", ".join(kinds))
        ran, idle_since, last_recover = 0, time.monotonic(), -float("inf")
        recover_every = min(max(self.stale_after / 4, 0.5), 15.0)
        try:
            while not self._stopping.is_set():
                if until is not None and until():
                    break
                if time.monotonic() - last_recover >= recover_every:
                    for job_id, status, reason in self.store.recover(stale_after=self.stale_after):
                        log.warning("job %d -> %s: %s", job_id, status, reason)
                    last_recover = time.monotonic()
                job = self.store.claim(self.worker_id, kinds, sweep_id=self.sweep_id)
                if job is None:
                    if once or (idle_exit is not None and time.monotonic() - idle_since >= idle_exit):
                        break
                    self._stopping.wait(self.poll_interval)
                    continue
                stale = stale_code_message(self.started_with)
                if stale is not None:  # started before an upgrade: hand the job back and stop
                    self.store.finish(job.id, self.worker_id, "queued", reason="stale-code",
                                      message=stale, refund=True)
                    log.warning("job %d handed back: %s", job.id, stale)
                    break
                self._run_job(job)
                ran += 1
                idle_since = time.monotonic()
                if once:
                    break
        finally:
            watchdog.close()
            self._main = None
            if main:
                signal.signal(INTERRUPT_SIGNAL, previous)
            unregister_worker(self.store, self.worker_id)
            if self.isolate:
                from dpcda.jobs.isolation import stop_server

                stop_server()  # no process outlives the worker
            log.info("worker %s stopped after %d job(s)", self.worker_id, ran)
        return ran

    def _run_job(self, job: Job) -> None:
        ctx = JobContext(self.store, job.id, self.worker_id)
        self._ctx = ctx
        self._watchdog.watch(job, ctx)
        if self._stopping.is_set():  # SIGTERM between the claim and here
            ctx.stop("worker-stopped", "its worker was asked to stop")
        t0 = time.monotonic()
        log.info("job %d (%s) started, attempt %d", job.id, job.kind, job.attempts)
        result, failure = None, None
        try:
            try:
                self._in_job = True
                kind = get_kind(job.kind)
                with watching(ctx.tick):
                    ctx.check_cancelled()
                    if kind.isolated and self.isolate:
                        from dpcda.jobs.isolation import run_isolated

                        result = run_isolated(job.kind, job.config, ctx, self.store.path,
                                              grace=self.grace)
                    else:
                        result = kind.run(job.config, ctx)
            finally:
                self._in_job = False
            if result is not None and not isinstance(result, dict):
                raise TypeError(f"job kind {job.kind!r} returned {type(result).__name__}, not a dict")
        except JobCancelled as exc:
            self._in_job = False
            if ctx.stop_reason is None:  # the job's own choice to stop
                ctx.stop(exc.reason, str(exc))
        except (WorkerStop, KeyboardInterrupt):
            self._in_job = False
            self._release()
            self.store.finish(job.id, self.worker_id, "queued", reason="worker-stopped",
                              message="requeued: its worker was stopped")
            raise
        except Exception as exc:  # the job's failure, not the worker's
            self._in_job = False
            from dpcda.jobs.isolation import ChildError

            failure = (exc.summary, exc.tb or traceback.format_exc()) if isinstance(
                exc, ChildError) else (f"{type(exc).__name__}: {exc}", traceback.format_exc())
        self._release()
        seconds = time.monotonic() - t0
        status, kw = self._outcome(job, ctx, result, failure, seconds)
        if not self.store.finish(job.id, self.worker_id, status, **kw):
            log.warning("job %d was taken from this worker (presumed dead); result dropped", job.id)
            return
        log.info("job %d %s after %.1f s%s", job.id, status, seconds,
                 f": {kw.get('message')}" if status != "done" and kw.get("message") else "")
        if self.on_finish is not None and status != "queued":
            self.on_finish(self.store.get_job(job.id))

    def _release(self) -> None:
        self._watchdog.release()
        self._ctx = None

    def _outcome(self, job: Job, ctx: JobContext, result, failure, seconds: float) -> tuple[str, dict]:
        """(status, keyword arguments of :meth:`JobStore.finish`) for how the job ended."""
        code, text = ctx.stop_reason or (None, None)
        if failure is None and code is None:
            return "done", dict(result=result, message=f"done in {seconds:.1f} s")
        if code is None or code == "error":
            message, error = failure or ("failed", None)
            return "failed", dict(message=message, error=error, reason="error")
        if code == "cancelled":
            return "cancelled", dict(result=result, message=_cancel_message(self.store, job.id),
                                     reason="cancelled")
        if code == "worker-stopped" or (code == "stalled" and job.attempts < job.max_attempts):
            return "queued", dict(message=f"requeued: {text}", reason=code,
                                  refund=code == "worker-stopped")
        return "failed", dict(message=f"failed: {text}", reason=code)


def _cancel_message(store: JobStore, job_id: int) -> str:
    job = store.get_job(job_id)
    if job.epoch is not None:
        return f"cancelled after epoch {job.epoch} of {job.n_epochs}"
    return "cancelled"


# --- workers seen from outside ----------------------------------------------------------


def live_workers(db=None, *, stale_after: float = DEFAULT_STALE_AFTER,
                 general_only: bool = False) -> list[dict]:
    """Workers (or workers being started) that heartbeat recently and whose process, when on
    this host, is alive. ``general_only``: leave out workers bound to one sweep (the sweep
    CLI's in-process worker)."""
    store = db if isinstance(db, JobStore) else JobStore(db)
    with _db.connection(store.path) as conn:
        return _live(conn, stale_after, general_only)


def _live(conn, stale_after: float, general_only: bool = False) -> list[dict]:
    now, host, out = time.time(), hostname(), []
    sql = "SELECT * FROM workers WHERE status IN ('starting', 'running')"
    sql += " AND sweep_id IS NULL" if general_only else ""
    for r in conn.execute(sql + " ORDER BY started"):
        if r["heartbeat_at"] < now - stale_after:
            continue
        if r["hostname"] == host and r["pid"] is not None and not pid_alive(r["pid"], r["pid_token"]):
            continue
        out.append(dict(r))
    return out


def worker_command(db_path: Path, *, worker_id: str, idle_exit: float | None,
                   heartbeat_interval: float, stale_after: float, executor: str = "embedded",
                   address: str | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "dpcda", "worker", "--db", str(db_path), "--worker-id", worker_id,
           "--heartbeat", str(heartbeat_interval), "--stale-after", str(stale_after)]
    if idle_exit is not None:
        cmd += ["--idle-exit", str(idle_exit)]
    if executor != "embedded":
        cmd += ["--executor", executor] + (["--address", address] if address else [])
    return cmd


def ensure_worker(db=None, *, idle_exit: float | None = DEFAULT_IDLE_EXIT,
                  heartbeat_interval: float = DEFAULT_HEARTBEAT,
                  stale_after: float = DEFAULT_STALE_AFTER, env: dict | None = None,
                  log_path: str | os.PathLike | None = None, executor: str = "embedded",
                  address: str | None = None) -> dict:
    """Start a background worker process for the store unless a live one of that executor is
    registered (``executor="ray"``: a Ray driver, ``python -m dpcda worker --executor ray``).

    Returns ``{"worker_id", "pid", "started"}``. The check and the reservation of the new
    worker's row share one write transaction, so concurrent callers start one worker. Its
    output goes to ``worker.log`` beside the store.
    """
    if executor not in ("embedded", "ray"):
        raise ValueError(f"executor must be one of embedded, ray, got executor={executor!r}")
    store = db if isinstance(db, JobStore) else JobStore(db)
    store.recover(stale_after=stale_after)
    prefix = "r" if executor == "ray" else "w"
    worker_id = new_worker_id(prefix)
    now = time.time()
    with _db.transaction(store.path) as conn:
        live = [w for w in _live(conn, stale_after, general_only=True)
                if w["id"].startswith("r-") == (executor == "ray")]
        if live:
            return {"worker_id": live[0]["id"], "pid": live[0]["pid"], "started": False}
        conn.execute("INSERT INTO workers (id, pid, hostname, started, heartbeat_at, status) "
                     "VALUES (?, NULL, ?, ?, ?, 'starting')", (worker_id, hostname(), now, now))
    env = dict(os.environ if env is None else env)
    pkg_root = str(Path(__file__).resolve().parents[2])  # so `-m dpcda` works uninstalled
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [pkg_root, env.get("PYTHONPATH")]))
    log_path = Path(log_path) if log_path is not None else store.path.parent / "worker.log"
    cmd = worker_command(store.path, worker_id=worker_id, idle_exit=idle_exit,
                         heartbeat_interval=heartbeat_interval, stale_after=stale_after,
                         executor=executor, address=address)
    try:
        with open(log_path, "ab") as out:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env,
                                    start_new_session=True, close_fds=True)
    except BaseException:
        with _db.transaction(store.path) as conn:
            conn.execute("UPDATE workers SET status = 'dead', stopped = ? WHERE id = ?",
                         (time.time(), worker_id))
        raise
    with _db.transaction(store.path) as conn:
        conn.execute("UPDATE workers SET pid = ?, pid_token = ? WHERE id = ? AND status = 'starting'",
                     (proc.pid, pid_token(proc.pid), worker_id))
    # Reap the child when it exits, so a long-lived caller (the Streamlit server) keeps no zombie.
    threading.Thread(target=proc.wait, name=f"reap-{worker_id}", daemon=True).start()
    return {"worker_id": worker_id, "pid": proc.pid, "started": True}
