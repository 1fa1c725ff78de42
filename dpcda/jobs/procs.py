"""Is a worker process still alive? (pid + hostname + a start-time token against pid reuse)."""

from __future__ import annotations

import os
import socket


def hostname() -> str:
    return socket.gethostname()


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of ``/proc/<pid>/stat`` after the command name (Linux), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode(errors="replace")
    except OSError:
        return None
    # The command name is in parentheses and may itself contain spaces or parentheses.
    return raw[raw.rfind(")") + 2:].split()


def pid_token(pid: int) -> str | None:
    """The process start time in clock ticks since boot (Linux), so that a recycled pid is
    not mistaken for the worker that once had it; None where /proc is unavailable."""
    fields = _proc_stat(pid)
    # After the name: state is field 3 of stat(5), starttime field 22 -> index 19 here.
    return fields[19] if fields and len(fields) > 19 else None


def pid_alive(pid: int | None, token: str | None = None) -> bool:
    """True when process ``pid`` exists on this host, is not a zombie and (when a token is
    given and /proc is readable) is the same process that recorded the token."""
    if pid is None or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        pass
    fields = _proc_stat(pid)
    if fields is None:
        return True  # no /proc (macOS): trust kill(0)
    if fields[0] in ("Z", "X"):  # zombie / dead, not yet reaped by its parent
        return False
    if token is not None and len(fields) > 19 and fields[19] != token:
        return False
    return True
