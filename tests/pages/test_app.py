"""AppTest tests of the dashboard frame (app.py): Home page and navigation."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcda.privacy import list_accountants

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def test_home_renders_with_diagram_links_and_accountants():
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert "DP-CDA" in at.title[0].value or "class-centric" in at.title[0].value
    text = " ".join(m.value for m in at.markdown)
    assert "arxiv.org/abs/2411.16121" in text
    assert "DPMix" in text
    for name in list_accountants():
        assert f"`{name}`" in text
    dot = at.get("graphviz_chart")[0].proto.spec
    for step in ("normalize", "clip", "pick l", "average", "onehot(k)", "RDP accountant"):
        assert step in dot
    labels = [link.label for link in at.page_link]
    assert any(label.startswith("**Privacy**") for label in labels)
    # Every page ends with a privacy footnote naming the accountants (Home included).
    assert any("Privacy footnote" in c.value and "class-aware" in c.value for c in at.caption)


def test_navigation_lists_privacy_and_switches_to_it():
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page("pages/privacy.py")  # raises ValueError if st.navigation did not register it
    at.run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Privacy explorer"
    assert len(at.metric) == 1


def test_missing_page_files_are_not_listed():
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    labels = " ".join(link.label for link in at.page_link)
    for file, title in (("pages/privacy.py", "Privacy"), ("pages/samples.py", "Samples"),
                        ("pages/utility.py", "Utility"), ("pages/compare.py", "Compare")):
        assert (f"**{title}**" in labels) == (ROOT / file).exists()
