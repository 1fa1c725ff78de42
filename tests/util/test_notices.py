"""Coded notices: one table (code -> severity, message), notices as values, JSON at the edges."""

import dataclasses
import pickle

import pytest

from dpcda.privacy import PrivacyParams, compute_epsilon
from dpcda.util import notices
from dpcda.util.checks import NOTICE_CODES as CHECKS_NOTICE_CODES
from dpcda.util.checks import Notice as ChecksNotice
from dpcda.util.notices import NOTICE_CODES, NOTICES, SEVERITIES, Notice, codes, notice, notices_json


def reword(monkeypatch, code: str, template: str) -> None:
    """Change the message of ``code`` in the one table (what a rewording in the source does)."""
    monkeypatch.setitem(NOTICES, code, dataclasses.replace(NOTICES[code], template=template))


def test_one_table_with_a_severity_and_a_meaning_for_every_code():
    assert set(NOTICE_CODES) == set(NOTICES) >= {"non_private", "max_alpha_edge",
                                                 "delta_not_below_1_over_n", "pld_rdp_cap",
                                                 "seeded_release"}
    assert all(k.severity in SEVERITIES and k.meaning and k.template for k in NOTICES.values())
    assert ChecksNotice is Notice and CHECKS_NOTICE_CODES is NOTICE_CODES  # older imports still work
    with pytest.raises(ValueError, match=r"code must be one of non_private, .*got code='nope'"):
        notice("nope")


def test_a_notice_is_its_message_with_a_code_and_comes_back_from_json_and_pickle():
    n = notice("delta_not_below_1_over_n", delta=0.01, n=1000)
    assert n == "delta=0.01 is not below 1/N=0.001: a mechanism that publishes a random record " \
                "meets it; choose delta < 1/N"
    assert (n.code, n.severity, n.fields, n.message) == ("delta_not_below_1_over_n", "warning",
                                                         {"delta": 0.01, "n": 1000}, str(n))
    assert n.to_json() == {"code": "delta_not_below_1_over_n", "message": str(n), "severity": "warning"}
    back = Notice.from_json(n.to_json())
    assert back == n and back.code == n.code
    assert pickle.loads(pickle.dumps(n)).code == n.code
    plain = Notice.from_json("an old warning")  # a version-1 card's text: no code
    assert plain.code == "" and plain.severity == "warning"
    assert notices_json([n, "an old warning"])[1] == {"code": "", "message": "an old warning",
                                                      "severity": "warning"}
    assert codes([n, {"code": "non_private", "message": "x"}]) == {"delta_not_below_1_over_n",
                                                                  "non_private"}
    with pytest.raises(ValueError, match="a notice must be"):
        Notice.from_json({"code": "x"})


def test_the_message_comes_from_the_table_and_the_code_stays(monkeypatch):
    p = PrivacyParams(l=4, sigma_x=0.0, sigma_y=0.0, c=1.0, T=1000, n=1000, delta=0.01)
    before = compute_epsilon(p, accountant="paper").warnings
    reword(monkeypatch, "non_private", "no noise at all (reworded)")
    reword(monkeypatch, "delta_not_below_1_over_n", "delta {delta:g} >= 1/N = {inv_n:g} (reworded)")
    after = compute_epsilon(p, accountant="paper").warnings
    assert [w.code for w in after] == [w.code for w in before] == ["non_private",
                                                                  "delta_not_below_1_over_n"]
    assert list(after) == ["no noise at all (reworded)", "delta 0.01 >= 1/N = 0.001 (reworded)"]
    assert list(after) != list(before)
    assert notices.NOTICES["non_private"].template == "no noise at all (reworded)"
