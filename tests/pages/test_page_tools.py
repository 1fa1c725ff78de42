"""AppTests of show-code and the report on the Utility and Compare pages (issue 10 items 4, 5):
the "Reproduce this" expander gives the code of what the page shows (the form's settings, or
the sweep / comparison selected), the sidebar's report button builds a report of the same
setting whose accuracy-vs-l or Compare section is the one the page shows. No server path
appears anywhere on either page (item 7).

Each test has its own job store (``DPCDA_HOME`` = a temp folder); jobs run in-process with
:class:`dpcda.jobs.Worker` (nearest class mean: no torch training) or are finished by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcda.report.compare_view import stored_compare_data
from dpcda.jobs import Worker
from dpcda.experiments.sweep import submit_sweep
from dpcda.report import SECTIONS
from dpcda.dashboard.reproduce import reproduce, settings_from_comparison, settings_from_sweep
from tests.pages.page_util import markdown_tables, run
from tests.pages.test_report_ui import media  # noqa: F401  (spies on the offered files)

ROOT = Path(__file__).resolve().parents[2]
UTILITY, COMPARE = (str(ROOT / "pages" / f"{p}.py") for p in ("utility", "compare"))


# ``store`` and ``worker_calls``: tests/pages/conftest.py.


def page_text(at: AppTest) -> str:
    """Every element's content on the page (main area, sidebar, inside expanders)."""
    out: list[str] = []

    def walk(node) -> None:
        if getattr(node, "proto", None) is not None:
            out.append(str(node.proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


def tools(at: AppTest, media) -> tuple[str, str, str]:  # noqa: F811
    """(the expander's library code, the report's file name, the report's HTML)."""
    box = next(e for e in at.expander if e.label.startswith("Reproduce this"))
    show = next(t for t in box.toggle if t.key.endswith("_repro_show"))
    if not show.value:
        assert not box.code  # the code (and the browser's highlighter) only once asked for
        show.set_value(True)
        at.run()
        assert not at.exception, at.exception
        box = next(e for e in at.expander if e.label.startswith("Reproduce this"))
    assert "Download report (HTML)" in [b.proto.label for b in at.sidebar.get("download_button")]
    (name, build), = [(n, b) for n, b in media.deferred.items() if n.endswith(".html")]
    html = build().decode()
    for sid, title in SECTIONS:
        assert f'<section id="{sid}"><h2>{title}</h2>' in html
    return box.code[0].value, name, html


def section(html: str, sid: str) -> str:
    return re.search(f'<section id="{sid}">(.*?)</section>', html, re.S).group(1)


def test_utility_tools_follow_the_form_then_the_selected_sweep(store, worker_calls, media,  # noqa: F811
                                                               tmp_path):
    at = AppTest.from_file(UTILITY, default_timeout=120)
    at.query_params["dataset"] = "digits"  # the shared setting's dataset, as a link gives it
    run(at)
    at.multiselect(key="utility_eps").set_value([10.0])
    at.multiselect(key="utility_ls").set_value([2, 8])
    at.text_input(key="utility_runs").set_value("3")
    media.deferred.clear()  # what the last run offers
    run(at)
    code, name, html = tools(at, media)  # no sweep selected: the form's settings
    assert "'dataset': 'digits'" in code and "epsilons=[10.0], ls=[2, 8], runs=3" in code
    assert name == "dpcda_report_digits_l2_eps10.html"
    assert "<td>dataset</td><td>digits</td>" in html and "<td>target ε</td><td>10</td>" in html
    assert "Not measured yet" in section(html, "accuracy-vs-l")  # an empty store
    assert str(tmp_path) not in page_text(at)

    base = {"dataset": "digits", "train": {"model": "ncm"}}
    shown = submit_sweep(store, base, epsilons=[10.0], ls=[2, 4], runs=2, x="l")
    newer = submit_sweep(store, dict(base, delta=1e-6), epsilons=[20.0], ls=[8], runs=1, x="l")
    Worker(store).run(idle_exit=0)
    media.deferred.clear()
    at = AppTest.from_file(UTILITY, default_timeout=120)
    at.query_params["sweep"] = str(shown)
    run(at)
    code, name, html = tools(at, media)
    want = reproduce(page="utility", **settings_from_sweep(store.get_sweep(shown).config))
    assert code == want.library.strip() and "ls=[2, 4], runs=2" in code and "'model': 'ncm'" in code
    assert name == "dpcda_report_digits_l2_eps10.html"
    acc = section(html, "accuracy-vs-l")
    assert f"Sweep #{shown} (" in acc and f"Sweep #{newer} (" not in acc and "<svg" in acc
    assert "<td>target ε</td><td>10</td>" in html and "<td>δ</td><td>1e-05</td>" in html
    assert str(tmp_path) not in page_text(at)


def test_compare_tools_follow_the_form_then_the_selected_comparison(store, worker_calls, media,  # noqa: F811
                                                                    tmp_path):
    at = run(AppTest.from_file(COMPARE, default_timeout=120))
    at.multiselect(key="compare_mechs").set_value(["dp-cda", "local"])
    at.multiselect(key="compare_l_dp-cda").set_value([4, 16])
    at.text_input(key="compare_runs").set_value("1")
    at.selectbox(key="compare_model").set_value("ncm")
    media.deferred.clear()  # what the last run offers
    run(at)
    code, name, html = tools(at, media)  # nothing launched: the form's settings
    assert "compare_jobs('digits', 10.0, mechanisms=['dp-cda', 'local'], runs=1" in code
    assert "ls={'dp-cda': [4, 16]}" in code and "'model': 'ncm'" in code
    assert name == "dpcda_report_digits_l4_eps10.html"  # DP-CDA's smallest l
    assert "<td>target ε</td><td>10</td>" in html and "<td>dataset</td><td>digits</td>" in html
    assert "Not measured yet" in section(html, "compare")

    at.button(key="compare_launch").click()
    run(at)
    (sweep,) = store.sweeps()
    Worker(store).run(idle_exit=0)
    media.deferred.clear()
    run(at)
    assert at.selectbox(key="compare_sweep").value == sweep.id
    code, name, html = tools(at, media)
    jobs = store.jobs(sweep_id=sweep.id)
    settings = settings_from_comparison(sweep.config, jobs)
    assert code == reproduce(page="compare", **settings).library.strip()
    assert name == f"dpcda_report_digits_l{settings['l']}_eps10.html"  # DP-CDA's best l
    # the page's main table is the report's Compare section
    table = markdown_tables(at, "method")[0].set_index("method")
    got = section(html, "compare")
    assert f"Comparison #{sweep.id} at target ε = 10" in got
    for method in ("DP-CDA", "Local perturbation"):
        assert f"<td>{method}</td>" in got and f"<td>{table.loc[method, 'accuracy']}</td>" in got
    assert [r["accuracy"] for r in stored_compare_data(store, sweep.id)["rows"][:2]] == \
        table.loc[["DP-CDA", "Local perturbation"], "accuracy"].tolist()
    assert str(tmp_path) not in page_text(at)


def test_a_failed_jobs_server_path_is_not_shown(store, worker_calls, tmp_path):
    """Compare shows failed jobs in an error box: the worker's message without the path."""
    from dpcda.experiments.compare import comparison_plan

    plan = comparison_plan("digits", 10.0, mechanisms=["local"], runs=1, ls={}, delta=1e-5, c=1.0,
                           accountants={}, model="ncm", epochs=1)
    sid = store.create_sweep(plan["name"], plan["config"], plan["jobs"])
    job = store.claim("w", ["experiment"])
    where = tmp_path / "datasets" / "digits" / "x.npz"
    store.finish(job.id, "w", "failed", message=f"failed: no such file: '{where}'")
    at = AppTest.from_file(COMPARE, default_timeout=120)
    at.query_params["compare"] = str(sid)
    run(at)
    assert any("no such file: '(a file on the server)'" in e.value for e in at.error)
    assert str(tmp_path) not in page_text(at)
