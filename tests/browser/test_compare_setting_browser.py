"""Compare shares the setting, in Chromium (issue 21): Privacy -> Compare keeps the dataset and δ
(MNIST, not Compare's own digits; δ = 1e-6, not its 1e-5), and a link opens Compare at the
link's ε. Needs /usr/bin/chromium (see test_privacy_browser.py: a private DPCDA_HOME, a free
port, the server started and stopped)."""

from __future__ import annotations

import re

from tests.browser.serving import IDLE
from tests.browser.test_privacy_browser import browser, server  # noqa: F401

LOAD_MS = 120_000


def _idle(page) -> None:
    page.wait_for_selector(IDLE, timeout=LOAD_MS)


def _compare_head(page) -> str:
    """Compare's table heading: "<dataset>, ε = <target>"."""
    head = page.get_by_test_id("stMain").locator("h3").filter(has_text="ε =").first
    head.wait_for(timeout=LOAD_MS)
    return head.inner_text()


def _delta(page) -> str:
    slider = page.get_by_test_id("stSidebar").get_by_test_id("stSlider").filter(has_text="δ").first
    return slider.get_by_test_id("stSliderThumbValue").inner_text()


def test_privacy_then_compare_keeps_the_dataset_and_delta(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server}/privacy?dataset=mnist&delta=1e-6", wait_until="domcontentloaded")
    page.get_by_test_id("stMetricValue").first.wait_for(timeout=LOAD_MS)
    _idle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
    page.wait_for_url(re.compile(r"/compare(\?.*)?$"), timeout=LOAD_MS)
    page.locator("h1").filter(has_text="Compare").wait_for(timeout=LOAD_MS)
    _idle(page)
    assert _compare_head(page).startswith("MNIST, ε = ")
    assert _delta(page) == "1e-6"
    assert "dataset=mnist" in page.url and "delta=1e-06" in page.url  # and the address says so
    assert page.get_by_test_id("stException").count() == 0 and not errors

    page.goto(f"{server}/compare?dataset=mnist&epsilon=1&delta=1e-5", wait_until="domcontentloaded")
    _idle(page)
    assert _compare_head(page) == "MNIST, ε = 1"  # a link: the ε it carries, not a paper column
    assert _delta(page) == "1e-5"
    page.close()
