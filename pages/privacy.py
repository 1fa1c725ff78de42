"""Privacy explorer: ε of a DP-CDA release under every accountant, the accuracy it buys,
Figure 4, calibration. Reads the widgets, calls :mod:`dpcda`, draws (the headline, drawn before
the widgets from their keys: privacy_head; the other sections: privacy_views)."""

from __future__ import annotations

import streamlit as st

from dpcda.privacy import ACCOUNTANT_INFO, CONVERSION_TITLES, list_conversions
from dpcda.dashboard.explorer import epsilon_table_text
from dpcda.report.formatting import markdown_table
from dpcda.experiments.frontier import public_facts
from dpcda.mechanisms import MECHANISMS
from dpcda.data.presets import list_presets
from dpcda.privacy.params import MAX_ALPHA_LIMIT
from pages.audit_ui import audit_section
from pages.common import (DELTA_VALUES, L_VALUES, REFUSED, SIGMA_VALUES, InputRefused,
                          accountant_assumptions, accountant_choice, dataset_picker,
                          ensure_app_navigation, epsilon_table, explain_toggle, fmt_delta,
                          fmt_int, fmt_sigma, int_input, next_step_link, paper_vs_class_aware,
                          privacy_footnote, show_problem, step_intro, typed)
from pages.privacy_head import DEFAULTS, MAX_ALPHA_RANGE, T_RANGE, headline, setting_from_state
from pages.report_ui import page_tools
from pages.privacy_views import accuracy_section, calibration_section, figure4_section, note

ensure_app_navigation()
st.title("Privacy explorer")
step_intro("pages/privacy.py")
# The headline first (the browser draws it before the sidebar's ~40 elements; privacy_head).
left, right = st.columns([1, 1.3], gap="large")
slot = left.empty()
early = setting_from_state(st.session_state)
p, r = headline(slot, early, quiet=True) if early else (None, None)

# --- controls ----------------------------------------------------------------------------------
sb = st.sidebar
explain_toggle()
sb.header("Setting")
try:
    ds = dataset_picker("privacy_", container=sb)
except InputRefused:  # already shown at its box
    ds = None
except ValueError as exc:
    ds = None
    show_problem(exc)
note("dataset", sb)
l = sb.select_slider("Order of mixture l (records averaged per sample)", L_VALUES,
                     value=DEFAULTS["privacy_l"], key="privacy_l",
                     help="From 1 to 512 (at most the smallest class). Arrow keys step through "
                          "1..16, then 8 steps per doubling.")
note("l", sb)
sigma_x = sb.select_slider("σ_x (feature noise)", SIGMA_VALUES, value=DEFAULTS["privacy_sigma_x"],
                           format_func=fmt_sigma, key="privacy_sigma_x",
                           help="From 0 (no privacy) to 10, on a log scale.")
note("sigma_x", sb)
tie = sb.toggle("Tie σ_y to σ_x", value=DEFAULTS["privacy_tie"], key="privacy_tie")
note("ratio", sb)
if not tie:
    sigma_y = sb.select_slider("σ_y (label noise)", SIGMA_VALUES,
                               value=DEFAULTS["privacy_sigma_y"], format_func=fmt_sigma,
                               key="privacy_sigma_y")
    note("sigma_y", sb)
sigma_y = sigma_x if tie else sigma_y
c = sb.slider("Clip norm c", min_value=0.1, max_value=10.0, value=DEFAULTS["privacy_c"], step=0.1,
              key="privacy_c")
note("c", sb)
T_in = typed(int_input, "T (synthetic samples)", key="privacy_T", **T_RANGE, container=sb,
             placeholder=f"= N ({fmt_int(ds.n)})" if ds else "= N",
             help="A whole number from 1 to 1,000,000,000. Empty means T = N, the paper's choice.")
note("T", sb)
delta = sb.select_slider("δ (probability the ε bound may fail)", DELTA_VALUES,
                         value=DEFAULTS["privacy_delta"], format_func=fmt_delta,
                         key="privacy_delta")
