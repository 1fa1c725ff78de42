"""Sites: DP-CDA across S sites (docs/decentral.md). A map of the sites and their class mixes
(the split's public design), the three modes' ε per threat model (computed live as S and t
move) beside their measured accuracy (the shipped table), and previews per mode. Reads the
widgets, calls :mod:`dpcda.dashboard.sites`, draws (parts: pages/sites/)."""

from __future__ import annotations

import streamlit as st

from dpcda.dashboard.sites import PAGE_SPLITS, SITE_STEPS, design, draw_shares, local_problem
from dpcda.dashboard.sites_accuracy import sites_accuracy
from dpcda.dashboard.sites_data import PAGE_DATASETS, PAGE_EPSILONS, PAGE_L, PAGE_NORMALIZE
from dpcda.data.presets import get_preset
from pages.common import (REFUSED, ensure_app_navigation, explain_toggle, float_input,
                          show_problem, typed)
from pages.sites.modes_view import accuracy_figure, center_caption, mode_table, threats
from pages.sites.previews_view import draw_previews
from pages.sites.site_map import draw_split

ss = st.session_state
ensure_app_navigation()
st.title("Sites: one release from records kept apart")
st.markdown(
    "Hospitals or banks often may not pool their records. Run alone, each of **S sites** has "
    "about 1/S of every class, so mixing l of its records samples them S times more often and "
    "needs far more noise (**local**). **CAPE** lets the sites release *together*: each sends its "
    "part of every mixture plus a share of the noise and a mask that cancels in the sum, so the "
    "release carries exactly the **centralized** noise and has the centralized law.")


@st.cache_resource
def _tables():
    from dpcda.dashboard.sites_data import load_noise
    from dpcda.experiments.sites_table import load_sites_table

    return load_noise(), load_sites_table()


# --- controls ----------------------------------------------------------------------------------
sb = st.sidebar
explain_toggle()
sb.header("Setting")
dataset = sb.selectbox("Dataset (its public class sizes)", PAGE_DATASETS, key="sites_dataset",
                       index=PAGE_DATASETS.index("mnist"), format_func=lambda n: get_preset(n).title,
                       help="Only the preset's public facts (class sizes, dimensions) are read: "
                            "no data file is needed. The accuracy is measured on MNIST and "
                            "Fashion-MNIST; the previews are digits.")
epsilon = sb.select_slider("Target ε (every mode)", PAGE_EPSILONS, value=1.0, key="sites_eps",
                           format_func=lambda e: f"{e:g}")
normalize = sb.radio("Normalisation", PAGE_NORMALIZE, key="sites_normalize", horizontal=True,
                     help="scale: the public range, nothing private. dp-center: the per-feature "
                          "means are released too, under DP, summed across the sites by the "
                          "same masked protocol (docs/decentral.md, Theorem 6); their share "
                          "comes out of the target ε, so the mixtures get more noise.")
split = sb.radio("Split (how records are placed)", PAGE_SPLITS, key="sites_split", horizontal=True,
                 help="iid: a random permutation cut into S parts. skewed: for every class, "
                      "site shares drawn from Dirichlet(α). An upload with a site column "
                      "(by-column) is split by that column: not offered here.")
alpha = None
if split == "skewed":
    alpha = typed(float_input, "α (Dirichlet concentration; small = more skewed)", key="sites_alpha",
                  name="alpha", lo=0.0, lo_open=True, hi=1000.0, value=0.5, container=sb)
    sb.button("Draw the design again", key="sites_redraw",
              on_click=lambda: ss.update(sites_draw=ss.get("sites_draw", 0) + 1))
S = sb.select_slider("Sites S", SITE_STEPS, value=10, key="sites_S")
if S > 1:
    ss["sites_t"] = min(int(ss.get("sites_t", 1)), S - 1)  # keep t in 0..S-1 as S moves
    t = sb.slider("Colluding sites t (with the aggregator)", 0, S - 1, key="sites_t",
                  help="Threat model (c): the aggregator knows the masks, noise shares and "
                       "records of t sites. t = 0 is threat model (b).")
