"""Shared test fixtures. Tests that need real datasets read ``DPCDA_DATA_DIR``; when it is unset
it defaults to ``<repo>/../shared/datasets`` (where CI keeps them)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("DPCDA_DATA_DIR", str(REPO.parent / "shared" / "datasets"))
# Absolute, so tests that chdir or link files keep finding the data.
os.environ["DPCDA_DATA_DIR"] = str(Path(os.environ["DPCDA_DATA_DIR"]).resolve())


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return Path(os.environ["DPCDA_DATA_DIR"])
