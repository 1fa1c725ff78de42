"""ε under both neighbouring relations, one function for the Privacy page and the Choose page
(dpcda/dashboard/relations.py, dpcda/dashboard/candidates.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dpcda.dashboard import candidates as cand
from dpcda.dashboard.relations import FEATURES, WHOLE, relation_epsilon, relation_rows
from dpcda.dashboard.setting import Setting
from dpcda.privacy import PrivacyParams, compute_epsilon
from dpcda.privacy import composed


def params(setting: Setting) -> PrivacyParams:
    return PrivacyParams(sigma_x=setting.sigma_x, sigma_y=setting.sigma_y_value, **cand._facts(setting))


def test_the_candidates_epsilons_are_the_relation_rows():
    s = Setting(dataset="digits", l=4, sigma_x=1.0)
    got = cand.relation_epsilons(s, 1.0, 1.0)
    whole, features = relation_rows(params(s))
    assert got == {"eps_whole": whole.epsilon, "eps_features": features.epsilon, "whole_note": ""}
    assert got["eps_whole"] == compute_epsilon(params(s), accountant=WHOLE).epsilon


def test_a_proportional_split_is_accounted_under_both_relations_at_that_split():
    s = Setting(dataset="digits", l=4, sigma_x=1.0, allocation="proportional",
                accountant=FEATURES)
    p = params(s)
    whole, features = relation_rows(p)
    assert whole.epsilon == compute_epsilon(p, accountant=WHOLE).epsilon  # the bounds' split
    assert whole.epsilon != compute_epsilon(replace(p, allocation="equal"), accountant=WHOLE).epsilon
    got = cand.relation_epsilons(s, 1.0, 1.0)
    assert got == {"eps_whole": whole.epsilon, "eps_features": features.epsilon, "whole_note": ""}
    assert got["eps_features"] == compute_epsilon(p, accountant=FEATURES).epsilon


def test_dp_centers_statistics_are_composed_in_where_a_release_makes_them():
    s = Setting(dataset="digits", l=4, sigma_x=1.0, normalize="dp-center")
    mu = cand.stats_mu_of(s)
    assert mu is not None
    p = params(s)
    got = cand.relation_epsilons(s, 1.0, 1.0)
    assert got["eps_features"] == composed.composed_epsilon(p, mu=mu)
    assert got["eps_features"] > relation_epsilon(p, FEATURES)  # the statistics cost something
    with pytest.raises(ValueError, match="accountant must be one of whole-record, class-aware-pld"):
        relation_epsilon(p, "class-aware", mu)