else:
    t = 0
    sb.caption("One site: there is no aggregator to collude with (t = 0).")

if alpha == REFUSED:  # where the reader looks, pointing to the sidebar
    st.info("**No split yet:** α is refused (said under it in the sidebar, in red).")
    st.stop()

# --- the split's design --------------------------------------------------------------------------
preset = get_preset(dataset)
counts = tuple(int(c) for c in preset.class_counts)
names = [str(k) for k in range(len(counts))]
st.subheader(f"{S} site{'s' * (S > 1)}, {split} split")
shares = None
if split == "skewed":
    key = (dataset, S, alpha, ss.get("sites_draw", 0))
    if ss.get("sites_shares_key") != key:  # a public draw: the design, not any record
        ss["sites_shares"], ss["sites_shares_key"] = draw_shares(S, len(counts), alpha), key
    shares = ss["sites_shares"]
try:
    d = design(split, S, counts, alpha=alpha, shares=shares)
except ValueError as exc:
    show_problem(exc)
    st.stop()
draw_split(d, names)
st.caption(
    "**What the mixes are.** The split's *design*, never a real split's counts: for iid, the "
    "pooled class mix (the built-in dataset's public class sizes) expected at every site; for "
    "skewed, Dirichlet(α) shares drawn here for the picture (they depend on no record) times the "
    "public class sizes. A real split's per-site class counts are private — the CAPE "
    "coordinator learns them, nothing published carries them — so this page never shows them "
    "(an upload's per-site counts would need a DP histogram: not yet).")

# --- ε per threat model and accuracy, side by side -------------------------------------------
st.subheader("The three modes: ε per threat model and accuracy")
noise_table, measured = _tables()
noise = noise_table.get((dataset, float(epsilon), normalize))
problem = local_problem(d, PAGE_L)
if problem is not None:  # the library's own words, above the table the reader looks at
    st.warning(f"**Local mode refused at this S:** {problem}.")
if noise is None:
    st.info(f"No shipped noise for {dataset} at ε = {epsilon:g} with {normalize} "
            "(benchmarks/sites_page_data.py --noise writes it).")
else:
    rows = threats(noise, counts, S, t)
    acc = sites_accuracy(measured, dataset=dataset, epsilon=epsilon, split=split, alpha=alpha,
                         normalize=normalize)  # the page's normalisation where measured, else scale's
    mode_table(rows, acc, S, problem)
    st.caption(
        f"l = {noise.l}, T = N, δ = {noise.delta:g}, σ_x = σ_y = {noise.sigma_x:.4g} (the "
        f"centralized noise, calibrated by `{noise.accountant}`; CAPE carries the same in sum). "
        "(a) holds for anyone who reads the release; (b) and (c) for the parties inside the "
        "protocol, under their own relation (class and site of a record fixed), by the "
        "accountant named in each row: the sites' own subsampling given the per-site counts "
        "the coordinator draws, for an even split of every class (the design; a real split's "
        "counts are private). The aggregator sees the sum of all S noise shares, σ² in total, "
        "but also the counts; (c) grows with t: the colluders remove their noise shares. "
        "Local: every site calibrates the target on its own records. ε is computed live; the "
        "accuracy is read from a table measured beforehand (default learner, real test split).")
    if noise.stats_mu is not None:
        center_caption(noise, noise_table.get((dataset, float(epsilon), "scale")))
    fig = accuracy_figure(acc, S, acc.figure_title(dataset, epsilon, split))
    if fig is not None:
        st.plotly_chart(fig, key="sites_accuracy")
    else:
        st.caption("No measured accuracy for this dataset, ε and split yet "
                   "(benchmarks/sites_table.py measures it).")
    if (note := acc.note(S)) is not None:
        st.info(note)
    elif (own := acc.own_caption(S)) is not None:
        st.caption(own)

st.subheader("Previews per mode")
draw_previews(S, normalize)
