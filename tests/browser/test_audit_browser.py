"""Real-browser test of the Audit section of the Privacy page: Chromium sets the trials,
launches an audit, the page starts a real background worker (the server's private job store)
and, polling, shows the audited bounds beside the accountants' claims and in the plot over l.
Fixtures (the server stops the workers it started): see test_privacy_browser.py."""

from __future__ import annotations

import re

from tests.browser.test_privacy_browser import ARTIFACTS, _wait_idle, browser, server  # noqa: F401


def test_audit_runs_in_a_background_worker_and_is_plotted(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 2400})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server}/privacy", wait_until="domcontentloaded")
    page.get_by_test_id("stMetricValue").first.wait_for(timeout=60_000)
    _wait_idle(page)
    page.get_by_test_id("stSelectbox").filter(has_text="Dataset").first.click()
    page.get_by_role("option", name=re.compile("digits")).first.click()
    _wait_idle(page)
    # The section stays folded until an audit has run on this server: open it.
    page.get_by_text("Show the audit", exact=True).click()
    _wait_idle(page)
    trials = (page.get_by_test_id("stTextInput").filter(has_text="Trials per arm")
              .locator("input"))
    trials.wait_for(timeout=60_000)
    trials.fill("300")
    trials.press("Enter")
    page.wait_for_function(
        "() => document.body.innerText.includes('300 trials per arm')", timeout=60_000)
    _wait_idle(page)
    assert "No finished audit at this setting yet" in page.locator("body").inner_text()
    page.get_by_role("button", name="Run the audit").click()
    # The page polls the store every 2 s and reruns when the job finishes.
    page.wait_for_function(
        "() => document.body.innerText.includes('Audited lower bound on ε (95%)')",
        timeout=180_000)
    _wait_idle(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "privacy_audit.png"), full_page=True)
    text = page.locator("body").inner_text()
    assert "Gaussian-DP estimate of ε" in text
    chart = page.get_by_test_id("stPlotlyChart").filter(has_text="audited lower bound")
    assert chart.count() == 1
    legend = chart.inner_text()
    assert "claimed: class-aware" in legend and "claimed: paper (as published)" in legend
    assert page.get_by_test_id("stException").count() == 0 and not errors, errors
    page.close()
