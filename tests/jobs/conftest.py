"""Fixtures for the job-runner tests: a private store per test and the fake job kinds, which
real worker subprocesses load through ``DPCDA_JOB_PLUGINS``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGINS = "tests.jobs.fake_kinds"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(autouse=True)
def _job_env(monkeypatch, tmp_path):
    monkeypatch.setenv("DPCDA_JOB_PLUGINS", PLUGINS)
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "home"))  # never touch ~/.dpcda
    from dpcda.jobs import load_plugins

    load_plugins()


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "jobs.sqlite3"


@pytest.fixture
def store(db_path):
    from dpcda.jobs import JobStore

    return JobStore(db_path)
