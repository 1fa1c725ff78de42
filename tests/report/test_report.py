"""The stakeholder report (dpcda.report): PNG writer, SVG charts, inputs, HTML, store reading."""

from __future__ import annotations

import json
import math
import re
import struct
import zlib
from types import SimpleNamespace

import numpy as np
import pytest

from dpcda.report import NOT_MEASURED, SECTIONS, ReportInputs, build_report, gather_report_inputs
from dpcda.report.measured import accuracy_cells, latest_comparison, measured_frontier
from dpcda.report.png import SIGNATURE, data_uri, png_bytes
from dpcda.report.svg import Series, line_chart
from report_data import full_inputs


def _decode_png(data: bytes) -> np.ndarray:
    """A minimal PNG reader (filter 0 only), checking every chunk's CRC."""
    assert data[:8] == SIGNATURE
    pos, idat, head = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, colour = head[:4]
    ch = {0: 1, 2: 3}[colour]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * ch)
    assert depth == 8 and (raw[:, 0] == 0).all()
    img = raw[:, 1:].reshape(h, w, ch)
    return img[..., 0] if ch == 1 else img


@pytest.mark.parametrize("shape", [(5, 7), (4, 3, 3), (1, 1)])
def test_png_round_trips(shape):
    img = np.random.default_rng(1).integers(0, 256, shape, dtype=np.uint8)
    assert np.array_equal(_decode_png(png_bytes(img)), img)
    assert data_uri(img).startswith("data:image/png;base64,")


@pytest.mark.parametrize("img", [np.zeros((3, 3)), np.zeros((2, 2, 4), np.uint8), np.zeros((0, 3), np.uint8)])
def test_png_refuses_bad_images(img):
    with pytest.raises(ValueError, match="image must"):
        png_bytes(img)


def test_line_chart_draws_series_error_bars_and_marker():
    svg = line_chart([Series("a", [1, 4, 16], [0.5, 0.7, 0.6], [0.1, None, 0.05]),
                      Series("b", [1, 4], [0.2, math.nan], dashed=True)],
                     title="t", x_title="l", y_title="acc", x_log=True, y_range=(0, 1),
                     marker=(4, 0.7, "this setting"))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<polyline") == 1  # b has one finite point: no line
    assert svg.count("<circle") == 3 + 1 + 2  # points of a and b, marker + its legend
    assert "this setting" in svg and 'stroke="#d62728"' in svg


def test_line_chart_refuses_bad_input():
    with pytest.raises(ValueError, match="log x axis"):
        line_chart([Series("a", [0, 1], [0.1, 0.2])], title="", x_title="", y_title="", x_log=True)
    with pytest.raises(ValueError, match="one length"):
        Series("a", [1, 2], [0.1])
    with pytest.raises(ValueError, match="finite point"):
        line_chart([Series("a", [1], [math.nan])], title="", x_title="", y_title="")


def test_report_has_every_section_and_no_outside_reference():
    html = build_report(full_inputs())
    for sid, title in SECTIONS:
        assert f'<section id="{sid}"><h2>{title}</h2>' in html
    assert NOT_MEASURED not in html
    assert "<script" not in html and "<link" not in html
    assert not re.search(r"(src|href)=\"(?!data:|#)", html)  # only data: URIs and anchors
    assert html.count("data:image/png;base64,") == 2 and html.count("<svg") == 2
    assert "as published, not a bound for this implementation" in html
    assert "outside the guarantee" in html  # z-score normalisation
    assert "T mixtures drawn at rate l/N" in html  # markdown marks removed


def test_missing_sections_say_not_measured():
    inp = ReportInputs(dataset="digits", setting={"l": 4},
                       missing={"samples": "tabular data has no images"})
    html = build_report(inp)
    for _sid, title in SECTIONS:
        assert f"<h2>{title}</h2>" in html
    assert html.count(NOT_MEASURED) == 8  # every section but the caveats
    assert "tabular data has no images" in html


@pytest.mark.parametrize("kw, match", [
    (dict(dataset=""), "dataset must"),
    (dict(samples=np.zeros((2, 2))), "samples must be a uint8 image"),
    (dict(frontier=[{"epsilon": 1.0}]), "frontier row needs"),
    (dict(frontier_current=(1.0, math.nan)), "frontier_current"),
    (dict(missing={"nope": "x"}), "unknown sections"),
])
def test_inputs_refuse_bad_data(kw, match):
    with pytest.raises(ValueError, match=match):
        full_inputs(**kw)


