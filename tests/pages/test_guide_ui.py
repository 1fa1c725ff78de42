"""AppTest of the guided path helpers a page can call (pages/guide_ui.py via pages.common)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

import pages.common  # noqa: F401  (imported before a temporary folder with its own pages/)

SCRIPT = '''
import streamlit as st
from pages.common import next_step_link, step_intro

def samples():
    step_intro("pages/samples.py")
    next_step_link("pages/samples.py")

def compare():
    step_intro("pages/compare.py")
    next_step_link("pages/compare.py")

st.navigation([st.Page(samples, title="S", default=True), st.Page(compare, title="C"),
               st.Page("pages/utility.py")]).run()
'''


def test_a_page_opens_with_its_step_and_links_the_next(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "utility.py").write_text("import streamlit as st\nst.write('u')\n")
    (tmp_path / "main.py").write_text(SCRIPT)
    at = AppTest.from_file(str(tmp_path / "main.py"), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert at.caption[0].value.startswith("**Step 2 of 4 · See the data.** Make a synthetic")
    assert "**Look for** whether each class" in at.caption[0].value
    assert [link.label for link in at.page_link] == ["Next step: 3 · Measure utility (**Utility**)"]


def test_next_step_outside_the_navigation_is_named_not_raised():
    def page():
        from pages.common import next_step_link

        next_step_link("pages/samples.py")

    at = AppTest.from_function(page, default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    assert at.caption[0].value.startswith("Next step: 3 · Measure utility (**Utility**)")
