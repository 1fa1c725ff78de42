"""Fault injection: workers SIGKILLed at random points, several workers on one store.

One subprocess (a fresh interpreter that has not run torch, so it may fork) runs
:mod:`dpcda.experiments.fault_trials`: 20 trials in which a worker kills itself at a random pass
through a random point (claim, generation, training, result write; ``$DPCDA_FAULT``), then
2 and 4 workers on one store with 50 queued tiny jobs each. The tests below check the stores
those runs leave behind with their own queries, not only the harness's counts.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from tests.jobs.jobs_util import REPO, worker_env

TRIALS = 20
SCRIPT = f"""
import json, sys
from dpcda.experiments import fault_trials as ft
ft.preload()
folder = sys.argv[1]
out = {{"kill": ft.kill_trials(folder, trials={TRIALS}, seed=1),
        "two": ft.concurrent_run(folder, workers=2, jobs=50),
        "four": ft.concurrent_run(folder, workers=4, jobs=50)}}
for part in out.values():
    part.pop("events")
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faults")
    env = worker_env()
    env.pop("DPCDA_FAULT", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(folder)], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _store_facts(db: str):
    conn = sqlite3.connect(db)
    try:
        jobs = conn.execute("SELECT id, status, attempts, result IS NOT NULL FROM jobs").fetchall()
        events = {}
        for job_id, event in conn.execute("SELECT job_id, event FROM job_events ORDER BY id"):
            events.setdefault(job_id, []).append(event)
        running = conn.execute("SELECT COUNT(*) FROM jobs WHERE status = 'running'").fetchone()[0]
        return jobs, events, running
    finally:
        conn.close()


def test_killed_workers_lose_nothing_and_record_nothing_twice(runs):
    kill = runs["kill"]
    assert kill["trials"] >= 20 and kill["killed"] >= 16, kill["plans"]
    assert all(kill["killed_at"][p] >= 2 for p in ("claim", "generation", "training", "result-write"))
    assert kill["final_worker"] == "exited 0" and kill["integrity"] == "ok"
    jobs, events, running = _store_facts(kill["db"])
    assert len(jobs) == TRIALS and running == 0
    for job_id, status, attempts, has_result in jobs:
        assert status in ("done", "failed", "cancelled")
        assert status == "done" and has_result  # every kill was recovered, none gave up
        assert events[job_id].count("done") == 1  # recorded exactly once
        assert events[job_id].count("claimed") == attempts  # claims killed inside the claim roll back
        assert events[job_id][-2:] == ["claimed", "done"]
    assert kill["lost"] == 0 and kill["duplicated"] == 0


@pytest.mark.parametrize("part", ["two", "four"])
def test_each_job_runs_exactly_once_with_several_workers(runs, part):
    run = runs[part]
    assert run["outcomes"] == ["exited 0"] * run["workers"]
    jobs, events, running = _store_facts(run["db"])
    assert len(jobs) == 50 and running == 0
    assert all(events[j] == ["claimed", "done"] for j, *_ in jobs)
    assert all(status == "done" and attempts == 1 and has_result for _, status, attempts, has_result in jobs)
    assert len(run["jobs_per_worker"]) >= 2  # the work really was shared


