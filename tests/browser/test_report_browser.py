"""The stakeholder report opens in Chromium with no network and shows every section.

The report is built from the real library on digits (a release, its pictures, fidelity) with a
results store of finished jobs, written to a file and opened as ``file://`` in an offline
browser context where every request other than the file itself is aborted and recorded: none
may be attempted. Needs /usr/bin/chromium (see test_privacy_browser.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))

from dpcda.report import NOT_MEASURED, SECTIONS, build_report, gather_report_inputs  # noqa: E402
from report_data import full_inputs  # noqa: E402
from test_report import JOBS, fake_store  # noqa: E402
from tests.browser.test_privacy_browser import ARTIFACTS, browser  # noqa: E402,F401


def _open_offline(browser, path: Path):  # noqa: F811
    ctx = browser.new_context(offline=True, viewport={"width": 1024, "height": 768})
    page = ctx.new_page()
    url = path.resolve().as_uri()
    attempted: list[str] = []

    def route(r):
        attempted.append(r.request.url)
        if r.request.url == url:
            r.continue_()
        else:
            r.abort()

    page.route("**/*", route)
    page.on("request", lambda req: attempted.append(req.url) if req.url != url else None)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url, wait_until="load")
    return ctx, page, url, attempted, errors


def _check(page, url, attempted, errors, *, images: int, charts: int) -> None:
    headings = page.locator("section > h2").all_inner_texts()
    assert headings == [title for _, title in SECTIONS]
    for sid, _ in SECTIONS:
        assert page.locator(f"section#{sid}").is_visible()
    imgs = page.evaluate("[...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
    assert len(imgs) == images and all(c and w > 0 and h > 0 for c, w, h in imgs), imgs
    svgs = page.evaluate("[...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().width)")
    assert len(svgs) == charts and all(w > 100 for w in svgs), svgs
    assert [u for u in attempted if u != url] == [] and errors == []


def test_report_of_digits_opens_offline_with_every_section(browser, tmp_path):  # noqa: F811
    store = fake_store(JOBS)
    html = build_report(gather_report_inputs("digits", l=16, epsilon=10.0, store=store))
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    ctx, page, url, attempted, errors = _open_offline(browser, path)
    try:
        _check(page, url, attempted, errors, images=2, charts=2)
        assert page.locator("section#compare").inner_text().count(NOT_MEASURED) == 1
        assert "ε = " in page.locator("section#privacy .headline").inner_text()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report_digits.png"), full_page=True)
    finally:
        ctx.close()


def test_report_with_every_table_filled_opens_offline(browser, tmp_path):  # noqa: F811
    path = tmp_path / "full.html"
    path.write_text(build_report(full_inputs()), encoding="utf-8")
    ctx, page, url, attempted, errors = _open_offline(browser, path)
    try:
        _check(page, url, attempted, errors, images=2, charts=2)
        assert page.locator(f"text={NOT_MEASURED}").count() == 0
        assert page.locator("section#compare table tr").count() == 3
    finally:
        ctx.close()
