"""The Choose page's candidates in the address (dpcda/dashboard/candidate_link.py): written with
the setting's own names, read back the same, each malformed candidate refused on its own."""

from __future__ import annotations

import pytest

from dpcda.dashboard.candidate_link import (CHOSEN, PARAM, check_chosen, decode, decode_setting, encode,
                                            encode_setting)
from dpcda.dashboard.setting import FIELDS, Setting

A = Setting(dataset="digits", l=16, sigma_x=0.5)
B = Setting(dataset="mnist", epsilon=2.0, accountant="class-aware-pld", allocation="proportional",
            delta=1e-6, c=2.5, T=1000, normalize="zscore")
C = Setting(dataset="fashion-mnist")


def test_the_candidates_round_trip_with_their_labels():
    text = encode([("A", A), ("C", B)])
    assert text.split(";")[0] == "A~dataset:digits,l:16,sigma_x:0.5"  # only what is not default
    assert decode(text) == ([("A", A), ("C", B)], [])
    assert encode_setting(C) == "dataset:fashion-mnist"  # the dataset always
    assert decode_setting("dataset:fashion-mnist") == C
    assert encode([]) == "" and decode("") == ([], []) and decode(None) == ([], [])


def test_the_names_are_the_settings_query_names():
    pairs = dict(p.split(":", 1) for p in encode_setting(B).split(","))
    assert set(pairs) <= set(FIELDS)
    assert {k: v for k, v in B.to_query().items() if k in pairs} == pairs


def test_a_label_left_out_takes_the_next_free_letter():
    got, problems = decode("B~dataset:digits,l:16,sigma_x:0.5;dataset:fashion-mnist")
    assert got == [("A", C), ("B", A)] and problems == []


@pytest.mark.parametrize(("bad", "said"), [
    ("A~dataset:digits,l:0", "l must be an integer in [1, 512]"),
    ("A~dataset:nope", "dataset must be one of"),
    ("A~dataset:digits,colour:red", "'colour:red' is not name:value"),
    ("A~dataset:digits,l4", "'l4' is not name:value"),
    ("A~dataset:digits,l:4,l:8", "l is given twice"),
    ("Z~dataset:digits", "its label 'Z' is not one of the letters"),
])
def test_a_malformed_candidate_is_refused_by_name_and_the_rest_kept(bad, said):
    got, problems = decode(f"{bad};B~dataset:fashion-mnist")
    assert got == [("B", C)]
    (problem,) = problems
    text = str(problem)
    assert text.startswith(f"{PARAM} must be up to 3 settings") and said in text
    assert "dataset, l, sigma_x" in text and "A, B, C" in text  # the allowed names and labels


def test_a_fourth_a_repeat_and_a_label_twice_are_refused():
    text = encode([("A", A), ("B", B), ("C", C)])
    got, problems = decode(text + ";dataset:digits")
    assert [x for x, _ in got] == ["A", "B", "C"] and "at most 3" in str(problems[0])
    got, problems = decode("A~dataset:digits,l:16,sigma_x:0.5;B~dataset:digits,l:16,sigma_x:0.5")
    assert got == [("A", A)] and "already a candidate" in str(problems[0])
    got, problems = decode("A~dataset:digits;A~dataset:mnist")
    assert len(got) == 1 and "label A is given twice" in str(problems[0])


def test_a_refused_candidates_letter_is_not_given_to_another():
    got, _ = decode("A~dataset:digits,l:0;dataset:fashion-mnist")
    assert got == [("B", C)]  # a chosen=A meant the refused one, not this one


def test_chosen_is_one_of_the_labels():
    assert check_chosen("B", ["A", "B"]) == "B" and check_chosen(None, ["A"]) is None
    with pytest.raises(ValueError, match=rf"{CHOSEN} must be one of A, B, got {CHOSEN}='D'"):
        check_chosen("D", ["A", "B"])


def test_a_long_link_is_read_up_to_a_bound_and_the_rest_said_in_one_sentence():
    """Issue 29: 5,000 candidates were 5,000 refusals (1.6 MB on the page)."""
    from dpcda.dashboard.candidate_link import MAX_LINK_CHARS

    got, problems = decode(encode([("A", A)]) + ";dataset:digits,l:0" * 5000)
    assert got == [("A", A)] and len(problems) == 3  # two refused, then one sentence
    assert str(problems[-1]) == (f"{PARAM}: 4,998 more candidates ignored (at most 3 are read "
                                 f"from a link, in its first {MAX_LINK_CHARS:,} characters)")
    got, problems = decode("A~dataset:" + "x" * 100_000)  # one candidate past the bound
    assert got == [] and [str(p) for p in problems] == [
        f"{PARAM}: 1 more candidate ignored (at most 3 are read from a link, in its first "
        f"{MAX_LINK_CHARS:,} characters)"]


def test_a_refusal_quotes_a_long_value_short():
    got, problems = decode("Z" * 500 + "~dataset:" + "y" * 1000 + ";B~dataset:digits,l:" + "9" * 1500)
    assert got == [] and len(problems) == 2
    assert all(len(str(p)) < 800 for p in problems), [len(str(p)) for p in problems]
    with pytest.raises(ValueError) as exc:
        check_chosen("Q" * 10_000, ["A"])
    assert len(str(exc.value)) < 120
