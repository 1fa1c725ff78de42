"""Privacy explorer: ε of a DP-CDA release under every accountant, the accuracy it buys,
Figure 4, calibration. Reads the widgets, calls :mod:`dpcda`, draws (the headline, drawn before
the widgets from their keys: pages/privacy/head.py; the other sections: pages/privacy/views.py)."""

from __future__ import annotations

import streamlit as st

from dpcda.privacy import ACCOUNTANT_INFO, CONVERSION_TITLES, list_conversions
from dpcda.dashboard.explorer import epsilon_table_text
from dpcda.dashboard.inputs import with_exact
from dpcda.report.formatting import markdown_table
from dpcda.experiments.frontier import public_facts
from dpcda.mechanisms import MECHANISMS
from dpcda.data.presets import default_clip_norm, list_presets
from dpcda.privacy.params import MAX_ALPHA_LIMIT
from pages.privacy.audit import audit_section
from pages.common import (DELTA_VALUES, L_VALUES, REFUSED, SIGMA_VALUES, InputRefused,
                          accountant_assumptions, accountant_choice, dataset_picker,
                          ensure_app_navigation, epsilon_table, explain_toggle, float_input, fmt_delta,
                          fmt_int, fmt_sigma, int_input, next_step_link, paper_vs_class_aware,
                          privacy_footnote, show_problem, step_intro, typed)
from pages.privacy.head import (MAX_ALPHA_RANGE, T_RANGE, TARGET, headline, setting_from_state,
                                target_noise, widget_values)
from pages.setting_ui import address_problems, keep_noise, remember_noise, seed, shared_setting, update
from pages.report_ui import page_tools
from pages.privacy.views import accuracy_section, calibration_section, figure4_section, note
from pages.privacy.norm import dp_center_note

ss = st.session_state
ensure_app_navigation()
seed("privacy", widget_values(shared_setting()))  # the shared setting, on arrival
st.title("Privacy explorer")
step_intro("pages/privacy.py")
address_problems()
# The headline first (the browser draws it before the sidebar's ~40 elements; privacy/head.py).
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
l = sb.select_slider("Order of mixture l (records averaged per sample)",
                     with_exact(L_VALUES, ss.get("privacy_l")), key="privacy_l",
                     help="From 1 to 512 (at most the smallest class). Arrow keys step through "
                          "1..16, then 8 steps per doubling.")
note("l", sb)
mode = sb.radio("Noise", [TARGET, "explicit σ"], key="privacy_mode", horizontal=True,
                help="A target ε is met by calibrating σ_x = σ_y under the chosen accountant.",
                on_change=keep_noise("privacy_mode", "privacy_eps", "privacy_sigma_x", TARGET))
eps_in, tie = None, True
if mode == TARGET:
    eps_in = typed(float_input, "Target ε", key="privacy_eps", name="epsilon", lo=0.0, lo_open=True,
                   hi=1e4, value=10.0, container=sb, help="For no privacy, choose explicit σ = 0.")
    note("epsilon", sb)
else:
    sigma_x = sb.select_slider("σ_x (feature noise)", with_exact(SIGMA_VALUES, ss.get("privacy_sigma_x")),
                               format_func=fmt_sigma, key="privacy_sigma_x",
                               help="From 0 (no privacy) to 10, on a log scale.")
    note("sigma_x", sb)
    tie = sb.toggle("Tie σ_y to σ_x", key="privacy_tie")
    note("ratio", sb)
    if not tie:
        sigma_y = sb.select_slider("σ_y (label noise)", with_exact(SIGMA_VALUES, ss.get("privacy_sigma_y")),
                                   format_func=fmt_sigma, key="privacy_sigma_y")
        note("sigma_y", sb)
c = sb.slider("Clip norm c", min_value=0.1, max_value=10.0, step=0.1, key="privacy_c")
note("c", sb)
T_in = typed(int_input, "T (synthetic samples)", key="privacy_T", **T_RANGE, container=sb,
             placeholder=f"= N ({fmt_int(ds.n)})" if ds else "= N",
             help="A whole number from 1 to 1,000,000,000. Empty means T = N, the paper's choice.")
note("T", sb)
delta = sb.select_slider("δ (probability the ε bound may fail)",
                         with_exact(DELTA_VALUES, ss.get("privacy_delta")), format_func=fmt_delta,
                         key="privacy_delta")
note("delta", sb)
accountants = list(MECHANISMS.get("dp-cda").accountants)  # its default (a valid bound) first
accountant = sb.selectbox("Accountant", accountants, key="privacy_accountant",
                          format_func=accountant_choice,
                          help="\n".join(f"- `{a}`: {ACCOUNTANT_INFO[a].title}"
                                         for a in accountants))
