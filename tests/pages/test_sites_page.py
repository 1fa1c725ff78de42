"""AppTest tests of the Sites page (pages/sites.py): the map and the design's mixes, every
mode's ε per threat model as S and t move, the measured accuracy, bad input where the reader
looks."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from dpcda.dashboard.sites import accuracy_by_sites, threat_rows
from dpcda.dashboard.sites_accuracy import MODE_TITLES as TITLES
from dpcda.dashboard.sites_data import load_noise
from dpcda.data.presets import get_preset
from dpcda.experiments.sites_table import load_sites_table
from dpcda.report.formatting import fmt_eps
from tests.pages.page_util import markdown_tables, run as rerun

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "sites.py")
DIGITS = tuple(get_preset("digits").class_counts)


def page(dataset: str = "digits") -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["sites_dataset"] = dataset
    return rerun(at)


def figures(at) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def eps_shown(at) -> dict[str, str]:
    (df,) = markdown_tables(at, "mode")
    return {row["threat model"].split(")")[0].strip("("): row["ε"] for _, row in df.iterrows()}


def test_the_page_draws_the_sites_round_the_aggregator_and_their_mixes():
    at = page()
    map_fig, mix_fig = figures(at)[:2]
    pies = [t for t in map_fig["data"] if t["type"] == "pie"]
    assert len(pies) == 10  # S = 10 by default, each with its class mix
    assert all(len(p["values"]) == len(DIGITS) for p in pies)
    bars = [t for t in mix_fig["data"] if t["type"] == "bar"]
    assert len(bars) == len(DIGITS) and all(len(b["x"]) == 10 for b in bars)
    # the iid design: every site the pooled mix, in %, never a split's counts
    share = 100 * DIGITS[0] / sum(DIGITS)
    assert all(abs(v - share) < 1e-9 for v in bars[0]["y"])
    assert any("never a real split's counts" in c.value for c in at.caption)


def test_moving_t_and_s_changes_the_epsilon_shown_as_the_library_accounts_it():
    at = page()
    noise = load_noise()[("digits", 1.0, "scale")]
    shown = eps_shown(at)
    want = {r["key"]: fmt_eps(r["epsilon"]) for r in threat_rows(noise, DIGITS, 10, 1)}
    assert shown["b"] == want["b"] and shown["c"] == want["c"]
    at.slider(key="sites_t").set_value(9)
    rerun(at)
    later = eps_shown(at)
    want9 = {r["key"]: fmt_eps(r["epsilon"]) for r in threat_rows(noise, DIGITS, 10, 9)}
    assert later["c"] == want9["c"] and float(later["c"]) > float(shown["c"])
    assert any("t = 9 colluding" in v for v in markdown_tables(at, "mode")[0]["threat model"])
    at.select_slider(key="sites_S").set_value(20)
    rerun(at)
    moved = eps_shown(at)
    want20 = {r["key"]: fmt_eps(r["epsilon"]) for r in threat_rows(noise, DIGITS, 20, 9)}
    assert moved["b"] == want20["b"] and moved["c"] == want20["c"] != later["c"]
    assert moved["a"] == fmt_eps(noise.epsilon_a)


def test_a_bad_s_says_why_above_the_table_and_shows_no_count():
    at = page()
    assert not at.warning
    at.select_slider(key="sites_S").set_value(50)
    rerun(at)
    (w,) = at.warning
    assert "Local mode refused at this S" in w.value
    assert "sites=50 is more than the classes allow" in w.value and "l=4" in w.value
    assert not any(str(c) in w.value for c in DIGITS)
    (df,) = markdown_tables(at, "mode")
    local = df[df["mode"].str.startswith("local")]
    assert list(local["ε"]) == ["refused"]


def test_a_refused_alpha_is_said_at_its_box_and_in_the_main_area():
    at = page()
    at.radio(key="sites_split").set_value("skewed")
    rerun(at)
    assert not at.info or "No split yet" not in at.info[0].value
    at.text_input(key="sites_alpha").input("0")
    rerun(at)
    assert any("No split yet" in i.value for i in at.info)
    # at its box: the parameter and the allowed values in words
    assert any("alpha" in e.value.lower() and "above 0" in e.value for e in at.sidebar.error)
    assert not at.get("plotly_chart")


def test_skewed_design_mixes_differ_between_sites_and_redraw():
    at = page()
    at.radio(key="sites_split").set_value("skewed")
    at.select_slider(key="sites_S").set_value(4)
    rerun(at)
    mix = figures(at)[1]
    first = [t["y"] for t in mix["data"]]
    assert any(max(y) - min(y) > 1 for y in first)  # percentages: sites differ
    at.button(key="sites_redraw").click()
    rerun(at)
    again = [t["y"] for t in figures(at)[1]["data"]]
    assert again != first


def test_measured_accuracy_is_read_from_the_shipped_table():
    at = page("mnist")
    acc = accuracy_by_sites(load_sites_table(), dataset="mnist", epsilon=1.0, split="iid", alpha=None)
    figs = figures(at)
    (fig,) = [f for f in figs if f["layout"].get("title", {}).get("text", "").startswith("Measured")]
    for trace in fig["data"]:
        mode = {"centralized": "centralized", "CAPE": "cape", "local": "local"}[trace["name"].split(" ")[0]]
        assert trace["x"] == sorted(acc[mode]) and trace["y"] == [acc[mode][s][0] for s in sorted(acc[mode])]
    assert len(at.get("image")) >= 3  # previews per mode


SCALE_NOTE = "Measured on scale releases"


def test_dp_center_shows_its_own_epsilon_and_its_own_accuracy_where_measured():
    at = page("mnist")
    assert not any(SCALE_NOTE in i.value for i in at.info)
    scale = eps_shown(at)
    at.radio(key="sites_normalize").set_value("dp-center")
    rerun(at)
    center = load_noise()[("mnist", 1.0, "dp-center")]
    counts = tuple(get_preset("mnist").class_counts)
    exact = {r["key"]: r["epsilon"] for r in threat_rows(center, counts, 10, 1)}
    want = {k: fmt_eps(v) for k, v in exact.items()}
    shown = eps_shown(at)
    assert shown == want and shown["b"] != scale["b"] and shown["c"] != scale["c"]
    assert shown["a"] == fmt_eps(center.epsilon_a)
    # the centre's cost is in it: the same noise without the statistics step gives less
    from dataclasses import replace

    bare = {r["key"]: r["epsilon"] for r in threat_rows(replace(center, stats_mu=None), counts, 10, 1)}
    assert exact["b"] > bare["b"] and exact["c"] > bare["c"]
    assert any(f"μ_c = {center.stats_mu:.4g}" in c.value and f"σ = {center.sigma_x:.4g}" in c.value
               for c in at.caption)
    # the accuracy at S = 10 is dp-center's own: the shipped dp-center rows, not scale's
    rows = load_sites_table()
    own = {r.mode: r for r in rows if (r.dataset, r.split, r.sites, r.normalize, r.learner)
           == ("mnist", "iid", 10, "dp-center", "lda")}
    sc = {r.mode: r for r in rows if (r.dataset, r.split, r.sites, r.normalize, r.learner)
          == ("mnist", "iid", 10, "scale", "lda")}
    assert set(own) == {"centralized", "cape", "local"}
    assert not any(SCALE_NOTE in i.value for i in at.info)
    (df,) = markdown_tables(at, "mode")
    assert "accuracy (measured)" in df.columns
    for mode, r in own.items():
        cells = set(df[df["mode"].str.startswith(mode.replace("cape", "CAPE"))]["accuracy (measured)"])
        assert cells == {f"{r.accuracy:.3f} ({r.runs} runs, lda, commit {r.commit})"}
        assert f"{sc[mode].accuracy:.3f}" not in next(iter(cells))
    assert any("dp-center's own accuracy" in c.value for c in at.caption)
    (fig,) = [f for f in figures(at) if f["layout"].get("title", {}).get("text", "").startswith("Measured")]
    marks = {t["name"]: t["y"] for t in fig["data"] if t["mode"] == "markers"}
    assert marks == {f"{TITLES[m]}, dp-center": [own[m].accuracy] for m in own}
    assert any("These previews are scale releases, not dp-center's" in c.value for c in at.caption)
    # at an S where no dp-center release was measured: scale's, and said so
    at.select_slider(key="sites_S").set_value(5)
    rerun(at)
    (note,) = [i.value for i in at.info if SCALE_NOTE in i.value]
    assert "at S = 5" in note and "not dp-center's" in note
    (df,) = markdown_tables(at, "mode")
    cape5 = [r for r in rows if (r.dataset, r.split, r.sites, r.normalize, r.learner, r.mode)
             == ("mnist", "iid", 5, "scale", "lda", "cape")][0]
    assert f"{cape5.accuracy:.3f} (on scale, " in " ".join(df["accuracy (measured on scale)"])
    # a split with no dp-center row at all: every accuracy is scale's
    at.radio(key="sites_split").set_value("skewed")
    rerun(at)
    (note,) = [i.value for i in at.info if SCALE_NOTE in i.value]
    assert "none of them is dp-center's accuracy" in note
    (fig,) = [f for f in figures(at) if f["layout"].get("title", {}).get("text", "").startswith("Measured")]
    assert "scale releases" in fig["layout"]["title"]["text"]
    at.radio(key="sites_split").set_value("iid")
    at.select_slider(key="sites_S").set_value(10)
    at.radio(key="sites_normalize").set_value("scale")
    rerun(at)
    assert eps_shown(at) == scale and not any(SCALE_NOTE in i.value for i in at.info)


def test_a_view_floating_point_leaves_unbounded_says_so_not_an_epsilon():
    """At S = 100, t = 99 (digits, eps = 1) floating point's delta_total is >= 1 for (c): the
    release's card gives no epsilon there, and the page said 164 as if it held."""
    at = page()
    at.select_slider(key="sites_S").set_value(100)
    rerun(at)
    at.slider(key="sites_t").set_value(99)
    rerun(at)
    shown = eps_shown(at)
    row = next(r for r in threat_rows(load_noise()[("digits", 1.0, "scale")], DIGITS, 100, 99)
               if r["key"] == "c")
    assert shown["c"].startswith("none established: floating point")
    assert fmt_eps(row["epsilon_ideal"]) in shown["c"]  # the ideal one beside it, named so
    assert shown["b"] == fmt_eps(next(r["epsilon"] for r in threat_rows(
        load_noise()[("digits", 1.0, "scale")], DIGITS, 100, 99) if r["key"] == "b"))
