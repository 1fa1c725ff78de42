"""The Choose page in Chromium (issue 21, item 5): a candidate added, chosen, its report
downloaded (HTML, and PDF where the server has a browser), named for the setting; on paper
the summary and the candidates fill the first page alone and nothing dead is printed.
Needs /usr/bin/chromium (see test_privacy_browser.py)."""

from __future__ import annotations

import re
from pathlib import Path

from dpcda.report.pdf import pdf_available
from tests.browser.serving import IDLE
from tests.browser.test_privacy_browser import browser, server  # noqa: F401

LOAD_MS = 120_000
REPORT_MS = 180_000
A4_CSS_PX = (680, 1009)  # A4 less the report's 15 mm margins, at 96 CSS px per inch


def _download(page, label: str):
    button = page.get_by_test_id("stDownloadButton").filter(has_text=label)
    with page.expect_download(timeout=REPORT_MS) as got:
        button.get_by_role("button").click()
    return got.value


def test_a_candidate_chosen_and_its_report_downloaded(browser, server, tmp_path):  # noqa: F811
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server}/choose?dataset=digits&l=4&sigma_x=1", timeout=LOAD_MS)
    page.wait_for_selector(IDLE, timeout=LOAD_MS)
    page.get_by_role("button", name="Add this setting as a candidate").click()
    page.get_by_text("The report's first page:").wait_for(timeout=LOAD_MS)
    page.wait_for_selector(IDLE, timeout=LOAD_MS)
    assert page.get_by_test_id("stException").count() == 0 and not errors
    assert "Recommendation: Candidate A (the only one compared)" in page.inner_text("body")

    html = _download(page, "Download report (HTML)")
    assert re.fullmatch(r"dpcda_report_digits_l4_eps[0-9.]+\.html", html.suggested_filename)
    saved = tmp_path / html.suggested_filename
    html.save_as(saved)
    if pdf_available():
        pdf = _download(page, "Download report (PDF)")
        assert pdf.suggested_filename == saved.stem + ".pdf"
        assert Path(pdf.path()).read_bytes()[:5] == b"%PDF-"
    page.close()

    paper = browser.new_page(viewport={"width": A4_CSS_PX[0], "height": A4_CSS_PX[1]})
    try:
        paper.goto(saved.resolve().as_uri())
        paper.emulate_media(media="print")
        assert paper.locator("section").first.get_attribute("id") == "summary"
        # summary and candidates start on the first page (the report's first lines now also say
        # which numbers are outside ε, issue 26, which can push the table's end to page 2)
        top = paper.evaluate("document.querySelector('#candidates').getBoundingClientRect().top")
        assert top < A4_CSS_PX[1] * 0.8, top
        dead = paper.evaluate("[...document.querySelectorAll('details, nav')]"
                              ".filter(e => e.getClientRects().length > 0).length")
        assert dead == 0  # no folded JSON, no in-page links on paper
        assert paper.evaluate("getComputedStyle(document.querySelector('.details')).breakBefore") == "page"
    finally:
        paper.close()
