"""Jobs that cannot hang: time limit, stall detection, cancel between batches, SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from dpcda.util.cancellation import checkpoint, watching
from dpcda.jobs import JobCancelled, JobStore, Worker, live_workers
from dpcda.jobs import db as _db
from dpcda.jobs.status import job_rows
from tests.jobs.jobs_util import REPO, start_worker, wait_for, worker_env


def _worker(store, **kw) -> Worker:
    return Worker(store, heartbeat_interval=0.2, stale_after=5.0, poll_interval=0.05, **kw)


def _events(store, job_id):
    with _db.connection(store.path) as conn:
        return [(r["event"], r["reason"]) for r in conn.execute(
            "SELECT event, reason FROM job_events WHERE job_id = ? ORDER BY id", (job_id,))]


def test_checkpoint_is_a_no_op_outside_a_job_and_calls_the_hook_inside():
    checkpoint()  # no hook: nothing happens
    seen = []
    with watching(seen.append):
        checkpoint()
        checkpoint(3)
    checkpoint()
    assert seen == [1, 3]


def test_a_job_past_its_time_limit_fails_with_that_reason(store):
    job_id = store.submit("fake-checkpoints", {"seconds": 60}, time_limit=1.0)
    t0 = time.monotonic()
    _worker(store).run(once=True)
    job = store.get_job(job_id)
    assert job.status == "failed" and job.reason == "time-limit", (job.status, job.message)
    assert "time limit of 1 s" in job.message
    assert time.monotonic() - t0 < 30  # stopped long before its 60 s of work
    assert job.result is None and ("failed", "time-limit") in _events(store, job_id)
    row = job_rows(store)[0]
    assert row["reason"] == "time-limit" and "time limit" in row["reason_text"]


def test_a_job_without_checkpoints_is_interrupted_at_its_time_limit(store, tmp_path):
    job_id = store.submit("fake-sleep", {"marker": str(tmp_path / "m"), "seconds": 60},
                          time_limit=0.5)
    t0 = time.monotonic()
    _worker(store, grace=0.5).run(once=True)
    job = store.get_job(job_id)
    assert job.status == "failed" and job.reason == "time-limit"
    assert time.monotonic() - t0 < 30


def test_time_limit_from_the_config_is_not_part_of_the_dedup_key(store):
    a = store.submit("fake-normalized", {"x": 1, "time_limit": 5})
    b = store.submit("fake-normalized", {"x": 1}, time_limit=7)
    ja, jb = store.get_job(a), store.get_job(b)
    assert ja.config_hash == jb.config_hash and "time_limit" not in ja.config
    assert (ja.time_limit, jb.time_limit) == (5.0, 7.0)
    assert store.get_job(store.submit("fake-normalized", {"x": 2})).time_limit == 6 * 3600.0
    for bad in (0, -1, float("inf"), "10", True):
        with pytest.raises(ValueError, match="time_limit must be a number of seconds > 0"):
            store.submit("fake-normalized", {"x": 3}, time_limit=bad)


def test_a_stalled_job_is_requeued_once_then_failed_while_its_process_lives(store):
    job_id = store.submit("fake-checkpoints", {"seconds": 60, "stall_at": 5, "hang": 60},
                          stall_after=1.0)
    _worker(store, grace=0.5).run(idle_exit=0)
    job = store.get_job(job_id)
    assert job.status == "failed" and job.reason == "stalled", (job.status, job.message)
    assert job.attempts == 2
    assert _events(store, job_id) == [("claimed", None), ("requeued", "stalled"),
                                      ("claimed", None), ("failed", "stalled")]


def test_a_progressing_job_is_not_stalled(store):
    job_id = store.submit("fake-checkpoints", {"seconds": 2.0}, stall_after=1.0)
    _worker(store).run(once=True)
    job = store.get_job(job_id)
    assert job.status == "done" and job.result["checkpoints"] > 10
    assert job.steps is None or job.steps >= 0


def test_cancel_reaches_a_job_without_checkpoints(store, tmp_path):
    job_id = store.submit("fake-sleep", {"marker": str(tmp_path / "m"), "seconds": 60})
    proc = start_worker(store.path, "--heartbeat", "0.2", "--once")
    try:
        wait_for(lambda: store.get_job(job_id).status == "running", what="the job to run")
        t0 = time.monotonic()
        store.cancel_job(job_id)
        wait_for(lambda: store.get_job(job_id).terminal, timeout=20, what="the cancel")
        latency = time.monotonic() - t0
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    job = store.get_job(job_id)
    assert job.status == "cancelled" and job.reason == "cancelled"
    assert latency < 20  # far less than the 60 s the job would sleep


def test_the_training_loop_checks_between_batches():
    from dpcda.training import TrainConfig, train_and_evaluate

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(256, 8)).astype(np.float32), rng.integers(0, 2, 256)
    calls, epochs = [], []

    def hook(n):
        calls.append(n)
        if len(calls) == 5:
            raise JobCancelled("cancelled")

    cfg = TrainConfig.from_dict({"model": "fc", "epochs": 3, "batch_size": 16, "device": "cpu"})
    with watching(hook), pytest.raises(JobCancelled):
        train_and_evaluate(X, y, X[:32], y[:32], config=cfg,
                           on_epoch=lambda e, n, m: epochs.append(e) or True)
    assert len(calls) == 5 and epochs == []  # stopped inside the first epoch (16 batches)


def test_the_generator_checks_between_chunks():
    from dpcda.mechanisms import generate

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 6)), rng.integers(0, 4, 200)
    calls = []
    with watching(calls.append):
        generate("dp-cda", X, y, l=2, T=200, c=1.0, sigma_x=0.5, sigma_y=0.5, device="cpu",
                 normalize="none")
    assert len(calls) >= 4  # at least one per class


def test_recovery_takes_a_job_from_a_live_worker_that_ignores_its_limits(store):
    from dpcda.jobs.worker import register_worker

    overdue = store.submit("fake-normalized", {"x": 1}, time_limit=10)
    stalled = store.submit("fake-normalized", {"x": 2}, stall_after=10)
    register_worker(store, "w-wedged")  # this (live) process
    for _ in range(2):
        store.claim("w-wedged", ["fake-normalized"])
    now = time.time()
    with _db.transaction(store.path) as conn:
        conn.execute("UPDATE jobs SET started = ? WHERE id = ?", (now - 100, overdue))
        conn.execute("UPDATE jobs SET progress_at = ? WHERE id = ?", (now - 100, stalled))
    changed = {j: (s, r) for j, s, r in store.recover(stale_after=5)}
    assert changed[overdue][0] == "failed" and "time limit of 10 s" in changed[overdue][1]
    assert changed[stalled][0] == "queued" and "no progress" in changed[stalled][1]
    assert store.get_job(overdue).reason == "time-limit"
    assert store.get_job(stalled).reason == "stalled"
    assert not store.finish(overdue, "w-wedged", "done", result={})  # its late result is refused


def test_sigterm_requeues_a_job_without_checkpoints_and_the_next_worker_finishes_it(store, db_path,
                                                                                   tmp_path):
    marker = tmp_path / "m"
    job_id = store.submit("fake-sleep", {"marker": str(marker), "seconds": 60})
    proc = start_worker(db_path, "--heartbeat", "0.2")
    try:
        wait_for(lambda: store.get_job(job_id).status == "running" and marker.exists(),
                 what="the job to run")
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out.decode()
    job = store.get_job(job_id)
    assert job.status == "queued" and job.reason == "worker-stopped" and job.attempts == 0
    assert live_workers(store) == [] and store.jobs(status="running") == []
    with _db.transaction(store.path) as conn:  # the rerun need not sleep for a minute
        conn.execute("UPDATE jobs SET config = ? WHERE id = ?",
                     (_db.dumps({"marker": str(marker), "seconds": 0.1}), job_id))
    _worker(store).run(idle_exit=0)
    job = store.get_job(job_id)
    assert job.status == "done" and job.attempts == 1
    assert [e for e, _ in _events(store, job_id)] == ["claimed", "requeued", "claimed", "done"]


def test_cli_time_limit_and_jobs_listing(store, db_path):
    bad = subprocess.run([sys.executable, "-m", "dpcda", "sweep", "--dataset", "digits",
                          "--time-limit", "0", "--db", str(db_path)], cwd=REPO, env=worker_env(),
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--time-limit must be a finite number > 0" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    job_id = store.submit("fake-checkpoints", {"seconds": 60}, time_limit=0.5)
    _worker(store).run(once=True)
    out = subprocess.run([sys.executable, "-m", "dpcda", "jobs", "--db", str(db_path), "--json"],
                         cwd=REPO, env=worker_env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    import json

    rows = json.loads(out.stdout)
    assert [(r["job_id"], r["status"], r["reason"]) for r in rows] == [(job_id, "failed", "time-limit")]


def test_a_version_1_store_gains_the_new_columns(db_path):
    JobStore(db_path)
    with _db.transaction(db_path) as conn:
        for column, _ in _db.ADDED_JOB_COLUMNS:
            conn.execute(f"ALTER TABLE jobs DROP COLUMN {column}")
        conn.execute("DROP TABLE job_events")
        conn.execute("PRAGMA user_version = 1")
    store = JobStore(db_path)
    job_id = store.submit("fake-normalized", {"x": 1}, time_limit=3)
    assert store.get_job(job_id).time_limit == 3.0
    with _db.connection(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == _db.SCHEMA_VERSION
