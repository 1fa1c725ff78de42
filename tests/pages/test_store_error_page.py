"""A corrupt job store on the Utility page: one message, the path behind an expander, a button
that moves it aside; no traceback."""

from __future__ import annotations

import os
from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "utility.py")


def test_corrupt_store_is_one_message_and_can_be_moved_aside(monkeypatch, tmp_path):
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path))
    db = tmp_path / "jobs.sqlite3"
    db.write_bytes(os.urandom(8192))
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] and len(at.error) == 1
    assert "cannot be used" in at.error[0].value and str(tmp_path) not in at.error[0].value
    button = at.button(key="jobs_move_aside")
    button.click()
    at.run()
    assert not at.exception, at.exception
    assert len(list(tmp_path.glob("jobs.sqlite3.corrupt-*"))) == 1
    assert not at.error  # a fresh store: the page renders normally


def test_an_unexpected_store_error_hides_the_path(monkeypatch, tmp_path):
    """An error the store does not classify: one plain message without the server path; the
    precise error (with the path) only in the "Details" expander."""
    import dpcda.jobs

    where = tmp_path / "home" / "jobs.sqlite3"

    def broken(*a, **kw):
        raise OSError(5, "Input/output error", str(where))

    monkeypatch.setattr(dpcda.jobs, "JobStore", broken)
    for page in ("utility", "compare"):
        at = AppTest.from_file(str(Path(PAGE).with_name(f"{page}.py")), default_timeout=60)
        at.run()
        assert not at.exception, at.exception
        (error,) = at.error
        assert error.value.startswith("The job store cannot be opened: ")
        assert error.value == "The job store cannot be opened: Input/output error."
        (details,) = [e for e in at.expander if e.label == "Details"]
        assert str(where) in details.code[0].value


def test_a_store_damaged_in_the_middle_is_caught_and_moved_aside(monkeypatch, tmp_path):
    """The page's quick check finds damage deep inside a real store (not only a bad header);
    its button moves the file aside untouched."""
    import sqlite3

    from dpcda.jobs import JobStore

    monkeypatch.setenv("DPCDA_HOME", str(tmp_path))
    db = tmp_path / "jobs.sqlite3"
    JobStore(db).create_sweep("s", {}, [("experiment", {"dataset": "digits", "epsilon": float(e),
                                                         "l": 1}) for e in range(1, 600)])
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(db, "r+b") as f:  # dd if=/dev/urandom bs=4096 seek=40 count=4 conv=notrunc
        f.seek(40 * 4096)
        f.write(os.urandom(4 * 4096))
    before = db.read_bytes()
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert len(at.error) == 1 and "corrupt" in at.error[0].value
    assert db.read_bytes() == before
    at.button(key="jobs_move_aside").click()
    at.run()
    assert not at.exception, at.exception
    (moved,) = tmp_path.glob("jobs.sqlite3.corrupt-*")
    assert moved.read_bytes() == before and not at.error
