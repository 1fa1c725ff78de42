"""Events: a mechanism's release described apart from any accountant; accountants say what they
support (dp_accounting's ``DpEvent`` / ``supports``)."""

from __future__ import annotations

import pytest

from dpcda.privacy import (ACCOUNTANTS, CLASS_MIXTURE, NOT_A_BOUND, Accountant, Relation,
                           ReleaseEvent, caveat, event_of, is_bound_for)


def test_relations_cover_themselves_and_replace_one_covers_all():
    for r in Relation:
        assert r.covers(r) and Relation.REPLACE_ONE.covers(r)
    assert not Relation.CLASS_FEATURES.covers(Relation.REPLACE_ONE)
    assert not Relation.FEATURES.covers(Relation.CLASS_FEATURES)
    assert "label kept" in Relation.CLASS_FEATURES.words


def test_supports_needs_the_kind_and_a_covering_relation():
    acc = ACCOUNTANTS["class-aware-pld"]
    assert acc.supports(CLASS_MIXTURE)
    assert not acc.supports(ReleaseEvent("class-mixture", Relation.REPLACE_ONE))
    assert not acc.supports(ReleaseEvent("mixture", Relation.CLASS_FEATURES))
    # Room for a whole-record accountant of DP-CDA: replace-one neighbours, class mixtures.
    whole = Accountant("whole-toy", "t", "t", 2, (), None, kinds=("class-mixture",))
    assert whole.relation == Relation.REPLACE_ONE.words
    assert whole.supports(CLASS_MIXTURE)
    assert whole.supports(ReleaseEvent("class-mixture", Relation.REPLACE_ONE))
    with pytest.raises(ValueError, match="event must be a ReleaseEvent"):
        acc.supports("dp-cda")
    with pytest.raises(ValueError, match="neighbours must be a Relation"):
        Accountant("bad", "t", "t", 2, (), None, neighbours="replace-one")


def test_questions_by_name_or_by_event_agree():
    assert event_of("dp-cda") is CLASS_MIXTURE
    assert is_bound_for("class-aware", CLASS_MIXTURE) and is_bound_for("class-aware", "dp-cda")
    assert caveat("paper", CLASS_MIXTURE) == NOT_A_BOUND == caveat("paper")
    with pytest.raises(ValueError, match="mechanism must be a registered mechanism"):
        event_of("no-such-mechanism")
