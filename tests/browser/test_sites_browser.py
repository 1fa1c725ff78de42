"""The Sites page in Chromium: reached from the sidebar, the map and the table drawn, S moved by
the keyboard changes the colluders' ε, and an S the classes do not allow is said above the
table (issue 27 items 4 and 6). Server and Chromium from test_privacy_browser.py."""

from __future__ import annotations

import re

from tests.browser.test_privacy_browser import IDLE, browser, server  # noqa: F401

LOAD_MS = 120_000


def _idle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=LOAD_MS)


def _colluding_eps(page) -> str:
    """ε of threat model (c): the aggregator with t colluding sites (S / (S - t) grows as S
    falls; (b), t = 0, is the same at every S with modular masks)."""
    row = page.locator("tr", has_text="(c) the aggregator with t = 1").first
    return row.locator("td").nth(2).inner_text()


def test_sites_page_moves_with_s_and_says_a_refused_s(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    _idle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Sites").click()
    page.wait_for_url(re.compile(r"/sites(\?.*)?$"), timeout=LOAD_MS)
    page.get_by_role("heading", name=re.compile("Sites: one release")).wait_for(timeout=LOAD_MS)
    _idle(page)
    # digits: its public class sizes only
    page.get_by_test_id("stSelectbox").filter(has_text="Dataset").first.click()
    page.get_by_role("option", name=re.compile("digits")).first.click()
    _idle(page)
    assert page.get_by_test_id("stPlotlyChart").count() >= 2  # the map and the mixes
    before = _colluding_eps(page)
    slider = page.get_by_role("slider").nth(1)  # ε, then S
    slider.focus()
    slider.press("ArrowRight")  # S = 12
    for _ in range(120):  # the rerun starts a moment after the key
        _idle(page)
        if page.get_by_text("12 sites, iid split").count():
            break
    after = _colluding_eps(page)
    assert after != before and float(after) > 0
    assert page.get_by_text("Local mode refused at this S").count() == 0
    slider.press("End")  # S = 100: digits has about 13 records of a class per 10 sites
    warn = page.get_by_text("Local mode refused at this S")
    warn.wait_for(timeout=LOAD_MS)
    _idle(page)
    assert warn.count() == 1 and "sites=100 is more than the classes allow" in \
        page.get_by_test_id("stAlert").first.inner_text()
    assert page.get_by_test_id("stException").count() == 0 and not errors, errors
    page.close()
