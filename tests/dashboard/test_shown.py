"""The process-wide tally of what the Samples page has drawn (dpcda.dashboard.shown)."""

from __future__ import annotations

import math
import re

import pytest

from dpcda.dashboard import shown
from dpcda.privacy.shown_compose import compose_shown
from dpcda.report.formatting import fmt_eps

N = (178, 182, 177, 183, 181, 182, 181, 179, 174, 180)
DIGITS = ("builtin", "digits")


@pytest.fixture(autouse=True)
def _empty():
    shown.reset()
    yield
    shown.reset()


def card(sigma=0.3, mu=None):
    priv = {"composed_with": {"mu_gdp": mu}} if mu else {}
    return {"parameters": {"l": 4, "c": 1.0, "sigma_x": sigma, "T_per_class": [134] * 10},
            "privacy": priv}


def test_draws_are_kept_per_source_and_composed():
    assert "nothing drawn yet" in shown.spent_text(DIGITS, lower_counts=N, delta=1e-5)
    r = shown.release_drawn(card(mu=0.2), normalize="dp-center")
    assert r.steps == (134,) * 10 and r.mu == 0.2 and r.covered
    shown.record(DIGITS, r)
    shown.record(DIGITS, shown.preview_drawn(sigma=0.3, l=4, c=1.0, per_class=8, n_classes=10,
                                             normalize="scale"))
    shown.record(("upload", "abc", "t.csv"), r)  # another dataset: its own tally
    assert len(shown.drawn(DIGITS)) == 2
    want = compose_shown(shown.drawn(DIGITS), lower_counts=N, delta=1e-5).epsilon
    text = shown.spent_text(DIGITS, lower_counts=N, delta=1e-5)
    got = re.search(r"ε = ([0-9.]+) \(whole-record, δ = 1e-5\), composed over 2 releases",
                    text).group(1)
    assert got == fmt_eps(want) and "1 preview, 1 full release" in text


def test_real_records_shown_make_the_tally_infinite_and_say_so():
    shown.record(DIGITS, shown.release_drawn(card(), normalize="scale"))
    shown.record(DIGITS, shown.cell_drawn(sigma=0.0, l=1, c=1.0, k=3, n_classes=10,
                                          normalize="scale"))
    text = shown.spent_text(DIGITS, lower_counts=N, delta=1e-5)
    assert text.count("ε = ∞") == 1 and "1 views of real records, not private" in text
    assert "The noisy, covered releases alone: ε = " in text and "composed over 1 release" in text
    z = shown.preview_drawn(sigma=0.3, l=4, c=1.0, per_class=8, n_classes=10, normalize="zscore")
    assert not z.covered


def test_record_refuses_what_is_not_a_draw():
    with pytest.raises(ValueError, match="drawn must be a Drawn record"):
        shown.record(DIGITS, {"sigma": 0.3})


def test_a_release_with_a_dp_label_histogram_counts_the_histogram_too():
    # an upload released at a target epsilon under whole-record draws a DP label histogram
    # (sensitivity sqrt(2), std sigma) beside the mixing and dp-center's statistics: the tally
    # must compose all three (it used to leave the histogram out)
    c = card(mu=0.03)
    c["privacy"]["label_histogram"] = {"sensitivity": 2 ** 0.5, "sigma": 92.0}
    r = shown.release_drawn(c, normalize="dp-center")
    assert r.mu == pytest.approx((0.03 ** 2 + 2 / 92.0 ** 2) ** 0.5, rel=1e-12)
    alone = shown.release_drawn(card(), normalize="scale")
    c2 = card()
    c2["privacy"]["label_histogram"] = {"sensitivity": 2 ** 0.5, "sigma": 92.0}
    with_hist = shown.release_drawn(c2, normalize="scale")
    assert alone.mu == 0.0 and with_hist.mu == pytest.approx(2 ** 0.5 / 92.0)
    e0 = compose_shown([alone], lower_counts=N, delta=1e-5).epsilon
    e1 = compose_shown([with_hist], lower_counts=N, delta=1e-5).epsilon
    assert e1 > e0


def test_the_release_drawn_of_a_real_histogram_card_matches_its_parameters():
    import numpy as np

    from dpcda.mechanisms import generate_dpcda

    rng = np.random.default_rng(0)
    X, y = rng.uniform(0, 1, (3000, 4)), np.arange(3000) % 2
    rel = generate_dpcda(X, y, l=4, T=300, epsilon=1.0, normalize="dp-center",
                         compare_accountants=False)
    h, st = rel.card["privacy"]["label_histogram"], rel.card["privacy"]["composed_with"]
    got = shown.release_drawn(rel.card, normalize="dp-center").mu
    assert got == pytest.approx(float(np.hypot(st["mu_gdp"], h["sensitivity"] / h["sigma"])))
    assert got > st["mu_gdp"]


