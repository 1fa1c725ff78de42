"""Fixtures for the generator tests; the data helpers live in ``mech_data``."""

from __future__ import annotations

import pytest

from mech_data import make_blocks


@pytest.fixture
def blocks():
    return make_blocks()
