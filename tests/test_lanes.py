"""The lane table (tests/lanes.py) names files and tests that exist, and its markers are the
ones pytest.ini registers and leaves out of the default lane."""

from __future__ import annotations

import configparser
import re

from lanes import LANES, REPO, _matches


def test_every_entry_names_an_existing_file_and_test():
    for marker, entries in LANES.items():
        for entry in entries:
            path, _, name = entry.partition("::")
            assert (REPO / path).exists(), f"{marker}: {entry}: no such file or folder"
            if name:
                func = name.split("::")[-1]
                source = (REPO / path).read_text(encoding="utf-8")
                assert re.search(rf"^\s*(async\s+)?def {re.escape(func)}\(", source, re.M), \
                    f"{marker}: {entry}: no test {func} in {path}"


def test_the_markers_are_registered_and_left_out_of_the_default_lane():
    ini = configparser.ConfigParser()
    ini.read(REPO / "pytest.ini")
    registered = {line.split(":")[0].strip() for line in ini["pytest"]["markers"].splitlines()
                  if line.strip()}
    assert set(LANES) <= registered
    addopts = ini["pytest"]["addopts"]
    for marker in LANES:
        assert f"not {marker}" in addopts


def test_entries_match_node_ids():
    assert _matches("tests/browser/test_x.py::test_a", "tests/browser/")
    assert _matches("tests/a.py::test_b[1-2]", "tests/a.py")
    assert _matches("tests/a.py::test_b[1-2]", "tests/a.py::test_b")
    assert not _matches("tests/a.py::test_bc", "tests/a.py::test_b")
    assert _matches("tests/a.py::TestK::test_b", "tests/a.py::TestK")
    assert not _matches("tests/ab.py::test_b", "tests/a.py")