note("delta", sb)
accountants = list(MECHANISMS.get("dp-cda").accountants)  # its default (a valid bound) first
accountant = sb.selectbox("Accountant", accountants,
                          index=accountants.index(DEFAULTS["privacy_accountant"]),
                          key="privacy_accountant", format_func=accountant_choice,
                          help="\n".join(f"- `{a}`: {ACCOUNTANT_INFO[a].title}"
                                         for a in accountants))
note("accountant", sb)
conversion = sb.radio("RDP → (ε, δ) conversion", list_conversions(), key="privacy_conversion",
                      captions=[CONVERSION_TITLES.get(v, "") for v in list_conversions()])
note("conversion", sb)
with sb.expander("Advanced"):
    max_alpha = typed(int_input, "Largest Rényi order α_max", key="privacy_max_alpha",
                      **MAX_ALPHA_RANGE, value=int(DEFAULTS["privacy_max_alpha"]),
                      help=f"A whole number from 3 to {MAX_ALPHA_LIMIT:,}: ε is minimised over "
                           "integer orders up to this one.")
    note("max_alpha")

if ds is None or REFUSED in (T_in, max_alpha):  # shown where it is; every input drawn (kept)
    slot.empty()  # no ε beside a refused input, whatever was read early
    st.stop()
T = int(T_in) if T_in else ds.n
ratio = 1.0 if tie or sigma_x == 0 else sigma_y / sigma_x
common = dict(n=ds.n, class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y, c=c, T=T,
              delta=delta, conversion=conversion, max_alpha=max_alpha)
setting = dict(ds=ds, l=l, sigma_x=sigma_x, sigma_y=sigma_y, c=c, T=T, delta=delta,
               accountant=accountant, conversion=conversion, max_alpha=max_alpha)
# Again from the widgets: a custom dataset, a refused setting (its problem shown here, once), or
# a widget that disagreed with its key.
if setting != early or r is None:
    p, r = headline(slot, setting)

with right:
    if ds.name in list_presets():
        eps_now = float(r.epsilon) if r is not None else None
        accuracy_section(dataset=ds.name, facts=public_facts(ds.name), l=l, sigma_x=sigma_x,
                         ratio=ratio, c=c, T=T, delta=delta, accountant=accountant,
                         conversion=conversion, max_alpha=max_alpha, eps_now=eps_now)
    else:
        st.caption("Accuracy needs real data: pick a named dataset to see what this ε buys.")

rows = epsilon_table(l, sigma_x, sigma_y, **common)
eps = {row["accountant"]: row["epsilon"] for row in rows}
st.markdown(paper_vs_class_aware(eps.get("paper"), eps.get("class-aware")))
st.markdown("**Every accountant at this setting**")
st.markdown(markdown_table(epsilon_table_text(rows)))  # plain: no data grid script to fetch

# --- Figure 4 and the calibration: on demand (a PLD accountant takes seconds) ----------------
if st.toggle("Show ε against noise for every l (the paper's Figure 4) and the calibration",
             key="privacy_show_curves", help="Computes ε on a grid of noise levels for every "
             "power of two l; with a PLD accountant this takes a few seconds the first time."):
    ls = figure4_section(ds=ds, l=l, sigma_x=sigma_x, ratio=ratio, accountant=accountant, r=r,
                         common=common)
    calibration_section(ls=ls, ratio=ratio, accountant=accountant, common=common)

audit_section(l=l, sigma_x=sigma_x, c=c, T=T, delta=delta, class_counts=ds.class_counts,
              params=p if r is not None else None)
accountant_assumptions(accountants)
page_tools("privacy", dict(
    dataset=ds.name if ds.name in list_presets() else None, l=l, sigma_x=sigma_x, sigma_y=sigma_y,
    c=c, T=T_in and T, delta=delta, accountant=accountant, conversion=conversion,
    max_alpha=max_alpha, n=ds.n, class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y))
next_step_link("pages/privacy.py")
privacy_footnote(accountant, conversion, delta=delta,
                 what="the headline ε (and Figure 4 and the calibration)")
