"""The dashboard's server restarted mid-sweep: the sweep resumes and its page shows it.

How it is staged (AppTest, no real Streamlit server): server 1's session shows a sweep of two
jobs; one is done, the other is held by a worker process that is then SIGKILLed (a real
process, killed and reaped, as when the machine running the server and its worker restarts).
A new AppTest session against the same store (server 2) reopens the sweep from the address
(``?sweep=N``): it says no worker is running; its "Start a worker" button starts one (here
:class:`dpcda.jobs.Worker` in-process, in place of the background process), which requeues the
orphan (reason ``worker-gone``) and finishes it; the page then shows the finished sweep.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcda.jobs import JobStore, Worker
from dpcda.jobs import db as _db
from dpcda.jobs.procs import pid_token
from dpcda.experiments.sweep import submit_sweep

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "utility.py")


def page(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    query.setdefault("dataset", "digits")  # the shared setting's dataset, as a link gives it
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def progress_texts(at) -> list[str]:
    return [p.proto.text for p in at.get("progress")]


def test_a_sweep_resumes_after_a_restart_and_its_page_shows_it(monkeypatch, tmp_path):
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path))
    store = JobStore()
    sid = submit_sweep(store, {"dataset": "digits", "train": {"model": "ncm", "epochs": 1}},
                       epsilons=[math.inf], ls=[1, 2], runs=1)
    first, second = (j.id for j in store.jobs(sweep_id=sid))
    Worker(store, heartbeat_interval=0.2, stale_after=5).run(once=True)  # job 1 done
    # A worker process claims job 2, then dies with the machine.
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with _db.transaction(store.path) as conn:
            conn.execute("INSERT INTO workers (id, pid, pid_token, hostname, started, heartbeat_at, "
                         "status) VALUES ('w-crashed', ?, ?, ?, 0, ?, 'running')",
                         (proc.pid, pid_token(proc.pid), __import__("socket").gethostname(),
                          __import__("time").time()))
        assert store.claim("w-crashed", ["experiment"]).id == second
        server1 = page(sweep=str(sid))
        assert any(t.startswith("running: 1 of 2 job(s) finished") for t in progress_texts(server1))
    finally:
        proc.kill()
        proc.wait()
    assert store.get_job(second).status == "running"  # nobody has noticed yet

    started = []

    def start_worker(db=None, **kw):  # what the button calls; runs the queue here, then returns
        started.append(db)
        Worker(store, heartbeat_interval=0.2, stale_after=5).run(idle_exit=0)
        return {"worker_id": "w-test", "pid": None, "started": True}

    import dpcda.jobs

    monkeypatch.setattr(dpcda.jobs, "ensure_worker", start_worker)
    server2 = page(sweep=str(sid))  # a new server process: a new session, the same store
    assert server2.selectbox(key="utility_sweep").value == sid
    assert any("No worker is running" in w.value for w in server2.warning)
    server2.button(key="utility_start_worker").click()
    server2.run()
    assert not server2.exception, server2.exception
    assert len(started) == 1
    job = store.get_job(second)
    assert job.status == "done" and job.attempts == 2
    with _db.connection(store.path) as conn:
        events = [(r[0], r[1]) for r in conn.execute(
            "SELECT event, reason FROM job_events WHERE job_id = ? ORDER BY id", (second,))]
    assert events == [("claimed", None), ("requeued", "worker-gone"), ("claimed", None),
                      ("done", None)]
    assert store.get_job(first).attempts == 1  # the finished job was not rerun
    server2 = page(sweep=str(sid))
    assert not any("No worker is running" in w.value for w in server2.warning)
    assert not any(t.startswith(("running", "queued")) for t in progress_texts(server2))
    table = server2.dataframe[0].value
    assert len(table) == 2 and set(table["runs"]) == {"1"}
