"""The sites' card (dpcda.mechanisms.cape_card): a threat model whose floating-point delta term
reaches 1 states no epsilon (the ideal view's does not carry over to the released floats)."""

from __future__ import annotations

import numpy as np

from dpcda.mechanisms.cape_card import inside_threats
from dpcda.randomness.noise import FloatCost, eta_upper, tail_upper

KW = dict(S=3, sigma=0.8, c=1.0, l=4, per_class=np.array([40, 40]),
          site_counts=np.array([[20, 20], [20, 20], [20, 20]]), delta=1e-5, ts=[1, 2])


def _honest(H: int) -> FloatCost:  # the real per-value bounds for a release of 200 values
    return FloatCost(n_values=200 * H, eta=eta_upper(), tail=tail_upper())


def _heavy_tail(H: int) -> FloatCost:  # a tail so heavy that e^epsilon times it passes 1
    return FloatCost(n_values=200 * H, eta=eta_upper(), tail=1e-3)


def test_an_entry_whose_delta_total_passes_one_states_no_epsilon():
    good = inside_threats(**KW, float_cost=_honest)
    bad = inside_threats(**KW, float_cost=_heavy_tail)
    assert [e["key"] for e in good] == [e["key"] for e in bad] == ["b", "c", "c"]
    for g, b in zip(good, bad):
        assert not g["floating_point"]["vacuous"] and g["epsilon"] is not None
        assert "notices" not in g and "epsilon_ideal" not in g
        fp = b["floating_point"]
        # the same ideal view; its floats' delta term is at least 1 here, so no epsilon is
        # stated, the ideal one is kept beside it, and a coded notice says why
        assert fp["vacuous"] and fp["delta_total"] >= 1.0
        assert b["epsilon"] is None and b["epsilon_ideal"] == g["epsilon"]
        assert [n["code"] for n in b["notices"]] == ["float_no_bound"]
        assert b["notices"][0]["severity"] == "danger"


def test_the_vacuous_flag_follows_delta_total():
    cost = FloatCost(n_values=47_000_000, eta=eta_upper(), tail=tail_upper())
    assert not cost.card(10.0, 1e-5)["vacuous"]
    big = cost.card(100.0, 1e-5)  # e^100 outgrows the tail's 2.4e-39 times 4.7e7 values
    assert big["delta_total"] >= 1.0 and big["vacuous"]
    assert not cost.card(None, 1e-5)["vacuous"]  # no epsilon: no totals, nothing claimed


def test_a_release_whose_floats_leave_no_guarantee_states_none_for_the_outside_reader_too():
    """At epsilon = 100 (3 sites, 180 samples) the release's floating_point block is vacuous:
    threat model (a) stated 100 as its epsilon while (b), whose ideal 72.8 keeps delta_total
    below 1, kept its own, and (c) gave none. (a) now reads as (b) and (c) do where vacuous."""
    from dpcda.mechanisms.cape import generate_sites
    from dpcda.mechanisms.sites import sites_from_arrays

    r = np.random.default_rng(2)  # test data only
    sites = sites_from_arrays([(r.integers(0, 256, (60, 4)).astype(float), np.arange(60) % 3)
                               for _ in range(3)], 3)
    kw = dict(mode="cape", l=4, T=180, engine="inline", normalize="scale")
    p = generate_sites(sites, epsilon=100.0, **kw).card["privacy"]
    a = p["threat_models"][0]
    assert p["floating_point"]["vacuous"] and a["key"] == "a"
    assert a["epsilon"] is None and a["epsilon_ideal"] == p["epsilon"]
    assert [n["code"] for n in a["notices"]] == ["float_no_bound"]
    assert a["accountant"] == p["accountant"] and a["relation"] == p["relation"]
    q = generate_sites(sites, epsilon=5.0, **kw).card["privacy"]  # a guarantee: stated
    assert not q["floating_point"]["vacuous"]
    assert q["threat_models"][0]["epsilon"] == q["epsilon"]
    assert "epsilon_ideal" not in q["threat_models"][0]
