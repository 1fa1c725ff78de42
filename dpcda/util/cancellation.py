"""A cheap cancellation and progress hook for long loops (generators, training, audits).

Library loops call :func:`checkpoint` once per batch. Outside a job it does nothing (one
context-variable read). A job runner installs a hook with :func:`watching`; the hook counts the
calls (the job's progress counter, advanced by the work itself, which is how a stalled job is
told apart from a slow one) and raises when the job must stop (cancelled, past its time limit,
its worker shutting down). So a cancel takes effect between batches, not only between epochs.

>>> with watching(lambda n: None):
...     for batch in range(3):
...         checkpoint()
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Callable, Iterator

_HOOK: ContextVar[Callable[[int], None] | None] = ContextVar("dpcda_checkpoint_hook", default=None)


def checkpoint(steps: int = 1) -> None:
    """Report ``steps`` units of work done; raises if the running job must stop."""
    hook = _HOOK.get()
    if hook is not None:
        hook(steps)


@contextlib.contextmanager
def watching(hook: Callable[[int], None]) -> Iterator[None]:
    """Install ``hook(steps)`` as the checkpoint hook of this thread (context) for the block."""
    token = _HOOK.set(hook)
    try:
        yield
    finally:
        _HOOK.reset(token)
