"""Executors: what runs the job store's queued jobs.

Two implementations share one interface (:class:`Executor`):

- ``embedded`` (the default): worker processes on this machine claim jobs from the SQLite store
  and run them one at a time (:mod:`dpcda.jobs.worker`).
- ``ray``: a driver process claims jobs from the same store and runs each as a Ray task, on a
  local Ray instance or a cluster (:mod:`dpcda.jobs.ray_runner`). ``ray`` is optional and
  imported only when this executor is used.

Either way the SQLite store stays the record of jobs and results, and the pages and the CLI
read it the same way.

>>> ex = get_executor("ray", address="auto")     # ValueError if ray is not installed
>>> ex.open()                                     # connect (or start a local Ray instance)
>>> ex.run_sweep(store, sweep_id)                 # blocks until every job of the sweep is finished
>>> ex.close()
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Callable

from dpcda.jobs.ray_support import RAY_INSTALL_HINT, import_ray  # noqa: F401  (re-exported)
from dpcda.util.registry import Registry

RAY_ADDRESS_ENV = "DPCDA_RAY_ADDRESS"


def ray_installed() -> bool:
    return importlib.util.find_spec("ray") is not None


def ray_setting() -> str | None:
    """The Ray address the dashboard offers (``$DPCDA_RAY_ADDRESS``: ``local``, ``auto``,
    ``host:6379`` or ``ray://host:10001``), or None when unset or ray is not installed."""
    address = os.environ.get(RAY_ADDRESS_ENV, "").strip()
    return address if address and ray_installed() else None


class Executor:
    """Runs queued jobs of a :class:`~dpcda.jobs.store.JobStore`.

    ``open()``/``close()`` bracket a session (a Ray connection; nothing for the embedded one);
    ``runner(store, ...)`` returns an object with ``run(once=, idle_exit=, until=) -> int`` (the
    :class:`~dpcda.jobs.worker.Worker` contract); ``ensure_background(store)`` makes sure a
    background process runs the store's queue (what the dashboard calls after submitting).
    """

    name = "?"

    def open(self) -> None:
        """Connect to the back end (idempotent)."""

    def close(self) -> None:
        """Release what :meth:`open` acquired."""

    def runner(self, store, *, sweep_id: int | None = None, on_finish: Callable | None = None,
               worker_id: str | None = None):
        raise NotImplementedError

    def ensure_background(self, store) -> dict:
        raise NotImplementedError

    def run_sweep(self, store, sweep_id: int, *, on_finish: Callable | None = None) -> int:
        """Run the sweep's queued jobs here until every job of it is finished; returns how many
        this call ran."""
        self.open()
        runner = self.runner(store, sweep_id=sweep_id, on_finish=on_finish)
        return runner.run(until=lambda: all(j.terminal for j in store.jobs(sweep_id=sweep_id)))


EXECUTORS: Registry[type] = Registry("executor")


@EXECUTORS.register("embedded")
@dataclass(frozen=True)
class EmbeddedExecutor(Executor):
    """Today's single-machine runner: worker processes on this host share the SQLite store."""

    name = "embedded"

    def runner(self, store, *, sweep_id=None, on_finish=None, worker_id=None):
        from dpcda.jobs.worker import Worker

        return Worker(store, sweep_id=sweep_id, on_finish=on_finish, worker_id=worker_id)

    def ensure_background(self, store) -> dict:
        import dpcda.jobs  # the public name, so callers (and tests) see one ensure_worker

        return dpcda.jobs.ensure_worker(store)


@EXECUTORS.register("ray")
@dataclass(frozen=True)
class RayExecutor(Executor):
    """Each job a Ray task (``num_gpus=1`` when it asks for CUDA), driven from this machine.

    ``address``: None (Ray's own resolution: ``$RAY_ADDRESS``, else a cluster started with
    ``ray start`` on this host, else a new local instance), ``"local"`` (always a new local
    instance), ``"auto"``, ``"host:6379"`` or ``"ray://host:10001"``. ``num_cpus`` caps a
    local instance this executor starts. ``max_retries``: how often Ray reruns a task whose
    worker process died (None: the job's ``max_attempts - 1``).
    """

    address: str | None = None
    num_cpus: int | None = None
    max_retries: int | None = None

    name = "ray"

    def __post_init__(self) -> None:
        if self.address is not None and (not isinstance(self.address, str) or not self.address.strip()):
            raise ValueError(f"address must be a Ray address (auto, local, host:port or "
                             f"ray://host:10001) or None, got address={self.address!r}")
        for key in ("num_cpus", "max_retries"):
            v, lo = getattr(self, key), (1 if key == "num_cpus" else 0)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < lo):
                raise ValueError(f"{key} must be an integer >= {lo} or None, got {key}={v!r}")
        import_ray()  # fail early, with the install hint

    def open(self) -> None:
        from dpcda.jobs.ray_runner import connect

        connect(self.address, num_cpus=self.num_cpus, owner=self)

    def close(self) -> None:
        from dpcda.jobs.ray_runner import disconnect

        disconnect(owner=self)

    def runner(self, store, *, sweep_id=None, on_finish=None, worker_id=None):
        from dpcda.jobs.ray_runner import RayRunner

        self.open()
        return RayRunner(store, sweep_id=sweep_id, on_finish=on_finish, worker_id=worker_id,
                         max_retries=self.max_retries)

    def ensure_background(self, store) -> dict:
        import dpcda.jobs

        return dpcda.jobs.ensure_worker(store, executor="ray", address=self.address)


def list_executors() -> list[str]:
    return EXECUTORS.names()


def get_executor(name: str = "embedded", **options) -> Executor:
    """An executor by name (``embedded`` or ``ray``); ``options`` go to its constructor
    (``address=`` for Ray). ValueError for an unknown name, an option the executor does not
    take, or ``ray`` without the ray package."""
    cls = EXECUTORS.get(name)
    options = {k: v for k, v in options.items() if v is not None}
    unknown = sorted(set(options) - set(getattr(cls, "__dataclass_fields__", {})))
    if unknown:
        raise ValueError(f"{', '.join(unknown)} applies to executor='ray' only, got executor={name!r}")
    return cls(**options)
