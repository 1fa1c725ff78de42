"""Job kinds: what a worker knows how to run.

A kind is a function ``run(config: dict, ctx: JobContext) -> dict`` (plain JSON in, plain
JSON out) registered under a name, optionally with ``normalize(config) -> dict`` that fills
in defaults before the configuration is hashed for deduplication. ``"experiment"`` (in
:mod:`dpcda.experiments.run`) is the real one; more are loaded from the modules named in
``$DPCDA_JOB_PLUGINS`` (comma-separated, importable), which is how the tests add fake kinds
to real worker processes.

Job code never touches streamlit: it reports through its :class:`JobContext`.
"""

from __future__ import annotations

import importlib
import os
import threading
from dataclasses import dataclass
from typing import Callable

from dpcda.util.registry import Registry

PLUGINS_ENV = "DPCDA_JOB_PLUGINS"
BUILTIN_KIND_MODULES = ("dpcda.experiments.run", "dpcda.experiments.audit_job")


@dataclass(frozen=True)
class JobKind:
    """``isolated``: a worker runs the job in a child process it can end (see
    :mod:`dpcda.jobs.isolation`), so that the job stops within seconds of a cancel, a time limit
    or SIGTERM even inside one long native call; for kinds whose runs can take long."""

    name: str
    run: Callable[[dict, "JobContext"], dict]
    normalize: Callable[[dict], dict] | None = None
    isolated: bool = False


JOB_KINDS: Registry[JobKind] = Registry("job kind")


def register_kind(name: str, *, normalize: Callable[[dict], dict] | None = None,
                  isolated: bool = False):
    """Decorator: ``@register_kind("name")`` on ``def run(config, ctx) -> dict``."""

    def deco(fn):
        JOB_KINDS.add(name, JobKind(name=name, run=fn, normalize=normalize, isolated=isolated))
        return fn

    return deco


def load_plugins() -> list[str]:
    """Import the built-in kinds and those named in ``$DPCDA_JOB_PLUGINS``; returns the
    registered kind names."""
    extra = [m.strip() for m in os.environ.get(PLUGINS_ENV, "").replace(os.pathsep, ",").split(",")]
    for mod in (*BUILTIN_KIND_MODULES, *filter(None, extra)):
        try:
            importlib.import_module(mod)
        except ImportError as exc:
            raise ImportError(f"cannot import job-kind module {mod!r} (from {PLUGINS_ENV}): {exc}") from exc
    return JOB_KINDS.names()


def get_kind(name: str) -> JobKind:
    if name not in JOB_KINDS:
        load_plugins()
    return JOB_KINDS.get(name)


def normalize_config(kind: str, config: dict) -> dict:
    if not isinstance(config, dict):
        raise ValueError(f"a job config must be a dict of plain JSON values, got {type(config).__name__}")
    k = get_kind(kind)
    return dict(k.normalize(config)) if k.normalize is not None else dict(config)


class JobCancelled(Exception):
    """Raised by job code (via :meth:`JobContext.check_cancelled` or a checkpoint) to stop
    early. ``reason``: why (a code of :data:`dpcda.jobs.reasons.REASONS`: ``cancelled``,
    ``time-limit``, ``stalled``, ``worker-stopped``, ``worker-gone``)."""

    def __init__(self, message: str = "cancelled", reason: str = "cancelled") -> None:
        super().__init__(message)
        self.reason = reason


class JobContext:
    """What a running job sees: its id, progress reporting and the stop flag.

    ``on_epoch(epoch, n_epochs, metrics)`` has the signature of the training callback and
    returns False once the job must stop (cancel requested, time limit, worker stopping, or the
    job was taken away from this worker), which tells the training loop to stop.

    :meth:`tick` is the :func:`dpcda.util.cancellation.checkpoint` hook the worker installs: it
    advances the progress counter ``steps`` and raises :class:`JobCancelled` (with the reason)
    once a stop was requested, so loops stop between batches.
    """

    def __init__(self, store=None, job_id: int | None = None, worker_id: str | None = None,
                 cancel_event: threading.Event | None = None,
                 on_progress: Callable[[int, int | None, dict], None] | None = None) -> None:
        self.store = store
        self.job_id = job_id
        self.worker_id = worker_id
        self.cancel_event = cancel_event or threading.Event()
        self.lost = False  # the store no longer lists this job as ours
        self.stop_reason: tuple[str, str] | None = None  # (code, sentence) once told to stop
        self.steps = 0  # progress counter: checkpoints passed, epochs and messages reported
        self.fraction: float | None = None
        self.current_phase: str | None = None
        self._on_progress = on_progress

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def stop(self, code: str, text: str) -> None:
        """Ask the job to stop (the first reason given wins)."""
        if self.stop_reason is None:
            self.stop_reason = (code, text)
        self.cancel_event.set()

    def _note(self, state: str) -> None:
        if state == "lost":
            self.lost = True
            self.stop("worker-gone", "the job was taken from this worker (presumed dead)")
        elif state == "cancel":
            self.stop("cancelled", "cancelled")

    def tick(self, steps: int = 1) -> None:
        """One unit of work done (the checkpoint hook); raises once the job must stop."""
        from dpcda.jobs import faults

        self.steps += steps
        faults.hit(self.current_phase)
        if self.cancel_event.is_set():
            self.check_cancelled()

    def phase(self, name: str, text: str) -> None:
        """Enter a named phase (``generation``, ``training``, ...) and show ``text``."""
        self.current_phase = name
        self.message(text)

    def progress(self, epoch: int, n_epochs: int | None = None, metrics: dict | None = None) -> bool:
        """Record a finished epoch; returns False when the job should stop."""
        metrics = dict(metrics or {})
        self.steps += 1
        if n_epochs:
            self.fraction = min(1.0, epoch / n_epochs)
        if self._on_progress is not None:
            self._on_progress(epoch, n_epochs, metrics)
        if self.store is not None:
            self._note(self.store.report_progress(self.job_id, self.worker_id, epoch, n_epochs, metrics))
        return not self.cancelled

    def on_epoch(self, epoch: int, n_epochs: int, metrics: dict | None = None) -> bool:
        return self.progress(epoch, n_epochs, metrics)

    def message(self, text: str) -> None:
        """A short phase description shown next to the progress ("generating", ...)."""
        self.steps += 1
        if self.store is not None:
            self.store.set_message(self.job_id, self.worker_id, text)

    def check_cancelled(self) -> None:
        if self.cancelled:
            code, text = self.stop_reason or ("cancelled", "cancelled")
            raise JobCancelled(text, reason=code)
