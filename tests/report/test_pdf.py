"""The report as PDF (dpcda.report.pdf): printed by the local Chromium, offline."""

from __future__ import annotations

import os
import re
import tempfile
import time

import pytest

from dpcda.report import build_report, gather_report_inputs
from dpcda.report.pdf import ENV, find_browser, html_to_pdf, pdf_available

BROWSER = find_browser()
needs_browser = pytest.mark.skipif(
    BROWSER is None or not pdf_available(),
    reason=f"no Chromium or Chrome (looked at ${ENV}, /usr/bin/chromium, chromium, google-chrome)")


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def _media_boxes(pdf: bytes) -> list[list[float]]:
    return [[float(v) for v in m.split()]
            for m in re.findall(rb"/MediaBox\s*\[([-\d.\s]+)\]", pdf)]


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Temporary folders go under tmp_path/t, so a test can see that they are removed."""
    where = tmp_path / "t"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    return where


def _script(path, body: str, mode=0o755):
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(mode)
    return str(path)


@needs_browser
def test_a_tiny_page_prints_to_a_pdf(private_tmp):
    pdf = html_to_pdf("<!doctype html><html><body><h1>Hello</h1><p>ε = 1</p></body></html>")
    assert pdf.startswith(b"%PDF") and pdf.rstrip().endswith(b"%%EOF")
    assert _pages(pdf) == 1
    assert not list(private_tmp.iterdir())  # the temporary folder (and profile) is gone


@needs_browser
def test_the_digits_report_prints_to_a4_pages(monkeypatch, tmp_path, private_tmp):
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "home"))  # an empty results store
    html = build_report(gather_report_inputs("digits", l=4, epsilon=10.0, T=400))
    pdf = html_to_pdf(html)
    assert pdf.startswith(b"%PDF")
    n = _pages(pdf)
    assert n >= 2, n  # the report is longer than one page
    boxes = _media_boxes(pdf)
    assert len(boxes) == n
    for x0, y0, w, h in boxes:  # the print CSS's @page size: A4 (595 x 842 pt), not US Letter
        assert (x0, y0) == (0, 0) and abs(w - 595.3) < 1.5 and abs(h - 841.9) < 1.5, (w, h)
    assert not list(private_tmp.iterdir())


def test_find_browser_takes_the_environment_first(monkeypatch):
    monkeypatch.setenv(ENV, "/opt/some/chrome")
    assert find_browser() == "/opt/some/chrome"
    assert not pdf_available()  # not there: no PDF offered
    monkeypatch.delenv(ENV)
    found = find_browser()
    assert found is None or os.access(found, os.X_OK)


def test_a_browser_that_is_not_executable_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV, _script(tmp_path / "chrome", "exit 0", mode=0o644))
    with pytest.raises(ValueError, match="browser must be an executable Chromium or Chrome file"):
        html_to_pdf("<p>x</p>")
    monkeypatch.setenv(ENV, str(tmp_path))  # a folder
    with pytest.raises(ValueError, match=ENV):
        html_to_pdf("<p>x</p>")


def test_bad_arguments_and_no_browser(monkeypatch):
    with pytest.raises(ValueError, match="html must be"):
        html_to_pdf("  ")
    with pytest.raises(ValueError, match="timeout must be"):
        html_to_pdf("<p>x</p>", timeout=0)
    monkeypatch.setattr("dpcda.report.pdf.find_browser", lambda: None)
    with pytest.raises(RuntimeError, match="no Chromium or Chrome found"):
        html_to_pdf("<p>x</p>")


def test_a_failing_browser_is_reported_and_cleaned_up(tmp_path, private_tmp):
    fails = _script(tmp_path / "fails", "echo 'cannot open display' >&2; exit 3")
    with pytest.raises(RuntimeError, match=r"exit 3\): cannot open display"):
        html_to_pdf("<p>x</p>", browser=fails)
    silent = _script(tmp_path / "silent", "exit 0")  # exits 0 but writes no PDF
    with pytest.raises(RuntimeError, match="did not print the PDF"):
        html_to_pdf("<p>x</p>", browser=silent)
    assert not list(private_tmp.iterdir())


def test_a_hanging_browser_is_stopped_with_its_helpers(tmp_path, private_tmp):
    pid_file = tmp_path / "pid"
    hangs = _script(tmp_path / "hangs", f"echo $$ > {pid_file}; sleep 30 & sleep 30 & wait")
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="took over 1 s"):
        html_to_pdf("<p>x</p>", browser=hangs, timeout=1)
    assert time.monotonic() - start < 10  # not waiting for the helpers' 30 s
    group = int(pid_file.read_text())
    deadline = time.monotonic() + 5  # killed at once; init reaps the orphans a moment later
    while _alive_in_group(group) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive_in_group(group) == []  # the script and both sleeps are gone
    assert not list(private_tmp.iterdir())


def _alive_in_group(group: int) -> list[int]:
    """Processes of process group ``group`` that are not zombies (from /proc)."""
    alive = []
    for entry in os.listdir("/proc"):
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(entry))
    return alive