def _job(eps, l, acc, *, accountant="whole-record", status="done", dataset="digits", model="ncm",
         sigma=0.5, id=0):
    return SimpleNamespace(
        id=id, kind="experiment", status=status,
        result={"accuracy": acc, "epsilon": eps, "sigma_x": sigma},
        config={"dataset": dataset, "mechanism": "dp-cda", "epsilon": eps, "l": l, "c": 1.0,
                "accountant": accountant, "delta": 1e-5, "train": {"model": model},
                "normalization": "scale", "allocation": "proportional"})


def fake_store(jobs, sweeps=()):
    """What the report reads of a JobStore: jobs(status=...) and sweeps()."""
    return SimpleNamespace(jobs=lambda status=None, sweep_id=None: [
        j for j in jobs if status in (None, j.status)], sweeps=lambda: list(sweeps))


JOBS = [_job(10.0, 4, 0.70), _job(10.0, 4, 0.72), _job(10.0, 16, 0.80), _job(1.0, 16, 0.50),
        _job(1.0, 64, 0.55), _job(math.inf, 1, 0.95), _job(10.0, 16, 0.99, accountant="paper"),
        _job(10.0, 16, 0.99, status="failed"), _job(10.0, 16, 0.99, dataset="mnist")]


def test_accuracy_cells_group_and_filter():
    cells = accuracy_cells(JOBS, dataset="digits", accountant="whole-record", delta=1e-5)
    got = {(c["epsilon"], c["l"]): c for c in cells}
    assert set(got) == {(10.0, 4), (10.0, 16), (1.0, 16), (1.0, 64), (math.inf, 1)}
    assert got[(10.0, 4)]["mean"] == pytest.approx(0.71) and got[(10.0, 4)]["runs"] == 2
    assert got[(10.0, 4)]["std"] == pytest.approx(np.std([0.70, 0.72], ddof=1))
    assert got[(10.0, 16)]["std"] is None and got[(10.0, 16)]["mean"] == 0.80


def test_latest_comparison_reads_the_newest_finished_compare_sweep():
    jobs = [SimpleNamespace(status="done", config={"mechanism": "dp-cda", "l": 4, "accountant":
                                                   "class-aware-pld", "train": {"model": "ncm"}},
                            result={"accuracy": 0.8, "epsilon": 9.9, "sigma_x": 0.1,
                                    "accountant": "class-aware-pld"})]
    sweeps = [SimpleNamespace(id=1, config={"page": "compare", "base": {"dataset": "digits"},
                                            "epsilon": 10.0, "mechanisms": ["dp-cda"], "runs": 1}),
              SimpleNamespace(id=2, config={"page": "compare", "base": {"dataset": "mnist"},
                                            "epsilon": 10.0, "mechanisms": ["dp-cda"]})]
    store = SimpleNamespace(sweeps=lambda: sweeps, jobs=lambda sweep_id=None: jobs if sweep_id == 1 else [])
    rows, cap = latest_comparison(store, "digits")
    assert rows[0]["method"] == "DP-CDA" and rows[0]["accuracy"] == "0.8000"  # one run: no ± std
    assert rows[0]["accountant"] == "class-aware-pld" and rows[0]["l"] == "4"
    assert "#1" in cap
    assert latest_comparison(store, "adult") == (None, "")
    # the comparison the page shows comes first; one of another dataset is not taken
    sweeps.insert(0, SimpleNamespace(id=3, config={"page": "compare", "base": {"dataset": "digits"},
                                                   "epsilon": 20.0, "mechanisms": ["dp-cda"]}))
    jobs3 = [SimpleNamespace(status="done", config=dict(jobs[0].config, l=8),
                             result=dict(jobs[0].result, accuracy=0.9))]
    store.jobs = lambda sweep_id=None: {1: jobs, 3: jobs3}.get(sweep_id, [])
    assert "#1" in latest_comparison(store, "digits")[1]  # newest: 1 (listed last)
    rows, cap = latest_comparison(store, "digits", sweep_id=3)
    assert "#3 at target ε = 20" in cap and rows[0]["l"] == "8" and rows[0]["accuracy"] == "0.9000"
    assert "#1" in latest_comparison(store, "digits", sweep_id=2)[1]  # 2 is mnist's: not taken


