import math

import pytest

from dpcda.report.formatting import (EMPTY, fmt_alpha, fmt_cell, fmt_delta, fmt_eps, fmt_int, fmt_sigma,
                              log_ticks, nearest)


def test_numbers_read_the_same_everywhere():
    assert fmt_eps(math.inf) == "∞ (no privacy)"
    assert fmt_eps(None) == fmt_eps(math.nan) == "n/a"
    assert fmt_eps(9.87654) == "9.88" and fmt_eps(1234.4) == "1,234" and fmt_eps(3e6) == "3e+06"
    assert fmt_delta(1e-5) == "1e-5" and fmt_delta(2e-10) == "2e-10" and fmt_delta(0.01) == "1e-2"
    assert fmt_sigma(0.0) == "0 (no privacy)" and fmt_sigma(0.24221) == "0.242"
    assert fmt_int(60000) == "60,000"
    assert fmt_alpha(32.0) == "32" and fmt_alpha(2.5) == "2.5"
    assert fmt_alpha(None) == EMPTY and "PLD" in fmt_alpha(None, 1e-3)


def test_empty_cells_are_a_dash_never_none():
    assert fmt_cell(None) == fmt_cell(math.nan) == EMPTY
    assert fmt_cell(0.5, lambda v: f"{v:.1f}") == "0.5"


def test_nearest_is_on_a_log_scale_and_refuses_a_bad_target():
    assert nearest((0.0, 0.1, 1.0, 10.0), 0.4) == 1.0   # log-distance: 0.4 is nearer 1 than 0.1
    assert nearest((0.1, 1.0), 0.2) == 0.1
    with pytest.raises(ValueError, match="target"):
        nearest((0.1, 1.0), 0.0)


def test_log_ticks_span_the_range():
    t = log_ticks(0.01, 10)
    assert t["tickvals"][0] == pytest.approx(0.01) and t["tickvals"][-1] == pytest.approx(10)
    assert "0.02" in t["ticktext"]                          # 1-2-5 over three decades
    assert log_ticks(1e-3, 1e4)["ticktext"] == ["0.001", "0.01", "0.1", "1", "10", "100",
                                                "1000", "10000"]  # decades only


def test_markdown_table_keeps_every_cell_in_its_column():
    from dpcda.report.formatting import markdown_table

    md = markdown_table([{"a": "x | y", "b": None}, {"a": "two\nlines", "b": 1.5, "c": "\\"}])
    lines = md.splitlines()
    assert lines[0] == "| a | b | c |" and lines[1] == "|---|---|---|"
    assert lines[2] == "| x \\| y | — | — |"
    assert lines[3] == "| two lines | 1.5 | \\\\ |"
    # Every row has as many unescaped separators as the header.
    import re
    assert {len(re.findall(r"(?<!\\)\|", line)) for line in lines} == {4}
    assert markdown_table([{"a": 1}], columns=["b", "a"]).splitlines()[2] == "| — | 1 |"
    # No rows: still a table (its header), not stray pipes; missing values of every kind: "—".
    assert markdown_table([], columns=["m", "n"]).splitlines() == ["| m | n |", "|---|---|"]
    import pandas as pd
    assert markdown_table([{"a": pd.NA, "b": math.nan, "c": None, "d": 0}]).splitlines()[2] == \
        "| — | — | — | 0 |"
    # No formula: Streamlit's markdown would typeset $...$ as LaTeX.
    assert markdown_table([{"a": "costs $5 or $6"}]).splitlines()[2] == "| costs \\$5 or \\$6 |"


def test_markdown_table_of_a_dataframe_keeps_its_columns():
    import pandas as pd

    from dpcda.report.formatting import markdown_table

    df = pd.DataFrame({"b": ["x"], "a": [None]})
    assert markdown_table(df).splitlines() == ["| b | a |", "|---|---|", "| x | — |"]
    assert markdown_table(df.iloc[:0]).splitlines() == ["| b | a |", "|---|---|"]
