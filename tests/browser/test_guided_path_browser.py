"""Acceptance (issue 10): the guided path on digits in Chromium at 1024×768.

Home → Privacy → Samples → Utility → Compare → report download, each page reached the way a
visitor would (Home's step link, then the sidebar), with no exception on any page (no
``stException`` element, no uncaught page error, no console error) and a screenshot of every
step. The report is downloaded from Compare's sidebar button (``page.expect_download``), saved,
and opened as ``file://`` in a new offline browser context where every other request is
aborted and recorded (none may be attempted): every section heading must be there.
Screenshots go to ``$DPCDA_SCREENSHOTS`` when set, else to pytest's ``tmp_path`` (never into
the repository). The server (private ``DPCDA_HOME``, offline) and Chromium come from
test_privacy_browser.py; the server and any worker it started are stopped at the end of the
module.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from dpcda.report.formatting import fmt_int
from dpcda.data.presets import get_preset
from dpcda.report import SECTIONS
from dpcda.report.pdf import pdf_available
from tests.browser.test_privacy_browser import IDLE, browser, server  # noqa: F401
from tests.browser.test_report_browser import _open_offline

LOAD_MS = 120_000  # a page's first run on a busy 2-core machine can take half a minute
REPORT_MS = 180_000  # the report generates a release when clicked
STEPS = ("Choose ε", "See the data", "Measure utility", "Compare and decide")


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("DPCDA_SCREENSHOTS") or tmp_path / "guided-path")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _no_exception(page, where: str, errors: list[str]) -> None:
    assert page.get_by_test_id("stException").count() == 0, \
        f"{where}: {page.get_by_test_id('stException').first.inner_text()}"
    assert not errors, f"{where}: {errors}"


def _wait_idle(page) -> None:
    page.wait_for_selector(IDLE, timeout=LOAD_MS)


def _title(page) -> str:
    return page.locator("h1").first.inner_text()


def _open(page, label: str, url_end: str) -> None:
    """Follow the sidebar's navigation link ``label``; wait for the new page's run to finish."""
    old = _title(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=label).click()
    page.wait_for_url(re.compile(f"/{url_end}(\\?.*)?$"), timeout=LOAD_MS)  # the setting in the query
    page.wait_for_function("old => { const h = document.querySelector('h1');"
                           " return h && h.innerText !== old; }", arg=old, timeout=LOAD_MS)
    _wait_idle(page)


def _pick(page, label: str, option: str) -> None:
    page.get_by_test_id("stSelectbox").filter(has_text=label).first.click()
    page.get_by_role("option", name=re.compile(option)).first.click()
    page.wait_for_timeout(300)
    _wait_idle(page)


def test_guided_path_on_digits(server, browser, shots):  # noqa: F811
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}")
            if msg.type == "error" else None)

    # Home: the four steps, in order, each with its link.
    page.goto(server, wait_until="domcontentloaded")
    page.get_by_test_id("stPageLink").first.wait_for(timeout=LOAD_MS)
    _wait_idle(page)
    text = page.get_by_test_id("stMain").inner_text()
    positions = [text.find(f"{i} · {s}") for i, s in enumerate(STEPS, start=1)]
    assert -1 not in positions and positions == sorted(positions), positions
    page.screenshot(path=str(shots / "1-home.png"))
    _no_exception(page, "Home", errors)

    # Step 1, Privacy (from Home's step link): digits, ε readout.
    page.get_by_test_id("stPageLink").filter(has_text="Privacy").first.click()
    page.wait_for_url(re.compile("/privacy(\\?.*)?$"), timeout=LOAD_MS)
    page.get_by_test_id("stMetricValue").first.wait_for(timeout=LOAD_MS)
    _wait_idle(page)
    _pick(page, "Dataset", "digits")
    assert f"N = {fmt_int(get_preset('digits').n)}" in page.get_by_test_id("stMain").inner_text()
    target = page.get_by_test_id("stMetricValue").first.inner_text()  # Compare's target, step 4
    page.screenshot(path=str(shots / "2-privacy.png"))
    _no_exception(page, "Privacy", errors)

    # Step 2, Samples: the dataset chosen on Privacy (the shared setting); images are drawn.
    _open(page, "Samples", "samples")
    assert "dataset=digits" in page.url
    image = page.get_by_test_id("stImage")
    generate = page.get_by_role("button", name=re.compile("Generate"))
    image.or_(generate).first.wait_for(timeout=LOAD_MS)
    if not image.count():  # no preview on first load: generate one
        generate.first.click()
    image.first.wait_for(timeout=LOAD_MS)
    _wait_idle(page)
    page.screenshot(path=str(shots / "3-samples.png"))
    _no_exception(page, "Samples", errors)

    # Step 3, Utility: a new sweep on digits.
    _open(page, "Utility", "utility")
    _pick(page, "Dataset", "digits")
    page.screenshot(path=str(shots / "4-utility.png"))
    _no_exception(page, "Utility", errors)

    # Step 4, Compare: the shared setting's ε as the target, the code and the report button.
    _open(page, "Compare", "compare")
    _pick(page, "Dataset", "digits")
    assert page.get_by_test_id("stExpander").filter(has_text="Reproduce this").count() == 1
    page.screenshot(path=str(shots / "5-compare.png"))
    _no_exception(page, "Compare", errors)

    # Step 5, the report: downloaded from Compare, opened offline, every section there.
    button = page.get_by_test_id("stSidebar").get_by_test_id("stDownloadButton").filter(
        has_text="Download report (HTML)")
    with page.expect_download(timeout=REPORT_MS) as got:
        button.get_by_role("button").click()
    download = got.value
    assert re.fullmatch(rf"dpcda_report_digits_l\d+_eps{re.escape(target)}\.html",
                        download.suggested_filename)
    report = shots / download.suggested_filename
    download.save_as(report)
    _no_exception(page, "Compare (report download)", errors)
    if pdf_available():  # the server prints the same report to PDF with its Chromium
        button = page.get_by_test_id("stSidebar").get_by_test_id("stDownloadButton").filter(
            has_text="Download report (PDF)")
        with page.expect_download(timeout=REPORT_MS) as got:
            button.get_by_role("button").click()
        assert got.value.suggested_filename == report.stem + ".pdf"
        assert Path(got.value.path()).read_bytes()[:5] == b"%PDF-"
        _no_exception(page, "Compare (PDF download)", errors)
    page.close()
    _report_offline(browser, report, shots / "6-report.png", target)


def _report_offline(browser, path: Path, shot: Path, target: str) -> None:  # noqa: F811
    """Open the saved report in a new offline context; no request but the file itself."""
    ctx, page, url, attempted, errors = _open_offline(browser, path)
    try:
        assert page.locator("section > h2").all_inner_texts() == [title for _, title in SECTIONS]
        setting = page.locator("section#data-card table").first.inner_text()
        assert "dataset\tdigits" in setting and f"target ε\t{target}" in setting  # Compare's setting
        page.screenshot(path=str(shot), full_page=True)
        assert [u for u in attempted if u != url] == [] and not errors, (attempted, errors)
    finally:
        ctx.close()
