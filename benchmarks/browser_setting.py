"""The shared setting in Chromium at 1024 x 768: the time of a page switch with the setting
kept (issue 21), Privacy -> Samples by the "Next step" link and back by the sidebar.

    python benchmarks/browser_setting.py           # digits; MNIST too if DPCDA_DATA_DIR has it

Starts `streamlit run app.py` (tests/browser/serving.py: free port, private DPCDA_HOME,
offline), drives the system Chromium with Playwright and prints one line per switch: wall-clock
seconds from the click until the new page's run is over and its ε is on the page, best and
median of the repeats, and whether the ε read on both pages agree (the mixing's and, with
dp-center, the release's: both pages state both). "First" includes the Samples page's first
imports and its pictures (digits: the release, drawn at once; MNIST at T = N: its live preview).
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.browser.serving import CHROMIUM, CHROMIUM_ARGS, IDLE, start_server, stop_server  # noqa: E402

CURRENT = "[data-testid^='stCaption']"
REPEATS = 4


def _samples_eps(page) -> tuple[str, str]:
    """(the release's ε, the mixing's ε): the same unless the setting's normalisation is
    dp-center (MNIST's default), whose statistics the release's ε also composes."""
    text = page.locator(CURRENT).filter(has_text="Current setting:").first.inner_text()
    release = text.split("ε = ", 1)[1].split(" ", 1)[0]
    mixing = re.search(r"the mixing alone: ([0-9.,]+),", text)
    return release, mixing.group(1) if mixing else release


def _privacy_release_eps(page, headline: str) -> str:
    """The ε a release at this setting spends, as the Privacy page states it (the headline, or
    its dp-center sentence)."""
    note = page.get_by_test_id("stAlertContentInfo").filter(has_text="A release with dp-center")
    if note.count():
        return re.search(r"spend ε = ([0-9.,]+)", note.first.inner_text()).group(1)
    return headline


def _switch(page, click, url_part: str, ready) -> float:
    t0 = time.perf_counter()
    click()
    page.wait_for_url(re.compile(url_part), timeout=180_000)
    ready()
    page.wait_for_selector(IDLE, timeout=180_000)
    return time.perf_counter() - t0


def measure(browser, url: str, dataset: str) -> None:
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.goto(f"{url}/privacy?dataset={dataset}&l=16&sigma_x=0.5", wait_until="domcontentloaded")
    page.get_by_test_id("stMetricValue").first.wait_for(timeout=180_000)
    page.wait_for_selector(IDLE, timeout=180_000)
    to_samples, to_privacy, agree = [], [], []
    for _ in range(REPEATS):
        eps = page.get_by_test_id("stMetricValue").first.inner_text()
        release = _privacy_release_eps(page, eps)

        def samples_ready():
            page.locator(CURRENT).filter(has_text="Current setting:").first.wait_for(timeout=180_000)
            page.locator('[data-testid="stMain"] img').first.wait_for(timeout=180_000)  # release or preview

        to_samples.append(_switch(
            page, lambda: page.get_by_test_id("stPageLink").filter(has_text="Next step").first.click(),
            r"/samples\?", samples_ready))
        agree.append(_samples_eps(page) == (release, eps))
        to_privacy.append(_switch(
            page, lambda: page.get_by_test_id("stSidebarNav").get_by_role("link", name="Privacy").click(),
            r"/privacy\?", lambda: page.get_by_test_id("stMetricValue").first.wait_for(timeout=180_000)))
    for name, times in (("Privacy -> Samples", to_samples), ("Samples -> Privacy", to_privacy)):
        print(f"{dataset}: {name}: first {times[0]:.2f} s, then best {min(times[1:]):.2f} s, "
              f"median {statistics.median(times[1:]):.2f} s; same ε on both pages: {all(agree)}")
    page.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    from dpcda.data import available_datasets

    present = {a.name for a in available_datasets() if a.present}
    with tempfile.TemporaryDirectory() as home:
        proc, url = start_server(Path(home))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for dataset in [d for d in ("digits", "mnist") if d in present]:
                    measure(browser, url, dataset)
                browser.close()
        finally:
            stop_server(proc)


if __name__ == "__main__":
    main()
