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
                    **{k: privacy[k] for k in ("floating_point", "randomness", "warnings")
                       if k in privacy}},
        "reference_card": rel.card if mode == "centralized" else None,
    }
    return Release(X=rel.X, y=rel.y, y_soft=rel.y_soft, card=card, preprocess=rel.preprocess)
