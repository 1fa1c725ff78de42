"""The Sites page's logic (dpcda.dashboard.sites) and its shipped files (sites_data)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.dashboard import sites as ds
from dpcda.dashboard.sites_data import (PAGE_DATASETS, PAGE_EPSILONS, PAGE_NORMALIZE, load_noise,
                                        load_previews, measure_noise)
from dpcda.data.presets import get_preset
from dpcda.experiments.sites_table import SitesRow, load_sites_table
from dpcda.privacy.decentral import view_epsilon

DIGITS = tuple(get_preset("digits").class_counts)


def test_iid_design_is_the_pooled_mix_at_every_site():
    d = ds.design("iid", 7, DIGITS)
    n = np.asarray(DIGITS, dtype=float)
    assert d.mix.shape == (7, len(DIGITS))
    assert np.allclose(d.mix, n / n.sum())
    assert np.allclose(d.size, 1 / 7) and np.allclose(d.records.sum(axis=0), n)


def test_skewed_design_is_the_drawn_shares_times_the_public_sizes():
    shares = ds.draw_shares(5, len(DIGITS), 0.3)
    assert shares.shape == (5, len(DIGITS)) and np.allclose(shares.sum(axis=0), 1.0)
    d = ds.design("skewed", 5, DIGITS, alpha=0.3, shares=shares)
    assert np.allclose(d.records, shares * np.asarray(DIGITS))
    assert np.allclose(d.mix.sum(axis=1), 1.0) and math.isclose(d.size.sum(), 1.0)
    # a small alpha skews: the sites' mixes differ (an iid design's rows are all the same)
    assert np.ptp(d.mix, axis=0).max() > 0.05
    with pytest.raises(ValueError, match="shares must be an"):
        ds.design("skewed", 6, DIGITS, alpha=0.3, shares=shares)


@pytest.mark.parametrize("call,words", [
    (lambda: ds.check_sites(0), "sites must be an integer in [1, 100]"),
    (lambda: ds.check_sites(101), "sites must be an integer in [1, 100]"),
    (lambda: ds.check_colluding(10, 10), "t must be an integer in [0, 9]"),
    (lambda: ds.check_colluding(-1, 3), "t must be an integer in [0, 2]"),
    (lambda: ds.check_alpha(0.0), "alpha must be a finite number > 0"),
    (lambda: ds.check_alpha(float("nan")), "alpha must be a finite number > 0"),
    (lambda: ds.design("by-column", 3, DIGITS), "split must be one of iid, skewed"),
])
def test_bad_input_names_the_parameter_and_the_allowed_values(call, words):
    with pytest.raises(ValueError) as err:
        call()
    assert words in str(err.value)


def test_local_problem_on_a_design_uses_the_library_words_and_no_count():
    assert ds.local_problem(ds.design("iid", 10, DIGITS)) is None
    msg = ds.local_problem(ds.design("iid", 40, DIGITS))  # ~3 records a class at each site
    assert msg is not None and "sites=40 is more than the classes allow" in msg
    assert not any(str(c) in msg for c in DIGITS)
    shares = np.zeros((3, len(DIGITS)))
    shares[0] = 1.0  # every class at site 1: the others hold none
    msg = ds.local_problem(ds.design("skewed", 3, DIGITS, alpha=0.1, shares=shares))
    assert msg is not None and "a site holds no record of some class" in msg


@pytest.fixture(scope="module")
def noise():
    table = load_noise()
    return table[("digits", 1.0, "scale")]


def test_the_shipped_noise_table_covers_the_page():
    table = load_noise()
    assert {(d, e, m) for d in PAGE_DATASETS for e in PAGE_EPSILONS for m in PAGE_NORMALIZE} <= set(table)
    for n in table.values():  # calibrated to the target, more noise for a smaller target
        assert n.epsilon_a <= n.epsilon * (1 + 1e-9) and n.sigma_x > 0 and n.accountant
        assert (n.stats_mu is None) == (n.normalize == "scale")
    for d in PAGE_DATASETS:
        for m in PAGE_NORMALIZE:
            sig = [table[(d, e, m)].sigma_x for e in PAGE_EPSILONS]
            assert sig == sorted(sig, reverse=True)
        for e in PAGE_EPSILONS:  # dp-center's statistics take their share of the same target
            center, scale = table[(d, e, "dp-center")], table[(d, e, "scale")]
            assert center.sigma_x > scale.sigma_x and center.stats_mu > 0
            assert center.accountant == scale.accountant and center.relation == scale.relation


def test_dp_center_rows_compose_the_statistics_into_b_and_c():
    """Theorem 6: (a) is the composed calibration's; (b) and (c) are inside_epsilon with the
    statistics' mu (their view mu_c sqrt(S/H)), above what the same noise gives without them."""
    from dpcda.privacy import samples_per_class
    from dpcda.privacy.decentral import inside_epsilon

    center = load_noise()[("digits", 1.0, "dp-center")]
    by = {(r["mode"], r["key"]): r for r in ds.threat_rows(center, DIGITS, 10, 5)}
    assert by[("cape", "a")]["epsilon"] == by[("centralized", "a")]["epsilon"] == center.epsilon_a
    t_k = samples_per_class(center.T, np.asarray(DIGITS), "proportional")
    even = np.array([[n // 10 + (s < n % 10) for n in DIGITS] for s in range(10)])
    kw = dict(S=10, sigma=center.sigma_x, c=center.c, l=center.l, per_class=t_k,
              site_counts=even, delta=center.delta)
    for key, t in (("b", 0), ("c", 5)):
        eps, acc, _ = inside_epsilon(t=t, stats_mu=center.stats_mu, **kw)
        assert by[("cape", key)]["epsilon"] == pytest.approx(eps, rel=1e-12)
        assert by[("cape", key)]["accountant"] == acc
        without, _, _ = inside_epsilon(t=t, **kw)  # the same noise, no statistics step
        assert eps > without
    assert by[("local", "a, b, c")]["epsilon"] == 1.0


def test_measure_noise_refuses_an_unknown_normalisation():
    with pytest.raises(ValueError, match="normalize must be one of scale, dp-center, got"):
        measure_noise("digits", 1.0, normalize="zscore")


def test_threat_rows_follow_s_and_t(noise):
    from dpcda.privacy import samples_per_class

    rows = ds.threat_rows(noise, DIGITS, 10, 5)
    by = {(r["mode"], r["key"]): r for r in rows}
    assert set(by) == {("centralized", "a"), ("cape", "a"), ("cape", "b"), ("cape", "c"),
                       ("local", "a, b, c")}
    t_k = samples_per_class(noise.T, np.asarray(DIGITS), "proportional")
    kw = dict(S=10, sigma=noise.sigma_x, c=noise.c, l=noise.l, per_class=t_k,
              class_counts=np.asarray(DIGITS), delta=noise.delta, mask_ratio=math.inf)
    # the card's accountant (the smaller of two valid bounds) on the even split's design
    from dpcda.privacy.decentral import inside_epsilon

    even = np.array([[n // 10 + (s < n % 10) for n in DIGITS] for s in range(10)])
    ins = {k: v for k, v in kw.items() if k != "class_counts"}
    for key, t in (("b", 0), ("c", 5)):
        eps, acc, both = inside_epsilon(t=t, site_counts=even, **ins)
        assert by[("cape", key)]["epsilon"] == pytest.approx(eps)
        assert by[("cape", key)]["accountant"] == acc
        assert eps <= view_epsilon(t=t, **kw) * (1 + 1e-9)  # never above the known-indices bound
    assert by[("cape", "b")]["epsilon"] < by[("cape", "c")]["epsilon"]
    assert by[("cape", "a")]["epsilon"] == by[("centralized", "a")]["epsilon"] <= 1.0
    assert by[("local", "a, b, c")]["epsilon"] == 1.0
    # (c) grows with t; with one site there is no aggregator's view to account
    c = [next(r["epsilon"] for r in ds.threat_rows(noise, DIGITS, 10, t) if r["key"] == "c")
         for t in (1, 5, 9)]
    assert c == sorted(c) and c[0] < c[-1]
    assert {r["key"] for r in ds.threat_rows(noise, DIGITS, 1, 0)} == {"a", "a, b, c"}
    with pytest.raises(ValueError, match="t must be an integer in"):
        ds.threat_rows(noise, DIGITS, 4, 4)


def test_accuracy_by_sites_reads_only_its_setting():
    def row(**kw):
        base = dict(dataset="mnist", epsilon=1.0, split="iid", alpha=None, sites=10, mode="cape",
                    learner="lda", runs=3, accuracy=0.8, accuracies=(0.8,), commit="abc")
        return SitesRow(**{**base, **kw})

    rows = [row(), row(sites=2, accuracy=0.7), row(epsilon=2.0, accuracy=0.1),
            row(split="skewed", alpha=0.5, accuracy=0.2), row(mode="local", accuracy=0.6)]
    got = ds.accuracy_by_sites(rows, dataset="mnist", epsilon=1, split="iid", alpha=None)
    assert got["cape"] == {10: (0.8, 3, "lda", "abc"), 2: (0.7, 3, "lda", "abc")}
    assert got["local"] == {10: (0.6, 3, "lda", "abc")} and got["centralized"] == {}
    skew = ds.accuracy_by_sites(rows, dataset="mnist", epsilon=1, split="skewed", alpha=0.5)
    assert skew["cape"] == {10: (0.2, 3, "lda", "abc")}


def test_accuracy_by_sites_shows_only_the_default_learners_rows():
    """The table keeps rows of an earlier default learner (qda) as a record; the page reads the
    rows of today's default (what ``model="auto"`` resolves to), whatever their order."""
    def row(learner, accuracy, sites=10):
        return SitesRow(dataset="mnist", epsilon=1.0, split="iid", alpha=None, sites=sites,
                        mode="cape", learner=learner, runs=1, accuracy=accuracy,
                        accuracies=(accuracy,), commit="abc")

    rows = [row("lda", 0.85), row("qda", 0.80), row("qda", 0.79, sites=2)]
    got = ds.accuracy_by_sites(rows, dataset="mnist", epsilon=1, split="iid", alpha=None)
    assert got["cape"] == {10: (0.85, 1, "lda", "abc")}  # no qda row, not even at S = 2
    assert ds.sites_learner("mnist", 1.0) == "lda"
    old = ds.accuracy_by_sites(rows, dataset="mnist", epsilon=1, split="iid", alpha=None,
                               learner="qda")
    assert old["cape"] == {10: (0.80, 1, "qda", "abc"), 2: (0.79, 1, "qda", "abc")}


def test_the_shipped_table_has_the_default_learner_for_mnist():
    rows = [r for r in load_sites_table() if (r.dataset, r.epsilon) == ("mnist", 1.0)]
    assert {r.learner for r in rows} >= {ds.sites_learner("mnist", 1.0)}
    got = ds.accuracy_by_sites(rows, dataset="mnist", epsilon=1, split="iid", alpha=None)
    assert {10} <= set(got["centralized"]) & set(got["cape"]) & set(got["local"])


def test_the_shipped_tables_are_read():
    rows = load_sites_table()
    assert rows and all(0 <= r.accuracy <= 1 and r.runs == len(r.accuracies) for r in rows)
    prev = load_previews()
    assert prev["sites"]
    for modes in prev["sites"].values():
        assert set(modes) == {"centralized", "cape", "local"}
        for m in modes.values():
            img = np.asarray(m["images"])
            assert img.shape[1] == 64 and img.min() >= 0 and img.max() <= 1


def test_ring_puts_the_sites_round_the_aggregator():
    pos = np.asarray(ds.ring(12, radius=0.3))
    assert pos.shape == (12, 2)
    assert np.allclose(np.hypot(pos[:, 0] - 0.5, pos[:, 1] - 0.5), 0.3)
    assert np.allclose(pos[0], (0.5, 0.8))  # the first at the top


@pytest.mark.slow
def test_the_shipped_noise_is_the_calibration_of_today():
    for norm in PAGE_NORMALIZE:
        shipped = load_noise()[("digits", 10.0, norm)]
        again = measure_noise("digits", 10.0, normalize=norm)
        assert again.sigma_x == pytest.approx(shipped.sigma_x, rel=1e-6)
        assert again.accountant == shipped.accountant and again.stats_mu == shipped.stats_mu


@pytest.mark.parametrize("dataset,S,t", [("mnist", 10, 9), ("mnist", 10, 5), ("digits", 10, 9),
                                         ("digits", 100, 99)])
def test_a_view_floating_point_leaves_unbounded_shows_no_epsilon_as_the_card(dataset, S, t):
    """The card nulls (c)'s epsilon where floating point's delta_total >= 1 (MNIST, eps = 1,
    t = 9 of 10: about 1.8e7); the page showed the ideal 86 as its guarantee. The page's row now
    agrees with the card's own function (cape_card.inside_threats) on the same design."""
    from dpcda.mechanisms.cape_card import inside_threats
    from dpcda.mechanisms.cape_float import value_bound
    from dpcda.mechanisms.cape_grid import lattice_cost, share_grid_bits
    from dpcda.privacy import samples_per_class

    noise = load_noise()[(dataset, 1.0, "scale")]
    counts = np.asarray(get_preset(dataset).class_counts)
    K, d = len(counts), int(get_preset(dataset).d_x)
    t_k = samples_per_class(noise.T, counts, "proportional")
    even = np.array([[n // S + (s < n % S) for n in counts] for s in range(S)])
    A, F = value_bound(noise.c, noise.sigma_x, noise.sigma_y, S), share_grid_bits(
        S, noise.sigma_x, noise.sigma_y)
    n = int(t_k.sum())

    def cost(H):
        return lattice_cost(H, S, A, F, (n * d, noise.sigma_x), (n * K, noise.sigma_y))

    card = inside_threats(S=S, sigma=noise.sigma_x, c=noise.c, l=noise.l, per_class=t_k,
                          site_counts=even, delta=noise.delta, ts=[t], float_cost=cost)[-1]
    row = next(r for r in ds.threat_rows(noise, tuple(counts), S, t) if r["key"] == "c")
    assert (row["epsilon"] is None) == (card["epsilon"] is None)
    assert row.get("epsilon_ideal") == pytest.approx(card.get("epsilon_ideal"))
    if (dataset, S, t) == ("mnist", 10, 9):
        assert row["epsilon"] is None and row["epsilon_ideal"] > 50
