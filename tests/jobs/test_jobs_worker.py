"""Real worker processes: killed mid-job, two at once, started by ensure_worker, stopped by SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

from dpcda.jobs import JobStore, Worker, ensure_worker, live_workers
from dpcda.jobs.procs import pid_alive
from tests.jobs.jobs_util import REPO, start_worker, wait_for, worker_env


def _running_with_progress(store, job_id):
    job = store.get_job(job_id)
    return job.status == "running" and (job.epoch or 0) >= 1 and job


def test_sigkilled_worker_job_is_requeued_then_completed(store, db_path):
    job_id = store.submit("fake-epochs", {"epochs": 20, "seconds": 0.1}, max_attempts=2)
    proc = start_worker(db_path, "--heartbeat", "0.2")
    try:
        job = wait_for(lambda: _running_with_progress(store, job_id), what="the job to run")
        (worker,) = [w for w in live_workers(store) if w["id"] == job.worker_id]
        assert worker["pid"] == proc.pid  # the worker registered its own pid
        proc.kill()  # SIGKILL: no chance to clean up
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert store.get_job(job_id).status == "running"  # what the dead worker left behind
    # Detected by the dead pid at once, long before the 60 s heartbeat timeout.
    changed = store.recover()
    assert changed and changed[0][:2] == (job_id, "queued")
    job = store.get_job(job_id)
    assert job.status == "queued" and job.attempts == 1 and "is gone" in job.message
    assert live_workers(store) == []
    Worker(store, heartbeat_interval=0.1, stale_after=5).run(once=True)
    job = store.get_job(job_id)
    assert job.status == "done" and job.attempts == 2 and job.result["pid"] == os.getpid()
    assert [r["epoch"] for r in store.progress(job_id)] == list(range(1, 21))


def test_sigkilled_worker_job_fails_when_attempts_are_spent(store, db_path):
    job_id = store.submit("fake-epochs", {"epochs": 50, "seconds": 0.1}, max_attempts=1)
    proc = start_worker(db_path, "--heartbeat", "0.2")
    try:
        wait_for(lambda: _running_with_progress(store, job_id), what="the job to run")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    # Another worker recovers it on start-up; nothing is left running.
    assert Worker(store, heartbeat_interval=0.1, stale_after=5).run(idle_exit=0) == 0
    job = store.get_job(job_id)
    assert job.status == "failed" and "gave up after 1 attempt(s)" in job.message
    assert store.jobs(status="running") == []


def test_two_worker_processes_never_share_a_job(store, db_path, tmp_path):
    log = tmp_path / "executions.log"
    n = 40
    ids = [store.submit("fake-record", {"i": i, "log": str(log), "seconds": 0.05}) for i in range(n)]
    procs = [start_worker(db_path, "--idle-exit", "1", "--heartbeat", "0.2") for _ in range(2)]
    try:
        for p in procs:
            out, _ = p.communicate(timeout=90)
            assert p.returncode == 0, out.decode()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    lines = [line.split() for line in log.read_text().splitlines()]
    executed = Counter(int(job_id) for job_id, _ in lines)
    assert sorted(executed) == ids and set(executed.values()) == {1}  # each exactly once
    pids = {int(pid) for _, pid in lines}
    assert pids == {p.pid for p in procs}  # both took part
    jobs = store.jobs()
    assert all(j.status == "done" and j.attempts == 1 for j in jobs)
    assert {j.result["pid"] for j in jobs} == pids


def test_ensure_worker_starts_one_background_worker(store, db_path):
    job_id = store.submit("fake-epochs", {"epochs": 2})
    first = ensure_worker(store, idle_exit=1.0, heartbeat_interval=0.2, stale_after=5,
                          env=worker_env())
    assert first["started"] is True and pid_alive(first["pid"])
    again = ensure_worker(store, idle_exit=1.0, heartbeat_interval=0.2, stale_after=5,
                          env=worker_env())
    assert again["started"] is False and again["worker_id"] == first["worker_id"]
    wait_for(lambda: store.get_job(job_id).status == "done", what="the job to finish")
    assert store.get_job(job_id).result["pid"] == first["pid"]  # ran in the background worker
    wait_for(lambda: not pid_alive(first["pid"]), what="the idle worker to exit")
    assert live_workers(store) == []
    assert (db_path.parent / "worker.log").exists()
    # The starting process reaps its child: no zombie is left behind in a long-lived server.
    wait_for(lambda: not Path(f"/proc/{first['pid']}").exists(), what="the worker to be reaped")


def test_sigterm_hands_the_running_job_back(store, db_path):
    job_id = store.submit("fake-epochs", {"epochs": 100, "seconds": 0.1})
    proc = start_worker(db_path, "--heartbeat", "0.2")
    try:
        wait_for(lambda: _running_with_progress(store, job_id), what="the job to run")
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out.decode()
    job = store.get_job(job_id)
    assert job.status == "queued" and job.attempts == 0 and "stopped" in job.message
    assert live_workers(store) == []


def test_worker_once_on_an_empty_queue_exits_at_once(db_path):
    out = subprocess.run([sys.executable, "-m", "dpcda", "worker", "--db", str(db_path), "--once"],
                         cwd=REPO, env=worker_env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "stopped after 0 job(s)" in out.stderr
    assert JobStore(db_path).jobs() == []


def test_a_worker_started_before_the_code_changed_hands_the_job_back_and_says_so(store):
    """A worker keeps the code it imported: one started before a learner existed refused its jobs
    with "model must be one of …" (qda, issue 28). Now, when the sources on disk differ from those
    it started with, it hands the claimed job back (no attempt spent), says so in the job's
    message with both code fingerprints and what to do, and stops; a fresh worker runs the job."""
    from dpcda.jobs.code_version import code_fingerprint
    from dpcda.jobs.worker import Worker

    job_id = store.submit("fake-epochs", {"epochs": 1})
    old = Worker(store, heartbeat_interval=0.1, stale_after=5, isolate=False)
    old.started_with = "0123456789ab"  # as if it had started before the code on disk changed
    assert old.run(idle_exit=0) == 0  # ran nothing, and returned: it stopped
    job = store.get_job(job_id)
    assert job.status == "queued" and job.reason == "stale-code" and job.attempts == 0
    assert "0123456789ab" in job.message and code_fingerprint() in job.message
    assert "restart it (python -m dpcda worker)" in job.message
    assert not [w for w in live_workers(store) if w["id"] == old.worker_id]
    fresh = Worker(store, heartbeat_interval=0.1, stale_after=5, isolate=False)
    assert fresh.run(once=True) == 1 and store.get_job(job_id).status == "done"


def test_the_code_fingerprint_follows_the_sources(tmp_path):
    from dpcda.jobs.code_version import code_fingerprint, stale_code_message

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    first = code_fingerprint(tmp_path / "pkg")
    assert code_fingerprint(tmp_path / "pkg") == first  # stable
    (tmp_path / "pkg" / "learners.py").write_text("NAMES = ['lda', 'qda']\n")  # a module added
    second = code_fingerprint(tmp_path / "pkg")
    (tmp_path / "pkg" / "a.py").write_text("x = 2\n")  # an edit
    third = code_fingerprint(tmp_path / "pkg")
    assert len({first, second, third}) == 3
    assert stale_code_message(first, first) is None
    assert "code on disk is now " + third in stale_code_message(first, third)
