"""The card of a release across sites (:func:`sites_card`): the mode, S, the split, and every
epsilon with the threat model it holds under (docs/decentral.md). A plain JSON dict, like the
DP-CDA card's JSON; it carries no per-site count (those are private)."""

from __future__ import annotations

import math

from dpcda.mechanisms.release import Release
from dpcda.mechanisms.sites import Sites


def _num(x):
    return None if x is None or not math.isfinite(float(x)) else float(x)


def threat(key: str, what: str, eps, accountant, relation, t: int) -> dict:
    """One threat model's entry: its key (a, b, c), who sees what, the epsilon (None: no bound),
    the accountant and relation it holds under, and the colluding sites t."""
    return {"key": key, "threat": what, "epsilon": _num(eps), "accountant": accountant,
            "relation": relation, "colluding_sites": int(t)}


def sites_card(rel: Release, sites: Sites, mode: str, threats, privacy: dict, extra: dict) -> Release:
    """The release with the sites' card: mode, S, the split, every epsilon with its threat model."""
    card = {
        "algorithm": "dp-cda-sites", "mode": mode, "sites": sites.S, "split": sites.split,
        "parameters": {**rel.card.get("parameters", {}), **extra},
        "privacy": {"epsilon": privacy.get("epsilon"), "delta": privacy.get("delta"),
                    "accountant": privacy.get("accountant"), "relation": privacy.get("relation"),
                    "private": privacy.get("private", True),
                    "seeded": bool(privacy.get("seeded", extra.get("seeded", False))),
                    "threat_models": threats,
                    **{k: privacy[k] for k in ("floating_point", "randomness", "warnings",
                                                "outside_under_inside_relation", "calibration_aim",
                                                "calibrated_to_epsilon", "composed_with")
                       if k in privacy}},
        "reference_card": rel.card if mode == "centralized" else None,
    }
    return Release(X=rel.X, y=rel.y, y_soft=rel.y_soft, card=card, preprocess=rel.preprocess)


#: How the inside threat models' floating point is accounted (docs/decentral.md, Theorem 3).
INSIDE_FLOAT = ("the honest sites' shares, each quantised to the public share grid before "
                "masking: their lattice sum is a post-processing of the ideal Gaussian sum up to "
                "a relative error per value (docs/decentral.md, Theorem 3)")


def inside_threats(*, S: int, sigma: float, c: float, l: int, per_class, site_counts,
                   delta: float, ts, float_cost=None, stats_mu: float | None = None) -> list[dict]:
    """Threat models (b) and (c, t) of a CAPE release: each epsilon is the smaller of the two
    valid bounds of :func:`dpcda.privacy.decentral.inside_epsilon`, with both on the entry, and
    (``float_cost(H)``, a :class:`~dpcda.randomness.noise.FloatCost` for ``H`` honest sites)
    what floating point adds to it, with the totals the view satisfies. ``stats_mu``: the
    ``dp-center`` statistics step (centralized GDP parameter), composed into each and listed
    as the entry's ``composed_with`` (docs/decentral.md, Theorem 6)."""
    from dpcda.mechanisms.cape_center import composed_note
    from dpcda.privacy.decentral import RELATION, inside_epsilon, stats_view_mu

    out = []
    for t in [0, *[t for t in ts if 1 <= t <= S - 1]]:
        if sigma > 0:
            eps, acc, both = inside_epsilon(S=S, t=t, sigma=sigma, c=c, l=l, per_class=per_class,
                                            site_counts=site_counts, delta=delta,
                                            stats_mu=stats_mu)
        else:
            eps, acc, both = None, None, {}
        if t == 0:
            what = "honest-but-curious aggregator and coordinator (every message)"
        else:
            what = (f"the aggregator with {t} colluding sites (records at honest sites; records "
                    "at colluding sites are not protected from them)")
        entry = threat("b" if t == 0 else "c", what, eps, acc, RELATION, t)
        entry["bounds"] = {k: _num(v) for k, v in both.items()}
        if stats_mu is not None:
            entry["composed_with"] = composed_note(stats_view_mu(S=S, t=t, stats_mu=stats_mu),
                                                   t, S)
        if float_cost is not None and eps is not None:
            fp = float_cost(S - t).card(eps, delta)
            entry["floating_point"] = {**fp, "method": INSIDE_FLOAT}
            if fp["vacuous"]:  # the ideal view's epsilon does not carry over to the floats
                from dpcda.util.notices import notice, notices_json

                entry["epsilon_ideal"], entry["epsilon"] = entry["epsilon"], None
                entry["notices"] = notices_json([notice("float_no_bound",
                                                        epsilon=fp["epsilon_total"],
                                                        delta_total=fp["delta_total"])])
        out.append(entry)
    return out


def outside_same_relation(*, sigma: float, c: float, l: int, per_class, class_counts,
                          delta: float, stats_mu: float | None = None) -> dict:
    """Threat model (a)'s epsilon under the inside parties' relation (features replaced, class
    and site fixed; ``class-aware-pld``): what (b) and (c) are to be compared with, since the
    release's own (a) is under its accountant's relation (by default whole-record).
    ``stats_mu``: ``dp-center``'s statistics composed in (:mod:`dpcda.privacy.composed`)."""
    from dpcda.privacy.decentral import RELATION
    from dpcda.privacy.pld import max_over_classes

    rates = [(int(l) / int(n), int(t)) for t, n in zip(per_class, class_counts) if int(t) > 0]
    if stats_mu is not None and sigma > 0 and rates:
        from dpcda.privacy.composed import VALUE_INTERVAL, class_epsilon

        eps = max(class_epsilon(2.0 * c / l / sigma, g, t, float(stats_mu), float(delta),
                                VALUE_INTERVAL) for g, t in set(rates))
    else:
        eps = (max_over_classes(2.0 * c / l / sigma, rates, delta, None, False).epsilon
               if sigma > 0 and rates else None)
    return {"epsilon": _num(eps), "accountant": "class-aware-pld", "relation": RELATION}
