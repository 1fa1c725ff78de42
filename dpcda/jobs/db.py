"""The job store's SQLite file: where it lives, how it is opened, its schema, canonical JSON.

The store is one SQLite file in WAL mode (readers never block the writer), shared by every
process on the machine: the Streamlit server, any number of workers and the CLI. Every
operation opens its own short-lived connection, so the store is safe to use from any thread
or process without shared state; SQLite's own locking (with a generous ``busy_timeout``)
serialises the writers.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from dpcda.jobs.store_errors import StoreError, precheck, translated

SCHEMA_VERSION = 2  # 2: reason, time limit, stall limit, progress counter; job_events
BUSY_TIMEOUT_MS = 30_000
JOB_STATUSES = ("queued", "running", "done", "failed", "cancelled")
TERMINAL_STATUSES = ("done", "failed", "cancelled")
# Columns of ``jobs`` added after schema version 1 (added in place when an older store is opened).
ADDED_JOB_COLUMNS = (("reason", "TEXT"), ("time_limit", "REAL"), ("stall_after", "REAL"),
                     ("steps", "INTEGER"), ("fraction", "REAL"), ("progress_at", "REAL"))

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sweeps (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    created  REAL NOT NULL,
    name     TEXT NOT NULL,
    config   TEXT NOT NULL,
    status   TEXT NOT NULL DEFAULT 'queued',
    cancel_requested INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS jobs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    sweep_id     INTEGER REFERENCES sweeps(id),
    kind         TEXT NOT NULL,
    config       TEXT NOT NULL,
    config_hash  TEXT NOT NULL,
    status       TEXT NOT NULL
                 CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    force        INTEGER NOT NULL DEFAULT 0,
    epoch        INTEGER,
    n_epochs     INTEGER,
    metrics      TEXT,
    message      TEXT,
    error        TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    worker_id    TEXT,
    heartbeat_at REAL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 2,
    created      REAL NOT NULL,
    started      REAL,
    finished     REAL,
    result       TEXT,
    reused_from  INTEGER REFERENCES jobs(id),
    reason       TEXT,
    time_limit   REAL,
    stall_after  REAL,
    steps        INTEGER,
    fraction     REAL,
    progress_at  REAL
);
CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs (status, id);
CREATE INDEX IF NOT EXISTS jobs_by_hash ON jobs (config_hash, status);
CREATE INDEX IF NOT EXISTS jobs_by_sweep ON jobs (sweep_id, id);
CREATE TABLE IF NOT EXISTS progress (
    job_id   INTEGER NOT NULL REFERENCES jobs(id),
    epoch    INTEGER NOT NULL,
    n_epochs INTEGER,
    metrics  TEXT,
    at       REAL NOT NULL,
    PRIMARY KEY (job_id, epoch)
);
CREATE TABLE IF NOT EXISTS job_events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id    INTEGER NOT NULL REFERENCES jobs(id),
    at        REAL NOT NULL,
    event     TEXT NOT NULL,
    worker_id TEXT,
    reason    TEXT,
    attempt   INTEGER
);
CREATE INDEX IF NOT EXISTS job_events_by_job ON job_events (job_id, id);
CREATE TABLE IF NOT EXISTS workers (
    id           TEXT PRIMARY KEY,
    pid          INTEGER,
    pid_token    TEXT,
    hostname     TEXT NOT NULL,
    started      REAL NOT NULL,
    heartbeat_at REAL NOT NULL,
    status       TEXT NOT NULL,
    current_job  INTEGER,
    sweep_id     INTEGER,
    stopped      REAL
);
"""


def default_home() -> Path:
    """``$DPCDA_HOME`` if set, else ``~/.dpcda``."""
    home = os.environ.get("DPCDA_HOME")
    return Path(home).expanduser() if home else Path.home() / ".dpcda"


def default_db_path() -> Path:
    """The store every session shares by default: ``$DPCDA_HOME/jobs.sqlite3``."""
    return default_home() / "jobs.sqlite3"


def resolve_db_path(db: str | os.PathLike | None) -> Path:
    if db is None:
        return default_db_path()
    if isinstance(db, str) and not db.strip():
        raise ValueError(f"db must be a file path, got db={db!r}")
    return Path(db).expanduser()


# --- corruption checks ------------------------------------------------------------------
#
# SQLite notices a damaged page only when a statement reads it, so a store damaged in the middle
# (a bad disk block, a stray ``dd``) would go on taking writes around the damage. Every
# connection therefore runs ``PRAGMA quick_check`` (each page and b-tree of the file, without
# the index-content cross-check of ``integrity_check``) the first time this process sees the
# file in its present state: the (device, inode, size, modification time) of the main file is
# remembered after a clean check and the check is repeated only when it changes (another
# process checkpointed, or something rewrote the file) or changed within the last
# SETTLED_AFTER seconds (file times move in clock ticks). A corrupt file is never written to.

SETTLED_AFTER = 1.0  # seconds: a file modified more recently is checked again on every open
_checked: dict[str, tuple] = {}  # absolute path -> stat signature of the last clean check
_checked_lock = threading.Lock()


