"""The Ray executor's driver: claims jobs from the SQLite store and runs each as a Ray task.

The store stays the record of jobs and results and only the driver writes to it: a task gets
its job's kind and config, runs it with a store-less :class:`~dpcda.jobs.kinds.JobContext`
and returns its result and per-epoch progress; the driver records them. So the store can live
on the driver's disk while the tasks run anywhere on the cluster.

- Resources: one CPU per task, plus ``num_gpus=1`` when the job asks for ``device="cuda"``.
- A task whose worker process dies is rerun by Ray (``max_retries``, default the job's
  ``max_attempts - 1``); the driver holds one object reference per job and records its final
  value once (:meth:`~dpcda.jobs.store.JobStore.finish` writes only while the job is still
  this driver's and running).
- Cancel: a cancel request in the store (page button, ``cancel_sweep``) is seen at the next
  heartbeat (about a second) and becomes ``ray.cancel(force=True)``; the job is then recorded
  ``cancelled``.
- Time limit: a task still running past its job's ``time_limit`` is cancelled the same way and the
  job recorded ``failed`` (reason ``time-limit``). Stall detection does not reach Ray tasks (their
  progress is not streamed back while they run).
- The driver is a worker of the store like any other (heartbeat, pid): if it dies, another
  worker's recovery requeues its jobs, and Ray drops the tasks it owned.

``ray`` is imported inside the functions only (it is optional).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from dpcda.jobs.ray_support import import_ray
from dpcda.jobs.kinds import PLUGINS_ENV, JobCancelled, JobContext, get_kind, load_plugins
from dpcda.jobs.store import DEFAULT_STALE_AFTER, Job, JobStore

log = logging.getLogger("dpcda.jobs")

PKG_ROOT = str(Path(__file__).resolve().parents[2])  # so tasks import dpcda from a checkout
_owner: list[Any] = []  # the executor that started the local Ray instance, if one did


def connect(address: str | None = None, *, num_cpus: int | None = None, owner: Any = None) -> bool:
    """``ray.init`` unless Ray is already initialised in this process; True if it started here.
    A failure to connect is a ValueError naming the address."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    check_reachable(address)
    kw: dict[str, Any] = {"log_to_driver": False}
    if address == "local":
        kw["include_dashboard"] = False
    if num_cpus is not None:
        kw["num_cpus"] = num_cpus
    try:
        ray.init(address=address, **kw)
    except Exception as exc:  # ConnectionError, RuntimeError, ValueError ... from Ray
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"cannot connect to Ray at address={address!r}: {first}") from None
    _owner[:] = [owner]
    return True


def check_reachable(address: str | None, timeout: float = 5.0) -> None:
    """For a ``host:port`` or ``ray://host:port`` address, a ValueError at once when nothing
    listens there (Ray itself would retry for minutes)."""
    import socket

    if address is None or address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"address must be auto, local, host:port or ray://host:port, got "
                         f"address={address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"cannot connect to Ray at address={address!r}: nothing answers there "
                         f"({exc}); is `ray start --head` running?") from None


def disconnect(*, owner: Any = None) -> None:
    """``ray.shutdown`` if ``owner`` is who started Ray in this process."""
    if _owner and _owner[0] is owner:
        import ray

        ray.shutdown()
        _owner.clear()


def wants_cuda(config: dict) -> bool:
    """Whether a job config asks for a CUDA device (``train.device`` or ``device``)."""
    train = config.get("train") if isinstance(config.get("train"), dict) else {}
    return str(train.get("device", config.get("device", ""))).startswith("cuda")


def task_env() -> dict[str, str]:
    """Environment for the tasks: this checkout on the path (nodes keep their own PYTHONPATH
    too) and the job-kind plugins the driver loaded."""
    env = {"PYTHONPATH": PKG_ROOT + os.pathsep + "${PYTHONPATH}"}
    if os.environ.get(PLUGINS_ENV):
        env[PLUGINS_ENV] = os.environ[PLUGINS_ENV]
    return env


def task_options(job: Job, *, max_retries: int | None = None) -> dict:
    """Ray ``.options()`` for one job."""
    retries = max(job.max_attempts - 1, 0) if max_retries is None else max_retries
    return dict(num_cpus=1, num_gpus=1 if wants_cuda(job.config) else 0, max_retries=retries,
                retry_exceptions=False, name=f"dpcda-job-{job.id}",
                runtime_env={"env_vars": task_env()})


