"""Real-browser test: `streamlit run app.py`, then Chromium (Playwright) moves the l slider.

Needs Debian's Chromium at /usr/bin/chromium (``apt-get install -y chromium``); Playwright
never downloads a browser here. Screenshots go to tests/browser/artifacts/ (gitignored).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.serving import (CHROMIUM, CHROMIUM_ARGS, IDLE, start_server, stop_server,
                                   stop_workers)

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    """The dashboard served by `streamlit run app.py` on a free port (tests.browser.serving);
    it and the workers it started are stopped at the end."""
    home = tmp_path_factory.mktemp("streamlit")
    try:
        proc, url = start_server(home)
    except RuntimeError as exc:
        pytest.fail(str(exc))

    def stop():
        stop_server(proc)
        stop_workers(home / "dpcda-home")

    request.addfinalizer(stop)
    return url


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install it with `apt-get install -y chromium` "
                    "(the browser test drives the system Chromium; it never downloads one)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def _outside_requests(page, server: str) -> list[str]:
    """Collects every request that leaves the dashboard server (the app must make none)."""
    seen: list[str] = []
    page.on("request", lambda req: seen.append(req.url)
            if not req.url.startswith((server, "data:", "blob:")) else None)
    return seen


def _wait_idle(page) -> None:
    page.wait_for_selector(IDLE, timeout=60_000)


def _epsilon(page) -> float:
    text = page.get_by_test_id("stMetricValue").first.inner_text()
    m = re.search(r"[\d,]+(\.\d+)?(e[+-]?\d+)?", text)
    assert m, f"no number in the epsilon readout {text!r}"
    return float(m.group(0).replace(",", ""))


def test_moving_l_slider_with_keyboard_changes_epsilon(server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    # A tall viewport: Streamlit scrolls inside its own container, so "full page" is the viewport.
    page = browser.new_page(viewport={"width": 1400, "height": 2200})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    outside = _outside_requests(page, server)
    page.goto(f"{server}/privacy", wait_until="domcontentloaded")
    metric = page.get_by_test_id("stMetricValue").first
    metric.wait_for(timeout=60_000)
    _wait_idle(page)
    before_text = metric.inner_text()
    before = _epsilon(page)
    # A deep link on a fresh server must still get app.py's navigation (not Streamlit's legacy
    # pages/ listing, which would show common.py as a page): see ensure_app_navigation().
    nav = page.get_by_test_id("stSidebarNav").inner_text()
    assert "Home" in nav and "Privacy" in nav, nav
    assert not any(helper in nav for helper in ("common", "jobs_ui", "charts", "views")), nav

    slider = (page.get_by_test_id("stSlider").filter(has_text="Order of mixture l")
              .get_by_role("slider"))
    slider.first.wait_for(timeout=60_000)  # the headline is drawn early, the sidebar after it
    assert slider.count() == 1
    assert slider.get_attribute("aria-valuetext") == "4"  # the default order of mixture
    slider.focus()
    slider.press("ArrowRight")

    # The rerun has finished when the readout shows a new value and the app is idle again.
    page.wait_for_function(
        "([sel, old]) => { const el = document.querySelector(sel);"
        " return el && el.innerText !== old; }",
        arg=['[data-testid="stMetricValue"]', before_text], timeout=60_000)
    _wait_idle(page)
    after = _epsilon(page)
    page.screenshot(path=str(ARTIFACTS / "privacy_after_l_step.png"), full_page=True)

    assert slider.get_attribute("aria-valuetext") == "5"  # one key press = one step of l
    assert after != before
    # The frontier (inline SVG from the library: no sanitiser may strip it) is drawn with a
    # hover title per measured release, and the every-accountant table is a real table.
    chart = page.locator('svg[aria-label="Privacy-utility frontier"]')
    assert chart.count() == 1 and chart.bounding_box()["height"] > 150
    points = chart.locator("circle.frontier-point")
    assert points.count() >= 2
    assert "l = " in points.first.locator("title").text_content()
    rows = page.locator("table").filter(has_text="what it is").locator("tbody tr").all_inner_texts()
    assert len(rows) >= 6 and any("class-aware-pld" in r and "valid bound" in r for r in rows)
    # At fixed sigma a mixture of more records spends less epsilon (sensitivity 1/l, rate l/N);
    # this is why the paper's Table 3 needs less noise for larger l.
    assert after < before, f"l 4 -> 5 should spend less epsilon at fixed sigma: {before} -> {after}"
    assert page.get_by_test_id("stException").count() == 0
    assert not errors, errors
    assert not outside, f"requests outside the dashboard: {outside}"
    page.close()


def test_home_page_shows_the_diagram_and_links_to_privacy(server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    outside = _outside_requests(page, server)
    page.goto(server, wait_until="domcontentloaded")
    page.get_by_test_id("stGraphVizChart").first.wait_for(timeout=60_000)
    _wait_idle(page)
    assert page.get_by_test_id("stGraphVizChart").locator("svg").count() == 1
    page.screenshot(path=str(ARTIFACTS / "home.png"), full_page=True)
    page.get_by_test_id("stPageLink").filter(has_text="Privacy").first.click()
    page.get_by_test_id("stMetricValue").first.wait_for(timeout=60_000)
    _wait_idle(page)
    assert page.url.split("?")[0].rstrip("/").endswith("/privacy")
    assert page.get_by_test_id("stException").count() == 0
    # No outside requests: no Google-hosted favicon for Material page icons, no fonts, no CDN.
    assert not outside, f"requests outside the dashboard: {outside}"
    page.close()
