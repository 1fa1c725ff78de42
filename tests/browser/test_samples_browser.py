"""Real-browser test of the Samples page: settings survive a dataset whose files are missing.

A reviewer found that picking a dataset without files (the page stops before its release
controls) and then a dataset that loads reset every setting to its minimum in the browser,
and Generate used those values. AppTest does not reproduce this (it keeps widget state that the
browser session loses), so this runs in Chromium. Fixtures: see test_privacy_browser.py.
"""

from __future__ import annotations

import re
import time

from tests.browser.test_privacy_browser import ARTIFACTS, _wait_idle, browser, server  # noqa: F401


def _wait_value(slider, value: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while slider.get_attribute("aria-valuetext") != value:
        assert time.monotonic() < deadline, slider.get_attribute("aria-valuetext")
        time.sleep(0.1)


def _pick(page, label: str, option: str) -> None:
    page.get_by_test_id("stSelectbox").filter(has_text=label).first.click()
    page.get_by_role("option", name=re.compile(option)).first.click()
    page.wait_for_timeout(300)
    _wait_idle(page)


def test_settings_survive_a_dataset_whose_files_are_missing(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.goto(f"{server}/samples?dataset=digits&epsilon=10", wait_until="domcontentloaded")
    page.get_by_test_id("stSidebar").wait_for(timeout=60_000)
    _wait_idle(page)
    slider = (page.get_by_test_id("stSlider").filter(has_text="Order of mixture l")
              .get_by_role("slider"))
    slider.wait_for(timeout=60_000)
    assert slider.get_attribute("aria-valuetext") == "4"
    slider.focus()
    slider.press("ArrowRight")
    _wait_value(slider, "5")
    _wait_idle(page)

    _pick(page, "Dataset", "CIFAR")  # no CIFAR-10 files offline: how to get them, no release controls
    page.get_by_test_id("stAlertContentInfo").first.wait_for(timeout=60_000)
    assert "not on this server" in page.get_by_test_id("stAlertContentInfo").first.inner_text()

    _pick(page, "Dataset", "digits")
    slider.wait_for(timeout=60_000)
    _wait_idle(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "samples_after_missing_dataset.png"))
    assert slider.get_attribute("aria-valuetext") == "5", "l was reset after the missing dataset"
    eps = page.get_by_test_id("stTextInput").filter(has_text="Target ε").locator("input")
    assert float(eps.input_value()) == 10.0, eps.input_value()
    page.close()


def test_preview_is_drawn_on_first_load_above_the_fold_at_1024x768(server, browser):  # noqa: F811
    """The teacher's projector: digits' samples and class means appear without a click, and the
    grid ends above the fold."""
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.goto(f"{server}/samples?dataset=digits&epsilon=10", wait_until="domcontentloaded")
    images = page.locator('[data-testid="stImage"] img')
    images.nth(1).wait_for(timeout=120_000)  # the grid and the class means, no button pressed
    _wait_idle(page)
    assert page.get_by_role("button", name="Generate").count() == 0
    box = images.first.bounding_box()
    assert box["y"] + box["height"] <= 768, box
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "samples_first_load_1024x768.png"))
    page.close()
