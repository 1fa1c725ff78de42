"""``dp-center`` across sites (dpcda.mechanisms.cape_center; docs/decentral.md, Theorem 6): the
per-feature DP mean by the masked CAPE protocol, its noise the centralized one, its step on the
card under every threat model, (a) accounted as the centralized dp-center release."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcda.mechanisms.cape import generate_sites
from dpcda.mechanisms.cape_center import center_plan, run_center, site_sum
from dpcda.mechanisms.cape_engine import InlineEngine
from dpcda.mechanisms.sites import split_sites
from dpcda.randomness.secure import SecureRandom


def _pixels(n_per=60, K=3, d=5, seed=0):
    r = np.random.default_rng(seed)  # test data only, never a private draw
    X = r.uniform(0, 255, size=(n_per * K, d))
    return X, np.repeat(np.arange(K), n_per)


def _agreed_engine(sites, seed):
    src = SecureRandom(seed)
    specs = [dict(index=i, S=sites.S, X=s.X, y=s.y, K=sites.n_classes,
                  key=src.bytes(32).tobytes()) for i, s in enumerate(sites.sites)]
    eng = InlineEngine(specs)
    session = bytes(range(32))
    ids = eng.call("enrol", {s: () for s in range(sites.S)})
    shares = list(eng.call("hello", {s: (session,) for s in range(sites.S)}).values())
    eng.call("agree", {s: (shares, ids, session) for s in range(sites.S)})
    return eng


def test_the_aggregated_mean_carries_the_centralized_noise():
    from dpcda.data.dp_normalize import fit_dp_center

    X, y = _pixels(n_per=100, d=3000)
    sites = split_sites(X, y, sites=4, split="iid", n_classes=3, rng=SecureRandom(3))
    N, d, mu = len(X), X.shape[1], 20.0
    plan = center_plan(S=4, N=N, d=d, mu=mu, bounds=None)
    central = fit_dp_center(X, bounds=None, mu=mu, rng=SecureRandom(4))
    assert plan.noise_std == central.noise_std == math.sqrt(d) / mu
    tau = plan.noise_std / 2.0  # the share's std: sigma / sqrt(S)
    assert tau / 16 < 2.0 ** -plan.F <= tau / 8
    pre = run_center(_agreed_engine(sites, 5), 4, plan, c=1.0)
    norm = pre.normalizer
    assert pre.method == "dp-center" and norm.n == N and norm.mu == mu
    exact = sum(site_sum(s.X, plan) for s in sites.sites)
    noise = norm.mean * N - exact  # no mean is clipped here (all near 2/3, noise 0.01)
    assert (norm.mean > 0).all() and (norm.mean < 1).all()
    # mean 0 and the centralized variance (the share grid and the release grid add at most
    # S gamma_F^2/12 + gamma^2/12 <= 2 sigma^2 / 768), as the centralized estimate's
    for z in (noise, central.mean * N - site_sum(X, plan)):
        assert abs(z.mean()) < 4 * plan.noise_std / math.sqrt(d)
        assert abs(z.var() / plan.noise_std ** 2 - 1) < 5 * math.sqrt(2 / d) + 2 / 768
    # the masks cancelled: nothing near the ring's scale
    assert np.abs(noise).max() < 10 * plan.noise_std


def test_inline_and_local_engines_give_the_same_dp_center_release_bit_for_bit():
    X, y = _pixels()
    sites = split_sites(X, y, sites=3, split="iid", n_classes=3, rng=SecureRandom(8))
    kw = dict(mode="cape", l=4, T=60, epsilon=2.0, normalize="dp-center", seed=13)
    a = generate_sites(sites, engine="inline", **kw)
    b = generate_sites(sites, engine="local", **kw)
    assert np.array_equal(a.preprocess.normalizer.mean, b.preprocess.normalizer.mean)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    c = generate_sites(sites, engine="inline", **{**kw, "seed": 14})
    assert not np.array_equal(a.preprocess.normalizer.mean, c.preprocess.normalizer.mean)


def test_dp_center_across_sites_is_on_the_card_under_every_threat_model():
    X, y = _pixels()
    sites = split_sites(X, y, sites=3, split="iid", n_classes=3, rng=SecureRandom(8))
    kw = dict(l=4, T=360, epsilon=2.0, seed=9)
    cape = generate_sites(sites, mode="cape", normalize="dp-center", **kw)
    central = generate_sites(sites, mode="centralized", normalize="dp-center", **kw)
    plain = generate_sites(sites, mode="cape", normalize="scale", **kw)
    ref = central.card["reference_card"]["privacy"]
    mu = ref["composed_with"]["mu_gdp"]
    # (a): the centralized dp-center release's noise, epsilon and composed step exactly
    assert cape.card["parameters"]["sigma_x"] == central.card["parameters"]["sigma_x"]
    tm = cape.card["privacy"]["threat_models"]
    assert [(t["key"], t["colluding_sites"]) for t in tm] == [("a", 0), ("b", 0), ("c", 1), ("c", 2)]
    assert tm[0]["epsilon"] == central.card["privacy"]["epsilon"] == ref["epsilon"]
    assert tm[0]["composed_with"]["mu_gdp"] == mu
    assert cape.card["privacy"]["composed_with"]["mu_gdp"] == mu
    # (b), (c): the step's view is mu sqrt(S/H), each above the outside reader's under the same
    # relation, increasing in t, and above the same release without the step
    same = cape.card["privacy"]["outside_under_inside_relation"]
    eps = [t["epsilon"] for t in tm]
    assert same["epsilon"] <= eps[1] < eps[2] < eps[3]
    for t in tm[1:]:
        H = 3 - t["colluding_sites"]
        assert t["composed_with"]["mu_gdp"] == pytest.approx(mu * math.sqrt(3 / H))
        assert t["epsilon"] == min(t["bounds"].values())
    # ... and above what the same noise spends without the step (so the step is composed in)
    from dpcda.privacy.decentral import inside_epsilon

    per_site = np.stack([np.bincount(s.y, minlength=3) for s in sites.sites])
    t_k = cape.card["parameters"]["T_per_class"]
    sx = cape.card["parameters"]["sigma_x"]
    for t in tm[1:]:
        without = inside_epsilon(S=3, t=t["colluding_sites"], sigma=sx, c=1.0, l=4,
                                 per_class=t_k, site_counts=per_site, delta=1e-5)[0]
        assert t["epsilon"] > without
    # without the step the card names none
    assert all("composed_with" not in t for t in plain.card["privacy"]["threat_models"])
    # floating point: the statistics' d values are counted with the mixtures'
    d, K = X.shape[1], 3
    fp = cape.card["privacy"]["floating_point"]
    assert fp["noisy_values"] == 360 * (d + K) + d
    assert fp["epsilon_total"] <= 2.0
    for t in tm[1:]:
        assert t["floating_point"]["noisy_values"] == 360 * (d + K) + d
    # the centralized and local modes name the step too
    assert central.card["privacy"]["threat_models"][0]["composed_with"]["mu_gdp"] == mu
    local = generate_sites(sites, mode="local", normalize="dp-center", **kw)
    assert all("composed_with" in t for t in local.card["privacy"]["threat_models"])


def test_bad_normalisation_or_accountant_is_refused_by_name():
    X, y = _pixels()
    sites = split_sites(X, y, sites=3, split="iid", n_classes=3, rng=SecureRandom(8))
    with pytest.raises(ValueError, match="normalize must be one of scale, none, dp-center"):
        generate_sites(sites, mode="cape", l=4, T=60, epsilon=1.0, normalize="zscore")
    with pytest.raises(ValueError, match="accountant must be one of whole-record, class-aware-pld"):
        generate_sites(sites, mode="cape", l=4, T=60, epsilon=1.0, normalize="dp-center",
                       accountant="class-aware")


def test_a_site_leaving_during_the_statistics_step_aborts_the_release():
    from dpcda.mechanisms.cape_masks import SiteDropout

    X, y = _pixels()
    sites = split_sites(X, y, sites=3, split="iid", n_classes=3, rng=SecureRandom(8))
    with pytest.raises(SiteDropout):
        generate_sites(sites, mode="cape", l=4, T=60, epsilon=2.0, normalize="dp-center",
                       drop=(1,), engine="inline")
