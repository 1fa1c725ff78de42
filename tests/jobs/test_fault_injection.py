"""Fault injection: workers SIGKILLed at random points, several workers on one store.

One subprocess (a fresh interpreter that has not run torch, so it may fork) runs
:mod:`dpcda.jobs.fault_trials`: 20 trials in which a worker kills itself at a random pass
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
from dpcda.jobs import fault_trials as ft
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
