"""Pages decide on notice codes, never on the words: a notice reworded in the one table
(:data:`dpcda.util.notices.NOTICES`) changes what a page shows, not what it decides."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.pages.page_util import run

from dpcda.util.notices import NOTICES

ROOT = Path(__file__).resolve().parents[2]


def reword(monkeypatch, code: str, template: str) -> None:
    monkeypatch.setitem(NOTICES, code, dataclasses.replace(NOTICES[code], template=template))
    st.cache_data.clear()  # no release or epsilon cached with the old words


def privacy_warnings(**widgets) -> list[str]:
    at = run(AppTest.from_file(str(ROOT / "pages" / "privacy.py"), default_timeout=30))
    at.selectbox(key="privacy_preset").select("digits")
    at.select_slider(key="privacy_delta").set_value(1e-2)  # >= 1/N for digits
    for key, value in widgets.items():
        at.select_slider(key=key).set_value(value)
    at = run(at)
    return [w.value for w in at.warning]


def test_the_privacy_page_hides_and_annotates_by_code(monkeypatch):
    """Non-private: said once (as the error above), its notice not repeated; the delta notice
    shown in its (new) words."""
    st.cache_data.clear()
    shown = privacy_warnings(privacy_sigma_x=0.0)
    assert any("1/N" in w for w in shown) and not any("non-private" in w for w in shown)
    reword(monkeypatch, "non_private", "REWORDED: nothing added to the data")
    reword(monkeypatch, "delta_not_below_1_over_n", "REWORDED: delta {delta:g} is at least 1/N")
    reworded = privacy_warnings(privacy_sigma_x=0.0)
    assert "REWORDED: delta 0.01 is at least 1/N" in reworded
    assert not any("nothing added" in w for w in reworded)  # still hidden: decided by its code
    assert len(reworded) == len(shown)


def test_the_samples_page_hides_the_non_private_notice_by_code(monkeypatch):
    reword(monkeypatch, "non_private", "REWORDED: nothing added to the data")
    at = AppTest.from_file(str(ROOT / "pages" / "samples.py"), default_timeout=60)
    at.query_params.update(dataset="digits")  # a dataset the page draws without a click
    at = run(at)
    at.radio(key="samples_mode").set_value("explicit σ")
    at = run(at)
    at.select_slider(key="samples_sigma").set_value(0.0)
    at = run(at)
    assert not at.warning and any("Show real records" in i.value for i in at.info)  # behind the opt-in
    at.checkbox(key="samples_real").check()
    at = run(at)
    warnings = [w.value for w in at.warning]
    assert any("no privacy guarantee" in w for w in warnings)  # the page's own sentence
    assert not any("REWORDED" in w for w in warnings)  # the notice is not repeated under it
