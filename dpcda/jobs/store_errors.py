"""Plain-language errors for a job-store file that cannot be used, and moving a corrupt one aside.

Every problem with the store file (corrupt bytes, a folder or device in its place, a missing or
unwritable folder, a full disk, a schema written by a newer dpcda) becomes one
:class:`StoreError`: a ``code`` that callers branch on, the ``path`` and one plain sentence that
says what to do. The CLI prints the sentence (exit 2); pages show it with the path in an
expander. A corrupt store is never overwritten: :func:`move_aside` renames it (with its WAL and
shared-memory files) to ``<name>.corrupt-<UTC time>`` so that a fresh store can start.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
import time
from pathlib import Path
from typing import Iterator

#: code -> what the user should do (the sentence ends with it).
STORE_ERROR_CODES = {
    "corrupt": "it is corrupt (SQLite finds it malformed) or not a job store at all, and "
               "nothing will be written to it; move it aside (`dpcda store --move-aside`, with "
               "the same --db) to keep it and start a fresh store",
    "is-folder": "it is a folder; give a file path (e.g. …/jobs.sqlite3) with --db or DPCDA_HOME",
    "not-a-file": "it is not a regular file (e.g. a device); give a file path with --db",
    "no-folder": "its folder does not exist and cannot be created; choose another --db or "
                 "DPCDA_HOME",
    "permission": "this user may not read or write it (or its folder); fix the permissions or "
                  "choose another --db or DPCDA_HOME",
    "read-only": "it is read-only (the file, its folder or its file system); make it writable "
                 "or choose a writable --db or DPCDA_HOME",
    "disk-full": "the disk is full; free some space and try again",
    "newer-schema": "it was written by a newer dpcda; upgrade dpcda (pip install -U dpcda) or "
                    "use another --db",
    "io": "the file could not be read or written (an I/O error); check the disk or choose "
          "another --db",
}


class StoreError(ValueError):
    """A job-store file that cannot be used: ``code`` (a key of :data:`STORE_ERROR_CODES`),
    ``path``, a one-sentence ``str()`` naming the file, and ``plain``: the same sentence without
    the path (for pages, which keep server paths out of sight)."""

    def __init__(self, code: str, path: os.PathLike | str, detail: str = "") -> None:
        self.code = code
        self.path = Path(path)
        self.detail = detail
        self.plain = f"The job store cannot be used: {STORE_ERROR_CODES[code]}."
        super().__init__(f"The job store {str(self.path)!r} cannot be used: "
                         f"{STORE_ERROR_CODES[code]}.")


def precheck(path: Path) -> None:
    """Problems visible before SQLite opens the file (a folder or a device in its place, a
    parent that cannot be created or written)."""
    if path.exists():
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise StoreError("is-folder", path)
        if not stat.S_ISREG(mode):
            raise StoreError("not-a-file", path)
        if not os.access(path, os.R_OK):
            raise StoreError("permission", path)
        if not os.access(path, os.W_OK) or _read_only_fs(path.parent):
            raise StoreError("read-only", path)  # readable, not writable: say so
        return
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise StoreError("no-folder", path, f"{parent} is not a folder") from None
    except PermissionError:
        raise StoreError("permission", path) from None
    except OSError as exc:
        raise _from_oserror(path, exc) from None
    if not parent.is_dir():
        raise StoreError("no-folder", path)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise StoreError("read-only" if _read_only_fs(parent) else "permission", path)


def _read_only_fs(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _from_oserror(path: Path, exc: OSError) -> StoreError:
    if exc.errno == errno.ENOSPC:
        return StoreError("disk-full", path, str(exc))
    if exc.errno in (errno.EACCES, errno.EPERM):
        return StoreError("permission", path, str(exc))
    if exc.errno == errno.EROFS:
        return StoreError("read-only", path, str(exc))
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return StoreError("no-folder", path, str(exc))
    return StoreError("io", path, str(exc))


_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26  # primary result codes (any extended variant)


def classify(path: Path, exc: BaseException) -> StoreError:
    """The :class:`StoreError` behind a ``sqlite3`` or OS error raised while using ``path``."""
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, OSError):
        return _from_oserror(path, exc)
    msg = str(exc).lower()
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return StoreError("corrupt", path, str(exc))
    if "not a database" in msg or "malformed" in msg or "file is encrypted" in msg:
        return StoreError("corrupt", path, str(exc))
    if "full" in msg:
        return StoreError("disk-full", path, str(exc))
    if "readonly" in msg or "read-only" in msg:  # SQLITE_READONLY: the file cannot be written
        return StoreError("read-only", path, str(exc))
    if "unable to open" in msg:
        if path.is_dir():
            return StoreError("is-folder", path, str(exc))
        if not path.parent.is_dir():
            return StoreError("no-folder", path, str(exc))
        return StoreError("permission", path, str(exc))
    return StoreError("io", path, str(exc))


@contextlib.contextmanager
def translated(path: Path) -> Iterator[None]:
    """Turn ``sqlite3`` errors inside the block into one :class:`StoreError`.

    Errors of the store's own logic (a constraint, an unknown job) pass through unchanged.
    """
    try:
        yield
    except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
        raise
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc).lower():
            raise  # busy for longer than the timeout: not a property of the file
        raise classify(path, exc) from exc


def move_aside(path: os.PathLike | str) -> Path:
    """Rename a store file (and its ``-wal``/``-shm`` files) to ``<name>.corrupt-<UTC time>``;
    returns the new path of the main file. Never deletes anything."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"there is no store file to move aside at {str(path)!r}")
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    path.rename(target)
    return target
