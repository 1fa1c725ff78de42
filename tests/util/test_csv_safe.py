"""CSV formula injection: text cells that start like a formula are neutralised, numbers are not."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from dpcda.util.csv_safe import FORMULA_STARTS, safe_cell, safe_frame


@pytest.mark.parametrize("text", ["=1+1", "=HYPERLINK(\"http://evil.example\",\"x\")", "+A1", "-A1+2",
                                  "@SUM(A1:A9)", "\tx", "\rx", "-", "+", "=", "-inf", "-1e", "--1"])
def test_text_that_starts_like_a_formula_gets_an_apostrophe(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["-1", "-1.5", "+3", "-2e-5", "-.5", "+1.E7", "1", "age", "a=b", "x-1",
                                  "", "'=already"])
def test_numbers_and_plain_text_stay_as_they_are(text):
    assert safe_cell(text) == text


def test_every_start_the_owasp_list_names_is_covered():
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r"}
    assert all(safe_cell(c + "cmd").startswith("'") for c in FORMULA_STARTS)


def test_a_frame_keeps_its_numbers_and_neutralises_its_text_and_labels():
    table = pd.DataFrame({"=cmd|' /C calc'!A0": ["=1+1", "-x", "-1.5", None],
                          "value": [-1.25, 2.0, -3e-7, 4.0],
                          "count": [-1, 2, 3, 4],
                          "name": pd.Series(["@me", "b", "-2", "d"], dtype="string")})
    out = safe_frame(table)
    back = pd.read_csv(io.StringIO(out.to_csv(index=False)), keep_default_na=False)
    assert list(back.columns) == ["'=cmd|' /C calc'!A0", "value", "count", "name"]
    assert list(back.iloc[:, 0]) == ["'=1+1", "'-x", "-1.5", ""]
    assert list(back["value"]) == [-1.25, 2.0, -3e-7, 4.0]  # numbers stay numbers
    assert list(back["count"]) == [-1, 2, 3, 4]
    assert list(back["name"].astype(str)) == ["'@me", "b", "-2", "d"]
    assert table.iloc[0, 0] == "=1+1"  # the table shown on the page is not changed
