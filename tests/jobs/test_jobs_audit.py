"""The ``audit`` job kind through the job store: queued, run by a worker with progress, result
stored; bad configs are rejected at submission."""

from __future__ import annotations

import pytest

from dpcda.jobs import Worker

CONFIG = {"l": 2, "sigma_x": 1.0, "n_class": 4, "T_class": 10, "trials": 400}


def test_audit_job_runs_through_the_store(store):
    job_id = store.submit("audit", CONFIG)
    job = store.get_job(job_id)
    assert job.kind == "audit" and job.status == "queued"
    assert job.config["n_classes"] == 10 and job.config["device"] == "cpu"  # defaults filled in
    Worker(store, heartbeat_interval=0.1, stale_after=5).run(idle_exit=0)
    job = store.get_job(job_id)
    assert job.status == "done", job.error
    r = job.result
    assert 0 <= r["epsilon_lower"] <= r["valid_upper"]
    assert r["settings"]["trials"] == 400 and "class-aware" in r["claimed"]
    prog = store.progress(job_id)
    assert prog and prog[-1]["epoch"] == 100 and prog[-1]["n_epochs"] == 100
    assert prog[-1]["metrics"]["trials_done"] == 800
    assert "seed" not in repr(r)


def test_identical_audit_is_not_recomputed(store):
    a = store.submit("audit", CONFIG)
    Worker(store, heartbeat_interval=0.1, stale_after=5).run(idle_exit=0)
    b = store.submit("audit", dict(CONFIG, trials=400.0))
    assert store.get_job(b).status == "done" and store.get_job(b).result == store.get_job(a).result


@pytest.mark.parametrize("bad, word", [({"l": 0}, "l must be"), ({"colour": 1}, "unknown audit"),
                                       ({"sigma_x": -1}, "sigma_x must be")])
def test_bad_config_is_rejected_at_submission(store, bad, word):
    with pytest.raises(ValueError, match=word):
        store.submit("audit", {**CONFIG, **bad})
    assert store.jobs() == []


def test_cancel_stops_a_running_audit(store):
    from dpcda.jobs import JobContext
    from dpcda.experiments.audit_job import run_audit_job
    from dpcda.jobs.kinds import JobCancelled

    ctx = JobContext()
    ctx.cancel_event.set()
    with pytest.raises(JobCancelled):
        run_audit_job(CONFIG, ctx)