def test_gather_on_digits_fills_the_release_sections_and_reads_the_store():
    inp = gather_report_inputs("digits", l=16, epsilon=10.0, T=500, store=fake_store(JOBS))
    from dpcda.privacy import DEFAULT_ACCOUNTANT

    assert inp.privacy["accountant"] == DEFAULT_ACCOUNTANT and inp.privacy["epsilon"] <= 10.0
    assert inp.card["parameters"]["l"] == 16 and not re.search(r"\bseed\b", str(inp.card).lower())
    assert inp.card["privacy"]["seeded"] is False  # the report's release is never seeded
    assert inp.samples.dtype == np.uint8 and inp.samples.shape[0] > 50
    assert inp.class_means is not None and len(inp.fidelity) == 10
    assert {r["l"] for r in inp.accuracy_vs_l} == {1, 4, 16, 64}
    # The frontier: the shipped digits table (and the store), best accuracy up to each ε.
    eps = [r["epsilon"] for r in inp.frontier]
    acc = [r["accuracy"] for r in inp.frontier]
    assert len(eps) > 3 and eps == sorted(eps) and acc == sorted(acc)
    assert {"shipped table"} <= {r["source"] for r in inp.frontier}
    assert inp.frontier_current is None  # T = 500 was never measured
    assert inp.compare is None
    html = build_report(inp)
    assert html.count(NOT_MEASURED) == 1  # only Compare
    assert "learns nothing from the private data" in html


def test_the_frontier_caption_says_its_rows_are_scale_releases_as_the_privacy_page_does():
    """The frontier's rows are releases normalised with `scale` (no ε spent on it): a report of a
    `dp-center` release says so in the Privacy page's own words
    (dpcda.experiments.frontier.normalization_note); a `scale` report needs no such sentence."""
    from dpcda.experiments.frontier import normalization_note

    inp = gather_report_inputs("digits", l=16, epsilon=10.0, T=500, normalization="dp-center",
                               store=fake_store(JOBS))
    assert inp.card["normalization"]["method"] == "dp-center" and inp.frontier
    note = normalization_note("digits", "dp-center", inp.privacy["accountant"])
    assert note.startswith("**Measured on `scale` releases:**") and note in inp.frontier_caption
    assert "normalised with `scale`" in inp.frontier_caption
    assert "split equally" not in inp.frontier_caption  # each release with its own split of T
    html = build_report(inp)
    assert "Measured on scale releases: every accuracy here" in html  # plain words, no markdown marks
    plain = gather_report_inputs("digits", l=16, epsilon=10.0, T=500, store=fake_store(JOBS))
    assert plain.card["normalization"]["method"] == "scale"
    assert "Measured on" not in plain.frontier_caption
    assert "normalised with `scale`" in plain.frontier_caption


def test_gather_on_tabular_data_says_why_there_are_no_pictures(tiny_data_dir, monkeypatch):
    monkeypatch.setenv("DPCDA_DATA_DIR", str(tiny_data_dir))
    inp = gather_report_inputs("adult", l=2, epsilon=10.0, normalization="zscore",
                               store=fake_store([]))
    assert inp.samples is None and "tabular" in inp.missing["samples"]
    assert inp.fidelity and "column" in inp.fidelity[0]
    assert "outside the guarantee" in build_report(inp)


def test_gather_needs_one_noise_choice():
    with pytest.raises(ValueError, match="either epsilon"):
        gather_report_inputs("digits", l=4)


