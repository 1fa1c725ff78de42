"""Exception text on the pages is shown as typed, never as Markdown (issue 29's rule for every box
that quotes a library or worker message): the Privacy page's dp-center note and Audit section,
"Reproduce this", and the sweep launch boxes of Utility and Compare route the words through
:func:`pages.inputs_ui.show_problem` / :func:`dpcda.util.verbatim.verbatim`. Each test makes the
library raise a message full of Markdown and HTML and reads the box back as a reader sees it."""

from __future__ import annotations

from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from tests.markdown_check import problems, shown_text

PAYLOAD = ("column '![x](http://evil.example/t.png) [Click](https://evil.example/r) <img src=x> "
           "**bold** :material/home:' is refused")
SEEN = ("column '![x](http://evil.example/t.png) [Click](https://evil.example/r) <img src=x> "
        "**bold** :material/home:' is refused")


def _boom(*args, **kw):
    raise ValueError(PAYLOAD)


def _app(script, **kw) -> AppTest:
    at = AppTest.from_function(script, default_timeout=60, kwargs=kw)
    at.run()
    assert not at.exception, at.exception
    return at


def _dp_center_page():
    from types import SimpleNamespace

    from pages.privacy.norm import dp_center_note

    ds = SimpleNamespace(n=100, class_counts=(50, 50), d_x=4, d_y=2)
    dp_center_note(dataset="digits", normalize="dp-center", target=None, sigma_x=1.0, sigma_y=1.0,
                   ds=ds, accountant="class-aware")


def test_dp_center_note_shows_the_refusal_as_typed(monkeypatch):
    import pages.privacy.norm

    monkeypatch.setattr(pages.privacy.norm, "_composed", _boom)
    (box,) = _app(_dp_center_page).info
    # the page's own lead keeps its Markdown (bold, code); the library's words none of theirs
    assert problems(box.value, ("strong", "code")) == [], box.value
    assert shown_text(box.value).endswith("cannot be accounted here: " + SEEN[0].upper() + SEEN[1:])


def _audit_page():
    import streamlit as st

    from pages.privacy.audit import KEY, audit_section

    st.session_state[f"{KEY}_show"] = True
    audit_section(l=4, sigma_x=1.0, c=1.0, T=1000, delta=1e-5, class_counts=(500, 500), params=None)


def test_audit_refusal_shows_the_message_as_typed(monkeypatch):
    import pages.privacy.audit

    monkeypatch.setattr(pages.privacy.audit, "settings_for_release", _boom)
    (box,) = _app(_audit_page).error
    assert problems(box.value) == [], box.value
    assert shown_text(box.value) == "Cannot audit this setting: " + SEEN[0].upper() + SEEN[1:]


def _progress_page():
    from pages.privacy.audit import _progress

    _progress(None)


def test_a_failed_audit_job_shows_its_message_as_typed(monkeypatch):
    import pages.privacy.audit

    job = SimpleNamespace(id=3, terminal=True, status="failed", message=PAYLOAD + "\nTraceback …")
    monkeypatch.setattr(pages.privacy.audit, "_audit_jobs", lambda store: [job])
    (box,) = _app(_progress_page).warning
    assert problems(box.value) == [], box.value
    assert shown_text(box.value) == "audit job #3 failed: " + SEEN[0].upper() + SEEN[1:]


def _reproduce_page():
    from pages.report_ui import reproduce_expander

    reproduce_expander("samples", {"dataset": "digits"})


def test_nothing_to_reproduce_shows_the_reason_as_typed(monkeypatch):
    import pages.report_ui

    monkeypatch.setattr(pages.report_ui, "reproduce", _boom)
    at = _app(_reproduce_page)
    (box,) = [c for c in at.caption if "Nothing to reproduce" in c.value]
    assert problems(box.value) == [], box.value
    assert shown_text(box.value) == "Nothing to reproduce for these settings: " + SEEN


def _launch_page(payload):
    import streamlit as st

    from dpcda.util.messages import problem_of
    from pages.utility.views import launch_box

    class Request:
        def problems(self):
            return [problem_of(ValueError(payload))]

    launch_box(st.sidebar, Request(), present=True)


def test_a_utility_sweep_problem_is_shown_as_typed():
    at = _app(_launch_page, payload=PAYLOAD)
    (box,) = at.sidebar.warning
    assert problems(box.value) == [], box.value
    assert shown_text(box.value) == SEEN[0].upper() + SEEN[1:]


def test_a_compare_plan_problem_is_shown_as_typed(store, worker_calls, monkeypatch):
    from pathlib import Path

    import dpcda.experiments.compare as compare
    from dpcda.util.messages import problem_of

    real = compare.comparison_plan

    def plan(*args, **kw):
        return {**real(*args, **kw), "problems": [problem_of(ValueError(PAYLOAD))], "estimate": None}

    monkeypatch.setattr(compare, "comparison_plan", plan)
    page = str(Path(__file__).resolve().parents[2] / "pages" / "compare.py")
    at = AppTest.from_file(page, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    (box,) = [w for w in at.sidebar.warning if "evil" in w.value]
    assert problems(box.value) == [], box.value
    assert shown_text(box.value) == SEEN[0].upper() + SEEN[1:]
