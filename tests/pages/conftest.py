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
def _clear_streamlit_caches():
    """st.cache_data / st.cache_resource are process-global: start every test empty."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()