def test_a_release_of_another_mechanism_is_counted_not_composed():
    from dpcda.privacy.shown_compose import drawn_of, release_facts

    shown.record(DIGITS, shown.release_drawn(card(), normalize="scale"))
    facts = release_facts("dp-merf", {"parameters": {"l": 1}, "privacy": {"epsilon": 1.0}})
    assert facts == {"mechanism": "dp-merf"}
    shown.record(DIGITS, drawn_of(facts, kind="measured", n_classes=10))
    shown.record(DIGITS, drawn_of(None, kind="measured", n_classes=10))  # an older job's result
    r = shown.spent(DIGITS, lower_counts=N, delta=1e-5)
    assert math.isinf(r.epsilon) and r.other == 2 and r.releases == 3
    assert r.noisy_epsilon == compose_shown(shown.drawn(DIGITS)[:1], lower_counts=N, delta=1e-5).epsilon
    text = shown.spent_text(DIGITS, lower_counts=N, delta=1e-5)
    assert "ε = ∞" in text and "2 releases of another mechanism" in text and "composed over 1 release" in text


def test_a_dp_cda_card_round_trips_through_the_job_facts():
    from dpcda.privacy.shown_compose import drawn_of, release_facts

    c = card(sigma=0.4, mu=0.3)
    c["normalization"] = {"method": "dp-center", "covered_by_guarantee": True}
    d = drawn_of(release_facts("dp-cda", c), kind="release", n_classes=10)
    assert d == shown.release_drawn(c, normalize="dp-center")
    c["normalization"] = {"method": "zscore", "covered_by_guarantee": False}
    assert not drawn_of(release_facts("dp-cda", c), kind="release", n_classes=10).covered


def test_a_choose_candidates_release_and_its_report_are_counted():
    """The Choose page draws a fresh release per candidate (its samples and fidelity) and one for
    the chosen setting's report: both are draws from the private data, counted."""
    from dpcda.dashboard import candidates as cand
    from dpcda.dashboard.setting import Setting

    a = cand.measure(Setting(dataset="digits", l=4, sigma_x=1.0), "A")
    (d,) = shown.drawn(DIGITS)
    assert d.kind == "release" and d.sigma == 1.0 and d.l == 4 and sum(d.steps) > 0
    cand.choice_report([a], "A")
    assert len(shown.drawn(DIGITS)) == 2


def test_one_upload_under_two_names_is_one_tally():
    a, b = ("upload", "d" * 64, "a.csv"), ("upload", "d" * 64, "renamed.csv")
    shown.record(a, shown.release_drawn(card(), normalize="scale"))
    shown.record(b, shown.release_drawn(card(), normalize="scale"))
    assert len(shown.drawn(a)) == len(shown.drawn(b)) == 2
    assert shown.drawn(("upload", "e" * 64, "a.csv")) == ()


def test_a_tally_without_public_bounds_is_not_accounted_and_names_no_count():
    """An upload's class sizes are private under whole-record: before a release's card publishes
    bounds (None) the tally says it is not accounted, with no number read from the data."""
    up = ("upload", "f" * 64, "t.csv")
    shown.record(up, shown.release_drawn(card(), normalize="none"))
    text = shown.spent_text(up, lower_counts=None, delta=1e-5)
    assert "not accounted here yet" in text and "ε =" not in text
    assert "1 releases" in text and not re.search(r"\b1[0-9]{2}\b", text)  # no class size


def test_bounds_that_may_fail_are_composed_at_the_rest_of_delta():
    """DP bounds hold except with probability beta: the draws are composed at delta - beta and
    the delta stated is the whole of it."""
    up = ("upload", "a" * 64, "t.csv")
    shown.record(up, shown.release_drawn(card(), normalize="none"))
    text = shown.spent_text(up, lower_counts=N, delta=1e-5, failure=2.5e-6)
    want = compose_shown(shown.drawn(up), lower_counts=N, delta=7.5e-6).epsilon
    assert f"ε = {fmt_eps(want)} (whole-record, δ = 1e-5, with the bounds' failure probability)" in text
    assert want > compose_shown(shown.drawn(up), lower_counts=N, delta=1e-5).epsilon


def test_the_histogram_of_a_refused_release_is_counted_as_a_gaussian_release():
    # a release refused after drawing its DP label histogram (l above the bounds) showed a
    # function of it: one Gaussian release of the K counts, sensitivity sqrt(2), composed in
    h = shown.histogram_drawn(sigma=10.0, n_classes=10)
    assert h.kind == "label histogram" and h.mu == pytest.approx(2 ** 0.5 / 10.0) and not any(h.steps)
    rel = shown.release_drawn(card(), normalize="scale")
    e0 = compose_shown([rel], lower_counts=N, delta=1e-5).epsilon
    e1 = compose_shown([rel, h], lower_counts=N, delta=1e-5).epsilon
    assert e1 > e0
    shown.record(DIGITS, h)
    shown.record(DIGITS, shown.release_drawn(card(), normalize="scale"))
    text = shown.spent_text(DIGITS, lower_counts=N, delta=1e-5)
    assert "1 label histogram of a refused release" in text and "1 full release" in text
