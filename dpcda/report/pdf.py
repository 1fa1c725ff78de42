"""The stakeholder report as PDF, printed offline by a locally installed Chromium or Chrome.

>>> from dpcda.report.pdf import find_browser, html_to_pdf
>>> pdf = html_to_pdf(html) if find_browser() else None   # doctest: +SKIP

The HTML report is self-contained (images as data URIs, inline SVG, a Content-Security-Policy
that forbids outside requests), so the browser needs no network. It runs headless in a
temporary folder (its profile included) that is removed afterwards; on a timeout the browser's
whole process group is killed, so nothing is left running. Without a browser, the HTML prints
to PDF from any browser's print dialog.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

ENV = "DPCDA_CHROMIUM"
CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome",
              "google-chrome-stable")
TIMEOUT_S = 60.0


def find_browser() -> str | None:
    """The browser to print with: ``$DPCDA_CHROMIUM`` when set (taken as given: a bad value is
    reported by :func:`html_to_pdf`, never silently replaced), else the first of
    :data:`CANDIDATES` found on this machine; None when there is none."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen:
        return chosen
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def pdf_available() -> bool:
    """Whether :func:`html_to_pdf` has a browser it can run."""
    browser = find_browser()
    return browser is not None and _executable(browser)


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def html_to_pdf(html: str, *, browser: str | None = None, timeout: float = TIMEOUT_S) -> bytes:
    """``html`` (a self-contained page) printed to PDF (A4, no header or footer) by ``browser``
    (default :func:`find_browser`). ValueError for bad arguments or a browser that is not an
    executable file; RuntimeError when there is no browser, it fails, times out or writes no
    PDF."""
    if not isinstance(html, str) or not html.strip():
        raise ValueError("html must be a non-empty string (the report's HTML)")
    if not timeout > 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
    browser = browser or find_browser()
    if browser is None:
        raise RuntimeError(f"no Chromium or Chrome found to print the PDF: install one or set "
                           f"{ENV} to its path (the HTML report prints to PDF from any browser)")
    if not _executable(browser):
        raise ValueError(f"browser must be an executable Chromium or Chrome file, got {browser!r} "
                         f"(from {ENV} or the argument)")
    with tempfile.TemporaryDirectory(prefix="dpcda-pdf-") as tmp:
        src, out = Path(tmp, "report.html"), Path(tmp, "report.pdf")
        src.write_text(html, encoding="utf-8")
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
               "--no-first-run", "--disable-extensions", f"--user-data-dir={Path(tmp, 'profile')}",
               f"--print-to-pdf={out}", src.as_uri()]
        # Own process group: on a timeout the browser and every helper process it started die.
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            raise RuntimeError(f"the browser took over {timeout:g} s to print the PDF; "
                               "it was stopped") from None
        finally:
            _kill_group(proc)  # helpers that outlived the browser, if any
        data = out.read_bytes() if out.is_file() else b""
    if proc.returncode != 0 or not data.startswith(b"%PDF"):
        last = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()][-1:]
        raise RuntimeError(f"the browser did not print the PDF (exit {proc.returncode})"
                           + (f": {last[0][:200]}" if last else ""))
    return data
