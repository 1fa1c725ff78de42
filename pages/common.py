"""Shared UI helpers for the dashboard pages (not a page itself): widgets, cached calls, notes.

The logic lives in the library (:mod:`dpcda.dashboard.explorer`, :mod:`dpcda.report.formatting`,
:mod:`dpcda.dashboard.inputs`, :mod:`dpcda.util.messages`, :mod:`dpcda.dashboard.explain`), the figures in
:mod:`pages.charts`, typed inputs and problems in :mod:`pages.inputs_ui`, the privacy words in
:mod:`pages.notes`, the guided path (``step_intro(page)``, ``next_step_link(page)``) in
:mod:`pages.guide_ui`; the names pages import from here are re-exported. Pages import this module
as ``from pages.common import ...`` (``streamlit run app.py`` puts the repository root on
``sys.path``).

For inputs and messages: :func:`int_input` / :func:`float_input` (typed numbers refused at the
widget with the range in words, never clamped), :func:`show_problem` (one problem, once, in
plain words; the precise form in an expander), :func:`missing_data_note` (no server paths).
"""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard import explorer
from dpcda.dashboard.explorer import (DELTA_VALUES, L_VALUES, POWERS_OF_TWO, SIGMA_GRID, SIGMA_VALUES,
                            DatasetChoice, paper_vs_class_aware, published_vs_valid)
from dpcda.report.formatting import (EMPTY, fmt_alpha, fmt_cell, fmt_delta, fmt_eps, fmt_int, fmt_sigma,
                              log_ticks, nearest)
from dpcda.dashboard.inputs import parse_counts
from dpcda.util.messages import Problem, problem_of, unique_problems
from dpcda.data.presets import get_preset, list_presets
from pages.charts import EPS_PLOT_MAX, calibration_figure, figure4
from pages.guide_ui import next_step_link, step_intro
from pages.inputs_ui import (REFUSED, InputRefused, float_input, int_input, missing_data_note,
                             show_problem, typed)
from pages.notes import (accountant_assumptions, accountant_choice, epsilon_words,
                         privacy_footnote)

__all__ = [  # re-exported for the pages
    "DELTA_VALUES", "EMPTY", "EPS_PLOT_MAX", "L_VALUES", "POWERS_OF_TWO", "SIGMA_GRID",
    "SIGMA_VALUES", "DatasetChoice", "InputRefused", "REFUSED", "Problem", "accountant_assumptions",
    "accountant_choice", "calibration_figure", "epsilon_words", "figure4", "float_input",
    "fmt_alpha", "fmt_cell", "fmt_delta", "fmt_eps", "fmt_int", "fmt_sigma", "int_input",
    "log_ticks", "missing_data_note", "nearest", "next_step_link", "paper_vs_class_aware",
    "parse_counts", "privacy_footnote", "problem_of", "published_vs_valid", "show_problem",
    "step_intro", "typed", "unique_problems",
]

CUSTOM = "custom"


