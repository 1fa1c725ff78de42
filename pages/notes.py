"""Privacy words every page shows (not a page itself; re-exported by ``pages.common``): how an
accountant is offered, the words next to an ε, the closing privacy footnote, the assumptions.
"""

from __future__ import annotations

import streamlit as st

from dpcda.report.formatting import fmt_delta


def accountant_choice(accountant: str) -> str:
    """How an accountant is offered in a DP-CDA selectbox (the default first, paper labelled)."""
    from dpcda.privacy import choice_label

    return choice_label(accountant, "dp-cda")


def epsilon_words(accountant: str, mechanism: str = "dp-cda") -> str:
    """Next to an ε: the accountant, NOT_A_BOUND where it applies, the neighbouring relation."""
    from dpcda.privacy import epsilon_note

    return epsilon_note(accountant, mechanism)


# --- the privacy footnote every page carries -------------------------------------------------

def privacy_footnote(accountant: str, conversion: str, *, what: str = "the headline epsilon",
                     delta: float | None = None, mechanism: str = "dp-cda") -> None:
    """A closing caption naming the accountant behind an epsilon and the assumptions it makes.

    Every page that shows an epsilon calls this once at the bottom (project rule: every page
    says which accountant produced an epsilon and under what assumptions).
    """
    from dpcda.privacy import ACCOUNTANT_INFO, CONVERSION_TITLES, caveat

    info = ACCOUNTANT_INFO[accountant]
    conv = (f"the **{conversion}** RDP → (ε, δ) conversion "
            f"({CONVERSION_TITLES.get(conversion, conversion)})" if info.uses_rdp
            else "exact composition of its privacy loss distribution (no RDP conversion)")
    st.divider()
    d = f", δ = {fmt_delta(delta)}" if delta is not None else ""
    note = caveat(accountant, mechanism)
    st.caption(f"**Privacy footnote.** {what[:1].upper() + what[1:]} was computed by the "
               f"**{accountant}** accountant ({info.title}"
               + (f"; **{note}**" if note else "") + f") with {conv}{d}. Neighbours: "
               f"{info.relation} Its assumptions: " + " ".join(info.assumptions.split()))


def accountant_assumptions(names: list[str]) -> None:
    """An expander explaining, in plain words, what each accountant assumes."""
    from dpcda.privacy import ACCOUNTANT_INFO

    with st.expander("What each accountant assumes"):
        for name in names:
            info = ACCOUNTANT_INFO[name]
            st.markdown(f"**`{name}`: {info.title}**")
            st.markdown(info.assumptions)
