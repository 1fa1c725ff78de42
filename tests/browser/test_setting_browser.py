"""Issue 21 in Chromium: the setting shared through the guided path and through a link (items 1
and 6), the layout (item 7) and a quiet server (item 8). The server, Chromium and the
helpers come from test_privacy_browser.py; the page switch is timed for the README."""

from __future__ import annotations

import re
import time

import pytest

from tests.browser.serving import inotify_watches, start_server, stop_server
from tests.browser.test_privacy_browser import _wait_idle, browser, server  # noqa: F401

LOAD_MS = 120_000
LINK = "dataset=digits&l=16&sigma_x=0.5&accountant=class-aware"


def _headline(page) -> str:
    return page.get_by_test_id("stMetricValue").first.inner_text()


def _current(page):
    return page.locator("[data-testid^='stCaption']").filter(has_text="Current setting:").first


def _samples_epsilon(page) -> str:
    return _current(page).inner_text().split("ε = ", 1)[1].split(" ", 1)[0]


def test_the_setting_follows_the_guided_path_and_a_link(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(f"{server}/privacy?{LINK}", wait_until="domcontentloaded")
    page.get_by_test_id("stMetricValue").first.wait_for(timeout=LOAD_MS)
    _wait_idle(page)
    on_privacy = _headline(page)
    assert "l=16" in page.url and "dataset=digits" in page.url  # the address carries it
    link = page.get_by_test_id("stPageLink").filter(has_text="Next step")
    start = time.perf_counter()
    link.first.click()
    page.wait_for_url(re.compile(r"/samples\?"), timeout=LOAD_MS)
    _current(page).wait_for(timeout=LOAD_MS)
    _wait_idle(page)
    switch_s = time.perf_counter() - start
    assert _samples_epsilon(page) == on_privacy  # the same setting reads the same ε
    assert "l=16" in page.url and "sigma_x=0.5" in page.url
    print(f"page switch Privacy -> Samples with the setting kept: {switch_s:.2f} s")
    shared = page.url
    page.close()

    fresh = browser.new_page(viewport={"width": 1440, "height": 1000})  # the link, shared
    fresh.goto(shared, wait_until="domcontentloaded")
    _current(fresh).wait_for(timeout=LOAD_MS)
    _wait_idle(fresh)
    assert _samples_epsilon(fresh) == on_privacy
    # Item 7: the sample grid sized to the page, not ~230 px beside empty space.
    box = fresh.get_by_test_id("stImage").first.locator("img").bounding_box()
    assert box and box["width"] > 400, box
    assert fresh.get_by_test_id("stException").count() == 0
    fresh.close()


def test_extreme_targets_say_what_is_reachable(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    # 1e-9 is below what floating point alone adds (issue 26: calibration keeps that share
    # back): refused in words; 1e-4 is reachable and said as ε = 0 at three digits
    for target, said in (("1e-9", "cannot be reached"), ("1e-4", "ε = 0")):
        page.goto(f"{server}/samples?dataset=digits&epsilon={target}", wait_until="domcontentloaded")
        if target == "1e-4":
            _current(page).wait_for(timeout=LOAD_MS)
        else:
            page.get_by_test_id("stAlert").filter(has_text=said).first.wait_for(timeout=LOAD_MS)
        _wait_idle(page)
        text = page.get_by_test_id("stMain").inner_text()
        assert "ZeroDivisionError" not in text and "× the headline" not in text
        assert said in text  # said in words
        assert page.get_by_test_id("stException").count() == 0
    page.close()


def test_audit_trials_survive_a_refused_input(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1440, "height": 2400})
    page.goto(f"{server}/privacy?dataset=digits", wait_until="domcontentloaded")
    page.get_by_test_id("stMetricValue").first.wait_for(timeout=LOAD_MS)
    _wait_idle(page)
    page.get_by_text("Show the audit", exact=True).click()
    _wait_idle(page)
    trials = page.get_by_test_id("stTextInput").filter(has_text="Trials per arm").locator("input")
    trials.wait_for(timeout=LOAD_MS)
    trials.fill("40")
    trials.press("Enter")
    _wait_idle(page)
    T = page.get_by_test_id("stTextInput").filter(has_text="T (synthetic samples)").locator("input")
    T.fill("abc")
    T.press("Enter")
    page.wait_for_function("() => document.body.innerText.includes('No ε yet')", timeout=LOAD_MS)
    _wait_idle(page)
    T.fill("")
    T.press("Enter")
    trials.wait_for(timeout=LOAD_MS)
    _wait_idle(page)
    assert trials.input_value() == "40"
    page.close()


@pytest.mark.parametrize(("watcher", "quiet"), [(None, True), ("watchdog", False)])
def test_the_shipped_config_keeps_the_server_quiet(tmp_path, browser, watcher, quiet):  # noqa: F811
    """Item 8: started as a user starts it (only .streamlit/config.toml), the server holds no
    inotify watch after a browser session; with the watchdog watcher the same count is not
    zero (so this test can fail)."""
    proc, url = start_server(tmp_path, file_watcher=watcher)
    try:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(f"{url}/privacy?dataset=digits", wait_until="domcontentloaded")
        page.get_by_test_id("stMetricValue").first.wait_for(timeout=LOAD_MS)
        _wait_idle(page)
        page.close()
        watches = inotify_watches(proc.pid)
    finally:
        stop_server(proc)
    assert (watches == 0) == quiet, watches
    if quiet:  # (the watchdog control may overflow on a big checkout: the symptom)
        assert "Inotify queue overflowed" not in (tmp_path / "server.log").read_text()
