"""dpcda.dashboard.samples.sizes: what the Samples page reads about class sizes (an upload's are
private under whole-record; a built-in split's are published)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcda.dashboard.samples import sizes
from dpcda.dashboard.samples.setting import card_noise, generate_release, noise_for
from dpcda.data import load_upload
from dpcda.util.notices import notice


def upload(n_yes: int, n_no: int):
    rng = np.random.default_rng(3)
    labels = ["yes"] * n_yes + ["no"] * n_no
    text = "y,a,b\n" + "\n".join(f"{lab},{v[0]:.3f},{v[1]:.3f}" for lab, v in
                                 zip(labels, rng.normal(size=(len(labels), 2))))
    return load_upload(text.encode(), "t.csv")


@pytest.fixture(scope="module")
def two():
    """Two uploads with the same N, K and d and different class sizes."""
    a, b = upload(1000, 1000), upload(1300, 700)
    assert a.n_train == b.n_train and a.class_counts != b.class_counts
    return a, b


@pytest.fixture(scope="module")
def digits():
    from dpcda.data import load_dataset

    return load_dataset("digits")


def test_an_uploads_sizes_are_private_under_whole_record_only(two, digits):
    a, _ = two
    assert sizes.sizes_private(a, "whole-record") and not sizes.sizes_private(a, "class-aware")
    assert not sizes.sizes_private(digits, "whole-record")


PUB = dict(target=10.0, l=4, T=1500, delta=1e-5)


def test_accounting_facts_hide_an_uploads_sizes_at_a_target_only(two, digits):
    a, b = two
    fa, fb = (sizes.accounting_facts(d, "whole-record", **PUB) for d in (a, b))
    assert fa == fb and fa["class_counts"] is None  # nothing from the sizes: the same facts
    assert sizes.accounting_facts(a, "whole-record")["class_counts"] == tuple(a.class_counts)  # a sigma
    assert sizes.accounting_facts(a, "class-aware", **PUB)["class_counts"] == tuple(a.class_counts)
    assert sizes.accounting_facts(digits, "whole-record", **PUB)["class_counts"] == tuple(
        digits.class_counts)


def test_data_too_small_for_a_label_histogram_are_read_as_the_release_reads_them():
    """Whether the histogram serves is decided from public inputs, as the release decides it: on
    80 rows it does not, so the release (and the page) read the class sizes, with the notice."""
    small = upload(40, 40)
    assert not sizes.histogram_serves(small, l=4, T=small.n_train, epsilon=10.0, delta=1e-5)
    pub = dict(PUB, T=small.n_train)
    assert sizes.accounting_facts(small, "whole-record", **pub)["class_counts"] == tuple(small.class_counts)
    assert [n.code for n in sizes.setting_notices(small, "whole-record", sigma=None, **pub)] == [
        "class_sizes_from_data"]
    rel = generate_release(small, None, target_epsilon=10.0, l=4, T=small.n_train, delta=1e-5,
                           accountant="whole-record", normalize="none", compare_accountants=False)
    assert [w.code for w in rel.data_card.notices] == ["class_sizes_from_data"]
    assert rel.card["data"]["class_bounds_source"] == "the data's class sizes"


def test_public_bounds_come_from_the_published_counts_or_the_card(two, digits):
    a, _ = two
    assert sizes.public_bounds(digits) == tuple(digits.class_counts) and sizes.bounds_failure(digits) == 0
    assert sizes.public_bounds(a) is None
    assert sizes.public_bounds(a, {"data": {"class_bounds": [600, 601]}}) == (600, 601)
    assert sizes.mosaic_facts(a, "whole-record")["class_counts"] is None
    got = sizes.mosaic_facts(a, "whole-record", {"data": {"class_bounds": [6, 7]}})
    assert got["class_counts"] == (6, 7) and got["n"] == 13  # as the release's accountant reads them
    assert sizes.mosaic_facts(a, "class-aware")["class_counts"] == tuple(a.class_counts)
    assert sizes.hint_limit(a, "whole-record", got) == 5  # the bounds' min - 1, not the private sizes
    assert sizes.mosaic_rows((1, 4, 16, 64), a, "whole-record", got) == (1, 4)  # as the bounds allow
    assert sizes.mosaic_rows((1, 4, 16, 64), digits, "whole-record", {}) == (1, 4, 16, 64)
    assert sizes.hint_limit(a, "class-aware", sizes.mosaic_facts(a, "class-aware")) == min(a.class_counts)
    assert sizes.hint_limit(digits, "whole-record", sizes.mosaic_facts(digits, "whole-record")) == min(
        digits.class_counts)


def test_the_notice_of_an_explicit_sigma_on_private_sizes_is_coded(two, digits):
    a, _ = two
    got = sizes.setting_notices(a, "whole-record", sigma=0.5)
    assert [n.code for n in got] == ["class_sizes_from_data"]
    assert got[0].message == notice("class_sizes_from_data").message
    assert sizes.setting_notices(a, "whole-record", sigma=None, **PUB) == []  # bounds from DP
    assert sizes.setting_notices(a, "whole-record", sigma=0.0) == []  # no noise: said elsewhere
    assert sizes.setting_notices(digits, "whole-record", sigma=0.5) == []


def test_the_pending_line_names_no_sigma():
    text = sizes.pending_text(l=4, T=1500, c=1.0, target=10.0, accountant="whole-record", delta=1e-5)
    assert "set at release" in text and "DP histogram" in text and "5%" in text
    assert "σ_x = σ_y =" not in text.split("→")[0]


def test_an_uploads_target_release_is_calibrated_on_a_dp_label_histogram(two):
    """The page's release path: no noise computed from the sizes (None), the library's own
    calibration on DP bounds; the card names that source and does not publish the sizes."""
    a, _ = two
    assert sizes.histogram_serves(a, l=4, T=a.n_train, epsilon=10.0, delta=1e-5)
    s = dict(l=4, T=a.n_train, c=1.0, delta=1e-5, accountant="whole-record", normalize="none",
             allocation="equal", compare_accountants=False)
    rel = generate_release(a, None, target_epsilon=10.0, **s)
    card = rel.card
    assert "DP histogram" in card["data"]["class_bounds_source"] and card["data"]["class_counts"] is None
    assert card["privacy"]["epsilon"] <= 10.0 and card["privacy"]["calibrated_to_epsilon"] == 10.0
    assert "label_histogram" in card["privacy"] and not card["privacy"].get("warnings")
    assert all(lo <= n for lo, n in zip(card["data"]["class_bounds"], a.class_counts))
    assert sizes.public_bounds(a, card) == tuple(card["data"]["class_bounds"])
    assert sizes.bounds_failure(a, card) == card["privacy"]["label_histogram"]["failure_probability"] > 0
    noise = card_noise(card)
    assert noise.sigma == card["parameters"]["sigma_x"] and noise.epsilon == card["privacy"]["epsilon"]
    # an explicit sigma: accounted with the data's sizes, the card's coded notice says so
    acc = {k: v for k, v in s.items() if k not in ("normalize", "compare_accountants")}
    nz = noise_for("sigma", 0.5, **acc, **sizes.accounting_facts(a, "whole-record"))
    rel = generate_release(a, nz, **s)
    assert [w.code for w in rel.data_card.notices] == ["class_sizes_from_data"]
    assert rel.card["privacy"]["epsilon"] == pytest.approx(nz.epsilon, rel=1e-9)


def test_the_l_slider_s_limit_reads_public_facts_only(two, digits):
    # an upload: N // K (the old limit, the smallest class, bracketed that private size within a
    # factor of two); a built-in split: its published smallest class
    a, b = two
    assert sizes.l_limit(a) == sizes.l_limit(b) == a.n_train // 2
    assert min(a.class_counts) != min(b.class_counts)
    assert sizes.l_limit(digits) == min(digits.class_counts) == 131
    assert sizes.l_lowered_text(600, 512, a) == sizes.l_lowered_text(600, 512, b)
    assert f"N/K = {a.n_train // 2:,}" in sizes.l_lowered_text(600, 512, a)
    assert "smallest class): l is now 128." in sizes.l_lowered_text(256, 128, digits)


def test_an_l_above_an_uploads_exact_sizes_is_refused_with_the_rule_only(two, digits):
    a, b = two
    small = min(b.class_counts)
    assert small < min(a.class_counts)
    # whole-record: a class must keep l records after losing one
    assert sizes.l_refusal(b, "whole-record", small - 1, b.class_counts) is None
    msg = sizes.l_refusal(b, "whole-record", small, b.class_counts)
    assert msg is not None and f"l = {small}" in msg and "minus one" in msg
    assert not any(str(n) in msg.replace(f"l = {small}", "") for n in (*b.class_counts, b.n_train))
    # the relations that treat the sizes as public: l up to the smallest class itself
    assert sizes.l_refusal(b, "class-aware-pld", small, b.class_counts) is None
    over = sizes.l_refusal(b, "class-aware-pld", small + 1, b.class_counts)
    assert over is not None and "minus one" not in over
    # the same l on the other upload, which allows it: no refusal; the message is l's alone
    assert sizes.l_refusal(a, "whole-record", small, a.class_counts) is None
    big = max(a.class_counts) + 1
    assert sizes.l_refusal(a, "whole-record", big, a.class_counts) == sizes.l_refusal(
        b, "whole-record", big, b.class_counts)
    # nothing read (a DP histogram serves), or published sizes (the library's words hold them)
    assert sizes.l_refusal(b, "whole-record", 10**6, None) is None
    assert sizes.l_refusal(digits, "whole-record", 10**6, digits.class_counts) is None


def test_a_refused_release_keeps_whether_l_was_above_the_dp_bounds_and_counts_its_histogram(two):
    from dpcda.mechanisms.dp_cda_account import BoundsRefusal
    from dpcda.privacy.label_histogram import SENSITIVITY, target_plan

    assert sizes.Refused.of(BoundsRefusal("l=9 ...")) == sizes.Refused("l=9 ...", True)
    assert not sizes.Refused.of(ValueError("T ...")).bounds
    a, _ = two
    d = sizes.refused_histogram(a, l=4, T=a.n_train, epsilon=10.0, delta=1e-5)
    plan = target_plan(10.0, 1e-5, N=a.n_train, K=2, d=2, T=a.n_train, l=4)
    assert d.kind == "label histogram" and d.mu == pytest.approx(SENSITIVITY / plan.sigma)
    # a release at an l above the histogram's bounds (which sit below the sizes), the histogram
    # serving it: refused by type
    b = two[1]
    l = min(b.class_counts)
    assert sizes.histogram_serves(b, l=l, T=b.n_train, epsilon=10.0, delta=1e-5)
    with pytest.raises(BoundsRefusal):
        generate_release(b, None, target_epsilon=10.0, l=l, T=b.n_train, c=1.0, delta=1e-5,
                         accountant="whole-record", normalize="none")
    text = sizes.histogram_refusal_text(700)
    assert "l = 700" in text and not any(ch.isdigit() for ch in text.replace("l = 700", ""))
