"""CSV cells a spreadsheet opens as text, never as a formula (CSV formula injection).

A spreadsheet program reads a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return as a formula: an uploaded file's column named ``=HYPERLINK("http://…")`` or
``=cmd|' /C calc'!A0`` would run when the exported release is opened. Following OWASP's advice,
:func:`safe_cell` puts an apostrophe before such a *text* cell (the spreadsheet shows the text,
the apostrophe marks it as text). A cell that is a plain number (``-1.5``, ``+3``, ``-2e-5``) is
left alone, so negative numbers stay numbers; numeric columns are never touched.

Used on export only (the downloads and ``--out`` files): the dashboard shows every name as typed.

>>> safe_cell("=1+1"), safe_cell("-1.5"), safe_cell("-x"), safe_cell("age")
("'=1+1", '-1.5', "'-x", 'age')
"""

from __future__ import annotations

import re

#: First characters a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(text) -> str:
    """``text`` (``str()`` of it) as a CSV cell no spreadsheet runs: an apostrophe before it when it
    starts like a formula and is not a plain number."""
    text = str(text)
    if text.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def safe_frame(table):
    """A copy of the pandas ``table`` ready for ``to_csv``: its column labels and every text cell
    through :func:`safe_cell`; numbers, booleans and missing values as they are."""
    from pandas.api.types import is_string_dtype  # here: importing dpcda.util stays free of pandas

    out = table.copy()
    out.columns = [safe_cell(c) if isinstance(c, str) else c for c in out.columns]
    for j in range(out.shape[1]):
        col = out.iloc[:, j]
        if col.dtype == object or is_string_dtype(col.dtype):
            out.isetitem(j, col.map(lambda v: safe_cell(v) if isinstance(v, str) else v))
    return out
