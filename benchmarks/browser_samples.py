"""Samples page in Chromium at 1024 x 768: time to the first preview, to a redraw, to MNIST's
live preview (first and after each change of l), to MNIST's full release and its l x epsilon mosaic.

    python benchmarks/browser_samples.py            # MNIST rows only if DPCDA_DATA_DIR has it
    python benchmarks/browser_samples.py --noise    # also: the mosaic's noise, before / after

Starts `streamlit run app.py` on a free port with a private, temporary DPCDA_HOME (offline),
drives the system Chromium (/usr/bin/chromium, never downloaded) with Playwright, prints one
line per figure and kills the server at the end. Screenshots go to
benchmarks/artifacts/ (gitignored). Times are wall-clock seconds from the action until the
images are on the page and the script has finished; "cold" includes Python's first imports.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The browser tests' server and browser settings (the same server, stopped alike).
from tests.browser.serving import CHROMIUM, IDLE, start_server, stop_server  # noqa: E402
from tests.browser.serving import CHROMIUM_ARGS as ARGS  # noqa: E402

ART = ROOT / "benchmarks" / "artifacts"
IMG = '[data-testid="stImage"] img, [data-testid="stImageContainer"] img'


def wait_images(page, n: int, t0: float, timeout: float = 180.0) -> float:
    """Seconds from ``t0`` until at least ``n`` images are loaded and the run is over (this
    script's clock); the page's own clock at that moment is kept in ``window.__imagesAt``."""
    page.evaluate("window.__imagesAt = null")
    page.wait_for_function(
        f"(() => {{ const ok = document.querySelectorAll('{IMG}').length >= {n} && "
        f"[...document.querySelectorAll('{IMG}')].every(i => i.complete && i.naturalWidth > 0);"
        " if (ok && window.__imagesAt === null) window.__imagesAt = performance.now();"
        " return ok; })()", timeout=timeout * 1000)
    first = time.monotonic() - t0
    page.wait_for_selector(IDLE, timeout=timeout * 1000)
    return first


def page_clock(page) -> float:
    """Seconds from the page's navigation start until :func:`wait_images` saw its images (the
    page's own clock: without this script's polling and round trips)."""
    return page.evaluate("window.__imagesAt") / 1000


def first_src(page) -> str:
    return page.locator(IMG).first.get_attribute("src") or ""


def mosaic_noise_ratio(name: str = "digits") -> None:
    """In one process: the mosaic's 12 noise levels by a full calibration each (before) against
    :func:`dpcda.dashboard.samples.mosaic_sigmas` (a few cheap upper-bound evaluations per cell)."""
    import math

    from dpcda.dashboard import samples as smp
    from dpcda.data import load_dataset
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    ds = load_dataset(name)
    kw = dict(T=smp.default_T(ds.n_train), c=1.0, delta=1e-5, accountant=DEFAULT_ACCOUNTANT,
              conversion="mironov", max_alpha=256, allocation="proportional", n=ds.n_train,
              class_counts=tuple(ds.class_counts), d_x=ds.d_x, d_y=ds.n_classes)
    finite = [e for e in smp.MOSAIC_EPS if math.isfinite(e)]
    t0 = time.monotonic()
    full = {(l, e): smp.noise_for("epsilon", e, l=l, **kw).sigma
            for l in smp.MOSAIC_L for e in finite}
    t_full = time.monotonic() - t0
    t0 = time.monotonic()
    rows = smp.mosaic_sigmas(smp.MOSAIC_L, smp.MOSAIC_EPS, start=0.3,
                             eps_at=lambda l, s: smp.quick_epsilon(s, l=l, **kw))
    t_rows = time.monotonic() - t0
    extra = max(rows[(l, e)] / full[(l, e)] for l, e in full)
    print(f"{name} mosaic noise ({DEFAULT_ACCOUNTANT}): 12 full calibrations {t_full:.1f} s, "
          f"mosaic_sigmas {t_rows:.1f} s ({t_full / t_rows:.1f}x faster), at most {100 * (extra - 1):.1f}% "
          "more noise than the full calibration")


def main() -> None:
    from playwright.sync_api import sync_playwright

    if "--noise" in sys.argv:
        mosaic_noise_ratio()

    ART.mkdir(exist_ok=True)
    data = Path(os.environ.get("DPCDA_DATA_DIR", "")) / "mnist"
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = b.new_page(viewport={"width": 1024, "height": 768})
                t0 = time.monotonic()
                page.goto(f"{url}/samples?dataset=digits", wait_until="domcontentloaded")
                cold = wait_images(page, 2, t0)
                print(f"digits first preview, cold server (first visit): {page_clock(page):.2f} s "
                      f"by the page's clock [{cold:.2f} s harness]")
                page.screenshot(path=str(ART / "samples_first_preview_1024x768.png"))
                box = page.locator(IMG).first.bounding_box()
                print(f"first image bottom edge at y = {box['y'] + box['height']:.0f} px "
                      f"(fold at 768): {'above' if box['y'] + box['height'] <= 768 else 'BELOW'}")
                page2 = b.new_page(viewport={"width": 1024, "height": 768})
                t0 = time.monotonic()
                page2.goto(f"{url}/samples?dataset=digits&explain=0", wait_until="domcontentloaded")
                cached = wait_images(page2, 2, t0)
                print(f"digits first preview, warm server (new tab, cached): {page_clock(page2):.2f} s "
                      f"by the page's clock [{cached:.2f} s harness]")
                slider = page.get_by_test_id("stSlider").filter(has_text="Order of mixture l") \
                    .get_by_role("slider")
                before = first_src(page)
                slider.focus()
                t0 = time.monotonic()
                slider.press("ArrowRight")  # l = 4 -> 5: a new calibration and release
                page.wait_for_function(f"(document.querySelector('{IMG}')||{{}}).src && "
                                       f"document.querySelector('{IMG}').src !== {before!r}",
                                       timeout=120_000)
                print(f"digits redraw after l 4 -> 5 (new calibration): {time.monotonic() - t0:.2f} s")
                page.wait_for_selector(IDLE, timeout=120_000)
                if not (data / "raw").exists() and not data.exists():
                    print("MNIST: skipped (DPCDA_DATA_DIR has no mnist/)")
                    return
                page.get_by_test_id("stSelectbox").filter(has_text="Dataset").first.click()
                t0 = time.monotonic()
                page.get_by_role("option", name="MNIST").first.click()
                page.get_by_role("button", name=re.compile("Generate")).wait_for(timeout=120_000)
                print(f"MNIST live preview after choosing the dataset (its first load, "
                      f"normalisation and calibration included): {wait_images(page, 1, t0):.2f} s")
                page.screenshot(path=str(ART / "samples_mnist_preview_1024x768.png"))
                for step in ("ArrowRight", "ArrowRight", "ArrowLeft"):  # each a new calibration
                    before = first_src(page)
                    slider = page.get_by_test_id("stSlider").filter(has_text="Order of mixture l") \
                        .get_by_role("slider")
                    slider.focus()
                    t0 = time.monotonic()
                    slider.press(step)
                    page.wait_for_function(f"(document.querySelector('{IMG}')||{{}}).src && "
                                           f"document.querySelector('{IMG}').src !== {before!r}",
                                           timeout=120_000)
                    print(f"MNIST live preview after an l change ({step}): "
                          f"{time.monotonic() - t0:.2f} s")
                    page.wait_for_selector(IDLE, timeout=120_000)
                t0 = time.monotonic()
                page.get_by_role("button", name=re.compile("Generate")).click()
                page.get_by_text("Class means · denoised").first.wait_for(timeout=300_000)
                print(f"MNIST full release (T = N = 60,000) after Generate: "
                      f"{wait_images(page, 2, t0, timeout=300):.2f} s")
                page.screenshot(path=str(ART / "samples_mnist_1024x768.png"))
                n = page.locator(IMG).count()
                t0 = time.monotonic()
                page.get_by_text("Show the l × ε mosaic").click()
                print(f"MNIST l x eps mosaic (16-20 cells, the setting's column among them): "
                      f"{wait_images(page, n + 16, t0, timeout=500):.2f} s")
                b.close()
        finally:
            stop_server(proc)


if __name__ == "__main__":
    main()
