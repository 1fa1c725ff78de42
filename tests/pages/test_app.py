"""AppTest tests of the dashboard frame (app.py): Home's guided path, Explain, navigation."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcda.dashboard.explain import get_note
from dpcda.privacy import list_accountants

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
STEP_PAGES = (("pages/privacy.py", "Privacy"), ("pages/samples.py", "Samples"),
              ("pages/utility.py", "Utility"), ("pages/compare.py", "Compare"))


def run_home() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def _open_home(at: AppTest) -> None:
    """Back to Home: it is a callable page, which AppTest.switch_page cannot name (1.67)."""
    at._page_hash = next(h for h, info in at._registered_pages.items()
                         if not info.get("script_path"))
    at.run()
    assert not at.exception, at.exception


def test_home_leads_through_four_steps_before_the_diagram():
    at = run_home()
    assert "DP-CDA" in at.title[0].value
    labels = [link.label for link in at.page_link]
    assert labels == [f"Open **{title}**" for _, title in STEP_PAGES]
    text = " ".join(m.value for m in at.markdown)
    for number, step in enumerate(("Choose ε", "See the data", "Measure utility",
                                   "Compare and decide"), start=1):
        assert f"{number} · {step}" in text
    assert text.count("**Look for**") == 4
    # the pipeline diagram is kept, below the steps
    order = [getattr(n, "type", "") for n in _walk(at.main)]
    assert order.index("page_link") < order.index("graphviz_chart")
    dot = at.get("graphviz_chart")[0].proto.spec
    for part in ("normalize", "clip", "pick l", "average", "onehot(k)", "accountant"):
        assert part in dot
    assert "arxiv.org/abs/2411.16121" in text and "DPMix" in text
    for name in list_accountants():
        assert f"`{name}`" in text
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    assert any("Privacy footnote" in c.value and f"`{DEFAULT_ACCOUNTANT}`" in c.value for c in at.caption)


def test_explain_is_on_by_default_and_off_hides_the_notes():
    at = run_home()
    toggle = at.toggle(key="explain_notes_toggle")
    assert toggle.value is True
    notes = [get_note(k).text for k in ("epsilon", "l", "learner", "mechanism")]
    captions = " ".join(c.value for c in at.caption)
    assert all(n in captions for n in notes)
    assert "← more private · less private →" in captions  # ε's privacy direction
    toggle.set_value(False).run()
    captions = " ".join(c.value for c in at.caption)
    assert not any(n in captions for n in notes)


def test_explain_off_by_address():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["explain"] = "0"
    at.run()
    assert at.toggle(key="explain_notes_toggle").value is False
    assert get_note("epsilon").text not in " ".join(c.value for c in at.caption)


def test_explain_choice_survives_a_page_that_does_not_draw_the_toggle():
    at = run_home()
    at.toggle(key="explain_notes_toggle").set_value(False).run()
    at.switch_page("pages/privacy.py")
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["explain_notes"] is False
    _open_home(at)
    assert at.toggle(key="explain_notes_toggle").value is False
    assert get_note("epsilon").text not in " ".join(c.value for c in at.caption)


def test_navigation_lists_privacy_and_switches_to_it():
    at = run_home()
    at.switch_page("pages/privacy.py")  # raises ValueError if st.navigation did not register it
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Privacy explorer"
    assert len([m for m in at.metric if m.label.startswith("ε")]) == 1


def test_missing_page_files_are_not_listed():
    at = run_home()
    labels = " ".join(link.label for link in at.page_link)
    for file, title in STEP_PAGES:
        assert (f"**{title}**" in labels) == (ROOT / file).exists()


def test_the_shipped_config_listens_on_this_machine_only():
    """README's command 1 (`streamlit run app.py`, no flags) serves on 127.0.0.1 only: the
    dashboard has no login and shows what is drawn from the private data (docs/security.md)."""
    import tomllib

    conf = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert conf["server"]["address"] == "127.0.0.1"
    # (tests/browser/test_dashboard_exposure_browser.py starts the server with this file alone
    # and checks the socket it listens on)