def test_a_store_on_a_read_only_path_is_a_clear_error(tmp_path):
    for argv in (["worker", "--once"], ["jobs"]):
        out = subprocess.run([sys.executable, "-m", "dpcda", *argv, "--db",
                              "/proc/dpcda-read-only/jobs.sqlite3"], cwd=REPO, env=worker_env(),
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "/proc/dpcda-read-only/jobs.sqlite3" in lines[0], out.stderr
        assert "Traceback" not in out.stderr


# --- a store damaged in the middle (issue 18, item 1) ----------------------------------------


def _store_with_pages(path, n_jobs: int = 1000):
    """A real store of ``n_jobs`` queued fake jobs: many b-tree pages, checkpointed into the
    main file, its modification time set in the past (as a store at rest)."""
    import os

    from dpcda.jobs import JobStore

    store = JobStore(path)
    store.submit_many([("fake-epochs", {"epochs": 1, "value": i, "pad": "x" * 300})
                       for i in range(n_jobs)])
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    os.utime(path, (os.path.getmtime(path) - 60,) * 2)
    return store


def _dd(path, seek: int, count: int = 4, bs: int = 4096) -> bytes:
    """``dd if=/dev/urandom of=PATH bs=4096 seek=SEEK count=COUNT conv=notrunc``."""
    import os

    size = path.stat().st_size
    assert size >= (seek + count) * bs, f"store of {size} bytes too small to damage page {seek}"
    with open(path, "r+b") as f:
        f.seek(seek * bs)
        f.write(os.urandom(count * bs))
    return path.read_bytes()


def _one_line_exit_2(argv, db):
    out = subprocess.run([sys.executable, "-m", "dpcda", *argv, "--db", str(db)], cwd=REPO,
                         env=worker_env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, (argv, out.returncode, out.stderr[-2000:])
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr[-2000:]
    return lines[0]


def test_damage_in_the_middle_of_the_store_stops_every_writer(tmp_path):
    """The issue's ``dd … seek=84 count=4`` on a real store: sweep, worker, jobs and store all
    say the store is corrupt (one line, how to move it aside, exit 2) and none writes to it."""
    db = tmp_path / "jobs.sqlite3"
    _store_with_pages(db)
    before = _dd(db, seek=84)
    for argv in (["sweep", "--dataset", "digits", "--epsilons", "10", "--ls", "4", "--runs", "1"],
                 ["worker", "--once"], ["jobs"], ["store"], ["store", "--check"]):
        line = _one_line_exit_2(argv, db)
        assert "corrupt" in line and "store --move-aside" in line and str(db) in line, line
    assert db.read_bytes() == before
    assert not (tmp_path / "jobs.sqlite3-wal").exists() or \
        (tmp_path / "jobs.sqlite3-wal").stat().st_size == 0


def test_a_process_that_already_opened_the_store_does_not_write_into_damage(tmp_path):
    """A long-lived process (a worker, the dashboard) opened the store while it was sound; the
    file is damaged afterwards: its next write is refused, not made."""
    from dpcda.jobs.store_errors import StoreError

    db = tmp_path / "jobs.sqlite3"
    store = _store_with_pages(db)
    store.jobs()  # checked and remembered in this process
    before = _dd(db, seek=20)
    with pytest.raises(StoreError) as err:
        store.submit("fake-epochs", {"epochs": 1, "value": "after"})
    assert err.value.code == "corrupt"
    assert db.read_bytes() == before


def test_move_aside_takes_every_malformed_store_and_check_finds_index_damage(tmp_path):
    """A store whose pages are sound but whose index disagrees with its table passes the quick
    check; ``store --check`` (the full integrity check) finds it and ``--move-aside`` moves it,
    as it moves one damaged in the middle. A sound store is not moved."""
    db = tmp_path / "jobs.sqlite3"
    _store_with_pages(db)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX jobs_by_status ON jobs (kind, id)' "
                 "WHERE name = 'jobs_by_status'")
    conn.close()
    line = _one_line_exit_2(["store", "--check"], db)
    assert "corrupt" in line
    run = [sys.executable, "-m", "dpcda", "store", "--move-aside", "--json", "--db", str(db)]
    moved = subprocess.run(run, cwd=REPO, env=worker_env(), capture_output=True, text=True,
                           timeout=120)
    assert moved.returncode == 0, moved.stderr
    assert json.loads(moved.stdout)["jobs"] == 0
    assert db.is_file()  # the fresh store
    db2 = tmp_path / "other.sqlite3"
    _store_with_pages(db2)
    _dd(db2, seek=84)
    again = subprocess.run(run[:-1] + [str(db2)], cwd=REPO, env=worker_env(),
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert len(list(tmp_path.glob("*.corrupt-*"))) == 2
    assert "not corrupt" in _one_line_exit_2(["store", "--move-aside"], db)


# --- identical sweeps on one store (issue 18, item 5) ---------------------------------------


def test_identical_concurrent_sweeps_compute_each_configuration_once(tmp_path):
    """Two sweeps of the same 8 configurations, each run by its own worker at the same time:
    every configuration is computed once (the log of computations has 8 lines, not 16), the
    other sweep's job joins it (reuses its result), and both report the same value per cell."""
    import threading

    from dpcda.jobs import JobStore
    from dpcda.jobs.worker import Worker

    store = JobStore(tmp_path / "jobs.sqlite3")
    log = tmp_path / "computed.log"
    configs = [("fake-record", {"log": str(log), "i": i, "seconds": 0.15}) for i in range(8)]
    sweeps = [store.create_sweep(name, {}, configs) for name in ("a", "b")]

    def finished(sweep_id):
        return lambda: all(j.terminal for j in store.jobs(sweep_id=sweep_id))

    threads = [threading.Thread(target=Worker(store, sweep_id=s, poll_interval=0.05).run,
                                kwargs={"until": finished(s)}) for s in sweeps]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    computed = log.read_text().split("\n")[:-1]
    assert len(computed) == 8, computed
    by_sweep = [{j.config["i"]: j for j in store.jobs(sweep_id=s)} for s in sweeps]
    for i in range(8):
        a, b = by_sweep[0][i], by_sweep[1][i]
        assert a.status == b.status == "done"
        assert a.result == b.result  # one value per cell, whichever sweep computed it
        assert (a.reused_from is None) != (b.reused_from is None)
    ran = {int(line.split()[0]) for line in computed}
    origins = {j.reused_from or j.id for s in by_sweep for j in s.values()}
    assert ran == origins  # each result comes from the one computation of its configuration


# --- a job inside one long native call stops when told (issue 18, item 3) -------------------


def _start_native_job(tmp_path, wait: float = 1.0, **submit):
    """A real worker process running a ``fake-native`` job (about 30 s in one native call),
    returned ``wait`` seconds after the job's process started."""
    import os
    import time

    from dpcda.jobs import JobStore
    from tests.jobs.jobs_util import start_worker, wait_for

    store = JobStore(tmp_path / "jobs.sqlite3")
    marker = tmp_path / "pid.txt"
    job_id = store.submit("fake-native", {"marker": str(marker)}, **submit)
    worker = start_worker(store.path, "--once", "--heartbeat", "0.5", "--stale-after", "30")
    wait_for(lambda: marker.exists() and marker.read_text().strip(), timeout=60,
             what="the job to start")
    time.sleep(wait)  # inside the native call
    pid = int(marker.read_text().split()[0])
    assert not wait or os.path.exists(f"/proc/{pid}")
    return store, job_id, worker, pid


def _gone(pid: int) -> bool:
    from dpcda.jobs.procs import pid_alive

    return not pid_alive(pid)


def _finish(worker):
    import subprocess as sp

    try:
        worker.wait(timeout=30)
    except sp.TimeoutExpired:
        worker.kill()
        worker.wait()
        raise
    finally:
        if worker.stdout is not None:
            worker.stdout.close()


def test_cancel_stops_a_job_inside_a_native_call_within_5_s(tmp_path):
    import time

    from tests.jobs.jobs_util import wait_for

    store, job_id, worker, pid = _start_native_job(tmp_path)
    try:
        t0 = time.monotonic()
        store.cancel_job(job_id)
        wait_for(lambda: store.get_job(job_id).terminal, timeout=20, what="the job to end")
        seconds = time.monotonic() - t0
    finally:
        _finish(worker)
    job = store.get_job(job_id)
    assert job.status == "cancelled" and job.reason == "cancelled", job
    assert seconds < 5.0, seconds
    assert _gone(pid)  # the job's process was ended, not left computing


def test_sigterm_hands_back_a_job_inside_a_native_call_within_5_s(tmp_path):
    import signal
    import time

    store, job_id, worker, pid = _start_native_job(tmp_path)
    try:
        t0 = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=20)
        seconds = time.monotonic() - t0
    finally:
        _finish(worker)
    job = store.get_job(job_id)
    assert worker.returncode == 0 and seconds < 5.0, (worker.returncode, seconds)
    assert job.status == "queued" and job.reason == "worker-stopped", job
    assert job.attempts == 0  # the stop was not the job's fault
    assert _gone(pid)


def test_time_limit_stops_a_job_inside_a_native_call_within_5_s(tmp_path):
    import time

    from tests.jobs.jobs_util import wait_for

    store, job_id, worker, pid = _start_native_job(tmp_path, wait=0, time_limit=5.0)
    try:
        wait_for(lambda: store.get_job(job_id).terminal, timeout=20, what="the job to end")
        ended = time.time()
    finally:
        _finish(worker)
    job = store.get_job(job_id)
    assert job.status == "failed" and job.reason == "time-limit", job
    assert ended - job.started < 5.0 + 5.0, ended - job.started
    assert _gone(pid)


def test_a_killed_worker_takes_its_jobs_process_with_it(tmp_path):
    """SIGKILL to a worker while its isolated job computes: the job's process does not run on
    alone (it would compute for nothing and write progress under a dead worker's id)."""
    import signal

    from tests.jobs.jobs_util import wait_for

    store, job_id, worker, pid = _start_native_job(tmp_path)
    try:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
        wait_for(lambda: _gone(pid), timeout=5, what="the job's process to end")
    finally:
        _finish(worker)
    assert store.get_job(job_id).status == "running"  # until recovery requeues it
