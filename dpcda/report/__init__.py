"""One-click stakeholder report: a single self-contained HTML file of the current setting.

>>> from dpcda.report import gather_report_inputs, build_report
>>> html = build_report(gather_report_inputs("digits", l=16, epsilon=10.0))   # doctest: +SKIP

:class:`ReportInputs` (plain data; a section without data says "Not measured yet"),
:func:`build_report` (HTML: base64 PNG images, inline SVG charts, no script, no network),
:func:`gather_report_inputs` (computes the privacy block and a release, reads accuracies and the
comparison from the results store). Never imports streamlit or plotly.
"""

from dpcda.report.gather import gather_report_inputs
from dpcda.report.html import NOT_MEASURED, build_report, caveats_for
from dpcda.report.inputs import SECTIONS, ReportInputs, rows_of

__all__ = ["NOT_MEASURED", "ReportInputs", "SECTIONS", "build_report", "caveats_for",
           "gather_report_inputs", "rows_of"]
