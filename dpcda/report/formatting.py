"""How the dashboard (and the report) writes numbers: ε, δ, σ, counts, Rényi orders, axis ticks.

Pure Python, no Streamlit: one place decides that an infinite ε reads "∞ (no privacy)" and that
δ = 1e-5 reads ``1e-5`` on every page, in every table and in the exported report.

>>> fmt_eps(float("inf")), fmt_delta(1e-5), fmt_sigma(0.0), fmt_int(60000)
('∞ (no privacy)', '1e-5', '0 (no privacy)', '60,000')
"""

from __future__ import annotations

import math

from dpcda.util.verbatim import Verbatim

#: What an empty cell reads in every table (never "None" or "nan").
EMPTY = "—"


def fmt_sigma(s: float) -> str:
    """A noise scale: three significant digits; 0 is the non-private setting."""
    return "0 (no privacy)" if s == 0 else f"{s:.3g}"


def fmt_delta(d: float) -> str:
    """δ in short scientific notation: ``1e-5``, ``2e-10``."""
    m, e = f"{d:.0e}".split("e")
    return f"{m}e-{int(e[1:])}" if e.startswith("-") else f"{m}e{int(e)}"


def fmt_eps(eps: float | None) -> str:
    """Human-readable ε; infinity is spelled out as "no privacy", a missing value is "n/a"."""
    if eps is None or (isinstance(eps, float) and math.isnan(eps)):
        return "n/a"
    if math.isinf(eps):
        return "∞ (no privacy)"
    if eps < 100:
        return f"{eps:.3g}"
    if eps < 1e5:
        return f"{eps:,.0f}"
    return f"{eps:.3g}"


def fmt_int(n: int) -> str:
    """An integer with thousands separators."""
    return f"{n:,}"


def fmt_alpha(a, bound=None) -> str:
    """A Rényi order: an integer, or a real order (closed-form accountants); for a PLD accountant
    (no order) its discretisation bound when given."""
    if a is None:
        return EMPTY if bound is None else f"none (PLD; exact ε within {bound:.2g} below)"
    return str(int(a)) if float(a).is_integer() else f"{float(a):.3g}"


def fmt_cell(value, fmt=str) -> str:
    """A table cell: ``fmt(value)``, or :data:`EMPTY` for ``None``/NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return EMPTY
    return fmt(value)


def nearest(values, target: float) -> float:
    """The element of ``values`` closest to ``target`` on a log scale (positive values only)."""
    pos = [v for v in values if v > 0]
    if not pos or not target > 0:
        raise ValueError(f"target must be > 0 with at least one positive value, got "
                         f"target={target!r}")
    return min(pos, key=lambda v: abs(math.log(v) - math.log(target)))


def log_ticks(lo: float, hi: float) -> dict:
    """Tick values 1, 2, 5 × 10^k between ``lo`` and ``hi`` (only decades over a wide range).

    Returns ``{"tickvals": [...], "ticktext": [...]}`` for a log axis.
    """
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mantissas = (1, 2, 5) if k1 - k0 <= 4 else (1,)
    vals = [m * 10.0**k for k in range(k0, k1 + 1) for m in mantissas]
    vals = [v for v in vals if lo / 1.3 <= v <= hi * 1.3]
    return dict(tickvals=vals, ticktext=[f"{v:g}" for v in vals])


def markdown_table(rows, columns: list[str] | None = None) -> str:
    """A GitHub-flavoured markdown table of row dicts (or of a DataFrame's rows, its columns by
    default); ``columns`` (default: every key, in order of appearance) gives the header even
    when there are no rows. Missing, None and NaN cells are
    :data:`EMPTY`. Cells are rendered as markdown (`code` stays code), so pass trusted text (or
    text from outside through :func:`dpcda.util.verbatim.verbatim`, put in as it is); "|"
    and "$" are escaped and line breaks become spaces, so no cell can break the table or start
    a formula. Streamlit draws it as a wrapped HTML table, with none of a data grid's script."""
    if hasattr(rows, "to_dict"):  # a DataFrame
        columns = list(rows.columns) if columns is None else columns
        rows = rows.to_dict("records")
    cols = list(columns) if columns is not None else list(dict.fromkeys(k for r in rows for k in r))

    def cell(v) -> str:
        try:
            missing = v is None or v == "" or bool(v != v)  # NaN (and pandas' NA) != itself
        except TypeError:  # pandas.NA: its comparisons are NA, whose truth value is ambiguous
            missing = True
        if isinstance(v, Verbatim):  # outside text, already escaped (issue 29)
            return str(v)
        text = EMPTY if missing else str(v)
        return (" ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")
                .replace("$", "\\$"))

    lines = ["| " + " | ".join(cell(c) for c in cols) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)