note("accountant", sb)
conversion = sb.radio("RDP → (ε, δ) conversion", list_conversions(), key="privacy_conversion",
                      captions=[CONVERSION_TITLES.get(v, "") for v in list_conversions()])
note("conversion", sb)
with sb.expander("Advanced"):
    max_alpha = typed(int_input, "Largest Rényi order α_max", key="privacy_max_alpha",
                      **MAX_ALPHA_RANGE,
                      help=f"A whole number from 3 to {MAX_ALPHA_LIMIT:,}: ε is minimised over "
                           "integer orders up to this one.")
    note("max_alpha")

if ds is None or REFUSED in (T_in, max_alpha, eps_in):  # shown where it is; every input drawn (kept)
    slot.empty()  # no ε beside a refused input, whatever was read early
    if REFUSED in (T_in, max_alpha, eps_in):  # where the reader looks, pointing to the sidebar
        st.info("**No ε yet:** a value in the sidebar is refused (said under it, in red).")
    st.stop()
T = int(T_in) if T_in else ds.n
allocation = shared_setting().allocation
if mode == TARGET:  # the noise that meets the target under the accountant (as on Samples)
    sigma_x = target_noise(slot, left, eps_in, ds=ds, l=l, c=c, T=T, delta=delta, accountant=accountant,
                           conversion=conversion, max_alpha=max_alpha, allocation=allocation)
    if sigma_x is None:  # the problem is in the headline's place
        st.stop()
sigma_y = sigma_x if tie else sigma_y
update(dataset=ds.name if ds.name in list_presets() else shared_setting().dataset, l=l,
       sigma_x=sigma_x, sigma_y=None if tie else sigma_y, epsilon=eps_in, T=T_in or None,
       c=None if c == round(default_clip_norm(ds.name), 1) else c,
       delta=delta, accountant=accountant, conversion=conversion, max_alpha=max_alpha)
ratio = 1.0 if tie or sigma_x == 0 else sigma_y / sigma_x
common = dict(n=ds.n, class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y, c=c, T=T,
              delta=delta, conversion=conversion, max_alpha=max_alpha)
setting = dict(ds=ds, l=l, sigma_x=sigma_x, sigma_y=sigma_y, c=c, T=T, delta=delta,
               accountant=accountant, conversion=conversion, max_alpha=max_alpha, allocation=allocation)
# Again from the widgets: a custom dataset, a refused setting (its problem shown here, once), or
# a widget that disagreed with its key.
if setting != early or r is None:
    p, r = headline(slot, setting)
if r is not None:
    remember_noise(sigma_x, r.epsilon)  # a switch of noise mode starts from them
if r is not None and r.private:
    with left:
        dp_center_note(dataset=ds.name if ds.name in list_presets() else None, ds=ds,
                       normalize=shared_setting().normalize, target=eps_in, sigma_x=sigma_x,
                       sigma_y=sigma_y, l=l, c=c, T=T, delta=delta, accountant=accountant,
                       conversion=conversion, max_alpha=max_alpha, allocation=allocation)

with right:
    if ds.name in list_presets():
        eps_now = float(r.epsilon) if r is not None else None
        accuracy_section(dataset=ds.name, facts=public_facts(ds.name), l=l, sigma_x=sigma_x,
                         ratio=ratio, c=c, T=T, delta=delta, accountant=accountant,
                         conversion=conversion, max_alpha=max_alpha, eps_now=eps_now,
                         allocation=allocation, normalize=shared_setting().normalize)
    else:
        st.caption("Accuracy needs real data: pick a named dataset to see what this ε buys.")

rows = epsilon_table(l, sigma_x, sigma_y, **common,
                     allocation=allocation if ds.class_counts else "equal")
eps = {row["accountant"]: row["epsilon"] for row in rows}
st.markdown("**Every accountant at this setting**")
st.markdown(markdown_table(epsilon_table_text(rows)))  # plain: no data grid script to fetch
with st.expander("For readers of the paper: its Theorem 1 beside the class-aware RDP bound"):
    st.markdown(paper_vs_class_aware(eps.get("paper"), eps.get("class-aware")))

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
    max_alpha=max_alpha, n=ds.n, class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y,
    allocation=allocation))
next_step_link("pages/privacy.py")
privacy_footnote(accountant, conversion, delta=delta,
                 what="the headline ε (and Figure 4 and the calibration)")
