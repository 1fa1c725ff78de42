"""Output files of the command line: checked before any work, written whole or not at all.

:func:`check_out` refuses, before a command computes anything, an output path that cannot be
written (a folder in its place, a missing or read-only folder, no permission): one
``ValueError`` naming the option. :func:`write_atomic` writes through a temporary file in the
same folder and renames it into place, so a failure (a full disk) leaves no half-written file;
an ``OSError`` becomes the same kind of one-line ``ValueError``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path
from typing import Callable, Iterator


def _why(exc: OSError) -> str:
    if exc.errno == errno.EROFS:
        return "it is on a read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EISDIR:
        return "it is a folder"
    return exc.strerror or str(exc)


def check_out(path: str | os.PathLike, *, option: str = "--out", suffix: str | None = None) -> Path:
    """``path`` as a Path if a file can be written there; else ``ValueError`` naming ``option``."""
    out = Path(path).expanduser()
    if suffix is not None and out.suffix != suffix:
        raise ValueError(f"{option} must end in {suffix}, got {option} {str(path)!r}")
    if out.is_dir():
        raise ValueError(f"{option} must be a file path, got the folder {str(path)!r}")
    folder = out.parent
    if not folder.is_dir():
        raise ValueError(f"{option}: the folder {str(folder)!r} does not exist (got {option} "
                         f"{str(path)!r})")
    if out.exists() and not os.access(out, os.W_OK):
        raise ValueError(f"{option}: {str(path)!r} cannot be written (permission denied)")
    try:  # the only sure test: create (and remove) a file beside it
        fd, probe = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".probe", dir=folder)
    except OSError as exc:
        raise ValueError(f"{option}: cannot write in the folder {str(folder)!r} ({_why(exc)})") \
            from None
    os.close(fd)
    os.unlink(probe)
    return out


@contextlib.contextmanager
def translated(path: str | os.PathLike, option: str = "--out") -> Iterator[None]:
    """Turn an ``OSError`` raised while writing ``path`` into one ``ValueError`` line."""
    try:
        yield
    except OSError as exc:
        raise ValueError(f"{option}: could not write {str(path)!r} ({_why(exc)})") from None


def write_atomic(path: str | os.PathLike, write: Callable[[str], None], *,
                 option: str = "--out") -> Path:
    """Call ``write(temporary path)`` and rename the result to ``path`` (same folder); on any
    failure the temporary file is removed and ``path`` is left as it was."""
    out = Path(path)
    with translated(out, option):
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
        os.close(fd)
        try:
            write(tmp)
            os.replace(tmp, out)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    return out
