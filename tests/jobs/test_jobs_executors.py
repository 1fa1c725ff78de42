"""The executor interface without Ray: the embedded executor, settings, and the errors when
the optional ray package is missing (simulated, so these run everywhere)."""

from __future__ import annotations

import sys
import time

import pytest

from dpcda.jobs import JobStore, ensure_worker, get_executor, list_executors, ray_setting
from dpcda.jobs.ray_runner import task_options, wants_cuda


@pytest.fixture
def no_ray(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    monkeypatch.setattr("dpcda.jobs.executors.ray_installed", lambda: False)


def test_known_executors_and_lookup_errors():
    assert list_executors() == ["embedded", "ray"]
    with pytest.raises(ValueError, match="unknown executor 'spark'; known: embedded, ray"):
        get_executor("spark")
    with pytest.raises(ValueError, match="address applies to executor='ray' only"):
        get_executor("embedded", address="auto")


def test_embedded_executor_runs_a_sweep_in_process(store):
    sweep_id = store.create_sweep("s", {}, [("fake-epochs", {"epochs": 2, "value": v}) for v in (1, 2)])
    seen = []
    assert get_executor("embedded").run_sweep(store, sweep_id, on_finish=seen.append) == 2
    jobs = store.jobs(sweep_id=sweep_id)
    assert [j.status for j in jobs] == ["done", "done"] and [j.result["value"] for j in jobs] == [1, 2]
    assert sorted(j.id for j in seen) == [j.id for j in jobs]
    assert all(not j.worker_id.startswith("r-") for j in jobs)


def test_ray_executor_without_ray_is_a_clear_error(no_ray):
    with pytest.raises(ValueError, match=r"executor='ray' needs the optional ray package.*pip install"):
        get_executor("ray")


def test_cli_executor_ray_without_ray_exits_2_with_one_line(no_ray, tmp_path, capsys):
    from dpcda.cli import main

    db = tmp_path / "s.sqlite3"
    code = main(["sweep", "--dataset", "digits", "--epsilons", "inf", "--ls", "1", "--db", str(db),
                 "--executor", "ray"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "pip install" in err and "ray" in err
    assert JobStore(db).sweeps() == []  # nothing was queued


def test_cli_address_needs_executor_ray(tmp_path, capsys):
    from dpcda.cli import main

    code = main(["sweep", "--dataset", "digits", "--epsilons", "inf", "--ls", "1", "--address", "auto",
                 "--db", str(tmp_path / "s.sqlite3")])
    err = capsys.readouterr().err
    assert code == 2 and "--address applies to --executor ray only" in err and err.count("\n") == 1


def test_ray_executor_settings_are_validated():
    pytest.importorskip("ray", reason="constructing RayExecutor checks that ray is importable")
    with pytest.raises(ValueError, match="address must be a Ray address"):
        get_executor("ray", address=" ")
    with pytest.raises(ValueError, match="num_cpus must be an integer >= 1"):
        get_executor("ray", num_cpus=0)


def test_ray_setting_reads_the_environment(monkeypatch):
    monkeypatch.delenv("DPCDA_RAY_ADDRESS", raising=False)
    assert ray_setting() is None
    monkeypatch.setenv("DPCDA_RAY_ADDRESS", " auto ")
    monkeypatch.setattr("dpcda.jobs.executors.ray_installed", lambda: True)
    assert ray_setting() == "auto"
    monkeypatch.setattr("dpcda.jobs.executors.ray_installed", lambda: False)
    assert ray_setting() is None  # configured, but nothing to run it with


def test_task_resources_follow_the_job(store):
    job = store.get_job(store.submit("fake-epochs", {"epochs": 1, "train": {"device": "cuda"}},
                                     max_attempts=3))
    opts = task_options(job)
    assert opts["num_gpus"] == 1 and opts["num_cpus"] == 1 and opts["max_retries"] == 2
    assert opts["retry_exceptions"] is False
    assert task_options(job, max_retries=0)["max_retries"] == 0
    assert not wants_cuda({"train": {"device": "cpu"}}) and not wants_cuda({"device": "auto"})
    assert wants_cuda({"device": "cuda:1"})


def test_ensure_worker_rejects_an_unknown_executor(store):
    with pytest.raises(ValueError, match="executor must be one of embedded, ray"):
        ensure_worker(store, executor="dask")


def test_an_address_where_nothing_listens_is_refused_at_once(tmp_path, capsys):
    pytest.importorskip("ray", reason="the address is checked only when ray is installed")
    from dpcda.cli import main

    db = tmp_path / "s.sqlite3"
    t0 = time.monotonic()
    code = main(["sweep", "--dataset", "digits", "--epsilons", "inf", "--ls", "1", "--db", str(db),
                 "--executor", "ray", "--address", "127.0.0.1:1"])
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]  # after the "sweep N: ..." line
    assert code == 2 and last.startswith("dpcda: error: cannot connect to Ray at address='127.0.0.1:1'")
    assert time.monotonic() - t0 < 30
    assert [j.status for j in JobStore(db).jobs()] == ["cancelled"]  # nothing left queued
    with pytest.raises(ValueError, match="address must be auto, local, host:port"):
        from dpcda.jobs.ray_runner import check_reachable

        check_reachable("no-port-here")