def test_a_dataset_without_files_still_gets_its_privacy_section(monkeypatch, tmp_path):
    from dpcda.data.presets import get_preset
    from dpcda.privacy import calibrate

    monkeypatch.setenv("DPCDA_DATA_DIR", str(tmp_path))  # empty: no MNIST files
    monkeypatch.setenv("DPCDA_OFFLINE", "1")
    inp = gather_report_inputs("mnist", l=16, epsilon=10.0, accountant="class-aware",
                               store=fake_store(JOBS))
    pre = get_preset("mnist")
    want = calibrate(epsilon=10.0, l=16, T=pre.n, n=pre.n, class_counts=pre.class_counts,
                     d_x=pre.d_x, d_y=pre.d_y, accountant="class-aware", delta=1e-5)
    assert inp.privacy["epsilon"] == pytest.approx(want.epsilon)
    assert inp.card is None and inp.samples is None and "not on this machine" in inp.missing["samples"]
    assert inp.accuracy_vs_l is None  # the store's jobs are digits'
    assert "not on this machine" in build_report(inp)


@pytest.mark.parametrize("page, want", [
    (dict(dataset="digits", l=4, epsilon=10.0, runs=3), dict(dataset="digits", l=4, epsilon=10.0)),
    (dict(dataset="digits", ls=(16, 4), epsilons=(math.inf, 20.0, 10.0), model="ncm"),
     dict(dataset="digits", l=4, epsilon=20.0)),
    (dict(dataset="mnist", ls=(128,), sigmas=(0.7, 0.2)), dict(dataset="mnist", l=128, sigma_x=0.2)),
    (dict(dataset="digits", l=2, sigma_x=0.0), dict(dataset="digits", l=2, sigma_x=0.0)),
    (dict(dataset="mnist", l=2, sigma_x=0.3, epsilon=10.0, allocation="equal"),
     dict(dataset="mnist", l=2, sigma_x=0.3, allocation="equal")),
    (dict(dataset="digits", epsilon=10.0, mechanisms=("dp-cda",), mechanism_ls={"dp-cda": (4, 16)},
          accountants={"dp-cda": "class-aware"}),
     dict(dataset="digits", l=4, epsilon=10.0, accountant="class-aware")),
    (dict(dataset="digits", epsilon=10.0, mechanisms=("local",)), None),
    (dict(dataset="custom", class_counts=(5, 5), l=2, sigma_x=0.3), "typed class counts"),
])
def test_settings_for_report(page, want):
    from dpcda.report.gather import settings_for_report

    if not isinstance(want, dict):
        with pytest.raises(ValueError, match=want or "lack l"):
            settings_for_report(page)
    else:
        assert settings_for_report(page) == want


def test_no_report_for_another_mechanism():
    from dpcda.report.gather import settings_for_report

    with pytest.raises(ValueError, match="covers DP-CDA"):
        settings_for_report(dict(dataset="digits", mechanism="dp-merf", ls=(1,), epsilons=(10.0,)))


def test_accuracy_vs_l_is_the_newest_sweep_over_l_in_a_real_store(tmp_path, files_not_needed):
    from dpcda.jobs import JobStore
    from dpcda.experiments.sweep import submit_sweep
    from dpcda.report.measured import accuracy_from_sweep

    store = JobStore(tmp_path / "jobs.sqlite3")
    base = {"dataset": "mnist", "accountant": "paper", "train": {"model": "ncm"}}
    sid = submit_sweep(store, base, epsilons=[10.0], ls=[4, 16], runs=2, x="l")
    accs = iter([0.80, 0.82, 0.85, 0.85])
    while (job := store.claim("w", ["experiment"])) is not None:  # finish every job by hand
        store.finish(job.id, "w", "done", result={"accuracy": next(accs), "sigma_x": 0.2,
                                                  "epsilon": 9.99})
    rows, cap = accuracy_from_sweep(store, "mnist")
    ours = {r["l"]: r for r in rows if not r.get("dashed")}
    assert set(ours) == {4, 16} and ours[4]["mean"] == pytest.approx(0.81)
    assert ours[16]["std"] is None  # equal runs: std 0 shown as no error bar
    assert ours[4]["runs"] == 2 and f"#{sid}" in cap and "paper" in cap
    paper = [r for r in rows if r.get("dashed")]  # the paper's Table 3 (MNIST, ε = 10)
    assert {r["l"] for r in paper} == {4, 16} and all(0.5 < r["mean"] < 1 for r in paper)
    assert accuracy_from_sweep(store, "digits") == (None, "")
    html = build_report(full_inputs(accuracy_vs_l=rows))
    assert 'stroke-dasharray' in html


