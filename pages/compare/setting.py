"""The Compare page and the shared setting (not a page itself): its widgets filled from the
setting on arrival (:func:`seed_compare`), and what they say written back (:func:`publish_compare`);
the values and changes come from :mod:`dpcda.dashboard.compare_setting`."""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.compare_setting import (DELTA, EPS, OWN_EPS, SEEDED, epsilon_choices, setting_changes,
                                             widget_values)
from dpcda.report.compare_view import epsilon_options
from pages.setting_ui import arriving, chosen, seed, shared_setting, update

_NOTE = "compare_setting_note"


def seed_compare(offered, accountants) -> None:
    """On arrival: the shared setting, once the reader has chosen one, into Compare's widgets
    (its ε is computed only then), and a note when Compare cannot show the setting's dataset
    (said in the sidebar by :func:`note`)."""
    if not arriving("compare") and SEEDED in st.session_state:
        seed("compare", {})
        return
    if not chosen():  # nothing chosen yet: Compare's own quick defaults (digits, ε = 10)
        seed("compare", {OWN_EPS: None, DELTA: 1e-5})
        st.session_state.update({SEEDED: None, _NOTE: ""})
        return
    values, words = widget_values(shared_setting(), offered, accountants=accountants)
    seed("compare", values)
    st.session_state[_NOTE] = words


def note(container) -> None:
    """The one-line note of :func:`seed_compare`, if any."""
    if st.session_state.get(_NOTE):
        container.caption(st.session_state[_NOTE])


def epsilon_list(dataset: str) -> list[float]:
    """The target ε offered for ``dataset``: the paper's columns and the setting's own ε (a
    choice not among them, after a change of dataset, goes back to the default)."""
    options = epsilon_choices(epsilon_options(dataset), st.session_state.get(OWN_EPS))
    if st.session_state.get(EPS) not in options:
        st.session_state[EPS] = 10.0 if 10.0 in options else options[0]
    return options


def publish_compare(*, dataset: str, epsilon: float, delta: float, c, accountant) -> None:
    """Write Compare's dataset, target ε, δ, c and DP-CDA's accountant into the shared setting
    (``c``: ``None`` when refused; ``accountant``: ``None`` when DP-CDA is not compared)."""
    update(**setting_changes(shared_setting(), st.session_state.get(SEEDED), dataset=dataset,
                             epsilon=epsilon, delta=delta, c=c, accountant=accountant))
    st.session_state[SEEDED] = (dataset, epsilon)  # a later change is written, this one was
