import math

import numpy as np
import pandas as pd
import pytest

from dpcda.report.tables import MISSING, for_display


def test_missing_cells_are_dashes_and_numbers_follow_their_format():
    df = pd.DataFrame({"method": ["a", None], "acc": [0.81234, math.nan], "l": [4, None],
                       "sigma": [np.float64(0.0723), np.nan]})
    out = for_display(df, {"acc": "{:.4f}", "sigma": "{:.3g}"})
    assert out.to_dict("list") == {"method": ["a", MISSING], "acc": ["0.8123", MISSING],
                                   "l": ["4", MISSING], "sigma": ["0.0723", MISSING]}
    assert "None" not in out.to_string() and "nan" not in out.to_string().lower()
    assert df["acc"].dtype.kind == "f"  # the input frame is untouched


def test_nullable_integers_show_a_dash_not_na():
    df = pd.DataFrame({"l": pd.array([4, None], dtype="Int64")})
    assert for_display(df)["l"].tolist() == ["4", MISSING]


def test_unknown_column_in_formats_is_named():
    with pytest.raises(ValueError, match="formats name columns the table does not have: \\['x'\\]"):
        for_display(pd.DataFrame({"a": [1]}), {"x": "{:.2f}"})
