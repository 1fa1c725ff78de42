"""Threat models (b), (c) with the sites' own subsampling (dpcda.privacy.decentral_pld).

The bound is checked against a brute-force computation of the real protocol's view on a tiny
instance (every pooled subset, every site subset, the hockey-stick divergence by quadrature):
it must be above the truth for every dataset pair, and meet it for the worst one, so crediting
more amplification (e.g. the centralized rate l/n_k towards the aggregator) fails here.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import norm

from dpcda.privacy import pld
from dpcda.privacy.decentral import inside_epsilon, view_epsilon
from dpcda.privacy.decentral_pld import (_mixture_step, count_law, counts_epsilon,
                                         counts_rdp_epsilon, site_class_epsilon)
from dpcda.privacy.gaussian import gaussian_epsilon

_O = np.linspace(-14.0, 16.0, 300_001)  # output grid for the quadrature (sigma = 1)


def _view_laws(site_records, site, l, sigma):
    """Brute force of one sample's view for the aggregator (all sites honest): for every count
    vector, its probability and the output's Gaussian-mixture density on ``_O``. The
    coordinator draws a uniform l-subset of the pooled slots (site s owns a block), each site a
    uniform l_s-subset of its records; the view is the counts and mean + N(0, sigma^2)."""
    sizes = [len(r) for r in site_records]
    owner = np.repeat(np.arange(len(sizes)), sizes)
    laws = {}
    slots = list(itertools.combinations(range(len(owner)), l))
    for sl in slots:
        cnt = tuple(int(np.sum(owner[list(sl)] == s)) for s in range(len(sizes)))
        laws.setdefault(cnt, 0)
        laws[cnt] += 1
    out = []
    for cnt, ways in laws.items():
        dens = np.zeros_like(_O)
        subsets = [list(itertools.combinations(r, k)) for r, k in zip(site_records, cnt)]
        combos = list(itertools.product(*subsets))
        for combo in combos:
            m = sum(sum(c) for c in combo) / l
            dens += norm.pdf(_O, m, sigma)
        out.append((ways / len(slots), dens / len(combos)))
    return out


def _true_delta(eps, laws_p, laws_q):
    dx = _O[1] - _O[0]
    return sum(w * float(np.sum(np.clip(p - math.exp(eps) * q, 0, None)) * dx)
               for (w, p), (_, q) in zip(laws_p, laws_q))


def _bound_delta(eps, s, n_k, n_ks, l):
    h = 1e-4
    i0, pmf, inf_m, slack = _mixture_step(s, n_ks, *count_law(n_k, n_ks, l), h, 1e-15)
    return pld.delta_for_epsilon(i0, pmf, inf_m, h, eps) + slack


# two sites, class k: site 0 holds the record i and two others, site 1 two records; l = 2
L, SIGMA, C = 2, 0.8, 1.0
S_SHIFT = (2 * C / L) / SIGMA


def _pair(others0, others1, xi, xi2):
    p = _view_laws([[xi, *others0], others1], 0, L, SIGMA)
    q = _view_laws([[xi2, *others0], others1], 0, L, SIGMA)
    return p, q


@pytest.mark.parametrize("eps", [0.0, 0.3, 0.8])
def test_bound_meets_the_brute_force_view_on_the_worst_dataset(eps):
    """Every other record at -c, the record moves from -c to +c: the view (counts, output) is
    exactly the counts-mixture pair, so the bound equals the true delta (up to the grid)."""
    p, q = _pair([-C, -C], [-C, -C], C, -C)
    true = _true_delta(eps, p, q)
    bound = _bound_delta(eps, S_SHIFT, 5, 3, L)
    assert bound >= true - 1e-6
    assert bound <= true * 1.01 + 1e-6
    # crediting the centralized amplification (gamma = l/n_k, the outside reader's pair) is
    # wrong towards the aggregator: it is below the truth (at eps = 0 both are the total
    # variation, linear in gamma, whose mean over the counts is l/n_k)
    if eps == 0.0:
        return
    h = 1e-4
    i0, pmf, inf_m = pld._pess(S_SHIFT, L / 5, h, 1e-15)
    central = pld.delta_for_epsilon(i0, pmf, inf_m, h, eps)
    assert central < true * 0.97


def test_bound_holds_for_other_datasets_both_directions():
    rng = np.random.default_rng(7)
    for _ in range(4):
        o0, o1 = rng.uniform(-C, C, 2), rng.uniform(-C, C, 2)
        xi, xi2 = rng.uniform(-C, C, 2)
        p, q = _pair(list(o0), list(o1), xi, xi2)
        for eps in (0.0, 0.5):
            bound = _bound_delta(eps, S_SHIFT, 5, 3, L)
            assert _true_delta(eps, p, q) <= bound + 1e-6
            assert _true_delta(eps, q, p) <= bound + 1e-6


def test_count_law_is_hypergeometric_and_matches_the_slots():
    v, p = count_law(5, 3, 2)
    assert list(v) == [0, 1, 2]
    assert p == pytest.approx([1 / 10, 6 / 10, 3 / 10])
    assert float(np.dot(v, p)) == pytest.approx(2 * 3 / 5)
    with pytest.raises(ValueError, match="n_ks"):
        count_law(5, 6, 2)


def test_count_law_refusal_prints_no_site_count():
    """n_k and n_ks are (per-site) record counts: a refusal names them, never their values, so
    neighbouring counts give one message."""
    messages = []
    for n_k, n_ks in ((5, 6), (5, 7), (6, 7)):
        with pytest.raises(ValueError) as err:
            count_law(n_k, n_ks, 2)
        messages.append(str(err.value))
    assert messages[0] == messages[1] == messages[2]
    assert not any(d in messages[0].replace("l=2", "") for d in "5679")


def test_every_record_in_every_sample_is_plain_gaussian_composition():
    """q -> 1 limit: n_k = l (each site's records all used every time): no amplification at
    all, the counts bound equals the known-indices bound (T Gaussian uses) and the exact
    Gaussian composition."""
    s, T, delta = 0.4, 9, 1e-5
    counts = np.array([[3], [1]])  # two sites, one class of n_k = l = 4 records
    new = counts_epsilon(s=s, l=4, per_class=[T], site_counts=counts, delta=delta)
    exact = gaussian_epsilon(1.0, delta, sensitivity=s * math.sqrt(T))
    assert new == pytest.approx(exact, rel=2e-3)
    assert new >= exact * (1 - 1e-6)


def test_tiny_site_gets_little_amplification():
    """A site holding one record of the class: whenever it is asked for one, its record is
    in the sample (gamma = 1); a site holding many records is diluted."""
    s, T, delta = 0.5, 200, 1e-5
    tiny = site_class_epsilon(s, 100, 1, 4, T, delta)
    big = site_class_epsilon(s, 100, 50, 4, T, delta)
    assert tiny > big


SETTING = dict(sigma=0.6, c=1.0, l=4, delta=1e-5)


def _site_counts(S, n=(900, 1100, 1000), seed=3):
    rng = np.random.default_rng(seed)
    return np.stack([np.bincount(rng.integers(0, S, size=k), minlength=S) for k in n]).T


def test_order_and_below_the_known_indices_bound():
    """Same relation throughout: outside reader <= (b) <= (c, t), increasing in t; (b) far
    below the known-indices bound (the old (b)); the RDP cross-check is above the PLD."""
    S = 8
    counts = _site_counts(S)
    per_class = [1500, 1500, 1500]
    kw = dict(S=S, per_class=per_class, site_counts=counts, **SETTING)
    eps = [inside_epsilon(t=t, **kw) for t in range(S)]
    vals = [e for e, _, _ in eps]
    assert all(a < b for a, b in zip(vals, vals[1:]))
    n_k = counts.sum(axis=0)
    s0 = 2 * SETTING["c"] / SETTING["l"] / SETTING["sigma"]
    outside = pld.max_over_classes(s0, [(4 / n, t) for n, t in zip(n_k, per_class)],
                                   SETTING["delta"], None, False).epsilon
    assert outside <= vals[0]
    old = view_epsilon(t=0, class_counts=n_k, mask_ratio=math.inf,
                       **{k: v for k, v in kw.items() if k != "site_counts"})
    assert vals[0] < old / 3
    # the coarse-grid pruning finds the maximum over every (class, site) cell
    every = max(site_class_epsilon(s0, int(n_k[k]), int(counts[j, k]), 4, per_class[k],
                                   SETTING["delta"])
                for j in range(S) for k in range(3) if counts[j, k] > 0)
    assert counts_epsilon(s=s0, l=4, per_class=per_class, site_counts=counts,
                          delta=SETTING["delta"]) == every
    assert eps[0][1] == "counts-subsampled-pld"
    assert eps[0][2]["gaussian-uses-mixture"] == pytest.approx(old)
    rdp = counts_rdp_epsilon(s=s0, l=4, per_class=per_class, site_counts=counts,
                             delta=SETTING["delta"])
    assert vals[0] <= rdp <= 3 * vals[0]


def test_minimum_takes_the_known_indices_bound_when_it_is_smaller():
    """At t = S - 1 with few samples the known-indices bound can win; the minimum of two valid
    bounds is reported with the accountant that gave it."""
    counts = np.array([[4], [4]])  # n_k = 8, l = 4: half of the class in every sample
    kw = dict(S=2, sigma=0.5, c=1.0, l=4, per_class=[3], site_counts=counts, delta=1e-5)
    eps, acc, both = inside_epsilon(t=1, **kw)
    assert eps == pytest.approx(min(both.values()))
    assert acc == min(both, key=both.get)
