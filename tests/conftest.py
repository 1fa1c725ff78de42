"""Shared test fixtures.

Data: tests that need the real dataset files read ``DPCDA_DATA_DIR``; when it is unset it
defaults to ``<repo>/../shared/datasets`` (where CI keeps them). The folder may be missing (a
user's machine): loader tests then run on tiny files the tests write (``tiny_data_dir``), and
the checks that need the real files skip with a reason naming ``DPCDA_DATA_DIR``.

Processes: every process the session starts carries ``DPCDA_TEST_SESSION`` in its environment;
at the end of the session none may still be alive (``_no_process_left_behind``).
"""

import os
import signal
import time
import uuid
from pathlib import Path

import pytest

from lanes import assign_lanes
from tiny_data import write_tiny_datasets

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("DPCDA_DATA_DIR", str(REPO.parent / "shared" / "datasets"))
# Absolute, so tests that chdir or link files keep finding the data.
os.environ["DPCDA_DATA_DIR"] = str(Path(os.environ["DPCDA_DATA_DIR"]).resolve())

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Test lanes (tests/lanes.py): the browser, ray and slow markers, added before ``-m``
    selects (pytest.ini's default leaves the three lanes out)."""
    assign_lanes(items)


SESSION_ENV = "DPCDA_TEST_SESSION"
os.environ[SESSION_ENV] = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
LEFT_BEHIND_GRACE_S = 15.0


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """``$DPCDA_DATA_DIR`` (it may not exist; see ``real_data``)."""
    return Path(os.environ["DPCDA_DATA_DIR"])


@pytest.fixture(scope="session")
def real_data(data_dir):
    """``real_data(name)``: ``$DPCDA_DATA_DIR`` when it holds ``name``'s files, else a skip."""
    from dpcda.data import get_dataset_spec

    def need(name: str) -> Path:
        spec = get_dataset_spec(name)
        folder = spec.find(data_dir) if data_dir.is_dir() and spec.find else None
        if folder is None or data_dir not in (folder, *folder.parents):
            pytest.skip(f"needs the real {spec.title} files: set DPCDA_DATA_DIR to a folder holding "
                        f"{spec.folder}/ (DPCDA_DATA_DIR={data_dir})")
        return data_dir

    return need


@pytest.fixture(scope="session")
def tiny_data_dir(tmp_path_factory) -> Path:
    """Tiny MNIST / Fashion-MNIST IDX files and UCI Adult CSVs (see tests/tiny_data.py)."""
    return write_tiny_datasets(tmp_path_factory.mktemp("tiny-datasets"))


def _session_processes(token: str) -> dict[int, str]:
    """Live processes (not this one) whose environment carries this session's token."""
    mark = f"{SESSION_ENV}={token}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            stat = (entry / "stat").read_text()
            if stat[stat.rfind(")") + 2] in "ZX":  # exited, not reaped yet
                continue
            found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace").strip()
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


@pytest.fixture(scope="session", autouse=True)
def _no_process_left_behind():
    """Fail the session if a process it started (a worker, a server, ...) outlives it."""
    yield
    if not Path("/proc/self/environ").exists():  # no /proc (macOS): nothing to check
        return
    token = os.environ[SESSION_ENV]
    deadline = time.monotonic() + LEFT_BEHIND_GRACE_S
    left = _session_processes(token)
    while left and time.monotonic() < deadline:  # give stopped processes time to exit
        time.sleep(0.5)
        left = _session_processes(token)
    for pid in left:  # clean up before failing, so the failure leaves nothing behind either
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes started by the tests are still running: {left}"


@pytest.fixture
def files_not_needed(monkeypatch):
    """For tests that queue a sweep on a dataset only to finish it with made-up results (no job
    loads it): lift the submission's check that the dataset's files are present (right for a
    real sweep), so that they also pass on a machine without the datasets."""
    import dpcda.experiments.preflight as preflight

    monkeypatch.setattr(preflight, "_check_dataset", lambda name: None)
