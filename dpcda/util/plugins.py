"""Plugins: modules named in ``$DPCDA_PLUGINS`` that register mechanisms or datasets.

``DPCDA_PLUGINS`` is a comma- (or ``os.pathsep``-) separated list of importable module names
(``tests.plugins.toy_mechanism``) or paths of Python files (``/path/to/my_dataset.py``). Each
is imported once per process, the first time a plugin registry (mechanisms, datasets) is read,
so the CLI's choices, the job workers (they inherit the environment) and the pages all see the
same entries. A plugin module registers itself exactly as a built-in one does
(``register_mechanism(...)``, ``@register_dataset(...)``); docs/mechanisms.md and
docs/datasets.md give the one-file recipes. Job kinds have their own list
(``$DPCDA_JOB_PLUGINS``, :mod:`dpcda.jobs.kinds`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

PLUGINS_ENV = "DPCDA_PLUGINS"

_loaded: set[str] = set()
_seen: str | None = None  # the value of $DPCDA_PLUGINS whose entries are all imported


def plugin_names() -> list[str]:
    """The entries of ``$DPCDA_PLUGINS``, in order."""
    raw = os.environ.get(PLUGINS_ENV, "").replace(os.pathsep, ",")
    return [m.strip() for m in raw.split(",") if m.strip()]


def _import(entry: str) -> None:
    if entry.endswith(".py"):
        path = Path(entry).expanduser()
        name = f"dpcda_plugin_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise ImportError(f"no such file: {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    else:
        importlib.import_module(entry)


def load_plugins() -> list[str]:
    """Import every ``$DPCDA_PLUGINS`` entry not imported yet; returns the entries loaded now.

    Safe to call often (the registries call it on every read): each entry is imported once, and a
    read made while a plugin is being imported does not import it again."""
    global _seen
    raw = os.environ.get(PLUGINS_ENV, "")
    if raw == _seen:  # the common case: nothing named, or everything named already imported
        return []
    new = [e for e in plugin_names() if e not in _loaded]
    for entry in new:
        _loaded.add(entry)
        try:
            _import(entry)
        except ImportError as exc:
            _loaded.discard(entry)
            raise ImportError(f"cannot import plugin {entry!r} (from {PLUGINS_ENV}): {exc}") from exc
        except Exception:
            _loaded.discard(entry)
            raise
    _seen = raw
    return new