def run_job_task(kind: str, config: dict, job_id: int) -> dict:
    """The body of a Ray task: run one job with a store-less context and return its result, the
    progress it reported, the host and the seconds it took."""
    import socket

    progress: list[dict] = []
    ctx = JobContext(job_id=job_id, on_progress=lambda e, n, m: progress.append(
        dict(epoch=int(e), n_epochs=n, metrics=m)))
    t0 = time.monotonic()
    result = get_kind(kind).run(config, ctx)
    if result is not None and not isinstance(result, dict):
        raise TypeError(f"job kind {kind!r} returned {type(result).__name__}, not a dict")
    return dict(result=result, progress=progress, host=socket.gethostname(), pid=os.getpid(),
                seconds=time.monotonic() - t0)


_remote: list[Any] = []


def _remote_fn():
    if not _remote:
        _remote.append(import_ray().remote(run_job_task))
    return _remote[0]


@dataclass
class _Flight:
    job: Job
    ref: Any
    cancel_sent: bool = False
    lost: bool = False
    timed_out: bool = False
    submitted: float = field(default_factory=time.monotonic)


class RayRunner:
    """Claims jobs from the store and runs each as a Ray task (see the module docstring);
    ``run()`` has the :class:`~dpcda.jobs.worker.Worker` contract. Ray must be connected
    (:func:`connect`) first."""

    def __init__(self, db=None, *, worker_id: str | None = None, sweep_id: int | None = None,
                 kinds: list[str] | None = None, on_finish: Callable[[Job], None] | None = None,
                 poll_interval: float = 0.2, heartbeat_interval: float = 1.0,
                 stale_after: float = DEFAULT_STALE_AFTER, max_retries: int | None = None,
                 max_in_flight: int | None = None) -> None:
        from dpcda.jobs.worker import new_worker_id

        for name, value in (("poll_interval", poll_interval), ("heartbeat_interval", heartbeat_interval),
                            ("stale_after", stale_after)):
            if not value > 0:
                raise ValueError(f"{name} must be > 0 seconds, got {name}={value!r}")
        if max_in_flight is not None and (isinstance(max_in_flight, bool) or not isinstance(
                max_in_flight, int) or max_in_flight < 1):
            raise ValueError(f"max_in_flight must be an integer >= 1 or None, got "
                             f"max_in_flight={max_in_flight!r}")
        self.store = db if isinstance(db, JobStore) else JobStore(db)
        self.worker_id = worker_id or new_worker_id("r")
        self.sweep_id, self.kinds, self.on_finish = sweep_id, kinds, on_finish
        self.poll_interval, self.heartbeat_interval = poll_interval, heartbeat_interval
        self.stale_after, self.max_retries, self.max_in_flight = stale_after, max_retries, max_in_flight
        self._capacity = (0, -float("inf"))  # (value, when measured)

    def capacity(self) -> int:
        """How many tasks to keep submitted: ``max_in_flight``, else the cluster's CPUs (re-read
        every 10 s, so nodes that join are used)."""
        if self.max_in_flight is not None:
            return self.max_in_flight
        value, when = self._capacity
        if time.monotonic() - when > 10.0:
            value = max(int(import_ray().cluster_resources().get("CPU", 1)), 1)
            self._capacity = (value, time.monotonic())
        return value

    def run(self, *, once: bool = False, idle_exit: float | None = None,
            until: Callable[[], bool] | None = None) -> int:
        """Submit and record jobs; returns how many it recorded. ``once``/``idle_exit``/``until``
        as for :meth:`dpcda.jobs.worker.Worker.run`."""
        from dpcda.jobs.worker import register_worker, unregister_worker

        ray = import_ray()
        if not ray.is_initialized():
            raise RuntimeError("Ray is not connected: call dpcda.jobs.ray_runner.connect() (or the "
                               "executor's open()) first")
        kinds = self.kinds if self.kinds is not None else load_plugins()
        register_worker(self.store, self.worker_id, sweep_id=self.sweep_id)
        flights: dict[Any, _Flight] = {}
        ran, idle_since, last_beat, last_recover = 0, time.monotonic(), -float("inf"), -float("inf")
        try:
            while True:
                if time.monotonic() - last_beat >= self.heartbeat_interval:
                    self._beat(ray, flights)
                    last_beat = time.monotonic()
                if until is not None and until():
                    break
                if time.monotonic() - last_recover >= min(max(self.stale_after / 4, 0.5), 15.0):
                    for job_id, status, reason in self.store.recover(stale_after=self.stale_after):
                        log.warning("job %d -> %s: %s", job_id, status, reason)
                    last_recover = time.monotonic()
                limit = 1 if once else self.capacity()
                while len(flights) < limit and not (once and ran):
                    job = self.store.claim(self.worker_id, kinds, sweep_id=self.sweep_id)
                    if job is None:
                        break
                    self._submit(job, flights)
                if not flights:
                    if once or (idle_exit is not None and time.monotonic() - idle_since >= idle_exit):
                        break
                    time.sleep(self.poll_interval)
                    continue
                ready, _ = ray.wait(list(flights), num_returns=1, timeout=self.poll_interval)
                for ref in ready:
                    self._record(ray, flights.pop(ref))
                    ran += 1
                    idle_since = time.monotonic()
                if once and ran:
                    break
        finally:
            self._hand_back(ray, flights)
            unregister_worker(self.store, self.worker_id)
        return ran

    # --- one job ------------------------------------------------------------------------

    def _submit(self, job: Job, flights: dict) -> None:
        ref = _remote_fn().options(**task_options(job, max_retries=self.max_retries)).remote(
            job.kind, job.config, job.id)
        flights[ref] = _Flight(job, ref)
        self.store.set_message(job.id, self.worker_id, "submitted to Ray")
        log.info("job %d (%s) submitted to Ray", job.id, job.kind)

    def _beat(self, ray, flights: dict) -> None:
        """Heartbeat for the driver and all its jobs; turn cancel requests into ray.cancel."""
        try:
            state = self.store.beat_jobs(self.worker_id)
        except Exception as exc:  # noqa: BLE001 - a busy store: try again next time
            log.warning("heartbeat failed: %s", exc)
            return
        for f in flights.values():
            lost = f.job.id not in state  # recovered from under this driver
            limit = f.job.time_limit
            if limit is not None and time.monotonic() - f.submitted > limit and not f.cancel_sent:
                f.timed_out = True  # past its time limit: cancel the task, record it failed
            if (lost or f.timed_out or state.get(f.job.id)) and not f.cancel_sent:
                f.lost = lost
                f.cancel_sent = True
                ray.cancel(f.ref, force=True)

    def _record(self, ray, f: _Flight) -> None:
        from ray.exceptions import RayError, RayTaskError, TaskCancelledError, WorkerCrashedError

        job, status, result, message, error, payload = f.job, "done", None, None, None, {}
        crashed = None  # attempts Ray made when every one of them lost its worker process
        try:
            payload = ray.get(f.ref)
            result = payload["result"]
        except TaskCancelledError:
            status = "cancelled"
        except RayTaskError as exc:
            cause = exc.cause if exc.cause is not None else exc
            if isinstance(cause, JobCancelled):
                status = "cancelled"
            else:
                status, message, error = "failed", f"{type(cause).__name__}: {cause}", str(exc)
        except WorkerCrashedError:
            crashed = task_options(job, max_retries=self.max_retries)["max_retries"] + 1
            status = "failed"
            message = (f"failed: its Ray worker process died (killed, e.g. by a signal or for "
                       f"memory) on each of {crashed} attempt(s)")
        except RayError as exc:
            status, message, error = "failed", f"{type(exc).__name__}: {str(exc).splitlines()[0]}", str(exc)
        if f.cancel_sent and status != "failed":
            status = "cancelled"
        reason = {"cancelled": "cancelled", "failed": "error"}.get(status)
        if crashed is not None and status == "failed":
            reason = "worker-gone"
        if f.timed_out:
            status, reason = "failed", "time-limit"
            message = f"failed: ran past its time limit of {job.time_limit:g} s (Ray task cancelled)"
        if status == "done":
            message = f"done in {payload['seconds']:.1f} s on {payload['host']} (Ray)"
            for p in payload.get("progress", []):
                self.store.report_progress(job.id, self.worker_id, p["epoch"], p["n_epochs"], p["metrics"])
        elif status == "cancelled":
            message = "cancelled (Ray task cancelled)"
        attempts = crashed if reason == "worker-gone" else None  # Ray's retries count too
        if not self.store.finish(job.id, self.worker_id, status, result=result, message=message,
                                 error=error, reason=reason, attempts=attempts):
            log.warning("job %d is no longer this driver's (recovered elsewhere); result dropped", job.id)
            return
        log.info("job %d %s: %s", job.id, status, message)
        if self.on_finish is not None:
            self.on_finish(self.store.get_job(job.id))

    def _hand_back(self, ray, flights: dict) -> None:
        """Stopping with tasks in flight: cancel them and requeue their jobs."""
        for f in flights.values():
            try:
                ray.cancel(f.ref, force=True)
            except Exception as exc:  # noqa: BLE001 - Ray may already be going down
                log.warning("could not cancel the Ray task of job %d: %s", f.job.id, exc)
            self.store.finish(f.job.id, self.worker_id, "queued", message="requeued: its Ray driver stopped",
                              reason="worker-stopped")
        flights.clear()
