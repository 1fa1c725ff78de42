"""AppTest of the Audit section of the Privacy page (pages/privacy/audit.py): launching an audit
queues a job in the page's store and starts a worker; a finished audit is shown beside every
accountant's claim and in the plot over l."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.page_util import run

from dpcda.jobs import JobStore, Worker

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "privacy.py")


@pytest.fixture
def store(monkeypatch, tmp_path) -> JobStore:
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path))
    return JobStore()


@pytest.fixture
def worker_calls(monkeypatch) -> list:
    import dpcda.jobs

    calls = []
    monkeypatch.setattr(dpcda.jobs, "ensure_worker",
                        lambda db=None, **kw: calls.append(db) or {"worker_id": "w", "pid": None,
                                                                   "started": True})
    return calls


def audit_figure(at: AppTest) -> dict:
    charts = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    (fig,) = [c for c in charts if any(str(t.get("name", "")).startswith("claimed")
                                       for t in c["data"])]
    return fig


def test_audit_section_launches_a_job_and_shows_the_result(store, worker_calls):
    at = AppTest.from_file(PAGE, default_timeout=90)
    run(at)
    assert any("Audit" in h.value for h in at.subheader)
    assert not [b for b in at.button if b.key == "privacy_audit_run"]  # on demand
    at.toggle(key="privacy_audit_show").set_value(True)
    run(at)
    assert any("No finished audit" in i.value for i in at.info)
    fig = audit_figure(at)
    names = [t["name"] for t in fig["data"]]
    # The label canary (default): whole-record is the bound; the features-only accountants are
    # drawn as not bounds for a label change.
    assert "claimed: whole-record" in names and "claimed: paper (as published)" in names
    assert "claimed: class-aware (features-only)" in names
    at.text_input(key="privacy_audit_trials").input("40")
    run(at)
    at.button(key="privacy_audit_run").click()
    run(at)
    (job,) = store.jobs()
    assert job.kind == "audit" and job.status == "queued"
    assert job.config["l"] == 4 and job.config["trials"] == 40
    assert job.config["n_class"] == 5421 and job.config["T_class"] == 6000  # MNIST, smallest
    assert job.config["canary"] == "label"  # the default relation's canary
    assert len(worker_calls) == 1 and Path(worker_calls[0].path) == store.path
    assert any("audit job" in p.proto.text for p in at.get("progress"))

    Worker(store).run(idle_exit=0)  # the real audit, in-process
    run(at)
    job = store.get_job(job.id)
    assert job.status == "done", job.error
    labels = {m.label: m.value for m in at.metric}
    lower = job.result["epsilon_lower"]
    assert labels["Audited lower bound on ε (95%)"] == f"{lower:.3g}"
    assert "Gaussian-DP estimate of ε" in labels
    fig = audit_figure(at)
    (pts,) = [t for t in fig["data"] if t["name"] == "audited lower bound (95%)"]
    assert pts["x"] == [4] and pts["y"] == pytest.approx([lower])
    df = at.dataframe[-1].value
    assert "class-aware" in list(df["accountant"])
    assert not any("exceeds the valid bound" in e.value for e in at.error)


def test_non_private_setting_says_the_audit_needs_noise(store, worker_calls):
    at = AppTest.from_file(PAGE, default_timeout=90)
    run(at)
    at.select_slider(key="privacy_sigma_x").set_value(0.0)
    run(at)
    assert any("needs noise" in i.value for i in at.info)
    assert store.jobs() == []


def test_trials_keep_their_value_after_another_input_is_refused_and_corrected(store, worker_calls):
    """Issue 21, item 7: a refused T hides the audit for a run; corrected, the section comes
    back as it was (shown, with the typed trials), not at its defaults."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    run(at)
    at.toggle(key="privacy_audit_show").set_value(True)
    run(at)
    at.text_input(key="privacy_audit_trials").input("40")
    run(at)
    at.text_input(key="privacy_T").input("abc")
    run(at)
    assert not [t for t in at.text_input if t.key == "privacy_audit_trials"]  # hidden meanwhile
    at.text_input(key="privacy_T").input("")
    run(at)
    assert at.toggle(key="privacy_audit_show").value
    assert at.text_input(key="privacy_audit_trials").value == "40"


def test_the_canary_choice_names_the_accountant_it_is_audited_against(store, worker_calls):
    """Issue 20: the label canary (default) against whole-record, under which the features-only
    accountants are not bounds; the features canary against class-aware-pld."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    run(at)
    at.toggle(key="privacy_audit_show").set_value(True)
    run(at)
    assert at.radio(key="privacy_audit_canary").value == "label"
    assert any("label canary" in c.value and "against `whole-record`" in c.value for c in at.caption)
    df = at.dataframe[-1].value
    bound = dict(zip(df["accountant"], df["bound for this pair"]))
    assert bound["whole-record"] == "yes" and "features-only" in bound["class-aware"]
    # Two classes per trial: half the features canary's 5000 at l = 4, T_k = 6000.
    assert at.text_input(key="privacy_audit_trials").value == "2500"
    at.radio(key="privacy_audit_canary").set_value("features")
    run(at)
    assert any("features canary" in c.value and "against `class-aware-pld`" in c.value
               for c in at.caption)
    df = at.dataframe[-1].value
    bound = dict(zip(df["accountant"], df["bound for this pair"]))
    assert bound["class-aware"] == "yes" and bound["whole-record"] == "yes"
pytestmark = pytest.mark.usefixtures("datasets_offered")  # MNIST (the default) offered here too
