"""Helpers for the page tests (not tests themselves)."""

from __future__ import annotations

import re

import pandas as pd


def run(at):
    """Run the AppTest ``at`` (again) and check the page raised nothing; returns ``at``."""
    at.run()
    assert not at.exception, at.exception
    return at


def markdown_frame(md: str) -> pd.DataFrame:
    """A markdown table (:func:`dpcda.report.formatting.markdown_table`) read back as a DataFrame of
    strings; backticks around a cell are dropped."""
    lines = md.splitlines()
    assert len(lines) >= 2 and set(lines[1]) <= set("|-"), md

    def cells(line: str) -> list[str]:
        parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        return [p.strip().replace("\\|", "|").replace("\\$", "$").replace("\\\\", "\\").strip("`")
                for p in parts]

    head = cells(lines[0])
    rows = [cells(line) for line in lines[2:]]
    assert all(len(r) == len(head) for r in rows), md
    return pd.DataFrame(rows, columns=head)


def markdown_tables(at, first_column: str) -> list[pd.DataFrame]:
    """Every markdown table drawn by the AppTest ``at`` whose first column is ``first_column``."""
    return [markdown_frame(m.value) for m in at.markdown
            if m.value.startswith(f"| {first_column} |")]
