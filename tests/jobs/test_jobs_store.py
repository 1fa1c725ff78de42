"""The job store in one process: claiming, results, dedup, cancel, progress, recovery."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from dpcda.jobs import JobStore, Worker, cancel_job
from dpcda.jobs.db import config_hash
from dpcda.jobs.procs import hostname, pid_alive, pid_token
from tests.jobs.jobs_util import wait_for


def _fast_worker(store, **kw) -> Worker:
    return Worker(store, heartbeat_interval=0.1, stale_after=5.0, poll_interval=0.02, **kw)


def _register_worker(store, worker_id: str, pid: int | None, *, heartbeat_at: float | None = None):
    with sqlite3.connect(store.path) as conn:
        now = time.time()
        conn.execute("INSERT INTO workers (id, pid, pid_token, hostname, started, heartbeat_at, status) "
                     "VALUES (?, ?, ?, ?, ?, ?, 'running')",
                     (worker_id, pid, pid and pid_token(pid), hostname(), now,
                      now if heartbeat_at is None else heartbeat_at))


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_store_file_is_wal_and_results_survive_reopening(db_path):
    store = JobStore(db_path)
    job_id = store.submit("fake-epochs", {"epochs": 2, "value": 7})
    assert store.get_job(job_id).status == "queued"
    assert _fast_worker(store).run(idle_exit=0) == 1
    del store
    reopened = JobStore(db_path)  # a new handle, as after an app restart
    job = reopened.get_job(job_id)
    assert job.status == "done" and job.result["value"] == 7 and job.result["epochs"] == 2
    assert job.attempts == 1 and job.finished >= job.started >= job.created
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_default_location_follows_dpcda_home(tmp_path, monkeypatch):
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "elsewhere"))
    store = JobStore()
    assert store.path == tmp_path / "elsewhere" / "jobs.sqlite3" and store.path.exists()


def test_claim_is_exclusive_and_fifo(store):
    ids = [store.submit("fake-epochs", {"epochs": 1, "value": i}) for i in range(3)]
    first = store.claim("w1", ["fake-epochs"])
    second = store.claim("w2", ["fake-epochs"])
    assert (first.id, second.id) == (ids[0], ids[1])
    assert first.status == "running" and first.worker_id == "w1" and first.attempts == 1
    assert store.claim("w3", ["other-kind"]) is None  # a worker only takes kinds it knows
    assert store.claim("w3", ["fake-epochs"]).id == ids[2]
    assert store.claim("w4", ["fake-epochs"]) is None
    assert store.finish(ids[0], "w2", "done", result={}) is False  # not w2's job
    assert store.finish(ids[0], "w1", "done", result={"ok": 1}) is True
    assert store.get_job(ids[0]).result == {"ok": 1}


def test_progress_rows_per_epoch(store):
    job_id = store.submit("fake-epochs", {"epochs": 4})
    _fast_worker(store).run(once=True)
    rows = store.progress(job_id)
    assert [r["epoch"] for r in rows] == [1, 2, 3, 4]
    assert all(r["n_epochs"] == 4 for r in rows)
    assert [r["metrics"]["loss"] for r in rows] == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])
    job = store.get_job(job_id)
    assert (job.epoch, job.n_epochs, job.metrics["test_accuracy"]) == (4, 4, 1.0)


def test_identical_config_is_not_recomputed(store):
    a = store.submit("fake-epochs", {"epochs": 2, "value": 1.0})
    _fast_worker(store).run(idle_exit=0)
    b = store.submit("fake-epochs", {"value": 1, "epochs": 2.0})  # same config, other spelling
    job_b = store.get_job(b)
    assert job_b.status == "done" and job_b.reused_from == a
    assert job_b.result == store.get_job(a).result
    assert [r["epoch"] for r in store.progress(b)] == [1, 2]
    c = store.submit("fake-epochs", {"epochs": 2, "value": 1.0}, force=True)
    assert store.get_job(c).status == "queued"
    d = store.submit("fake-epochs", {"epochs": 2, "value": 2.0})  # a different config
    assert store.get_job(d).status == "queued"
    assert (config_hash("fake-epochs", {"a": 1, "b": [1.0]})
            == config_hash("fake-epochs", {"b": [1], "a": 1.0}))
    assert config_hash("fake-epochs", {"a": 1}) != config_hash("fake-record", {"a": 1})


def test_duplicate_queued_behind_its_twin_is_linked_at_claim_time(store):
    a = store.submit("fake-epochs", {"epochs": 1})
    b = store.submit("fake-epochs", {"epochs": 1})  # a is not done yet: both queued
    assert store.get_job(b).status == "queued"
    ran = _fast_worker(store).run(idle_exit=0)
    assert ran == 1  # b was linked, not run
    assert store.get_job(b).reused_from == a and store.get_job(b).status == "done"


def test_normalize_hook_defines_the_dedup_key(store):
    a = store.submit("fake-normalized", {})
    assert store.get_job(a).config == {"x": 0}
    _fast_worker(store).run(idle_exit=0)
    assert store.get_job(store.submit("fake-normalized", {"x": 0})).reused_from == a


def test_cancel_queued_job_at_once(store):
    job_id = store.submit("fake-epochs", {"epochs": 1})
    assert cancel_job(job_id, store) == "cancelled"
    assert store.claim("w", ["fake-epochs"]) is None
    assert store.get_job(job_id).finished is not None
    assert store.cancel_job(job_id) == "cancelled"  # idempotent


def test_cancel_running_job_stops_it_at_the_next_epoch(store):
    job_id = store.submit("fake-epochs", {"epochs": 200, "seconds": 0.02})
    t = threading.Thread(target=_fast_worker(store).run, kwargs={"once": True})
    t.start()
    wait_for(lambda: (store.get_job(job_id).epoch or 0) >= 2, what="two epochs")
    assert store.cancel_job(job_id) == "running"  # flagged; the worker stops it
    t.join(timeout=20)
    job = store.get_job(job_id)
    assert job.status == "cancelled" and job.message.startswith("cancelled after epoch")
    assert 2 <= job.result["stopped_at"] < 200


def test_cancel_seen_by_check_cancelled_via_heartbeat(store):
    job_id = store.submit("fake-cancel-check", {"limit": 20})
    t = threading.Thread(target=_fast_worker(store).run, kwargs={"once": True})
    t.start()
    wait_for(lambda: store.get_job(job_id).status == "running", what="running")
    t0 = time.monotonic()
    store.cancel_job(job_id)
    t.join(timeout=20)
    assert store.get_job(job_id).status == "cancelled"
    assert time.monotonic() - t0 < 5  # seen at the next heartbeat, not after the 20 s limit


def test_failed_job_records_the_error(store):
    job_id = store.submit("fake-fail", {"why": "on purpose"})
    _fast_worker(store).run(idle_exit=0)
    job = store.get_job(job_id)
    assert job.status == "failed" and job.message == "RuntimeError: fake failure on purpose"
    assert "Traceback" in job.error and job.attempts == 1


def test_recover_requeues_then_fails_jobs_of_dead_workers(store):
    job_id = store.submit("fake-epochs", {"epochs": 1}, max_attempts=2)
    pid = _dead_pid()
    assert not pid_alive(pid)
    for attempt, expected in ((1, "queued"), (2, "failed")):
        _register_worker(store, f"dead{attempt}", pid)
        assert store.claim(f"dead{attempt}", ["fake-epochs"]).attempts == attempt
        changed = store.recover(stale_after=600)
        assert [(c[0], c[1]) for c in changed] == [(job_id, expected)]
        job = store.get_job(job_id)
        assert job.status == expected and job.worker_id is None
        assert f"worker process {pid}" in job.message
    assert "gave up after 2 attempt(s)" in store.get_job(job_id).message


def test_recover_by_stale_heartbeat_and_cancel_of_orphan(store):
    a = store.submit("fake-epochs", {"epochs": 1, "value": "a"})
    b = store.submit("fake-epochs", {"epochs": 1, "value": "b"})
    import os

    _register_worker(store, "alive-but-silent", os.getpid(), heartbeat_at=time.time() - 100)
    store.claim("alive-but-silent", ["fake-epochs"])
    store.claim("alive-but-silent", ["fake-epochs"])
    store.cancel_job(b)
    with sqlite3.connect(store.path) as conn:  # heartbeats stopped 100 s ago
        conn.execute("UPDATE jobs SET heartbeat_at = ?", (time.time() - 100,))
    assert store.recover(stale_after=600) == []  # not stale yet at this timeout
    changed = {c[0]: c[1] for c in store.recover(stale_after=30)}
    assert changed == {a: "queued", b: "cancelled"}
    assert "no heartbeat" in store.get_job(a).message


def test_live_worker_jobs_are_left_alone(store):
    import os

    store.submit("fake-epochs", {"epochs": 1})
    _register_worker(store, "me", os.getpid())
    store.claim("me", ["fake-epochs"])
    assert store.recover(stale_after=30) == []


def test_sweep_status_follows_its_jobs(store):
    sweep = store.create_sweep("s", {"note": 1}, [("fake-epochs", {"value": i}) for i in range(3)]
                               + [("fake-fail", {})])
    assert store.get_sweep(sweep).status == "queued"
    assert len(store.jobs(sweep_id=sweep)) == 4
    _fast_worker(store, sweep_id=sweep).run(idle_exit=0)
    assert store.get_sweep(sweep).status == "failed"
    other = store.create_sweep("t", {}, [("fake-epochs", {"value": 10 + i}) for i in range(2)])
    states = store.cancel_sweep(other)
    assert set(states.values()) == {"cancelled"} and store.get_sweep(other).status == "cancelled"


def test_bad_input_names_the_parameter(store):
    from dpcda.jobs.kinds import load_plugins

    with pytest.raises(ValueError, match="unknown job kind 'nope'; known: ") as err:
        store.submit("nope", {})
    assert all(k in str(err.value) for k in load_plugins())
    with pytest.raises(ValueError, match="job_id"):
        store.get_job(999)
    with pytest.raises(ValueError, match="sweep_id"):
        store.cancel_sweep(999)
    with pytest.raises(ValueError, match="status must be one of"):
        store.jobs(status="bogus")
    with pytest.raises(ValueError, match="plain JSON"):
        store.submit("fake-epochs", {"x": object()})
    with pytest.raises(ValueError, match="max_attempts"):
        store.submit("fake-epochs", {}, max_attempts=0)
    with pytest.raises(ValueError, match="stale_after must exceed"):
        Worker(store, heartbeat_interval=5, stale_after=1)
