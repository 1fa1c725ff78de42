"""First load of every dashboard page in Chromium at 1024 x 768, once the server is warm
(issue 10 item 6: "first load of any page <= 2 s after the server is warm").

Starts `streamlit run app.py` (private DPCDA_HOME, offline; the same server helpers as
benchmarks/browser_privacy.py), opens every page once to warm it (imports, caches; the Samples
page draws its digits preview), then, ``--rounds`` times, opens each page in a new tab and
times it from navigation (a) until the page's title is shown and its script has finished and
(b) until its last element is drawn: the last change to the page once nothing has changed for
0.4 s (Streamlit fetches each kind of element's script when it first appears, so the ε readout,
an image or a chart may be drawn after the script has finished). Prints the medians and ranges
per page, and the machine's load average at the end.

    python benchmarks/browser_pages.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_privacy import (ARGS, CHROMIUM, load, settled_load, start_server,  # noqa: E402
                             stop_server)

PAGES = (("Home", ""), ("Privacy", "privacy"), ("Samples", "samples"), ("Utility", "utility"),
         ("Compare", "compare"))
TITLE = '[data-testid="stMain"] h1'


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {name: [] for name, _ in PAGES}
    drawn: dict[str, list[float]] = {name: [] for name, _ in PAGES}
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for _, path in PAGES:  # warm: every page once
                    page, _ = load(browser, f"{url}/{path}", wait_for=TITLE)
                    page.close()
                for _ in range(args.rounds):
                    for name, path in PAGES:
                        page, seconds, _, settled = settled_load(browser, f"{url}/{path}",
                                                                 wait_for=TITLE)
                        times[name].append(seconds)
                        drawn[name].append(settled)
                        page.close()
                browser.close()
        finally:
            stop_server(proc)
    def fmt(ts: list[float]) -> str:
        return f"{statistics.median(ts):.2f} s ({' / '.join(f'{t:.2f}' for t in ts)})"

    print("first load in a new tab, warm server (target <= 2 s): median (runs)")
    for name in times:
        print(f"{name:8s} title shown, script done: {fmt(times[name])};  "
              f"last element drawn: {fmt(drawn[name])}")
    print(f"load average {os.getloadavg()[0]:.2f} (this benchmark's server and browser included)")


if __name__ == "__main__":
    main()
