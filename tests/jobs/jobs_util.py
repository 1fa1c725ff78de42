"""Helpers for the job-runner tests (imported as ``tests.jobs.jobs_util``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLUGINS = "tests.jobs.fake_kinds"


def worker_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["DPCDA_JOB_PLUGINS"] = PLUGINS
    return env


def start_worker(db_path, *args: str) -> subprocess.Popen:
    """A real ``python -m dpcda worker`` process on the store."""
    return subprocess.Popen([sys.executable, "-m", "dpcda", "worker", "--db", str(db_path), *args],
                            cwd=REPO, env=worker_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
