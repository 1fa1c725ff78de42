"""The report of a choice (:func:`build_choice_report`): its first page is the summary paragraph
(:func:`dpcda.report.choice.summary_paragraph`) and the candidates side by side (their ε under
both relations, accuracy with the baselines when measured, fidelity, a few released samples);
the chosen setting's full report (:func:`dpcda.report.html.build_report`) follows as details.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import Sequence

from dpcda.report.choice import (FEATURES, RELATION, WHOLE, CandidateNumbers, check_candidates,
                                 comparison_rows, side_by_side, summary_paragraph)
from dpcda.report.html import _img, build_report, table
from dpcda.report.inputs import ReportInputs

TITLE = "DP-CDA synthetic data: which setting to publish"


def candidates_section(cands: Sequence[CandidateNumbers], chosen: str) -> str:
    """The comparison table, what its columns mean and the candidates' samples side by side."""
    out = [table(side_by_side(comparison_rows(cands, chosen))),
           f'<p class="cap">ε under two neighbouring relations: <code>{WHOLE}</code> protects '
           f"{RELATION[WHOLE]}; <code>{FEATURES}</code> protects {RELATION[FEATURES]} (class sizes "
           "public), a narrower promise. A proportional allocation of T depends on the private "
           f"class sizes, so <code>{WHOLE}</code> cannot account it. Accuracy: mean ± std over the "
           "stored runs of that exact release on the real test split. Fidelity: the mean relative "
           "distance between the release's and the real data's class means (0 is identical).</p>"]
    figs = [f"<figure>{_img(c.samples, f'samples of candidate {c.label}', c.samples.shape[1])}"
            f"<figcaption>Candidate {escape(c.label)}</figcaption></figure>"
            for c in cands if c.samples is not None]
    if figs:
        out.append('<div class="cands">' + "".join(figs) + "</div>"
                   '<p class="cap">A few released samples of each candidate (rows: the first classes), each '
                   "image stretched from its own minimum to maximum.</p>")
    return "".join(out)


def lead_html(cands: Sequence[CandidateNumbers], chosen: str) -> str:
    """The first page: the summary paragraph, then the candidates side by side."""
    return ('<section id="summary" class="summary"><h2>Summary</h2>'
            f'<p class="headline lead">{escape(summary_paragraph(cands, chosen))}</p></section>'
            '<section id="candidates"><h2>Candidates side by side</h2>'
            f"{candidates_section(cands, chosen)}</section>")


def build_choice_report(details: ReportInputs, cands: Sequence[CandidateNumbers],
                        chosen: str) -> str:
    """The report of choosing ``chosen`` among ``cands`` (1 to 3), one self-contained HTML
    string; ``details``: the chosen setting's report inputs
    (:func:`dpcda.report.gather.gather_report_inputs`)."""
    c = check_candidates(cands, chosen)
    if details.dataset != c.dataset:
        raise ValueError(f"details must be the chosen candidate's report (dataset {c.dataset!r}), "
                         f"got dataset={details.dataset!r}")
    return build_report(replace(details, title=TITLE), lead=lead_html(cands, chosen))
