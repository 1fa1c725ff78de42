"""dpcda.evaluation.audit loads its submodules on first use: the Privacy page imports
dpcda.evaluation.audit.report on every first view and must not pay for scipy.stats there (about
0.9 s of CPU on this machine)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dpcda.evaluation.audit as audit


def test_report_does_not_import_the_statistics():
    code = ("import sys, dpcda.evaluation.audit.report; "
            "print('scipy.stats' in sys.modules, 'dpcda.evaluation.audit.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_every_public_name_resolves_to_its_submodule():
    from dpcda.evaluation.audit import run, settings, stats

    for name in audit.__all__:
        value = getattr(audit, name)
        assert any(getattr(m, name, None) is value for m in (run, settings, stats)), name
    assert set(audit.__all__) <= set(dir(audit))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        audit.nope  # noqa: B018
    with pytest.raises(ImportError):
        exec("from dpcda.evaluation.audit import nope")
