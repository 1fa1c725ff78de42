"""Issue 29 in Chromium: every page opened with a crafted link (a picture from another host, a
link inside the app's own warning, formatting, HTML, a formula, a colour, icons, bare links,
backticks, line breaks) draws the link's text as typed, no element from it, and no request
leaves the browser for another host. Needs /usr/bin/chromium (see test_privacy_browser.py);
the server and its workers are stopped by the fixture."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.browser.serving import IDLE
from tests.browser.test_privacy_browser import browser, server  # noqa: F401
from tests.markdown_check import PAYLOADS, seen

LOAD_MS = 120_000
FIELDS = ("dataset", "l", "sigma_x", "accountant", "allocation", "normalize", "conversion", "delta")
HOSTILE = dict(zip(FIELDS, PAYLOADS))
CANDIDATES = ";".join([f"{x}~dataset:{p}" for x, p in zip("ABC", PAYLOADS[:3])]
                      + ["x"] * 5000)  # 10 kB (the server refuses an address over 64 kB)
PAGES = {  # path -> the address's other values (besides the setting's)
    "privacy": {},
    "samples": {},
    "utility": {"sweep": PAYLOADS[1]},
    "compare": {"compare": PAYLOADS[0]},
    "choose": {"candidates": CANDIDATES, "chosen": PAYLOADS[4]},
}
# What a payload could become inside the app's messages (the page's own bold lead aside).
FOREIGN = ("a, img, em, del, s, code, pre, h1, h2, h3, h4, h5, h6, ul, ol, blockquote, table, "
           ".katex, [role=img], .stMarkdownColoredText, streamlit-help-icon")
# The messages that echo the address (the page's other boxes have code and bold of their own).
READ_ALERTS = f"""() => [...document.querySelectorAll('[data-testid=stAlertContainer]')]
  .filter(a => /partly refused|from the address/.test(a.innerText)).map(a => ({{
    text: a.innerText.replaceAll('\\u2060', ''),
    foreign: [...a.querySelectorAll({FOREIGN!r})].map(e => e.outerHTML.slice(0, 200)),
    strong: [...a.querySelectorAll('strong')].map(e => e.innerText),
}}))"""


@pytest.mark.browser
def test_a_crafted_link_draws_its_text_as_typed_and_fetches_nothing(server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    outside: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: outside.append(r.url)
            if not r.url.startswith((server, "data:", "blob:")) else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for path, extra in PAGES.items():
            outside_before = len(outside)
            page.goto(f"{server}/{path}?" + urlencode({**HOSTILE, **extra}), timeout=LOAD_MS)
            page.wait_for_selector(IDLE, timeout=LOAD_MS)
            page.get_by_text("partly refused").first.wait_for(timeout=LOAD_MS)
            page.wait_for_selector(IDLE, timeout=LOAD_MS)
            alerts = page.evaluate(READ_ALERTS)
            text = " ".join(" ".join(a["text"].split()) for a in alerts)
            assert "The link's setting was partly refused" in text, (path, text)
            for p in list(HOSTILE.values()) + [v for k, v in extra.items() if k != "candidates"]:
                assert seen(p)[:20] in text, (path, p, text)
            assert [a["foreign"] for a in alerts if a["foreign"]] == [], path
            own = {"The link's setting was partly refused; the rest is kept.",
                   "The link's candidates were partly refused; the rest is kept."}
            assert {s for a in alerts for s in a["strong"]} <= own, path
            if path == "choose":
                assert "5,000 more candidates ignored" in text and len(text) < 6000
            assert page.get_by_test_id("stException").count() == 0, path
            assert outside[outside_before:] == [], path
    finally:
        page.close()
    assert outside == [] and errors == []


LABELS = PAYLOADS[:3]  # an uploaded file's labels (a picture from another host among them)
UPLOAD_NAME = "__b__ [Click here](https:evil.example) $x$ :smile: <img src=x>.csv"


@pytest.mark.browser
def test_an_uploads_name_and_labels_draw_as_typed_and_fetch_nothing(server, browser):  # noqa: F811
    rows = [f"{LABELS[k]},{i % 3},{(i + k) % 5},{i % 2},{k}" for k in range(3) for i in range(8)]
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url)
            if not r.url.startswith((server, "data:", "blob:")) else None)
    try:
        page.goto(f"{server}/samples?dataset=digits&l=1&sigma_x=0.5", timeout=LOAD_MS)
        page.wait_for_selector(IDLE, timeout=LOAD_MS)
        page.get_by_test_id("stSelectbox").filter(has_text="Dataset").first.click()
        page.get_by_role("option", name="upload a CSV / NPZ").click()
        page.wait_for_selector(IDLE, timeout=LOAD_MS)
        shape = page.get_by_label("Image shape C,H,W (CSV only; empty = tabular)")
        shape.fill("1,2,2")
        shape.press("Enter")
        page.wait_for_selector(IDLE, timeout=LOAD_MS)
        page.locator("input[type=file]").set_input_files(files=[{
            "name": UPLOAD_NAME, "mimeType": "text/csv", "buffer": ("\n".join(rows) + "\n").encode()}])
        page.get_by_text("Rows, top to bottom").first.wait_for(timeout=LOAD_MS)
        page.wait_for_selector(IDLE, timeout=LOAD_MS)
        shown = page.evaluate(f"""() => [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
          .filter(c => /top to bottom|classes, d =/.test(c.innerText)).map(c => ({{
            text: c.innerText.replaceAll('\\u2060', ''),
            foreign: [...c.querySelectorAll({FOREIGN!r})].map(e => e.outerHTML.slice(0, 200))}}))""")
        text = " ".join(" ".join(c["text"].split()) for c in shown)
        for p in (*LABELS, UPLOAD_NAME):
            assert seen(p) in text, (p, text)
        assert [c["foreign"] for c in shown if c["foreign"]] == []
        assert page.get_by_test_id("stException").count() == 0
    finally:
        page.close()
    assert outside == []
