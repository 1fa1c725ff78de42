"""Work done ahead, in the background, for the dashboard: :func:`prefetch` runs plain tasks in
one daemon thread after a short delay (what a page will most likely ask next: the Privacy
page's frontier under another accountant, the Samples page's mosaic noise), so that the asking
finds the answer remembered by the task's own memo (:mod:`dpcda.dashboard.frontier_memo`,
:func:`dpcda.dashboard.samples.mosaic_sigmas_at`). Tasks never call Streamlit.

The page runs come first: ``app.py`` runs every page inside :func:`foreground`, and a task
calls :func:`pause_for_foreground` between its steps, so a prefetch waits while a page is
running (a page that waits for a prefetch's answer says so with :func:`waiting`)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_worker: list[threading.Thread] = []
_prefetched: set = set()
_state = threading.Condition()
_runs = {"active": 0, "waiting": 0}  # page runs going on; of those, runs waiting for a prefetch


@contextmanager
def foreground() -> Iterator[None]:
    """Mark a page run (``app.py`` wraps every run): prefetches pause meanwhile."""
    with _state:
        _runs["active"] += 1
    try:
        yield
    finally:
        with _state:
            _runs["active"] -= 1
            _state.notify_all()


@contextmanager
def waiting() -> Iterator[None]:
    """Mark a page run as waiting for a prefetch's answer: prefetches go on meanwhile."""
    with _state:
        _runs["waiting"] += 1
        _state.notify_all()
    try:
        yield
    finally:
        with _state:
            _runs["waiting"] -= 1


def pause_for_foreground(timeout: float = 10.0) -> None:
    """In the prefetch thread: wait (at most ``timeout`` s) while a page run is going on that
    is not itself waiting for a prefetch. Elsewhere: return at once."""
    if not (_worker and threading.current_thread() is _worker[0]):
        return
    with _state:
        _state.wait_for(lambda: _runs["active"] <= _runs["waiting"], timeout=timeout)


def prefetch(tasks: Iterable[Callable[[], object]], *, key=None,
             delay: float = 1.0) -> threading.Thread | None:
    """Run ``tasks`` one after the other in a daemon thread, ``delay`` seconds from now; a task
    that raises is skipped. At most one such thread at a time, and once per hashable ``key``
    (None: no such check): returns None (nothing started) while one is still running or when
    ``key`` was prefetched before.

    The thread keeps the normal priority: a lowered one (nice) would, on a loaded machine, hold
    the GIL while starved of CPU and stall the page's own runs."""
    if not (isinstance(delay, (int, float)) and math.isfinite(delay) and delay >= 0):
        raise ValueError(f"delay must be a finite number of seconds >= 0, got delay={delay!r}")
    with _lock:
        if (_worker and _worker[0].is_alive()) or (key is not None and key in _prefetched):
            return None
        if key is not None:
            _prefetched.add(key)
        tasks = list(tasks)

        def run() -> None:
            time.sleep(delay)
            for task in tasks:
                pause_for_foreground()
                try:
                    task()
                except Exception:  # noqa: BLE001 - a prefetch never fails the page
                    continue

        t = threading.Thread(target=run, name="dpcda-prefetch", daemon=True)
        _worker[:] = [t]
        t.start()
        return t


def forget() -> None:
    """Forget which keys were prefetched (tests)."""
    with _lock:
        _prefetched.clear()