def test_accuracy_vs_l_prefers_the_sweep_the_page_shows(tmp_path):
    from dpcda.jobs import JobStore
    from dpcda.experiments.sweep import submit_sweep
    from dpcda.report.measured import accuracy_from_sweep

    store = JobStore(tmp_path / "jobs.sqlite3")
    base = {"dataset": "digits", "train": {"model": "ncm"}}
    old = submit_sweep(store, base, epsilons=[10.0], ls=[2, 4], runs=1, x="l")
    new = submit_sweep(store, base, epsilons=[10.0], ls=[8], runs=1, x="l")
    over_eps = submit_sweep(store, base, epsilons=[1.0, 10.0], ls=[4], runs=1, x="epsilon")
    while (job := store.claim("w", ["experiment"])) is not None:
        store.finish(job.id, "w", "done", result={"accuracy": 0.5 + job.config["l"] / 100,
                                                  "sigma_x": 0.2, "epsilon": 9.9})
    assert f"#{new} " in accuracy_from_sweep(store, "digits")[1]
    rows, cap = accuracy_from_sweep(store, "digits", sweep_id=old)
    assert f"#{old} " in cap and sorted(r["l"] for r in rows if not r.get("dashed")) == [2, 4]
    # a sweep over epsilon has no accuracy-vs-l: the newest sweep over l instead
    assert f"#{new} " in accuracy_from_sweep(store, "digits", sweep_id=over_eps)[1]


def test_the_current_setting_is_marked_on_the_frontier_when_measured():
    from dpcda.data import load_dataset
    from dpcda.mechanisms import generate_from_dataset

    rel = generate_from_dataset(load_dataset("digits"), "dp-cda", l=16, epsilon=10.0, T=64,
                                allocation="proportional")  # as the measured jobs below
    card = json.loads(rel.card_json())
    card["parameters"]["T"] = 1347  # as if T = N: what the runs below measured
    sigma = card["parameters"]["sigma_x"]
    kw = dict(privacy=card["privacy"], card=card, delta=1e-5, conversion="mironov", l=16)
    front, cur = measured_frontier("digits", fake_store([]), **kw)
    assert front and cur is None
    jobs = [_job(10.0, 16, a, sigma=sigma * 1.01, id=i) for i, a in enumerate((0.91, 0.93))]
    front, cur = measured_frontier("digits", fake_store(jobs), **kw)
    assert cur == (card["privacy"]["epsilon"], pytest.approx(0.92))
    assert any(r["source"].startswith("jobs #") for r in front) or max(
        r["accuracy"] for r in front) > 0.92  # the runs join the frontier unless beaten


def test_the_privacy_pages_report_is_its_headline_release():
    from dpcda.report.gather import settings_for_report

    got = settings_for_report(dict(dataset="mnist", l=4, sigma_x=0.3, epsilon=10.0), "privacy")
    # the default split (issue 26): by the public class bounds
    assert got == dict(dataset="mnist", l=4, sigma_x=0.3, allocation="proportional", T=60000)
    assert "T" not in settings_for_report(dict(dataset="mnist", l=4, sigma_x=0.3), "samples")


def _first_text(html: str, chars: int = 1200) -> str:
    """The report's opening, as a reader sees it (tags dropped)."""
    body = html.split("<body>", 1)[1]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))[:chars]


def test_the_first_lines_say_what_is_outside_epsilon_and_why_a_seeded_release_is_not_private():
    from report_data import PRIVACY

    text = _first_text(build_report(full_inputs()))
    assert "Outside ε:" in text
    outside = text.split("Outside ε:", 1)[1]
    assert "fidelity" in outside and "accuracies" in outside and "real test split" in outside
    assert "not differentially private" in outside
    assert "replays its draws" in text and "σ = 0" not in text
    text = _first_text(build_report(full_inputs(privacy={**PRIVACY, "seeded": True})))
    assert "NOT PRIVATE: a seeded release" in text and "replays every draw" in text
    assert "σ = 0" not in text
    # only what the report holds is named: no accuracy section, no accuracies named
    text = _first_text(build_report(full_inputs(accuracy_vs_l=None, frontier=None, compare=None)))
    assert "fidelity" in text.split("Outside ε:", 1)[1] and "accuracies" not in text
