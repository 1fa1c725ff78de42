"""Running a job's body in a child process the worker can end.

A job told to stop (cancel, time limit, SIGTERM) stops at its next checkpoint; inside one long
native call (a decision tree's fit, a big linear-algebra routine) there is none, and a signal
to the worker's main thread waits for the call to return. A kind registered with
``isolated=True`` therefore runs in a child process: the worker keeps its watchdog, passes the
stop request on through shared memory (the child stops at its next checkpoint) and, if the child
has not ended ``grace`` seconds later, kills it. A job stops within tick + grace + the kill
(about 3 s), whatever it is doing.

Children come from a fork server (:mod:`multiprocessing`'s ``forkserver``: a clean process
started once per worker that has imported numpy, torch and dpcda but never initialised CUDA
and never runs job code), so a child starts in milliseconds and may use CUDA. The child writes
its own progress and messages to the store (as the worker, under the worker's id); its
progress counter is shared with the worker's watchdog, so stall detection and heartbeats work
as in-process; its result (or error) comes back through a pipe.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import sys
import threading
import time
import traceback
import types

from dpcda.jobs.kinds import JobCancelled, JobContext

#: Modules the fork server imports once, so that children do not (import cost paid once).
PRELOAD = ["numpy", "scipy.io", "torch", "sklearn.tree", "sklearn.datasets", "cryptography",
           "dpcda.data.presets", "dpcda.privacy", "dpcda.experiments.run", "dpcda.experiments.audit_job",
           "dpcda.mechanisms", "dpcda.training", "dpcda.data", "dpcda.evaluation.audit"]
STOP_CODES = ("cancelled", "time-limit", "stalled", "worker-stopped", "worker-gone")
POLL = 0.05  # seconds between the worker's looks at the child

_lock = threading.Lock()
_context = None
_active = 0  # isolated jobs in flight in this process
_own_tracker = False  # the fork server started multiprocessing's resource tracker


class ChildError(Exception):
    """The job's code raised in the child: ``summary`` ("ValueError: ...") and ``tb``."""

    def __init__(self, summary: str, tb: str | None = None) -> None:
        super().__init__(summary)
        self.summary, self.tb = summary, tb


def stop_server() -> None:
    """End this process's fork server (a worker calls it when it stops, so no process outlives
    it); a later isolated job starts a new one. Nothing happens while an isolated job runs."""
    global _own_tracker
    with _lock:
        if _context is None or _active or _context.get_start_method() != "forkserver":
            return
        from multiprocessing import forkserver, resource_tracker

        stop = getattr(forkserver._forkserver, "_stop", None)
        if stop is not None:
            stop()
        tracker = getattr(resource_tracker._resource_tracker, "_stop", None)
        if _own_tracker and tracker is not None:  # started with the server: ends with it
            tracker()
            _own_tracker = False


def context():
    """The multiprocessing context children are started from (a fork server where there is
    one, else spawn)."""
    global _context
    with _lock:
        if _context is None:
            if "forkserver" in mp.get_all_start_methods():
                _context = mp.get_context("forkserver")
                _context.set_forkserver_preload(PRELOAD)
            else:
                _context = mp.get_context("spawn")
        return _context


class _ChildContext(JobContext):
    """The child's side: the progress counter and the stop flag live in shared memory."""

    def __init__(self, store, job_id, worker_id, steps, stop) -> None:
        super().__init__(store, job_id, worker_id)
        self._steps, self._stop = steps, stop

    def _sync(self) -> None:
        self._steps.value = self.steps
        code = self._stop.value
        if code and not self.cancelled:
            self.stop(STOP_CODES[code - 1], "told to stop by its worker")

    def tick(self, steps: int = 1) -> None:
        self.steps += steps
        self._sync()
        if self.cancelled:
            self.check_cancelled()

    def progress(self, epoch, n_epochs=None, metrics=None) -> bool:
        self._sync()
        go = super().progress(epoch, n_epochs, metrics)
        self._sync()
        return go

    def message(self, text: str) -> None:
        super().message(text)
        self._sync()


def _die_with_parent() -> None:
    """Linux: SIGKILL this child when its parent (the fork server, which exits when the worker
    does) dies, so a killed worker leaves no job computing on its own."""
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:  # the fork server hands each child a copy of the worker's "alive" pipe; while a copy
        # is open the server never sees the worker go, so the child must not keep one
        from multiprocessing import forkserver

        fd = getattr(forkserver._forkserver, "_forkserver_alive_fd", None)
        if fd is not None:
            os.close(fd)
            forkserver._forkserver._forkserver_alive_fd = None
    except OSError:
        pass
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before prctl: nobody to report to
        os._exit(1)


