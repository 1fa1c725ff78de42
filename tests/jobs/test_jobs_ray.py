"""The Ray executor on a local Ray instance (2 CPUs, no dashboard), started once for this module
and shut down by the fixture, which then checks that no Ray process it started is left."""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import threading
import time

import pytest

from tests.jobs.jobs_util import wait_for

ray = pytest.importorskip("ray", reason="the Ray executor is optional (pip install 'ray>=2.9'); "
                                        "without it these tests have nothing to run")

from dpcda.jobs import JobStore, get_executor  # noqa: E402
from dpcda.jobs.procs import pid_alive  # noqa: E402
from dpcda.jobs.ray_runner import RayRunner  # noqa: E402


def _descendants(root: int) -> dict[int, str]:
    """{pid: command name} of every process below ``root`` (from /proc)."""
    parent, name = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                raw = fh.read().decode(errors="replace")
        except OSError:
            continue
        pid = int(entry)
        name[pid] = raw[raw.find("(") + 1:raw.rfind(")")]
        parent[pid] = int(raw[raw.rfind(")") + 2:].split()[1])
    out, frontier = {}, [root]
    while frontier:
        p = frontier.pop()
        for child, pp in parent.items():
            if pp == p and child not in out:
                out[child] = name[child]
                frontier.append(child)
    return out


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance for the module; afterwards no raylet, GCS or worker may remain."""
    if ray.is_initialized():
        ray.shutdown()
    temp = tempfile.mkdtemp(prefix="dpcda-ray-", dir="/tmp")  # short: Ray's socket paths are capped
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=80 * 1024 * 1024, _temp_dir=temp)
    started = _descendants(os.getpid())
    assert any("raylet" in n for n in started.values()), started
    yield ray
    started.update(_descendants(os.getpid()))  # the workers Ray started meanwhile
    ray.shutdown()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(pid_alive(p) for p in started):
        time.sleep(0.2)
    left = {p: n for p, n in started.items() if pid_alive(p)}
    shutil.rmtree(temp, ignore_errors=True)
    assert not left, f"Ray processes left after ray.shutdown(): {left}"


class CountingStore(JobStore):
    """Counts the outcomes the driver records (exactly once per job)."""

    def __init__(self, path):
        super().__init__(path)
        self.finished: list[tuple[int, str]] = []

    def finish(self, job_id, worker_id, status, **kw):
        ok = super().finish(job_id, worker_id, status, **kw)
        if ok:
            self.finished.append((job_id, status))
        return ok


def _all_terminal(store, ids):
    return lambda: all(store.get_job(i).terminal for i in ids)


def test_jobs_run_as_ray_tasks_and_the_driver_records_progress(local_ray, store):
    ids = store.submit_many([("fake-epochs", {"epochs": 3, "value": v}) for v in (1, 2)])
    runner = RayRunner(store)
    assert runner.run(until=_all_terminal(store, ids)) == 2
    for job_id, value in zip(ids, (1, 2)):
        job = store.get_job(job_id)
        assert job.status == "done", job.message
        assert job.result["value"] == value and job.result["pid"] != os.getpid()  # ran in a Ray worker
        assert job.worker_id == runner.worker_id and job.worker_id.startswith("r-")
        assert "(Ray)" in job.message
        assert [p["epoch"] for p in store.progress(job_id)] == [1, 2, 3]  # written by the driver


def test_killed_task_is_retried_by_ray_and_recorded_once(local_ray, tmp_path):
    store = CountingStore(tmp_path / "count.sqlite3")
    marker = tmp_path / "attempts.txt"
    job_id = store.submit("fake-die-once", {"marker": str(marker)}, max_attempts=2)
    seen = []
    RayRunner(store, on_finish=seen.append).run(until=_all_terminal(store, [job_id]))
    pids = [int(x) for x in marker.read_text().split()]
    assert len(pids) == 2 and pids[0] != pids[1]  # the first worker process died, Ray ran it again
    job = store.get_job(job_id)
    assert job.status == "done" and job.result == {"pid": pids[1]}
    assert store.finished == [(job_id, "done")] and [j.id for j in seen] == [job_id]
    assert job.attempts == 1  # one claim in the store; the retry was Ray's


def test_a_task_that_dies_on_every_attempt_fails_with_a_message(local_ray, tmp_path, store):
    marker = tmp_path / "attempts.txt"
    job_id = store.submit("fake-die-once", {"marker": str(marker), "always": True}, max_attempts=1)
    RayRunner(store).run(until=_all_terminal(store, [job_id]))
    job = store.get_job(job_id)
    assert job.status == "failed" and "worker process died" in job.message
    assert len(marker.read_text().split()) == 1  # max_attempts=1: no retry


def test_a_task_killed_on_both_attempts_says_so_and_counts_both(local_ray, tmp_path, store):
    """Issue 18, item 6: killed twice (max_attempts=2) is "worker-gone", not "error", and both
    attempts are counted."""
    marker = tmp_path / "attempts.txt"
    job_id = store.submit("fake-die-once", {"marker": str(marker), "always": True}, max_attempts=2)
    RayRunner(store).run(until=_all_terminal(store, [job_id]))
    job = store.get_job(job_id)
    assert len(marker.read_text().split()) == 2  # Ray ran it twice; both were killed
    assert job.status == "failed" and job.reason == "worker-gone"
    assert job.attempts == 2 and "died" in job.message and "2 attempt(s)" in job.message


def test_a_job_error_fails_the_job_without_retry(local_ray, store):
    job_id = store.submit("fake-fail", {"why": "on purpose"})
    RayRunner(store).run(until=_all_terminal(store, [job_id]))
    job = store.get_job(job_id)
    assert job.status == "failed" and job.message == "RuntimeError: fake failure on purpose"
    assert "fake failure" in job.error


def test_cancel_kills_the_running_task_and_cancels_the_queued_one(local_ray, tmp_path, store):
    marker = tmp_path / "started.txt"
    sweep_id = store.create_sweep("two sleeps", {}, [
        ("fake-sleep", {"marker": str(marker), "seconds": 60, "i": i}) for i in range(2)])
    ids = [j.id for j in store.jobs(sweep_id=sweep_id)]

    def cancel_once_started():
        wait_for(lambda: marker.exists() and marker.read_text().strip(), timeout=60, what="task start")
        store.cancel_sweep(sweep_id)

    canceller = threading.Thread(target=cancel_once_started, daemon=True)
    canceller.start()
    t0 = time.monotonic()
    RayRunner(store, sweep_id=sweep_id, max_in_flight=1).run(until=_all_terminal(store, ids))
    canceller.join(timeout=5)
    assert time.monotonic() - t0 < 50  # not the 60 s sleep
    assert [store.get_job(i).status for i in ids] == ["cancelled", "cancelled"]
    assert store.get_job(ids[1]).message == "cancelled before it started"
    assert store.get_sweep(sweep_id).status == "cancelled"
    pid = int(marker.read_text().split()[0])
    wait_for(lambda: not pid_alive(pid), timeout=10, what="the cancelled task's process to end")


def test_cli_digits_sweep_on_ray(local_ray, tmp_path, capsys):
    from dpcda.cli import main
    from dpcda.experiments.sweep import sweep_results

    db = tmp_path / "cli.sqlite3"
    code = main(["sweep", "--dataset", "digits", "--epsilons", "inf,5", "--ls", "2", "--db", str(db),
                 "--executor", "ray", "--quiet"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "accuracy (mean ± std)" in out.out
    store = JobStore(db)
    jobs = store.jobs()
    assert len(jobs) == 2 and all(j.status == "done" and j.worker_id.startswith("r-") for j in jobs)
    table = sweep_results(store, jobs[0].sweep_id)
    assert list(table["runs"]) == [1, 1]
    non_private = table[table["epsilon"] == math.inf]["mean"]
    assert (non_private > 0.8).all()  # digits without noise is easy
    assert (table[table["epsilon"] == 5]["epsilon_achieved"] <= 5 + 1e-9).all()
    assert ray.is_initialized()  # the CLI reused this process's Ray and did not shut it down


def test_executor_open_reuses_a_running_ray(local_ray):
    ex = get_executor("ray")
    ex.open()
    ex.close()
    assert ray.is_initialized()  # close() only shuts down a Ray instance it started itself


def test_background_ray_driver_runs_the_queue_and_exits(local_ray, store):
    """What the dashboard starts: ``python -m dpcda worker --executor ray --address ...``."""
    from dpcda.jobs import ensure_worker, live_workers

    job_id = store.submit("fake-epochs", {"epochs": 2, "value": 7})
    address = ray.get_runtime_context().gcs_address  # this module's local instance
    info = ensure_worker(store, executor="ray", address=address, idle_exit=0)
    assert info["started"] and info["worker_id"].startswith("r-")
    job = wait_for(lambda: (j := store.get_job(job_id)).terminal and j, timeout=120, what="the job")
    assert job.status == "done" and job.result["value"] == 7 and job.worker_id == info["worker_id"]
    wait_for(lambda: not pid_alive(info["pid"]), timeout=60, what="the idle driver to exit")
    assert not live_workers(store)
