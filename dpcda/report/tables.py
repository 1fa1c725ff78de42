"""Tables for people: numbers formatted per column, missing cells shown as "—", never "None".

Pages hand a pandas DataFrame to :func:`for_display` before drawing it; the frame itself stays
numeric (CSV exports and sorting in the library use it unchanged).
"""

from __future__ import annotations

from typing import Mapping

from dpcda.report.formatting import EMPTY as MISSING  # one "—" for every table


def _missing(value) -> bool:
    if value is None:
        return True
    try:
        import pandas as pd

        return bool(pd.api.types.is_scalar(value) and pd.isna(value))  # NaN, pd.NA, NaT
    except (TypeError, ValueError):
        return False


def format_cell(value, fmt: str | None = None) -> str:
    """One cell as text: ``MISSING`` for None/NaN/``pd.NA``, ``fmt`` (e.g. ``"{:.4f}"``) for
    numbers; integral floats (an l read back as 4.0) print as integers."""
    if _missing(value):
        return MISSING
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalars -> Python numbers
    if fmt is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return fmt.format(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def for_display(frame, formats: Mapping[str, str] | None = None):
    """A copy of ``frame`` whose cells are text: ``formats`` maps a column to a format string;
    missing values become ``"—"``; integral floats (an l read back as 4.0) print as integers."""
    formats = dict(formats or {})
    unknown = set(formats) - set(frame.columns)
    if unknown:
        raise ValueError(f"formats name columns the table does not have: {sorted(unknown)}; "
                         f"columns: {list(frame.columns)}")
    out = frame.copy()
    for col in out.columns:
        fmt = formats.get(col)
        out[col] = [format_cell(v, fmt) for v in frame[col].tolist()]
    return out