def _signature(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _problems(conn: sqlite3.Connection, pragma: str) -> list[str]:
    """The lines a check pragma reports (empty when it says ``ok``)."""
    rows = [str(r[0]) for r in conn.execute(pragma).fetchall()]
    return [] if rows == ["ok"] else rows


def _quick_check(conn: sqlite3.Connection, path: Path) -> None:
    """``PRAGMA quick_check`` unless this process already checked the file in its present
    state; a damaged file raises ``StoreError("corrupt")`` (inside :func:`translated`, so
    SQLite's own "malformed" errors become the same)."""
    key = os.path.abspath(path)
    sig = _signature(path)
    if sig is None or sig[2] == 0:
        return  # no file yet, or an empty one SQLite is about to fill
    with _checked_lock:
        if _checked.get(key) == sig:
            return
    started = time.time()
    problems = _problems(conn, "PRAGMA quick_check")
    if problems:
        with _checked_lock:
            _checked.pop(key, None)
        raise StoreError("corrupt", path, "; ".join(problems[:5]))
    if started - sig[3] / 1e9 > SETTLED_AFTER:  # else a rewrite in the same clock tick would
        with _checked_lock:                     # leave the signature as it is
            _checked[key] = sig


def check(db: str | os.PathLike | None = None, *, full: bool = True) -> list[str]:
    """The problems ``PRAGMA integrity_check`` (``full=False``: ``quick_check``) finds in the
    store file; ``[]`` for a sound one. A file SQLite cannot read at all raises
    ``StoreError``; nothing is written."""
    path = resolve_db_path(db)
    precheck(path)
    conn = _connect(path)
    try:
        with translated(path):
            return _problems(conn, "PRAGMA integrity_check" if full else "PRAGMA quick_check")
    finally:
        conn.close()


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: autocommit; transactions are explicit (BEGIN IMMEDIATE).
    with translated(path):
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            conn.close()
            raise
    return conn


def _open(path: Path) -> sqlite3.Connection:
    """A connection to a store that passed :func:`_quick_check` in its present state."""
    conn = _connect(path)
    try:
        with translated(path):
            _quick_check(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def initialise(path: Path) -> None:
    """Create the file, switch it to WAL and create the tables (idempotent).

    Any problem with the file raises :class:`~dpcda.jobs.store_errors.StoreError` (one plain
    sentence with a ``code``); a corrupt file is never overwritten.
    """
    precheck(path)
    conn = _open(path)
    try:
        with translated(path):
            _initialise(conn, path)
    finally:
        conn.close()


def _initialise(conn: sqlite3.Connection, path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError("newer-schema", path,
                         f"schema version {version}; this dpcda understands {SCHEMA_VERSION}")
    if version == SCHEMA_VERSION and str(
            conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
        return  # already set up: no write lock needed
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":  # e.g. a file system without shared memory
        raise StoreError("io", path, f"could not switch to WAL mode (got {mode!r})")
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _statements():  # not executescript(): it would COMMIT first
            conn.execute(statement)
        have = {r[1] for r in conn.execute("PRAGMA table_info(jobs)")}
        for column, sql_type in ADDED_JOB_COLUMNS:  # a version-1 store: add what it lacks
            if column not in have:
                conn.execute(f"ALTER TABLE jobs ADD COLUMN {column} {sql_type}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _statements() -> list[str]:
    return [s.strip() for s in _SCHEMA.split(";") if s.strip()]


@contextlib.contextmanager
def connection(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection for reads (autocommit); closed on exit. File problems: ``StoreError``."""
    conn = _open(path)
    try:
        with translated(path):
            yield conn
    finally:
        conn.close()


@contextlib.contextmanager
def transaction(path: Path) -> Iterator[sqlite3.Connection]:
    """A write transaction taken with ``BEGIN IMMEDIATE`` (the write lock up front, so a
    read-then-update inside it is atomic with respect to every other process)."""
    conn = _open(path)
    try:
        with translated(path):
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
    finally:
        conn.close()


# --- JSON -------------------------------------------------------------------------------


def _plain(obj: Any) -> Any:
    """numpy scalars/arrays, tuples and paths -> plain JSON types."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (str, bool)) or obj is None:
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if hasattr(obj, "tolist"):  # numpy scalar or array
        return _plain(obj.tolist())
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise ValueError(f"job config and results must be plain JSON values, got {type(obj).__name__}: {obj!r}")


def dumps(obj: Any) -> str:
    """JSON text for the store (infinity is kept: epsilon = inf is a legitimate value)."""
    return json.dumps(_plain(obj), allow_nan=True)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _canonical(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _canonical(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_canonical(v) for v in obj]
    if isinstance(obj, float) and math.isfinite(obj) and obj == int(obj) and abs(obj) < 2**53:
        return int(obj)  # 10 and 10.0 are the same configuration
    return obj


def canonical_json(obj: Any) -> str:
    """Key-sorted, whitespace-free JSON in which 10.0 and 10 are spelled the same."""
    return json.dumps(_canonical(_plain(obj)), sort_keys=True, separators=(",", ":"), allow_nan=True)


def config_hash(kind: str, config: dict) -> str:
    """SHA-256 of the canonical JSON of (kind, config): the deduplication key."""
    return hashlib.sha256(canonical_json({"kind": kind, "config": config}).encode()).hexdigest()