def _child_main(kind: str, config: dict, job_id: int, worker_id: str, db: str, steps, stop,
                conn) -> None:
    from dpcda.util.cancellation import watching
    from dpcda.jobs.kinds import get_kind, load_plugins
    from dpcda.jobs.store import JobStore

    _die_with_parent()
    try:
        load_plugins()
        ctx = _ChildContext(JobStore(db), job_id, worker_id, steps, stop)
        with watching(ctx.tick):
            ctx.check_cancelled()
            result = get_kind(kind).run(config, ctx)
        out = ("ok", result, ctx.stop_reason)
    except JobCancelled as exc:
        out = ("cancelled", exc.reason, str(exc))
    except BaseException as exc:  # noqa: BLE001 - reported to the worker, which records it
        out = ("error", f"{type(exc).__name__}: {exc}", traceback.format_exc())
    try:
        conn.send(out)
    except Exception as exc:  # noqa: BLE001 - e.g. a result that does not pickle
        conn.send(("error", f"{type(exc).__name__}: the job's result could not be sent back: "
                            f"{exc}", traceback.format_exc()))
    conn.close()


@contextlib.contextmanager
def _no_main_module():
    """Start a child without re-running the caller's ``__main__`` in it (multiprocessing
    would, and a script without an ``if __name__ == "__main__"`` guard would run again): the
    child needs only :func:`_child_main` and the importable job kinds."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def run_isolated(kind: str, config: dict, ctx: JobContext, db: os.PathLike | str, *,
                 grace: float = 2.0) -> dict | None:
    """Run job ``kind`` in a child process and return its result; a stop asked of ``ctx``
    (by the watchdog, a cancel, SIGTERM) reaches the child, which is killed if it has not ended
    ``grace`` seconds later: :class:`JobCancelled` with the stop reason. The job's own error:
    :class:`ChildError`."""
    global _active, _own_tracker
    mpc = context()
    with _lock:
        _active += 1
        if mpc.get_start_method() == "forkserver":
            from multiprocessing import resource_tracker

            if getattr(resource_tracker._resource_tracker, "_fd", 0) is None:
                _own_tracker = True  # not running yet: the server's start will start it
    try:
        return _run(mpc, kind, config, ctx, db, grace)
    finally:
        with _lock:
            _active -= 1


def _run(mpc, kind: str, config: dict, ctx: JobContext, db, grace: float) -> dict | None:
    steps = mpc.Value("q", 0, lock=False)
    stop = mpc.Value("i", 0, lock=False)
    receive, send = mpc.Pipe(duplex=False)
    proc = mpc.Process(target=_child_main, name=f"dpcda-job-{ctx.job_id}",
                       args=(kind, config, ctx.job_id, ctx.worker_id, os.fspath(db), steps, stop,
                             send), daemon=True)
    with _no_main_module():
        proc.start()
    send.close()
    told = None
    message = None
    try:
        while True:
            if receive.poll(POLL):
                try:
                    message = receive.recv()
                except EOFError:
                    message = None
                break
            if not proc.is_alive():
                if receive.poll(0):
                    continue
                break
            ctx.steps = max(ctx.steps, steps.value)  # the watchdog sees the child's progress
            if ctx.cancelled:
                if told is None:
                    code = (ctx.stop_reason or ("cancelled", ""))[0]
                    stop.value = STOP_CODES.index(code) + 1 if code in STOP_CODES else 1
                    told = time.monotonic()
                elif time.monotonic() - told >= grace:
                    proc.kill()  # inside a native call: end it
                    proc.join()
                    ctx.check_cancelled()
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()
    ctx.steps = max(ctx.steps, steps.value)
    if message is None:
        if ctx.cancelled:
            ctx.check_cancelled()
        raise ChildError(f"the job's process ended without a result (exit code {proc.exitcode}"
                         + (": killed by a signal, e.g. for memory" if (proc.exitcode or 0) < 0
                            else "") + ")")
    status = message[0]
    if status == "ok":
        if message[2] is not None:
            ctx.stop(*message[2])
        return message[1]
    if status == "cancelled":
        ctx.stop(message[1], message[2])
        ctx.check_cancelled()
    raise ChildError(message[1], message[2])
