"""Show code and the one-click report, drawn on every page (not a page itself).

- :func:`reproduce_expander`: a "Reproduce this" expander with the library call, the
  ``python -m dpcda`` command(s) and a downloadable script for the page's current settings
  (built by :mod:`dpcda.dashboard.reproduce`).
- :func:`report_download`: a button that builds the stakeholder report of the current setting
  (:mod:`dpcda.report`) when clicked, as one self-contained HTML file, and as PDF where the
  server has a Chromium or Chrome (:mod:`dpcda.report.pdf`).

Both take the page's settings as a plain dict with :class:`dpcda.dashboard.reproduce.ReproSettings`
names (None values are left out). Neither computes anything while the page draws: the code is
string building, the report runs only on click (in Streamlit's download thread, no ``st.*``).
"""

from __future__ import annotations

from typing import Mapping

import streamlit as st

from dpcda.util.messages import hide_paths
from dpcda.util.verbatim import verbatim
from dpcda.dashboard.reproduce import file_stem, reproduce

REPORT_HELP = ("One self-contained HTML file that opens offline: ε and δ in plain words with the "
               "accountant and what it protects, the data card, sample images and class means, "
               "accuracy against l and ε from the results store, the Compare and fidelity tables, "
               "and the caveats. Built when clicked (a few seconds: it generates a release).")
PDF_HELP = ("The same report as a PDF (A4), printed by the server's Chromium without network. "
            "Built when clicked (a few seconds more than the HTML).")


def _plain(settings: Mapping) -> dict:
    return {k: v for k, v in dict(settings).items() if v is not None}


def reproduce_expander(page: str, settings: Mapping, *, container=None) -> None:
    """The "Reproduce this" expander for ``page`` ("privacy", "samples", "utility", "compare")."""
    box = (container or st).expander("Reproduce this: code for these settings")
    try:
        r = reproduce(page=page, **_plain(settings))
    except ValueError as exc:
        box.caption("Nothing to reproduce for these settings: " + verbatim(hide_paths(exc)))
        return
    box.caption(f"{r.what}. Every run draws fresh randomness (no seed is ever recorded): an ε "
                "comes out the same, an accuracy varies from run to run.")
    # The code blocks load the browser's syntax highlighter (~0.3 s on every page view, even in
    # a folded expander): drawn only once asked for.
    if box.toggle("Show the library call and the command line", key=f"{page}_repro_show"):
        box.markdown("**Library call**")
        box.code(r.library, language="python")
        if r.cli:
            box.markdown("**Command line**")
            box.code(r.cli_text, language="bash")
        for note in r.notes:
            box.caption(note)
    box.download_button("Download the script (.py)", r.script, file_name=r.filename,
                        mime="text/x-python", key=f"{page}_repro_script", on_click="ignore")


def report_html(settings: Mapping, release=None, page: str | None = None,
                sweep_id: int | None = None) -> bytes:
    """The report of ``settings`` as UTF-8 HTML (a short error page when it cannot be built);
    ``sweep_id``: the stored sweep or comparison the page shows (its section uses it)."""
    from dpcda.dashboard.candidates import count_release
    from dpcda.data.presets import PRESETS
    from dpcda.report import build_report, gather_report_inputs
    from dpcda.report.gather import settings_for_report
    from dpcda.report.html import error_report

    try:
        kw = settings_for_report(_plain(settings), page)
        on = (lambda card: count_release(kw["dataset"], card)) if kw.get("dataset") in PRESETS else None
        return build_report(gather_report_inputs(**kw, release=release, sweep_id=sweep_id,
                                                 on_release=on)).encode("utf-8")
    except ValueError as exc:
        return error_report(hide_paths(exc)).encode("utf-8")


def report_pdf(settings: Mapping, release=None, page: str | None = None,
               sweep_id: int | None = None) -> bytes:
    """The same report printed to PDF by the server's browser (:mod:`dpcda.report.pdf`)."""
    from dpcda.report.pdf import html_to_pdf

    return html_to_pdf(report_html(settings, release, page, sweep_id).decode("utf-8"))


