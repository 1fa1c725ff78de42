"""DP-CDA across S sites: ``centralized`` (the reference), ``local`` and ``cape`` releases.

>>> sites = split_sites(X, y, sites=10, split="iid", n_classes=10)          # doctest: +SKIP
>>> rel = generate_sites(sites, mode="cape", l=4, T=60000, epsilon=1.0)     # doctest: +SKIP
>>> rel.card["privacy"].get("threat_models")                                # doctest: +SKIP

* ``centralized``: :func:`~dpcda.mechanisms.dp_cda.generate_dpcda` on the pooled records (a
  trusted curator; what the other two are measured against).
* ``local``: every site releases its own DP-CDA of ``floor(T/S)`` samples, calibrated to the
  target epsilon on its own records; the union is published (a record lives at one site:
  parallel composition, the epsilon is the largest site's).
* ``cape``: every synthetic sample of class k mixes ``l`` records drawn across the sites so that
  the l-subset is uniform over the pooled class (:func:`~dpcda.mechanisms.cape_masks.pooled_counts`);
  site s sends its partial mean ``P_s`` plus its share ``g_s ~ N(0, sigma^2/S I)``, rounded to
  the public share grid and masked by ``e_s`` (pairwise modular masks that cancel exactly); the
  aggregator sums the messages and rounds to the public grid: the release is a post-processing
  of the centralized Gaussian mechanism, up to a floating-point term accounted on the card
  (docs/decentral.md, Theorems 1-3).

A standalone function, not a registry entry: the registry's generators take one ``(X, y)``
(:class:`~dpcda.mechanisms.spec.Mechanism`), its pages, jobs and CLI offer them on a single
dataset; a release across sites takes :class:`~dpcda.mechanisms.sites.Sites` and a mode.
Normalisations: the public ``scale`` and ``none``, and ``dp-center`` (a per-feature mean under
DP): centrally and per site as :func:`~dpcda.mechanisms.dp_cda.generate_dpcda` does it, in
``cape`` by the same masked protocol (:mod:`dpcda.mechanisms.cape_center`; docs/decentral.md,
Theorem 6), its step listed under every threat model (``composed_with``). ``zscore`` (pooled
statistics not covered by the guarantee) is not offered.
"""

from __future__ import annotations

import numpy as np

from dpcda.mechanisms.cape_masks import SiteDropout
from dpcda.mechanisms.cape_card import sites_card, threat
from dpcda.mechanisms.release import Release
from dpcda.mechanisms.sites import Sites, check_sites_for
from dpcda.randomness.secure import SecureRandom

MODES = ("centralized", "local", "cape")
SITE_NORMALIZE = ("scale", "none", "dp-center")


