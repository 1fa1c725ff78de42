"""AppTests of the shared input and problem helpers (pages/inputs_ui.py via pages.common)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.markdown_check import PAYLOADS, problems, shown_text


def _page():
    import streamlit as st

    from pages.common import InputRefused, int_input, show_problem

    try:
        T = int_input("T (synthetic samples)", key="t_T", name="T", lo=1, hi=10**9, value=1797)
    except InputRefused:
        st.stop()
    st.metric("T used", T)
    if T == 8:  # an error whose text names a server path
        show_problem(ValueError("MNIST files not found. Searched: /srv/data/mnist/raw, "
                                "/srv/cache/MNIST/raw."))
    if T == 9:  # an error quoting a crafted column name of an upload
        show_problem(ValueError("column '![x](http://evil.example/t.png) [Click](https://evil.example/r) "
                                "<img src=x> :material/home:' has a single value"))
    if T == 7:
        try:
            from dpcda.util.checks import check_float
            check_float("delta", 2.0, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        except ValueError as exc:
            show_problem(exc)


def run(text=None):
    at = AppTest.from_function(_page, default_timeout=30)
    at.run()
    if text is not None:
        at.text_input(key="t_T").input(text).run()
    assert not at.exception, at.exception
    return at


def test_a_typed_integer_is_used_as_typed():
    at = run()
    assert at.metric[0].value == "1797"
    assert run("60,000").metric[0].value == "60000"


def test_1e308_is_refused_with_the_range_and_no_stale_value_is_used():
    at = run("1e308")
    assert len(at.metric) == 0                       # neither 1 nor the old 1797
    assert len(at.error) == 1
    assert at.error[0].value == ("The number of synthetic samples T must be a whole number "
                                 "from 1 to 1,000,000,000; 1e308 is not.")
    assert at.expander[0].label == "Details"
    assert "T must be an integer in [1, 1000000000], got T='1e308'" in at.code[0].value


def test_a_problem_is_shown_once_in_plain_words():
    at = run("7")
    assert [e.value for e in at.error] == ["δ must be a number between 0 and 1; 2 is not."]


def test_a_problem_never_shows_a_server_path():
    at = run("8")
    (error,) = at.error
    assert error.value == ("MNIST files not found. Searched: (a file on the server), "
                           "(a file on the server).")
    assert "/srv" not in error.value and not [e for e in at.expander if "/srv" in str(e.proto)]


def test_a_crafted_column_name_in_a_problem_is_shown_as_typed():
    (error,) = run("9").error
    assert problems(error.value) == []  # no image, link, HTML or icon
    assert shown_text(error.value) == ("Column '![x](http://evil.example/t.png) "
                                       "[Click](https://evil.example/r) <img src=x> :material/home:' "
                                       "has a single value")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_typed_text_quoted_by_a_refusal_is_never_markdown(payload):
    (error,) = run(payload).error
    assert problems(error.value) == [], error.value
    assert shown_text(error.value).startswith("The number of synthetic samples T must be ")
