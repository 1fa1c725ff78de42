"""Real-browser test of the Utility page: an accuracy-versus-σ experiment, end to end.

Chromium picks the experiment, types the σ list and launches; the page starts a real
background worker process (its own job store: the server fixture sets ``DPCDA_HOME``), polls
the store, and draws accuracy against σ with the accountant's ε on a second axis. Fixtures:
see test_privacy_browser.py.
"""

from __future__ import annotations

import re

from dpcda.mechanisms import MECHANISMS
from tests.browser.test_privacy_browser import ARTIFACTS, _wait_idle, browser, server  # noqa: F401


def test_accuracy_versus_sigma_runs_in_a_background_worker(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 2000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server}/utility?dataset=digits", wait_until="domcontentloaded")
    page.get_by_test_id("stSidebar").wait_for(timeout=60_000)
    _wait_idle(page)
    page.get_by_test_id("stSelectbox").filter(has_text="Experiment").first.click()
    page.get_by_role("option", name=re.compile("Accuracy vs σ")).first.click()
    _wait_idle(page)
    box = page.get_by_test_id("stTextInput").filter(has_text="Fixed σ_x values").locator("input")
    box.wait_for(timeout=60_000)
    box.fill("0, 0.3, 1")
    box.press("Enter")
    _wait_idle(page)
    runs = page.get_by_test_id("stTextInput").filter(has_text="Runs per cell").locator("input")
    runs.fill("1")
    runs.press("Enter")
    page.wait_for_function(  # the job count follows the widgets once the rerun is done
        "() => document.body.innerText.includes('3 job(s): 3 σ × 1 l × 1 run(s)')", timeout=60_000)
    _wait_idle(page)
    page.get_by_role("button", name="Launch sweep").click()
    # digits with the default learners (ncm / lda) takes seconds; the page polls every 2 s.
    page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=120_000)
    page.wait_for_function(
        "() => document.body.innerText.includes('3 of 3 job(s) finished')", timeout=120_000)
    _wait_idle(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "utility_vs_sigma.png"), full_page=True)
    text = page.locator("body").inner_text()
    assert "Accuracy vs σ (thesis, Fig. 4.3)" in text
    legend = page.get_by_test_id("stPlotlyChart").first.inner_text()
    acc = MECHANISMS.get("dp-cda").default_accountant  # the Utility page's default accountant
    assert f"ε ({acc})" in legend and "ours" in legend, legend
    assert "Fixed σ" in text and "no privacy guarantee" in text  # how each ε was reached
    assert "Privacy footnote" in text
    assert not page.get_by_test_id("stException").count() and not errors, errors
    page.close()
