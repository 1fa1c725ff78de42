"""The dpcda dashboard: ``streamlit run app.py``.

A Home page (below) and the page scripts in ``pages/``. A page is listed only if its file
exists, so new pages plug in without editing this file.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dpcda.dashboard.background import foreground
from dpcda.dashboard.guide import STEPS, Step
from pages.pipeline import pipeline_dot, pipeline_summary

ROOT = Path(__file__).resolve().parent

PAPER_URL = "https://arxiv.org/abs/2411.16121"
DPMIX_URL = ("https://scholar.google.com/scholar?q=%22Synthesizing+differentially+private+"
             "datasets+using+random+mixing%22")

# The navigation follows the guided path (dpcda.dashboard.guide.STEPS); missing files are left out.
# Material icons are drawn from Streamlit's bundled font. Without an explicit page_icon, a
# page's Material icon also becomes the tab's favicon, which Streamlit fetches from
# fonts.gstatic.com (a request to Google on every page view; broken offline): FAVICON below
# is an inline SVG, so the dashboard makes no outside request. (Emoji icons need an emoji
# font, which headless/server machines often lack.)
#: (file, title, icon, what it offers) for the navigation, in the order of the steps.
PAGES = tuple((s.page, s.title, s.icon, f"{s.name}: {s.do}") for s in STEPS)
#: Pages after the steps: (file, title, icon).
EXTRA_PAGES = (("pages/choose.py", "Choose & report", ":material/fact_check:"),
               ("pages/sites.py", "Sites", ":material/hub:"))

# A shield with an epsilon, as an inline SVG (served as a data: URL).
FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
           '<path d="M32 3 L57 12 V30 C57 46 46 56 32 61 C18 56 7 46 7 30 V12 Z" fill="#2f5fb3"/>'
           '<text x="32" y="44" font-size="34" text-anchor="middle" fill="white" '
           'font-family="Georgia, serif" font-style="italic">ε</text></svg>')

# The pipeline diagram and its paragraph are drawn from today's defaults (pages/pipeline.py reads
# them from the library), so they cannot fall behind a changed default.


def home() -> None:
    from pages.common import explain_toggle

    explain_toggle()
    st.title("DP-CDA, step by step")
    st.markdown("Publish a look-alike of a labelled dataset without exposing anyone in it: "
                "follow the four steps.")
    for step in STEPS:
        if (ROOT / step.page).exists():
            _step_card(step)
    st.subheader("How DP-CDA works")
    text, diagram = st.columns([3, 2], gap="large")
    with diagram:
        st.graphviz_chart(pipeline_dot(), width="stretch")
    with text:
        _home_text()


def _step_card(step: Step) -> None:
    """One step of the guided path: its link, what to do, what to look for (and, with Explain
    on, the plain note of the input that matters most there)."""
    from pages.common import explain

    with st.container(border=True, key=f"home_step_{step.number}"):
        name, body = st.columns([1, 3], gap="small")
        name.markdown(f"**{step.number} · {step.name}**")
        name.page_link(step.page, label=f"Open **{step.title}**", icon=step.icon)
        body.markdown(f"{step.do} **Look for** {step.look_for}")
        explain(step.note, container=body)


def _home_text() -> None:
    from dpcda.privacy import ACCOUNTANT_INFO, list_accountants

    st.markdown(pipeline_summary())
    names = list_accountants()
    with st.expander("Accountants (the proofs that turn a setting into ε)"):
        st.markdown("; ".join(f"`{n}` ({ACCOUNTANT_INFO[n].title})" for n in names)
                    + ". The Privacy page shows all of them side by side and what each assumes.")
    st.markdown(
        f"**References.** U. Saha, T. M. Tonoy, H. Imtiaz. *DP-CDA: An Algorithm for Enhanced "
        f"Privacy Preservation in Dataset Synthesis Through Randomized Mixing.* Security and "
        f"Privacy (Wiley); [arXiv:2411.16121]({PAPER_URL}). K. Lee, H. Kim, K. Lee, C. Suh, "
        f"K. Ramchandran. *Synthesizing Differentially Private Datasets using Random Mixing* "
        f"(DPMix). IEEE ISIT 2019, pp. 542–546 ([search]({DPMIX_URL})).")
    from dpcda.privacy import DEFAULT_ACCOUNTANT, NOT_A_BOUND

    st.caption("**Privacy footnote.** This page shows no ε. Every ε on the other pages names the "
               "accountant and conversion that produced it, its neighbouring relation and what "
               f"that accountant assumes; the default `{DEFAULT_ACCOUNTANT}` accountant is a valid "
               "bound for Algorithm 1 as implemented, while `paper` (DP-CDA Theorem 1) is offered "
               f"for reproducing the paper's tables only: {NOT_A_BOUND}. z-score statistics from "
               "private data are not covered by any of them.")


def _url_path(file: str) -> str:
    """A page's address: its file name (``pages/sites.py`` -> ``sites``), or its folder's for a
    script named ``page.py``. A page's script sits in ``pages/`` itself, its parts in a folder of
    its own: on a fresh server's first visit Streamlit looks the address up among ``pages/*.py``
    before the navigation runs (a script inside a folder showed "Page not found" once)."""
    path = Path(file)
    return path.parent.name if path.stem == "page" else path.stem


def main() -> None:
    st.set_page_config(page_title="dpcda", page_icon=FAVICON, layout="wide")
    # Less empty space around every page (Streamlit's 6rem on top, 5rem aside) for a 1024×768 projector.
    st.html("<style>[data-testid='stMainBlockContainer']{padding:3rem 2.5rem 4rem}</style>")
    pages = [st.Page(home, title="Home", icon=":material/home:", default=True)]
    pages += [st.Page(file, title=title, icon=icon)
              for file, title, icon, _ in PAGES if (ROOT / file).exists()]
    pages += [st.Page(file, title=title, icon=icon, url_path=_url_path(file))
              for file, title, icon in EXTRA_PAGES if (ROOT / file).exists()]
    with foreground():  # background prefetches (dpcda.dashboard.background) wait while a page runs
        st.navigation(pages).run()


main()