def report_download(page: str, settings: Mapping, *, release=None, sweep_id: int | None = None,
                    container=None) -> None:
    """The "Download report" button (in the sidebar unless ``container``)."""
    from dpcda.report.gather import settings_for_report
    from dpcda.report.pdf import pdf_available

    where = container or st.sidebar
    try:
        kw = settings_for_report(_plain(settings), page)
    except ValueError as exc:
        where.download_button("Download report (HTML)", b"", disabled=True, key=f"{page}_report",
                              help=f"No report for these settings: {exc}.")
        return
    noise = f"eps{kw['epsilon']:g}" if kw.get("epsilon") is not None else f"sigma{kw['sigma_x']:g}"
    name = file_stem("dpcda_report", kw["dataset"], f"l{kw['l']}", noise) + ".html"
    where.download_button("Download report (HTML)",
                          lambda: report_html(settings, release, page, sweep_id), file_name=name,
                          mime="text/html", key=f"{page}_report", on_click="ignore",
                          help=REPORT_HELP)
    if pdf_available():
        where.download_button("Download report (PDF)",
                              lambda: report_pdf(settings, release, page, sweep_id),
                              file_name=name[:-len(".html")] + ".pdf", mime="application/pdf",
                              key=f"{page}_report_pdf", on_click="ignore", help=PDF_HELP)
    else:
        where.caption("No PDF here (no Chromium or Chrome on the server): the HTML report prints "
                      "to PDF from any browser's print dialog.")
    if page in ("utility", "compare"):  # a sweep: the report covers one of its settings
        said = (f"target ε = {kw['epsilon']:g}" if kw.get("epsilon") is not None
                else f"σ_x = {kw['sigma_x']:g}")
        where.caption(f"This report covers one setting ({kw['dataset']}, l = {kw['l']}, {said}). To "
                      "put up to three side by side and choose one: the **Choose & report** page.")


def page_tools(page: str, settings: Mapping, *, release=None, sweep_id: int | None = None) -> None:
    """Both, as every page draws them: the expander here, the report button in the sidebar.
    ``sweep_id``: the stored sweep (Utility) or comparison (Compare) the page shows."""
    reproduce_expander(page, settings)
    report_download(page, settings, release=release, sweep_id=sweep_id)


# --- a choice between candidate settings (issue 21, item 5) -------------------------------------
CANDIDATES = "dpcda_candidates"  # the session's candidates (a tuple of dpcda.dashboard.candidates.Candidate)


def candidates_panel(setting, store=None) -> None:
    """Add the shared ``setting`` as a candidate (up to three), see them side by side, choose one
    and download the report of that choice (built on click)."""
    from dpcda.dashboard import candidates as cand
    from dpcda.report.choice import (MAX_CANDIDATES, comparison_rows, display_rows, report_name,
                                     side_by_side, summary_paragraph)
    from dpcda.report.pdf import pdf_available
    from pages.common import show_problem

    cands = st.session_state.get(CANDIDATES, ())
    full = len(cands) >= MAX_CANDIDATES and all(c.setting != setting for c in cands)
    if st.button("Add this setting as a candidate", key="cand_add", disabled=full, type="primary",
                 help=f"At most {MAX_CANDIDATES}: remove one to add another." if full else
                 "Computes ε under both relations, looks up its measured accuracy and draws a "
                 "release for its samples and fidelity (seconds; about 10 s on MNIST)."):
        try:
            with st.spinner("Measuring the candidate…"):
                new = cand.measure(setting, "A", store=store)  # add() relabels it
            st.session_state[CANDIDATES] = cand.add(cands, new)
        except ValueError as exc:
            show_problem(exc)
        else:
            st.rerun()  # the button's state (full or not) follows the new list
    if not cands:
        st.info("No candidates yet: set a setting (Privacy page, or the address) and add it here.")
        return
    nums = [c.numbers for c in cands]
    labels = [c.label for c in cands]
    chosen = st.radio("Choose the setting to recommend", labels, horizontal=True, key="cand_pick",
                      format_func=lambda x: f"Candidate {x}")
    chosen = chosen if chosen in labels else labels[0]
    st.markdown("\n".join(f"- **{c.label}**: {c.numbers.describe()}" for c in cands))  # in full
    st.dataframe(display_rows(side_by_side(comparison_rows(nums, chosen))), hide_index=True,
                 width="stretch")
    st.caption(f"Fidelity is measured on a fresh release drawn for each candidate (up to "
               f"T = {cand.T_CAP:,}): it moves a little from one draw to the next; ε does not.")
    cols = st.columns(len(cands))
    for col, c in zip(cols, cands):
        if c.numbers.samples is not None:
            col.image(c.numbers.samples, caption=f"Candidate {c.label}: released samples")
        if col.button(f"Remove {c.label}", key=f"cand_remove_{c.label}"):
            st.session_state[CANDIDATES] = cand.remove(cands, c.label)
            st.rerun()
    st.markdown("**The report's first page:** " + summary_paragraph(nums, chosen))
    pick = nums[labels.index(chosen)]
    name = report_name(pick)

    def html() -> bytes:
        try:
            return cand.choice_report(cands, chosen, store=store)[1].encode("utf-8")
        except ValueError as exc:
            from dpcda.report.html import error_report
            return error_report(hide_paths(exc)).encode("utf-8")

    def pdf() -> bytes:
        from dpcda.report.pdf import html_to_pdf
        return html_to_pdf(html().decode("utf-8"))

    left, right = st.columns(2)
    left.download_button("Download report (HTML)", html, file_name=name, mime="text/html",
                         key="cand_report", on_click="ignore", help=REPORT_HELP)
    if pdf_available():
        right.download_button("Download report (PDF)", pdf, file_name=name[:-5] + ".pdf",
                              mime="application/pdf", key="cand_report_pdf", on_click="ignore",
                              help=PDF_HELP)
