"""Privacy explorer: epsilon of a DP-CDA release under every accountant, Figure 4, calibration.

Reads the widgets, calls :mod:`dpcda.privacy`, draws. Helpers live in ``pages/common.py``.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dpcda.privacy import (
    ACCOUNTANT_INFO,
    CONVERSION_TITLES,
    DEFAULT_ACCOUNTANT,
    PrivacyParams,
    caveat,
    compute_epsilon,
    list_conversions,
)
from dpcda.mechanisms import MECHANISMS
from dpcda.privacy.params import MAX_ALPHA_LIMIT
from pages.audit_ui import audit_section
from pages.common import (
    DELTA_VALUES,
    EPS_PLOT_MAX,
    L_VALUES,
    POWERS_OF_TWO,
    SIGMA_GRID,
    SIGMA_VALUES,
    accountant_assumptions,
    accountant_choice,
    calibration_figure,
    calibration_rows,
    dataset_picker,
    ensure_app_navigation,
    epsilon_table,
    epsilon_words,
    figure4,
    figure4_grid,
    fmt_alpha,
    fmt_delta,
    fmt_eps,
    fmt_int,
    fmt_sigma,
    nearest,
    paper_vs_class_aware,
    privacy_footnote,
)

ensure_app_navigation()
st.title("Privacy explorer")
st.caption("How much privacy does a DP-CDA release spend? Pick a setting on the left: ε is "
           "recomputed under every accountant. Only public facts (N, class counts, dimensions) "
           "are used; no data is loaded.")

# --- controls ----------------------------------------------------------------------------------
sb = st.sidebar
sb.header("Setting")
try:
    ds = dataset_picker("privacy_", container=sb)
except ValueError as exc:
    ds = None
    st.error(f"Custom dataset: {exc}")
l = sb.select_slider("Order of mixture l (records averaged per sample)", L_VALUES, value=4,
                     key="privacy_l",
                     help="Arrow keys step through 1..16, then 8 steps per doubling up to 512.")
sigma_x = sb.select_slider("σ_x (feature noise)", SIGMA_VALUES, value=nearest(SIGMA_GRID, 0.25),
                           format_func=fmt_sigma, key="privacy_sigma_x",
                           help="Log scale. The leftmost value, 0, is the non-private setting.")
tie = sb.toggle("Tie σ_y to σ_x", value=True, key="privacy_tie")
sigma_y = sigma_x if tie else sb.select_slider(
    "σ_y (label noise)", SIGMA_VALUES, value=nearest(SIGMA_GRID, 0.25), format_func=fmt_sigma,
    key="privacy_sigma_y")
c = sb.slider("Clip norm c", min_value=0.1, max_value=10.0, value=1.0, step=0.1, key="privacy_c")
T_in = sb.number_input("T (synthetic samples)", min_value=1, max_value=10**9, value=None,
                       step=1000, key="privacy_T",
                       placeholder=f"= N ({fmt_int(ds.n)})" if ds else "= N",
                       help="Empty means T = N, the paper's choice.")
delta = sb.select_slider("δ (probability the ε bound may fail)", DELTA_VALUES, value=1e-5,
                         format_func=fmt_delta, key="privacy_delta")
accountants = list(MECHANISMS.get("dp-cda").accountants)  # its default (a valid bound) first
accountant = sb.selectbox("Accountant", accountants, index=accountants.index(DEFAULT_ACCOUNTANT),
                          key="privacy_accountant", format_func=accountant_choice,
                          help="\n".join(f"- `{a}`: {ACCOUNTANT_INFO[a].title}"
                                         for a in accountants))
conversion = sb.radio("RDP → (ε, δ) conversion", list_conversions(), key="privacy_conversion",
                      captions=[CONVERSION_TITLES.get(v, "") for v in list_conversions()])
with sb.expander("Advanced"):
    max_alpha = int(st.number_input("Largest Rényi order α_max", min_value=3,
                                    max_value=MAX_ALPHA_LIMIT, value=256, step=1,
                                    key="privacy_max_alpha",
                                    help="ε is minimised over integer orders up to this one."))

if ds is None:
    st.stop()
T = int(T_in) if T_in else ds.n
ratio = 1.0 if tie or sigma_x == 0 else sigma_y / sigma_x
common = dict(n=ds.n, class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y, c=c, T=T,
              delta=delta, conversion=conversion, max_alpha=max_alpha)
setting = (f"{ds.describe()}; l = {l}, σ_x = {fmt_sigma(sigma_x)}, σ_y = {fmt_sigma(sigma_y)}, "
           f"c = {c:g}, T = {fmt_int(T)}, δ = {fmt_delta(delta)}")

# --- headline epsilon ----------------------------------------------------------------------------
try:
    p = PrivacyParams(l=l, sigma_x=sigma_x, sigma_y=sigma_y, c=c, T=T, delta=delta, n=ds.n,
                      class_counts=ds.class_counts, d_x=ds.d_x, d_y=ds.d_y)
    r = compute_epsilon(p, accountant=accountant, conversion=conversion, max_alpha=max_alpha)
except ValueError as exc:
    r = None
    st.error(f"Cannot compute ε with the **{accountant}** accountant: {exc}")
    if delta >= 1 / ds.n:
        st.warning(f"δ = {fmt_delta(delta)} is not below 1/N = {1 / ds.n:.3g}: a mechanism that "
                   "publishes a random record meets it; choose δ < 1/N.")

rows = epsilon_table(l, sigma_x, sigma_y, **common)
eps = {row["accountant"]: row["epsilon"] for row in rows}
left, right = st.columns([1, 2.2], gap="large")
with left:
    if r is not None:
        label = f"ε ({accountant} accountant)"
        if not r.private:
            st.metric(label, "∞")
            st.error("**ε = ∞ (no privacy).** σ_x = σ_y = 0 is the non-private setting: the "
                     "release would carry no privacy guarantee at all.")
        else:
            st.metric(label, fmt_eps(r.epsilon))
            if r.alpha is None and r.epsilon_lower is not None:  # PLD: no order, a bound
                st.caption(f"privacy loss distribution (no Rényi order): the exact ε of this "
                           f"analysis lies in [{fmt_eps(r.epsilon_lower)}, {fmt_eps(r.epsilon)}]"
                           f" (discretisation bound {r.discretisation_bound:.2g}), δ = "
                           f"{fmt_delta(delta)}. {epsilon_words(accountant)}")
            else:
                st.caption(f"at Rényi order α = {fmt_alpha(r.alpha)}, δ = {fmt_delta(delta)}, "
                           f"{conversion} conversion. {epsilon_words(accountant)}")
            if caveat(accountant):
                st.warning(f"**{caveat(accountant)}**: the `{accountant}` ε does not bound what "
                           f"Algorithm 1 as run here spends; `{DEFAULT_ACCOUNTANT}` does.")
        for w in r.warnings:  # max_alpha at the edge, delta >= 1/N (non-private: shown above)
            if r.private or "non-private" not in w:
                st.warning(w + (" (α_max is under Advanced.)" if "max_alpha" in w else ""))
    st.caption(setting)
with right:
    pa, ca = eps.get("paper"), eps.get("class-aware")
    st.markdown(paper_vs_class_aware(pa, ca))
st.markdown("**Every accountant at this setting**")
st.dataframe(pd.DataFrame({
    "accountant": [row["accountant"] for row in rows],
    "what it is": [ACCOUNTANT_INFO[row["accountant"]].title for row in rows],
    "ε": [fmt_eps(row["epsilon"]) if row["epsilon"] is not None else "—" for row in rows],
    "bound for DP-CDA as implemented": ["valid bound" if not caveat(row["accountant"])
                                        else caveat(row["accountant"]) for row in rows],
    "α": [fmt_alpha(row["alpha"], row.get("bound")) for row in rows],
    "warnings": [row["notes"] for row in rows],
}), hide_index=True, width="stretch", column_config={
    "accountant": st.column_config.TextColumn(width=100),
    "what it is": st.column_config.TextColumn(width=300),
    "ε": st.column_config.TextColumn(width=110),
    "α": st.column_config.TextColumn(width=50)})

# --- Figure 4 --------------------------------------------------------------------------------
st.subheader("ε against noise for l = 1, 2, 4, …, 512 (the paper's Figure 4)")
limit = ds.smallest_class or ds.n
ls = tuple(v for v in POWERS_OF_TWO if v <= limit)
sigmas = SIGMA_GRID[::2]
grid = figure4_grid(ls, sigmas, accountant=accountant, ratio=ratio, **common)
star = (sigma_x, r.epsilon) if r is not None and r.private and math.isfinite(r.epsilon) else None
title = f"{accountant} accountant, {ds.describe()}" + (
    "" if ratio == 1 else f", σ_y/σ_x ratio {ratio:.3g}")
fig, drawn = figure4(grid, sigmas, star=star, current_l=l, title=title,
                     x_title="σ_x = σ_y" if ratio == 1 else f"σ_x (σ_y = {ratio:.3g} σ_x)")
not_computed = {v: msg for v, msg in grid.items() if isinstance(msg, str)}
if drawn:
    st.plotly_chart(fig, width="stretch", key="privacy_fig4")
else:
    st.info(f"Nothing to draw with the {accountant} accountant: "
            f"{next(iter(not_computed.values()), 'no valid l')}")
too_big = [v for v in POWERS_OF_TWO if v > limit]
if too_big:
    st.caption(f"Not drawn: l = {', '.join(map(str, too_big))}, larger than the smallest class "
               f"({fmt_int(limit)}).")
if not_computed and drawn:
    st.caption("Not computable: " + "; ".join(f"l = {v}: {m}" for v, m in not_computed.items()))
st.caption("The star marks the current setting (bold curve: the current l, when it is a power of "
           f"two). The ε axis stops at {EPS_PLOT_MAX:g}; hover for larger values. At a fixed noise "
           "level a larger l spends less ε: one record moves an average of l records by 1/l as "
           "much, which outweighs the higher chance (l/N) of being picked. So the noise needed "
           "for a target ε falls as l grows, as in the calibration below.")

# --- calibration -----------------------------------------------------------------------------
st.subheader("Calibration: the noise that reaches a target ε")
target = st.number_input("Target ε", width=220, min_value=0.01, max_value=1e4, value=10.0,
                         step=1.0, key="privacy_target_eps",
                         help="The paper's Table 3 uses ε = 10 and 20 with δ = 1e-5.")
cal = calibration_rows(float(target), ls, accountant=accountant, ratio=ratio, **common)
failed = [row for row in cal if row["sigma_x"] is None]
if failed and len(failed) == len(cal):
    st.error(f"ε = {target:g} cannot be reached with the {accountant} accountant: "
             f"{failed[0]['notes']}")
elif failed:
    st.warning("Not reachable for l = " + ", ".join(str(row["l"]) for row in failed)
               + f": {failed[0]['notes']}")
cal_left, cal_right = st.columns([3, 2], gap="large")
with cal_left:
    st.dataframe(pd.DataFrame({
        "l": [row["l"] for row in cal],
        "σ_x": [f"{row['sigma_x']:.4g}" if row["sigma_x"] is not None else "—" for row in cal],
        "σ_y": [f"{row['sigma_y']:.4g}" if row["sigma_y"] is not None else "—" for row in cal],
        "achieved ε": [fmt_eps(row["epsilon"]) for row in cal],
        "α": [fmt_alpha(row["alpha"], row.get("bound")) for row in cal],
        "notes": [row["notes"] for row in cal],
    }), hide_index=True, width="stretch")
with cal_right:
    if len(failed) < len(cal):
        st.plotly_chart(calibration_figure(cal, target=float(target)), width="stretch",
                        key="privacy_calfig")
st.caption(f"σ_y = {'σ_x' if ratio == 1 else f'{ratio:.3g} × σ_x'}; the achieved ε never exceeds "
           "the target. This is how the paper sets the noise for every l in its Table 3.")

audit_section(l=l, sigma_x=sigma_x, c=c, T=T, delta=delta, class_counts=ds.class_counts,
              params=p if r is not None else None)
accountant_assumptions(accountants)
privacy_footnote(accountant, conversion, delta=delta,
                 what="the headline ε (and Figure 4 and the calibration)")
