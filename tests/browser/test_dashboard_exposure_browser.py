"""Real-browser test of what the dashboard exposes (issue 26, item 5): started as README's
command 1 starts it (the shipped .streamlit/config.toml, no address flag) it listens on this
machine only; the Samples page shows no real record until asked and states what the server has
shown from the data so far."""

from __future__ import annotations

import re

import pytest

from tests.browser.serving import start_server, stop_server, stop_workers
from tests.browser.test_privacy_browser import ARTIFACTS, _wait_idle, browser  # noqa: F401


def listening(port: int) -> list[str]:
    """The local addresses (hex, as /proc/net/tcp* writes them) of the sockets listening on
    ``port``."""
    out = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(name).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, _, state = line.split()[1:4]
            addr, p = local.rsplit(":", 1)
            if state == "0A" and int(p, 16) == port:
                out.append(addr)
    return out


@pytest.fixture(scope="module")
def shipped(request, tmp_path_factory):
    """The dashboard started with the shipped config alone (no --server.address)."""
    home = tmp_path_factory.mktemp("streamlit")
    try:
        proc, url = start_server(home, address=None)
    except RuntimeError as exc:
        pytest.fail(str(exc))

    def stop():
        stop_server(proc)
        stop_workers(home / "dpcda-home")

    request.addfinalizer(stop)
    return url


def test_the_shipped_config_listens_on_loopback_only(shipped):
    port = int(shipped.rsplit(":", 1)[1])
    addrs = listening(port)
    assert addrs and set(addrs) == {"0100007F"}, addrs  # 127.0.0.1, never 0.0.0.0 or ::


def test_real_records_only_on_request_and_the_tally_is_stated(shipped, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.goto(f"{shipped}/samples?dataset=digits&epsilon=10", wait_until="domcontentloaded")
    main = page.locator('[data-testid="stMain"]')
    page.get_by_text("Shown so far").first.wait_for(timeout=120_000)
    _wait_idle(page)
    assert re.search(r"ε = [0-9.]+ \(whole-record, δ = 1e-5\), composed over 1 release",
                     main.inner_text())
    box = page.get_by_role("checkbox", name="Show real records (not private)")
    assert not box.is_checked()
    assert "Computed on the real data, outside ε" in main.inner_text()
    page.get_by_text("Show the l × ε mosaic").click()
    page.get_by_text(re.compile(r"^ε = .* · this setting$")).first.wait_for(timeout=300_000)
    _wait_idle(page)
    heads = page.get_by_text(re.compile(r"^ε = (∞|[0-9.]+)")).all_inner_texts()
    assert heads and not any(h.startswith("ε = ∞") for h in heads), heads
    assert "composed over 13 releases" in main.inner_text()
    page.get_by_test_id("stSidebar").get_by_text("Show real records (not private)").click()
    page.get_by_text("ε = ∞", exact=True).first.wait_for(timeout=120_000)
    _wait_idle(page)
    text = main.inner_text()
    assert "views of real records, not private" in text
    assert "Per-class mean image: real test split (left)" in text
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "samples_real_records_opt_in.png"), full_page=True)
    page.close()
