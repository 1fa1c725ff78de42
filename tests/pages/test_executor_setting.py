"""The Utility and Compare pages offer Ray only when ``$DPCDA_RAY_ADDRESS`` is set; the pick
decides which background runner is started after a launch."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcda.jobs import JobStore

PAGES = Path(__file__).resolve().parents[2] / "pages"


@pytest.fixture
def calls(monkeypatch, tmp_path) -> list:
    import dpcda.jobs

    monkeypatch.setenv("DPCDA_HOME", str(tmp_path))
    out = []
    monkeypatch.setattr(dpcda.jobs, "ensure_worker", lambda db=None, **kw: out.append(kw) or {
        "worker_id": "w-test", "pid": None, "started": True})
    return out


def launch(page: str, key: str, pick: str | None) -> AppTest:
    at = AppTest.from_file(str(PAGES / f"{page}.py"), default_timeout=60)
    at.query_params["dataset"] = "digits"  # the shared setting's (its default, MNIST, may be absent)
    at.run()
    assert not at.exception, at.exception
    if pick is not None:
        at.radio(key=f"{key}_executor").set_value(pick)
    if page == "utility":
        at.multiselect(key="utility_eps").set_value([float("inf")])
        at.multiselect(key="utility_ls").set_value([1])
    at.button(key=f"{key}_launch").click().run()
    assert not at.exception and not at.error, (at.exception, at.error)
    return at


def test_without_the_setting_there_is_no_choice_and_the_embedded_worker_starts(calls, monkeypatch):
    monkeypatch.delenv("DPCDA_RAY_ADDRESS", raising=False)
    at = launch("utility", "utility", None)
    assert not [r for r in at.radio if r.key == "utility_executor"]
    assert calls == [{}]  # ensure_worker(store): the embedded default


@pytest.mark.parametrize("page", ["utility", "compare"])
def test_with_the_setting_ray_starts_a_ray_driver(calls, monkeypatch, page):
    monkeypatch.setenv("DPCDA_RAY_ADDRESS", "auto")
    monkeypatch.setattr("dpcda.jobs.executors.ray_installed", lambda: True)
    monkeypatch.setattr("dpcda.jobs.executors.import_ray", lambda: None)  # no Ray needed here
    launch(page, page, "Ray (auto)")
    assert calls == [{"executor": "ray", "address": "auto"}]
    assert len(JobStore().sweeps()) == 1
