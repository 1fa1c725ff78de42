"""The worker's watchdog thread: heartbeat, cancel polling, time limit, stall detection.

Every ``tick`` seconds (0.5 by default) it looks at the job the worker runs:

- a cancel requested in the store (a cheap read every tick; the heartbeat, a write, every
  ``heartbeat_interval``) -> the job is told to stop (reason ``cancelled``);
- the job ran past its ``time_limit`` -> told to stop (``time-limit``);
- the job's progress counter (:attr:`JobContext.steps`, advanced by the job's own loops through
  :func:`dpcda.util.cancellation.checkpoint`, epochs and messages; not by this thread) did not move
  for ``stall_after`` seconds -> told to stop (``stalled``), although its process lives;
- a job told to stop that is still running ``grace`` seconds later (it reached no checkpoint:
  a sleep, a long native call between checkpoints) is interrupted: ``interrupt()`` (the worker
  sends a signal to its main thread, whose handler raises :class:`JobCancelled`), again every
  second until the job ends.

The heartbeat carries the counter, the fraction done and when the counter last moved, so other
processes (and :func:`dpcda.jobs.recovery.recover_orphans`) see progress, not only liveness.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

log = logging.getLogger("dpcda.jobs")

DEFAULT_TICK = 0.5  # seconds between looks at the running job
DEFAULT_GRACE = 2.0  # seconds a job told to stop gets to reach a checkpoint before it is interrupted


@dataclass
class _Watch:
    job: object  # dpcda.jobs.records.Job
    ctx: object  # dpcda.jobs.kinds.JobContext
    started: float = field(default_factory=time.monotonic)
    steps: int = -1
    moved: float = field(default_factory=time.monotonic)
    moved_wall: float = field(default_factory=time.time)
    stop_seen: float | None = None
    kicked: float = -float("inf")


class Watchdog:
    """One per worker; :meth:`watch` / :meth:`release` bracket each job."""

    def __init__(self, store, worker_id: str, *, heartbeat_interval: float, tick: float = DEFAULT_TICK,
                 grace: float = DEFAULT_GRACE, interrupt: Callable[[], None] | None = None) -> None:
        self.store, self.worker_id = store, worker_id
        self.heartbeat_interval = heartbeat_interval
        self.tick = min(tick, heartbeat_interval)
        self.grace = grace
        self.interrupt = interrupt
        self._watch: _Watch | None = None
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dpcda-watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._closed.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def watch(self, job, ctx) -> None:
        self._watch = _Watch(job, ctx)

    def release(self) -> None:
        self._watch = None

    def _run(self) -> None:
        last_beat = -float("inf")
        while not self._closed.wait(self.tick):
            w = self._watch  # one read: the job and its context belong together
            now = time.monotonic()
            beat = now - last_beat >= self.heartbeat_interval
            try:
                if w is None:
                    if beat:
                        self.store.heartbeat(self.worker_id, None)
                        last_beat = now
                    continue
                self._limits(w, now)
                if beat:
                    state = self.store.heartbeat(self.worker_id, w.job.id, steps=w.ctx.steps,
                                                 fraction=w.ctx.fraction, progress_at=w.moved_wall)
                    last_beat = now
                else:
                    state = "cancel" if self.store.cancel_requested(w.job.id) else "ok"
                w.ctx._note(state)
            except Exception as exc:  # noqa: BLE001 - a busy store: never let the thread die
                log.warning("heartbeat failed: %s", exc)
            if w is not None:
                self._enforce(w, time.monotonic())

    def _limits(self, w: _Watch, now: float) -> None:
        steps = w.ctx.steps
        if steps != w.steps:
            w.steps, w.moved, w.moved_wall = steps, now, time.time()
        limit = getattr(w.job, "time_limit", None)
        if limit is not None and now - w.started > limit:
            w.ctx.stop("time-limit", f"ran past its time limit of {limit:g} s")
        stall = getattr(w.job, "stall_after", None)
        if stall is not None and now - w.moved > stall:
            w.ctx.stop("stalled", f"made no progress for {now - w.moved:.0f} s (limit {stall:g} s) "
                                  "while its process lived")

    def _enforce(self, w: _Watch, now: float) -> None:
        if not w.ctx.cancelled or self.interrupt is None:
            return
        if w.stop_seen is None:
            w.stop_seen = now
        elif now - w.stop_seen >= self.grace and now - w.kicked >= 1.0 and self._watch is w:
            w.kicked = now
            self.interrupt()
