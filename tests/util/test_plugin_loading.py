"""``$DPCDA_PLUGINS``: modules or .py files imported once, the first time a plugin registry is read."""

from __future__ import annotations

import sys

import pytest

import dpcda.util.plugins as plug
from dpcda.util.registry import Registry


@pytest.fixture
def clean(monkeypatch):
    before = set(plug._loaded)
    plug._seen = None
    yield monkeypatch
    for entry in set(plug._loaded) - before:
        plug._loaded.discard(entry)
    plug._seen = None
    sys.modules.pop("dpcda_plugin_counting", None)


def test_a_file_plugin_is_imported_once_on_the_first_read(clean, tmp_path):
    hits = tmp_path / "hits.txt"
    src = tmp_path / "counting.py"
    src.write_text(f"from pathlib import Path\np = Path({str(hits)!r})\n"
                   "p.write_text(p.read_text() + 'x' if p.exists() else 'x')\n")
    clean.setenv(plug.PLUGINS_ENV, f" {src} ,")
    assert plug.plugin_names() == [str(src)]
    reg: Registry[int] = Registry("thing", plugins=True)
    plain: Registry[int] = Registry("thing")
    assert "a" not in plain and not hits.exists()  # a plain registry never loads plugins
    assert reg.names() == [] and hits.read_text() == "x"
    assert "a" not in reg and len(reg) == 0 and plug.load_plugins() == []
    assert hits.read_text() == "x"  # once per process


def test_a_plugin_that_cannot_be_imported_is_named(clean):
    clean.setenv(plug.PLUGINS_ENV, "no_such_module_xyz")
    with pytest.raises(ImportError, match="cannot import plugin 'no_such_module_xyz' "
                                          r"\(from DPCDA_PLUGINS\)"):
        Registry("thing", plugins=True).names()
    clean.setenv(plug.PLUGINS_ENV, "/nonexistent/dir/plugin.py")
    with pytest.raises(ImportError, match="no such file"):
        plug.load_plugins()
    assert "no_such_module_xyz" not in plug._loaded  # tried again on the next read
