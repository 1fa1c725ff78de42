"""Every problem with the store file is one plain sentence with a code; nothing is overwritten."""

import os
import sqlite3
import subprocess
import sys

import pytest

from dpcda.jobs import JobStore
from dpcda.jobs.store_errors import STORE_ERROR_CODES, StoreError, classify, move_aside


def _corrupt(path):
    path.write_bytes(os.urandom(8192))
    return path.read_bytes()


def test_corrupt_file_is_reported_and_never_overwritten(tmp_path):
    db = tmp_path / "jobs.sqlite3"
    before = _corrupt(db)
    with pytest.raises(StoreError) as err:
        JobStore(db)
    assert err.value.code == "corrupt"
    assert str(db) in str(err.value) and str(db) not in err.value.plain
    assert db.read_bytes() == before


def test_move_aside_keeps_the_old_file_and_a_fresh_store_starts(tmp_path):
    db = tmp_path / "jobs.sqlite3"
    before = _corrupt(db)
    moved = move_aside(db)
    assert moved.name.startswith("jobs.sqlite3.corrupt-") and moved.read_bytes() == before
    assert JobStore(db).jobs() == []
    with pytest.raises(ValueError, match="no store file"):
        move_aside(tmp_path / "missing.sqlite3")


@pytest.mark.parametrize("make, code", [
    (lambda d: d, "is-folder"),
    (lambda d: "/dev/null", "not-a-file"),
    (lambda d: d / "file" / "jobs.sqlite3", "no-folder"),
])
def test_wrong_paths(tmp_path, make, code):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError) as err:
        JobStore(make(tmp_path))
    assert err.value.code == code


def test_newer_schema_is_refused(tmp_path):
    db = tmp_path / "jobs.sqlite3"
    JobStore(db)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError) as err:
        JobStore(db)
    assert err.value.code == "newer-schema"


@pytest.mark.parametrize("message, code", [
    ("database or disk is full", "disk-full"),
    ("file is not a database", "corrupt"),
    ("database disk image is malformed", "corrupt"),
    ("disk I/O error", "io"),
])
def test_sqlite_messages_map_to_codes(tmp_path, message, code):
    got = classify(tmp_path / "jobs.sqlite3", sqlite3.OperationalError(message))
    assert got.code == code and STORE_ERROR_CODES[code] in str(got)


def test_read_only_path():
    # /proc refuses new files even for root, so this holds on every Linux machine.
    with pytest.raises(StoreError) as err:
        JobStore("/proc/dpcda-test/jobs.sqlite3")
    assert err.value.code in ("permission", "read-only", "no-folder")


@pytest.mark.parametrize("argv", [
    ["sweep", "--dataset", "digits", "--epsilons", "10", "--ls", "4", "--runs", "1"],
    ["worker", "--once"],
    ["store"],
])
def test_cli_prints_one_line_and_exits_2(tmp_path, argv):
    db = tmp_path / "jobs.sqlite3"
    _corrupt(db)
    proc = subprocess.run([sys.executable, "-m", "dpcda", *argv, "--db", str(db)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(db) in lines[0] and "move-aside" in lines[0]


def test_cli_move_aside(tmp_path):
    db = tmp_path / "jobs.sqlite3"
    _corrupt(db)
    run = [sys.executable, "-m", "dpcda", "store", "--db", str(db), "--json"]
    proc = subprocess.run(run + ["--move-aside"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert len(list(tmp_path.glob("jobs.sqlite3.corrupt-*"))) == 1
    again = subprocess.run(run + ["--move-aside"], capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "not corrupt" in again.stderr


def test_a_store_that_may_be_read_but_not_written_says_read_only(tmp_path, monkeypatch):
    """A store file this user can read but not write (chmod a-w; root ignores file modes, so
    the access check is what is changed here) is "read-only", not "permission"; SQLite's own
    read-only error is named the same."""
    import dpcda.jobs.store_errors as se

    db = tmp_path / "jobs.sqlite3"
    JobStore(db)
    real = os.access
    monkeypatch.setattr(se.os, "access", lambda p, mode: real(p, mode) and not (
        str(p) == str(db) and mode & os.W_OK))
    with pytest.raises(StoreError) as err:
        JobStore(db)
    assert err.value.code == "read-only" and "read-only" in str(err.value)
    got = classify(db, sqlite3.OperationalError("attempt to write a readonly database"))
    assert got.code == "read-only"


def test_corruption_is_recognised_by_sqlite_error_code(tmp_path):
    """SQLITE_CORRUPT / SQLITE_NOTADB in any wording (e.g. "database corruption at line …")."""
    exc = sqlite3.DatabaseError("database corruption at line 74506 of [abcdef]")
    exc.sqlite_errorcode = 11 | (1 << 8)  # an extended SQLITE_CORRUPT code
    assert classify(tmp_path / "jobs.sqlite3", exc).code == "corrupt"