def ensure_app_navigation() -> None:
    """Make sure this page runs inside app.py's ``st.navigation``; call it first in every page.

    Streamlit quirk (checked on 1.67): with a ``pages/`` folder beside app.py, a fresh server is
    in the legacy "pages directory" mode until some run calls ``st.navigation``. The first visitor
    who opens a deep link such as ``/privacy`` gets the page script run on its own: every file in
    ``pages/`` (common.py included) is listed as a page and app.py's page config is skipped.
    Leaving that mode and rerunning executes app.py, whose ``st.navigation`` then opens the
    requested page. Outside that situation this is a no-op.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the legacy mode
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


# --- dataset choice -----------------------------------------------------------------------------

def dataset_picker(prefix: str, *, container=st.sidebar) -> DatasetChoice:
    """A preset selectbox (public class counts of MNIST, ...) or a typed custom dataset.

    Widget keys are ``{prefix}preset``, ``{prefix}counts``, ``{prefix}dx``, ``{prefix}dy``.
    Raises ``ValueError`` (a coded CheckError from :func:`parse_counts`; show it with
    :func:`show_problem`) for an unusable custom size; :class:`InputRefused` (already shown at
    the widget) for a refused d_x / d_y.
    """
    from dpcda.data import available_datasets, get_dataset_spec

    here = {a.name for a in available_datasets() if a.present}  # files on this server (issue 21)
    options = [p for p in list_presets() if p in here] + [CUSTOM]
    if st.session_state.get(f"{prefix}preset", options[0]) not in options:
        st.session_state[f"{prefix}preset"] = options[0]  # e.g. a link naming an absent dataset

    def label(name: str) -> str:  # the dataset registry's title, as on every page
        return "custom (type N or class counts)" if name == CUSTOM else get_dataset_spec(name).title

    name = container.selectbox("Dataset", options, index=0, format_func=label,
                               key=f"{prefix}preset", help="The datasets whose files are on this "
                               "server; ε reads their public facts only (N, class counts, dimensions).")
    absent_datasets_note([p for p in list_presets() if p not in here], container=container)
    if name != CUSTOM:
        p = get_preset(name)
        return DatasetChoice(name, p.n, tuple(p.class_counts), p.d_x, p.d_y)
    text = container.text_input(
        "N, or class counts N_1, ..., N_K", value=", ".join(["6000"] * 10), key=f"{prefix}counts",
        help="One integer: the dataset size N (enough for the 'paper' accountant). A "
             "comma-separated list: the size of every class (needed by 'class-aware').")
    refused = []  # every input is drawn before a refusal is raised (an undrawn one loses its value)

    def read(*args, **kw):
        try:
            return int_input(*args, **kw)
        except InputRefused as exc:
            refused.append(exc)

    d_x = read("d_x (features)", key=f"{prefix}dx", name="d_x", lo=1, hi=10**7, value=784,
               container=container, help="Needed only by the DPMix accountants.")
    typed_k = len([t for t in text.split(",") if t.strip()])
    if typed_k >= 2:  # class counts given: the label dimension is their number
        container.markdown(f"d_y (classes) = **{typed_k}**, one per class count")
        d_y = typed_k
    else:
        d_y = read("d_y (classes)", key=f"{prefix}dy", name="d_y", lo=2, hi=10**5, value=10,
                   container=container)
    if refused:
        raise refused[0]
    n, counts = parse_counts(text)
    return DatasetChoice(CUSTOM, n, counts, d_x, len(counts) if counts else d_y)


def absent_datasets_note(names: list[str], *, container=None) -> None:
    """The built-in datasets not offered here (their files are absent), each with how to get it."""
    from dpcda.data import get_dataset_spec, how_to_get

    if names:
        titles = ", ".join(get_dataset_spec(n).title for n in names)
        with (container or st).expander(f"Not on this server: {titles}"):
            for n in names:
                st.markdown(how_to_get(n))


# --- cached privacy computations (see dpcda.dashboard.explorer; inputs are plain values) -------------------

epsilon_table = st.cache_data(show_spinner=False, max_entries=256)(explorer.epsilon_table)
figure4_grid = st.cache_data(show_spinner="Computing the ε curves…",
                             max_entries=64)(explorer.figure4_grid)


@st.cache_data(show_spinner="Calibrating the noise for every l…", max_entries=64)
def calibration_rows(target: float, ls: tuple[int, ...], *, accountant: str, **kw) -> list[dict]:
    """:func:`dpcda.dashboard.explorer.calibration_rows`; a PLD accountant reuses the cached curves."""
    from dpcda.privacy import get_accountant

    curves = None
    if not get_accountant(accountant).uses_rdp:
        curves = figure4_grid(ls, SIGMA_GRID[::2], accountant=accountant, **kw)
    return explorer.calibration_rows(target, ls, accountant=accountant, curves=curves, **kw)


# --- the "Explain" toggle ---------------------------------------------------------------------

EXPLAIN_KEY = "explain_notes"          # the setting (a plain session value, kept across pages)
_EXPLAIN_WIDGET = "explain_notes_toggle"  # the widget's own key (dropped on pages without it)


def explain_on() -> bool:
    """Whether the Explain notes are on (on for a first visit; ``?explain=0`` turns it off)."""
    if EXPLAIN_KEY not in st.session_state:
        st.session_state[EXPLAIN_KEY] = st.query_params.get("explain", "1") != "0"
    return bool(st.session_state[EXPLAIN_KEY])


def _explain_changed() -> None:
    st.session_state[EXPLAIN_KEY] = st.session_state[_EXPLAIN_WIDGET]


def explain_toggle() -> bool:
    """The sidebar's "Explain" toggle; call once per page. Its state lives in a plain session
    value, so it survives pages that do not draw the toggle (Streamlit drops a widget's key on
    a run that does not render it)."""
    st.session_state[_EXPLAIN_WIDGET] = explain_on()
    return st.sidebar.toggle("Explain", key=_EXPLAIN_WIDGET, on_change=_explain_changed,
                             help="Plain-language notes beside every input: what it does and "
                                  "which direction is more private.")


def explain(key: str, *, container=None) -> None:
    """Draw input ``key``'s plain note (and its privacy direction) when Explain is on."""
    from dpcda.dashboard.explain import ends_text, get_note

    if not explain_on():
        return
    note = get_note(key)
    ends = ends_text(key)
    (container or st).caption(note.text + (f"  \n{ends}" if ends else ""))
