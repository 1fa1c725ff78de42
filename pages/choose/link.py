"""The Choose page's candidates and choice in the address (not a page itself): a link to a
meeting's shortlist opens with its candidates measured again (:func:`read_address`), and every
change of the list or the choice is written back (:func:`write_address`). The encoding and its
checks are :mod:`dpcda.dashboard.candidate_link`; the numbers are always computed here, never read
from the address."""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.candidate_link import CHOSEN, PARAM, check_chosen, decode, encode
from pages.report_ui import CANDIDATES

PICK = "cand_pick"  # the radio of the choice (pages/report_ui.py)
_SYNCED = "dpcda_candidates_address"  # the session's candidates as last written to the address
_LINK = "dpcda_candidates_link"  # the address's value last read (as the link wrote it)
_PROBLEMS = "dpcda_candidates_problems"


def read_address(store=None) -> None:
    """When the address's ``candidates`` differ from the session's (a link just opened): measure
    them, in place of the session's, and take the address's ``chosen``; each refused candidate
    (or choice) is said by :func:`address_problems`, the rest kept."""
    from dpcda.dashboard.candidates import measure
    from dpcda.util.messages import problem_of

    ss, text = st.session_state, st.query_params.get(PARAM)
    if text is None or text in (ss.get(_SYNCED), ss.get(_LINK)):
        return
    labelled, problems = decode(text)
    cands = []
    with st.spinner("Measuring the link's candidates (their numbers are computed, never read from "
                    "the link)…"):
        for label, setting in labelled:
            try:
                cands.append(measure(setting, label, store=store))
            except ValueError as exc:
                problems.append(ValueError(f"{PARAM}: candidate {label} cannot be measured: {exc}"))
    ss[CANDIDATES], ss[_LINK] = tuple(cands), text
    ss[_SYNCED] = encode((c.label, c.setting) for c in cands)
    try:
        chosen = check_chosen(st.query_params.get(CHOSEN), [c.label for c in cands])
    except ValueError as exc:
        problems.append(exc)
    else:
        if chosen is not None:
            ss[PICK] = chosen
    ss[_PROBLEMS] = [problem_of(p).plain for p in problems]


def address_problems() -> None:
    """The link's refused candidates in plain words (until the list changes), the link's text
    shown as typed, never as Markdown."""
    from dpcda.util.verbatim import verbatim

    said = st.session_state.get(_PROBLEMS)
    if said:
        st.error("**The link's candidates were partly refused; the rest is kept.** "
                 + " ".join(verbatim(p) for p in said))


def write_address() -> None:
    """The session's candidates and choice into the address (both removed when there are none)."""
    ss = st.session_state
    cands = ss.get(CANDIDATES, ())
    text = encode((c.label, c.setting) for c in cands)
    if text != ss.get(_SYNCED):
        ss[_PROBLEMS] = []  # the list changed: the link's refusals are past
    ss[_SYNCED] = text
    labels = [c.label for c in cands]
    chosen = ss.get(PICK) if ss.get(PICK) in labels else (labels[0] if labels else None)
    for name, value in ((PARAM, text), (CHOSEN, chosen)):
        if value:
            if st.query_params.get(name) != value:
                st.query_params[name] = value
        elif name in st.query_params:
            del st.query_params[name]
