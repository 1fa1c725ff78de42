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


def test_a_slow_release_is_previewed_live_and_the_mosaic_has_the_settings_column(server, browser):  # noqa: F811
    """A slow release (digits at T = 1,000,000: estimated seconds, as MNIST's at T = N) shows a
    live preview at once, redrawn on a change of l without a click; Generate is offered; the
    mosaic beside it has a column at the setting's own ε."""
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.goto(f"{server}/samples?dataset=digits&epsilon=3&T=1000000", wait_until="domcontentloaded")
    page.get_by_text("Preview: fresh samples").first.wait_for(timeout=120_000)
    img = page.locator('[data-testid="stMain"] img')  # the preview is the page's only image
    img.first.wait_for(timeout=60_000)
    _wait_idle(page)
    assert img.count() == 1
    assert page.get_by_role("button", name=re.compile("Generate the full release")).count() == 1
    assert page.get_by_text(re.compile("^Released samples")).count() == 0
    before = img.first.get_attribute("src")
    slider = (page.get_by_test_id("stSlider").filter(has_text="Order of mixture l")
              .get_by_role("slider"))
    slider.focus()
    slider.press("ArrowRight")  # l = 4 -> 5: a new calibration and a new preview, no click
    _wait_value(slider, "5")
    page.wait_for_function(
        "(b) => { const i = document.querySelector('[data-testid=\"stMain\"] img');"
        " return i && i.src !== b; }", arg=before, timeout=120_000)
    _wait_idle(page)
    assert "Current setting: l = 5," in page.locator('[data-testid="stMain"]').inner_text()
    page.get_by_text("Show the l × ε mosaic").click()
    head = page.get_by_text(re.compile(r"^ε = .* · this setting$"))  # the mosaic's own column
    head.first.wait_for(timeout=300_000)
    _wait_idle(page)
    heads = head.all_inner_texts()
    assert len(heads) == 1 and 2.9 <= float(re.search(r"ε = ([0-9.]+)", heads[0]).group(1)) <= 3.0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "samples_live_preview_mosaic.png"), full_page=True)
    page.close()