def default_colluding(S: int) -> list[int]:
    """The ``t`` the card reports for threat model (c): 1, S/2 and S - 1 (those in 1..S-1)."""
    return sorted({t for t in (1, S // 2, S - 1) if 1 <= t <= S - 1})


def check_colluding(colluding, S: int) -> list[int]:
    """The ``t`` for threat model (c), sorted: each a whole number from 1 to S - 1 (the
    aggregator colluding with every site but the one whose record is protected at most)."""
    from dpcda.mechanisms.validation import check_int

    if S < 2:
        raise ValueError(f"colluding sites t need at least 2 sites (sites={S}): leave t out")
    return sorted({check_int("t", t, 1, S - 1, why=f" (colluding sites, sites={S})")
                   for t in colluding})


def generate_sites(sites: Sites, *, mode: str, l: int, T: int, epsilon=None, sigma_x=None,
                   delta: float = 1e-5, c: float = 1.0, normalize: str = "scale", bounds=None,
                   accountant: str | None = None, colluding=None, dataset: str | None = None,
                   seed: int | None = None, drop=(), engine: str = "auto",
                   address: str | None = None) -> Release:
    """A release of DP-CDA over ``sites`` in ``mode`` (see the module docstring); ``sites``
    may also be a :class:`~dpcda.mechanisms.site_source.SiteSources` (public locators: each
    site loads its own records where it runs; ``cape`` only). Noise from a
    target ``epsilon`` at ``delta`` (under ``accountant``, default the project's) or ``sigma_x``.
    ``colluding``: the ``t`` reported for threat model (c) (default :func:`default_colluding`).
    ``drop``: sites that leave after masking (simulated; the cape release then aborts with
    :class:`~dpcda.mechanisms.cape_masks.SiteDropout`). ``seed``: tests only, not private.
    ``engine``: where the cape mode's sites run (:mod:`dpcda.mechanisms.cape_engine`);
    ``address``: the Ray cluster of ``engine="ray"`` (default ``RAY_ADDRESS`` or a local one)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got mode={mode!r}")
    if normalize not in SITE_NORMALIZE:
        raise ValueError(f"normalize must be one of {', '.join(SITE_NORMALIZE)} across sites, "
                         f"got normalize={normalize!r}")
    if hasattr(sites, "sources"):  # SiteSources: the caller holds locators, not records
        if mode != "cape":
            raise ValueError(f"mode must be cape for sites given by their files (site_files): "
                             f"centralized and local need the records here, got mode={mode!r}")
    else:
        check_sites_for(sites, int(l), every_site=mode == "local")
    common = dict(l=l, c=c, epsilon=epsilon, sigma_x=sigma_x, delta=delta, normalize=normalize,
                  bounds=bounds, accountant=accountant, dataset=dataset, n_classes=sites.n_classes,
                  compare_accountants=False,
                  # every mode treats the (pooled or per-site) class sizes as public, as CAPE's
                  # coordinator must know them: the same promise in the three modes (the card's
                  # class_sizes_from_data notice), no DP label histogram in one mode only
                  class_bounds="data")
    ts = default_colluding(sites.S) if colluding is None else check_colluding(colluding, sites.S)
    if mode == "centralized":
        from dpcda.mechanisms.dp_cda import generate_dpcda

        X, y = sites.pooled()
        rel = generate_dpcda(X, y, T=T, seed=seed, **common)
        p = rel.card["privacy"]
        threats = [threat("a", "outside reader of the release (one trusted curator)",
                           p.get("epsilon"), p.get("accountant"), p.get("relation"), 0)]
        return sites_card(rel, sites, mode, _with_stats(threats, p), p, extra={})
    if mode == "local":
        return _local(sites, T, seed, common, ts)
    from dpcda.mechanisms.cape_run import run_cape

    return run_cape(sites, l=int(l), T=int(T), common=common, ts=ts, seed=seed, drop=tuple(drop),
                    engine=engine, address=address)


def _local(sites: Sites, T: int, seed, common: dict, ts) -> Release:
    from dpcda.mechanisms.dp_cda import generate_dpcda

    T_s = int(T) // sites.S
    if T_s < sites.n_classes:
        raise ValueError(f"T={T} is too small for sites={sites.S}: every site releases floor(T/S) "
                         f"samples, at least one per class (K={sites.n_classes})")
    master = SecureRandom(seed)
    rels = [generate_dpcda(s.X, s.y, T=T_s, seed=None if seed is None else seed + 1 + i, **common)
            for i, s in enumerate(sites.sites)]
    order = master.permutation(sum(r.n for r in rels))
    X = np.concatenate([r.X for r in rels])[order]
    y = np.concatenate([r.y for r in rels])[order]
    ys = np.concatenate([r.y_soft for r in rels])[order]
    eps = [r.card["privacy"].get("epsilon") for r in rels]
    worst = None if any(e is None for e in eps) else max(eps)
    p = rels[0].card["privacy"]
    acc, rel_ = p.get("accountant"), p.get("relation")
    why = " (parallel composition: a record lives at one site; the largest site epsilon)"
    threats = [threat("a", "outside reader of the union of the sites' releases" + why, worst, acc,
                       rel_, 0),
               threat("b", "an aggregator: it sees only the published per-site releases", worst,
                       acc, rel_, 0)]
    threats += [threat("c", f"the aggregator with {t} colluding sites (records at honest sites)",
                        worst, acc, rel_, t) for t in ts]
    threats = _with_stats(threats, p)
    sx = [r.card["parameters"].get("sigma_x") for r in rels]
    base = Release(X=X, y=y, y_soft=ys, card={"privacy": dict(p, epsilon=worst)},
                   preprocess=rels[0].preprocess)
    return sites_card(base, sites, "local", threats, dict(p, epsilon=worst),
                 extra={"T_per_site": T_s, "sigma_x_per_site": sx, "seeded": bool(master.seeded)})


def _with_stats(threats: list[dict], privacy: dict) -> list[dict]:
    """Every threat model's entry names ``dp-center``'s statistics step when the release (or
    each site's) composed one in (its ``mu``; the same under each threat model here: nobody but
    the curator or the site sees more than the release)."""
    step = privacy.get("composed_with")
    if step:
        from dpcda.mechanisms.cape_center import composed_note

        for e in threats:
            e["composed_with"] = composed_note(step["mu_gdp"])
    return threats


__all__ = ["MODES", "SiteDropout", "check_colluding", "default_colluding", "generate_sites"]
