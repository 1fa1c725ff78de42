"""AppTest fixtures for the dashboard pages.

A page run directly by AppTest (``AppTest.from_file("pages/privacy.py")``) only gets its own
folder on ``sys.path``; the repository root is added here so ``dpcda`` and ``pages.common``
import as they do under ``streamlit run app.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def _private_job_store(monkeypatch, tmp_path):
    """A page may open the job store (the Privacy page's Audit and accuracy sections): never
    the user's ~/.dpcda. Tests that look into the store use ``store`` below."""
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "private-home"))


@pytest.fixture
def store(monkeypatch, tmp_path):
    """A job store of this test's own (``DPCDA_HOME`` = a temp folder)."""
    from dpcda.jobs import JobStore

    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "home"))
    return JobStore()


@pytest.fixture
def worker_calls(monkeypatch) -> list:
    """``ensure_worker`` replaced by a recorder (the stores it was asked for): no process starts;
    a test runs the jobs in-process with :class:`dpcda.jobs.Worker`."""
    import dpcda.jobs

    calls = []
    monkeypatch.setattr(dpcda.jobs, "ensure_worker", lambda db=None, **kw: calls.append(db) or {})
    return calls


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    """st.cache_data / st.cache_resource are process-global: start every test empty."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def datasets_offered(monkeypatch, tiny_data_dir):
    """The pages offer only datasets whose files are here (issue 21): where ``$DPCDA_DATA_DIR``
    lacks MNIST, point it at the tiny files so that a test of the Privacy page's public facts
    (MNIST, the default) runs the same on a machine without the datasets."""
    from dpcda.data import dataset_availability

    if not dataset_availability("mnist").present:
        monkeypatch.setenv("DPCDA_DATA_DIR", str(tiny_data_dir))


@pytest.fixture(autouse=True)
def _no_draws_shown():
    """The Samples page's tally of draws (dpcda.dashboard.shown) is process-wide, like the
    caches: start every test with nothing shown."""
    from dpcda.dashboard import shown

    shown.reset()
    yield
    shown.reset()
