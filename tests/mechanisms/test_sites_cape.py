"""Sites, splits and the CAPE release (dpcda.mechanisms.sites, cape, cape_masks, cape_run)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import chisquare

from dpcda.mechanisms.cape import generate_sites
from dpcda.mechanisms.cape_masks import PairMasks, SiteDropout, pooled_counts, site_subsets
from dpcda.mechanisms.cape_run import CapeTrace, run_cape
from dpcda.mechanisms.mixing import shrink_factor
from dpcda.mechanisms.sites import (check_sites_for, dirichlet, sites_from_arrays, split_sites)
from dpcda.randomness.secure import SecureRandom


def _data(n_per=40, K=3, d=5, seed=0):
    r = np.random.default_rng(seed)  # test data only, never a private draw
    X = r.uniform(0, 1, size=(n_per * K, d))
    y = np.repeat(np.arange(K), n_per)
    return X, y


@pytest.mark.parametrize("split", ["iid", "skewed"])
def test_split_is_a_partition_of_the_records(split):
    X, y = _data()
    sites = split_sites(X, y, sites=4, split=split, n_classes=3, alpha=0.5, rng=SecureRandom(1))
    assert sites.S == 4 and sites.split == split
    Xp, yp = sites.pooled()
    key = lambda A, b: sorted(map(tuple, np.column_stack([A, b]).round(12)))  # noqa: E731
    assert key(Xp, yp) == key(X, y)
    if split == "iid":
        sizes = [len(s.y) for s in sites.sites]
        assert max(sizes) - min(sizes) <= 1


def test_dirichlet_draws_have_the_right_mean_and_spread():
    rng = SecureRandom(2)
    p = np.stack([dirichlet(0.5, 4, rng) for _ in range(3000)])
    assert np.allclose(p.sum(1), 1.0)
    assert np.allclose(p.mean(0), 0.25, atol=0.02)
    # Var of one share of Dir(alpha 1_S): (1/S)(1 - 1/S) / (S alpha + 1) = 0.1875 / 3
    assert p[:, 0].var() == pytest.approx(0.1875 / 3, rel=0.1)


def test_by_column_uses_and_removes_the_site_column():
    X, y = _data()
    X = np.column_stack([X, np.arange(len(y)) % 3])
    sites = split_sites(X, y, sites=3, split="by-column", column=-1, n_classes=3)
    assert sites.d == 5 and sum(len(s.y) for s in sites.sites) == len(y)
    with pytest.raises(ValueError, match="sites=4 must equal"):
        split_sites(X, y, sites=4, split="by-column", column=-1, n_classes=3)


def test_mismatched_columns_and_short_classes_are_refused_without_counts():
    X, y = _data(n_per=13)
    with pytest.raises(ValueError, match="mismatched columns"):
        sites_from_arrays([(X, y), (X[:, :3], y)], 3)
    sites = sites_from_arrays([(X[:7], y[:7]), (X[7:], y[7:])], 3)  # site 0: class 0 only
    with pytest.raises(ValueError, match="a site holds no record") as exc:
        check_sites_for(sites, 4, every_site=True)
    assert "7" not in str(exc.value) and "13" not in str(exc.value)
    check_sites_for(sites, 4, every_site=False)  # cape needs the pooled classes only
    few = sites_from_arrays([(X[y == k][:3], y[y == k][:3]) for k in range(3)] * 1, 3)
    with pytest.raises(ValueError, match="l=4 exceeds"):
        check_sites_for(few, 4, every_site=False)


def _pooled_subsets(sizes, l, m, seed):
    """The protocol's pooled l-subsets: coordinator counts, then each site's own subset."""
    coord, site = SecureRandom(seed), SecureRandom(seed + 1)
    C = pooled_counts(sizes, l, m, generator=coord)
    off = np.concatenate([[0], np.cumsum(sizes)])
    chosen = [[] for _ in range(m)]
    for s, n_s in enumerate(sizes):
        for rows, idx in site_subsets(n_s, C[:, s], generator=site):
            for r, ix in zip(rows, idx):
                chosen[r].extend(int(off[s] + i) for i in ix)
    return [tuple(sorted(c)) for c in chosen]


@pytest.mark.parametrize("sizes,l", [((2, 1, 2), 2), ((3, 0, 1, 2), 3)])
def test_pooled_subset_sampler_is_uniform_over_the_pooled_class(sizes, l):
    m = 12000
    subsets = _pooled_subsets(sizes, l, m, 5)
    n = sum(sizes)
    assert all(len(set(s)) == l for s in subsets)
    every = list(itertools.combinations(range(n), l))
    freq = np.array([subsets.count(s) for s in every])
    assert freq.sum() == m  # nothing outside the C(n, l) subsets
    assert chisquare(freq).pvalue > 1e-4


def test_modular_masks_cancel_exactly_and_each_looks_uniform():
    S = 6
    e = PairMasks(S, SecureRandom(3)).masks((500, 7))
    assert e.shape == (S, 500, 7) and e.dtype == np.uint64
    assert (e.sum(0, dtype=np.uint64) == 0).all()  # exact, mod 2^64
    top = (e >> np.uint64(63)).astype(float)  # the top bit of a uniform word: Bernoulli(1/2)
    assert abs(top.mean() - 0.5) < 5 * 0.5 / math.sqrt(top.size)
    assert not (e[0] == 0).any()


def _constant_classes(K=3, d=4, n_per=30, S=3):
    """Every record equals v: the mixture mean is v whatever the class and subset, so the
    release minus v is exactly the aggregate noise (after grid rounding)."""
    v = np.array([0.2, -0.1, 0.3, 0.0])[:d]
    X = np.tile(v, (n_per * K, 1))
    y = np.repeat(np.arange(K), n_per)
    return split_sites(X, y, sites=S, split="iid", n_classes=K, rng=SecureRandom(4)), v


def _common(sigma):
    return dict(l=4, c=1.0, epsilon=None, sigma_x=sigma, delta=1e-5, normalize="none", bounds=None,
                accountant=None, dataset=None, n_classes=3, compare_accountants=False)


def test_cape_aggregate_carries_the_centralized_noise_and_the_share_grid():
    sites, v = _constant_classes()
    sigma = 0.5
    tr = CapeTrace()
    rel = run_cape(sites, l=4, T=3000, common=_common(sigma), ts=[1], seed=7, drop=(), trace=tr)
    # the public share grid: 8 to 16 cells per share std (sigma / sqrt(S))
    F = rel.card["parameters"]["fixed_point_bits"]
    tau = sigma / math.sqrt(3)
    assert tau / 16 < 2.0 ** -F <= tau / 8
    # the aggregate differs from the float64 sum of the shares by their quantisation only
    assert tr.n_values == 3000 * 7 and tr.err_over_bound <= 1.0
    assert tr.worst_err <= 3 * 2.0 ** -(F + 1) * (1 + 1e-9)
    fp = rel.card["privacy"]["floating_point"]
    assert fp["noisy_values"] == 3000 * 7 and 0 < fp["epsilon_added"] < 1e-5
    noise = rel.X - v * shrink_factor(4)
    assert abs(noise.mean()) < 4 * sigma / math.sqrt(noise.size)
    # Var(sample variance) = 2 sigma^4 / n; the S shares' quantisation adds at most
    # S gamma_F^2 / 12 <= sigma^2 / 768, the release grid's rounding gamma^2/12 <= sigma^2/768
    var = noise.var()
    assert abs(var / sigma**2 - 1) < 5 * math.sqrt(2 / noise.size) + 2 / 768
    assert np.abs(noise).max() < 10 * sigma  # an uncancelled mask would be ~2^63 2^-F


def test_local_mode_needs_more_noise_than_cape():
    X, y = _data(n_per=60)
    sites = split_sites(X, y, sites=3, split="iid", n_classes=3, rng=SecureRandom(8))
    kw = dict(l=4, T=360, epsilon=2.0, normalize="none", seed=9)
    cape = generate_sites(sites, mode="cape", **kw)
    local = generate_sites(sites, mode="local", **kw)
    central = generate_sites(sites, mode="centralized", **kw)
    sx = cape.card["parameters"]["sigma_x"]
    # the centralized noise, or a hair more where CAPE's floating-point reserve needs it
    assert central.card["parameters"]["sigma_x"] <= sx <= 1.01 * central.card["parameters"]["sigma_x"]
    fp = cape.card["privacy"]["floating_point"]
    assert fp["epsilon_total"] <= 2.0
    assert min(local.card["parameters"]["sigma_x_per_site"]) > 1.2 * sx
    card = cape.card
    assert card["mode"] == "cape" and card["sites"] == 3
    keys = [(t["key"], t["colluding_sites"]) for t in card["privacy"]["threat_models"]]
    assert keys == [("a", 0), ("b", 0), ("c", 1), ("c", 2)]
    eps = [t["epsilon"] for t in card["privacy"]["threat_models"]]
    # the outside reader's is the centralized (calibrated) one; inside the protocol the
    # parties see more (the per-site counts), more so with every colluding site
    assert eps[0] == pytest.approx(central.card["privacy"]["epsilon"]) == pytest.approx(2.0, rel=1e-3)
    # (a) is under the release's relation (whole-record); under the inside parties' relation
    # (features replaced, class and site fixed) the outside reader's is below (b)
    same = card["privacy"]["outside_under_inside_relation"]
    assert same["accountant"] == "class-aware-pld"
    assert same["epsilon"] <= eps[1] < eps[2] < eps[3]
    # every inside epsilon names its accountant, is the smaller of its two bounds, and carries
    # what floating point adds (Theorem 3)
    for t in card["privacy"]["threat_models"][1:]:
        assert t["epsilon"] == min(t["bounds"].values())
        assert t["accountant"] == min(t["bounds"], key=t["bounds"].get)
        assert t["relation"] == same["relation"]
        fp = t["floating_point"]
        assert 0 < fp["epsilon_added"] < 1e-4
        assert fp["epsilon_total"] == pytest.approx(t["epsilon"] + fp["epsilon_added"])
    assert all(t["epsilon"] == pytest.approx(2.0, rel=1e-3)
               for t in local.card["privacy"]["threat_models"])


def test_a_site_leaving_after_masking_aborts_the_release():
    sites, _ = _constant_classes()
    with pytest.raises(SiteDropout):
        generate_sites(sites, mode="cape", l=4, T=30, sigma_x=0.5, normalize="none", drop=(1,))


def test_a_pair_key_gives_both_sites_the_same_stream():
    key = bytes(range(32))
    a, b = SecureRandom.from_key(key), SecureRandom.from_key(key)
    assert (a.words(4) == b.words(4)).all() and not a.seeded
    assert not (SecureRandom.from_key(bytes(32)).words(4) == SecureRandom.from_key(key).words(4)).all()
    with pytest.raises(ValueError, match="key must be 32 bytes"):
        SecureRandom.from_key(b"short")
