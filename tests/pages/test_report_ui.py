"""AppTests of show-code and the report button (pages/report_ui.py), on a tiny page script.

What the widgets hand to Streamlit (the script file, the deferred report) is captured by
spying on Streamlit's media storage, so the tests check the real bytes offered."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from dpcda.report import SECTIONS
from dpcda.report.pdf import pdf_available
from dpcda.dashboard.reproduce import reproduce


@pytest.fixture
def media(monkeypatch):
    got = SimpleNamespace(stored={}, deferred={})
    store, defer = MemoryMediaFileStorage.load_and_get_id, MediaFileManager.add_deferred

    def spy_store(self, path_or_data, mimetype, kind, filename=None):
        if isinstance(path_or_data, (bytes, bytearray)):
            got.stored[filename] = bytes(path_or_data)
        return store(self, path_or_data, mimetype, kind, filename)

    def spy_defer(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        got.deferred[file_name] = data_callable
        return defer(self, data_callable, mimetype, coordinates, file_name, **kw)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy_store)
    monkeypatch.setattr(MediaFileManager, "add_deferred", spy_defer)
    return got


def page(page_name: str, settings: dict) -> AppTest:
    def script(page_name, settings):
        from pages.report_ui import page_tools

        page_tools(page_name, settings)

    at = AppTest.from_function(script, args=(page_name, settings), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


SAMPLES = dict(dataset="digits", l=4, epsilon=10.0, T=400, c=1.0, delta=1e-5,
               accountant="class-aware-pld", conversion="mironov", max_alpha=256,
               normalization="scale", allocation="proportional", model=None)


def test_reproduce_expander_shows_the_code_and_offers_the_script(media):
    at = page("samples", SAMPLES)
    want = reproduce(page="samples", **{k: v for k, v in SAMPLES.items() if v is not None})
    assert at.expander[0].label.startswith("Reproduce this")
    assert not at.code  # folded until asked for: the highlighter costs every page view
    at.toggle(key="samples_repro_show").set_value(True)
    at.run()
    codes = [c.value for c in at.code]
    assert codes == [want.library.strip(), want.cli_text.strip()]
    assert media.stored[want.filename].decode() == want.script
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels[:2] == ["Download the script (.py)", "Download report (HTML)"]


def test_report_button_builds_the_report_on_click(media, monkeypatch, tmp_path):
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "home"))  # an empty results store
    page("samples", SAMPLES)
    name = "dpcda_report_digits_l4_eps10.html"
    html = media.deferred[name]().decode()
    for sid, title in SECTIONS:
        assert f'<section id="{sid}"><h2>{title}</h2>' in html
    assert '&quot;privacy&quot;:' in html  # the data card's JSON is there ...
    assert "class-aware-pld" in html and not re.search(r'&quot;(seed|noise|rng)&quot;:', html)


def test_bad_settings_are_said_once_and_disable_the_report(media):
    at = page("utility", dict(dataset="digits", ls=(), model="ncm"))
    assert not at.code and not at.error
    assert any("Nothing to reproduce" in c.value for c in at.caption)
    (button,) = at.get("download_button")
    assert button.proto.disabled and "No report" in button.proto.help
    assert not media.deferred


@pytest.mark.skipif(not pdf_available(), reason="no Chromium or Chrome (DPCDA_CHROMIUM, "
                    "/usr/bin/chromium, chromium, google-chrome): no PDF button to test")
def test_pdf_button_when_the_server_has_a_browser(media, monkeypatch, tmp_path):
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "home"))
    at = page("samples", SAMPLES)
    labels = [b.proto.label for b in at.sidebar.get("download_button")]
    assert labels == ["Download report (HTML)", "Download report (PDF)"]
    assert not any("prints to PDF" in c.value for c in at.sidebar.caption)
    assert set(media.deferred) == {"dpcda_report_digits_l4_eps10.html",
                                   "dpcda_report_digits_l4_eps10.pdf"}
    pdf = media.deferred["dpcda_report_digits_l4_eps10.pdf"]()  # built on click, not before
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf)) >= 2


def test_a_sweep_page_says_which_setting_its_report_covers_and_where_to_choose(media):
    at = page("utility", dict(dataset="digits", ls=(16, 1), epsilons=(16.72, 2.0), model="ncm"))
    said = [c.value for c in at.sidebar.caption if c.value.startswith("This report covers")]
    assert said == ["This report covers one setting (digits, l = 1, target ε = 16.72). To put up "
                    "to three side by side and choose one: the **Choose & report** page."]
    assert not [c for c in page("samples", SAMPLES).sidebar.caption
                if c.value.startswith("This report covers")]


def test_no_browser_no_pdf_button_but_a_caption(media, monkeypatch):
    monkeypatch.setattr("dpcda.report.pdf.find_browser", lambda: None)
    at = page("samples", SAMPLES)
    labels = [b.proto.label for b in at.sidebar.get("download_button")]
    assert labels == ["Download report (HTML)"]
    assert any("prints to PDF from any browser" in c.value for c in at.sidebar.caption)
    assert set(media.deferred) == {"dpcda_report_digits_l4_eps10.html"}
