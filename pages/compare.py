"""Compare: DP-CDA against DPMix, local perturbation and random projection at equal ε (Table 5).

Launch queues one ``experiment`` job per mechanism × run in the shared job store (a worker
process runs them) and the page sets our measured accuracy beside the paper's Table 5, which
also reports generative baselines (G-PATE, DP-Merf, GS-WGAN) that we only quote.
"""

from __future__ import annotations


import pandas as pd
import streamlit as st

from dpcda import reference
from dpcda.data import get_dataset_spec
from dpcda.jobs import sweep_results
from dpcda.mechanisms import MECHANISMS
from dpcda.presets import PRESETS
from dpcda.privacy import ACCOUNTANT_INFO
from dpcda.training import list_models, model_spec
from pages.common import (DELTA_VALUES, POWERS_OF_TWO, accountant_assumptions, ensure_app_navigation,
                          fmt_delta, privacy_footnote)
from pages.jobs_ui import open_job_store, start_worker, sweep_progress

DATASETS = ("digits", "mnist", "fashion-mnist", "cifar10")
MECHS = ("dp-cda", "dpmix", "local", "random-projection")
# Our mechanisms' names are their registry titles everywhere on the page; this maps them to the
# row names of the paper's Table 5.
PAPER_NAME = {"dp-cda": "DP-CDA", "dpmix": "DP-Mix", "local": "Local Perturbation",
              "random-projection": "Random Projection"}
MIXING = ("dp-cda", "dpmix")  # the mechanisms with an order of mixture l
QUOTED = ("G-PATE", "DP-Merf", "GS-WGAN")  # generative baselines: the paper's numbers only
# (model, epochs) per dataset; digits is small: a nearest class mean needs no training (see utility.py)
DEFAULTS = {"digits": ("ncm", 30)}  # the image datasets: the paper's CNN
DPPRO_TEXT = ("DPPro's Gaussian mechanism on the random projection: noise std "
              "s(R)·√(log(1/(2δ)) + ε)/ε, s(R) the spectral norm of R, rows clipped to norm 1; "
              "R is data-independent and published")


def epsilon_options(dataset: str) -> list[float]:
    cols = [eps for ds, eps in reference.TABLE5_COLUMNS if ds == dataset]
    return cols or [20.0, 10.0]


def paper_table5(dataset: str, epsilon: float) -> dict[str, float]:
    """{paper method name: reported accuracy} for one Table 5 column (empty if none)."""
    if dataset not in reference.DATASETS[:3]:
        return {}
    return {r.method: r.accuracy for r in reference.table5(dataset) if r.epsilon == float(epsilon)}


def mech_title(mech: str) -> str:
    return MECHANISMS.get(mech).title


def best_rows(res: pd.DataFrame | None) -> dict[str, pd.Series]:
    """Per mechanism, the result row of the l with the highest mean accuracy (ties: smaller l)."""
    out = {}
    if res is None:
        return out
    for m, g in res.groupby("mechanism", sort=False):
        g = g.sort_values(["mean", "l"], ascending=[False, True], kind="stable")
        out[m] = g.iloc[0]
    return out


def comparison_table(dataset: str, epsilon: float, res: pd.DataFrame | None, jobs) -> pd.DataFrame:
    """Our mechanisms (measured, at their best l, if a sweep is given) then the quoted
    baselines, beside the paper."""
    paper = paper_table5(dataset, epsilon)
    best = best_rows(res)
    first = {}
    for j in jobs:
        if j.status == "done" and j.result:
            first.setdefault((j.config["mechanism"], j.config["l"]), (j.config, j.result))
    rows = []
    for m in MECHS:
        r = best.get(m)
        tried = sorted(int(v) for v in res[res["mechanism"] == m]["l"]) if res is not None else []
        jc, jr = first.get((m, int(r["l"])), ({}, {})) if r is not None else ({}, {})
        rows.append({
            "method": mech_title(m), "ours: accuracy": r["mean"] if r is not None else None,
            "± std": r["std"] if r is not None else None, "runs": int(r["runs"]) if r is not None else 0,
            "paper (Table 5)": paper.get(PAPER_NAME[m]),
            "accountant": jr.get("accountant") or (r["accountant"] if r is not None else None),
            "σ": jr.get("sigma_x"), "achieved ε": jr.get("epsilon"),
            "l": int(r["l"]) if r is not None and m in MIXING else None,
            "l tried": ", ".join(map(str, tried)) if m in MIXING else "",
            "model": (jc.get("train") or {}).get("model"),
            "complexity": reference.TABLE5_COMPLEXITY.get(PAPER_NAME[m], "")})
    for name in QUOTED:
        rows.append({"method": name, "ours: accuracy": None, "± std": None, "runs": 0,
                     "paper (Table 5)": paper.get(name), "accountant": "(paper's number only)",
                     "σ": None, "achieved ε": None, "l": None, "l tried": "", "model": None,
                     "complexity": ""})
    table = pd.DataFrame(rows)
    # Numbers as numbers (a missing one shows as an empty cell, not the text "None").
    for col in ("ours: accuracy", "± std", "σ", "achieved ε"):
        table[col] = pd.to_numeric(table[col], errors="coerce")
    table["l"] = pd.to_numeric(table["l"], errors="coerce").astype("Int64")
    return table


def comparison_figure(table: pd.DataFrame, title: str):
    import plotly.graph_objects as go

    ours = table[table["runs"] > 0]
    fig = go.Figure()
    if len(ours):
        fig.add_trace(go.Bar(x=ours["method"].tolist(), y=ours["ours: accuracy"].tolist(), name="ours",
                             error_y=dict(type="data", array=ours["± std"].fillna(0.0).tolist(),
                                          visible=True),
                             marker_color="#2f5fb3"))
    paper = table.dropna(subset=["paper (Table 5)"])
    if len(paper):
        fig.add_trace(go.Bar(x=paper["method"].tolist(), y=paper["paper (Table 5)"].tolist(),
                             name="paper (Table 5)", marker_color="#b0b6c0",
                             marker_pattern_shape="/"))
    fig.update_layout(barmode="group", title=title, height=400, margin=dict(l=10, r=10, t=50, b=10),
                      yaxis=dict(title="test accuracy (real test split)", range=[0, 1.02]))
    return fig


ensure_app_navigation()
st.title("Compare: DP-CDA and the baselines at equal ε")
st.caption("The paper's Table 5, measured here: every mechanism is calibrated to the same target ε (each "
           "with its own accountant) and a model is trained on its release and tested on the real test "
           "split. Jobs run in a background worker; the store is shared by every session.")
store = open_job_store()

# --- setting ------------------------------------------------------------------------------------
sb = st.sidebar
sb.header("New comparison")
dataset = sb.selectbox("Dataset", DATASETS, key="compare_dataset",
                       format_func=lambda n: get_dataset_spec(n).title)
eps_opts = epsilon_options(dataset)
max_l = min(PRESETS.get(dataset).class_counts)
ls = [v for v in POWERS_OF_TWO if v <= max_l]
if "compare_eps" in st.session_state and st.session_state["compare_eps"] not in eps_opts:
    del st.session_state["compare_eps"]  # the dataset changed: back to the default
for key in ("compare_l_cda", "compare_l_mix"):  # drop l larger than the new dataset's smallest class
    if key in st.session_state:
        st.session_state[key] = [v for v in st.session_state[key] if v in ls]
epsilon = sb.selectbox("Target ε (all mechanisms)", eps_opts,
                       index=eps_opts.index(10.0) if 10.0 in eps_opts else 0,
                       key="compare_eps", format_func=lambda e: f"{e:g}")
mechs = sb.multiselect("Mechanisms", MECHS, default=list(MECHS), key="compare_mechs",
                       format_func=mech_title)
c1, c2 = sb.columns(2)
runs = int(c1.number_input("Runs", 1, 20, 3, key="compare_runs"))
models = list_models()
if st.session_state.get("compare_model_for") != dataset:
    st.session_state["compare_model"], st.session_state["compare_epochs"] = DEFAULTS.get(dataset, ("cnn", 5))
    st.session_state["compare_model_for"] = dataset
epochs = int(c2.number_input("Epochs", 1, 500, key="compare_epochs"))
model = sb.selectbox("Model (DP-CDA, DPMix, local)", models, key="compare_model",
                     format_func=lambda m: f"{m}: {model_spec(m).title}")
flat = [m for m in models if not model_spec(m).needs_image]
rp_model = sb.selectbox("Model (random projection)", flat, index=flat.index("fc"), key="compare_rp_model",
                        help="Projected features are no longer images: the paper uses FC100-FC100-FC10.")
label_mode = sb.radio("Labels", ("hard", "soft"), horizontal=True, key="compare_label_mode")
l_help = ("Several l: each is run, and the table shows the best (by mean test accuracy, like the "
          "paper's bold entries; optimistic, since the test split picks it). All l are listed below it.")
l_cda = sb.multiselect("l (DP-CDA)", ls, default=[4], key="compare_l_cda", help=l_help)
l_mix = sb.multiselect("l (DPMix)", ls, default=[16], key="compare_l_mix", help=l_help)
acc_cda = sb.selectbox("DP-CDA accountant", ("paper", "class-aware"), key="compare_acc_cda")
acc_mix = sb.selectbox("DPMix / local accountant", ("dpmix", "dpmix-low"), key="compare_acc_mix")
delta = sb.select_slider("δ", DELTA_VALUES, value=1e-5, format_func=fmt_delta, key="compare_delta")
launch = sb.button("Launch comparison", type="primary", key="compare_launch", width="stretch")

new_id = None
if launch:
    no_l = [mech_title(m) for m, chosen in (("dp-cda", l_cda), ("dpmix", l_mix)) if m in mechs and not chosen]
    if not mechs:
        st.error("Nothing to launch: select at least one mechanism.")
    elif no_l:
        st.error(f"Nothing to launch: select at least one l for {' and '.join(no_l)}.")
    else:
        jobs = []
        for m in (m for m in MECHS if m in mechs):
            cfg = {"dataset": dataset, "mechanism": m, "epsilon": float(epsilon), "delta": delta,
                   "train": {"model": rp_model if m == "random-projection" else model, "epochs": epochs,
                             "label_mode": label_mode}}
            if m in MIXING:
                cfg.update(accountant=acc_cda if m == "dp-cda" else acc_mix)
            elif m == "local":
                cfg.update(accountant=acc_mix)
            m_ls = sorted(l_cda if m == "dp-cda" else l_mix) if m in MIXING else [1]
            jobs += [("experiment", dict(cfg, l=l, run=r)) for l in m_ls for r in range(runs)]
        config = {"page": "compare", "base": {"dataset": dataset}, "epsilon": float(epsilon),
                  "mechanisms": [m for m in MECHS if m in mechs], "runs": runs}
        try:
            new_id = store.create_sweep(f"{dataset}: compare at ε {epsilon:g}; {runs} run(s)", config, jobs)
        except ValueError as exc:
            st.error(f"Cannot launch this comparison: {exc}")
        else:
            start_worker(store, "comparison")

# --- which comparison ---------------------------------------------------------------------------
sweeps = {s.id: s for s in reversed(store.sweeps()) if (s.config or {}).get("page") == "compare"}
if new_id is not None:
    st.session_state["compare_sweep"] = new_id
elif st.session_state.get("compare_sweep") not in sweeps:
    try:
        wanted = int(st.query_params.get("compare", ""))
    except ValueError:
        wanted = None
    if wanted in sweeps:
        st.session_state["compare_sweep"] = wanted
    elif "compare" in st.query_params:
        st.warning(f"Comparison {st.query_params['compare']!r} (from the address) is not in the job "
                   f"store {store.path}.")
        del st.query_params["compare"]
sid = st.selectbox("Comparison (every session's, newest first)", list(sweeps), index=None,
                   key="compare_sweep",
                   format_func=lambda i: f"#{i} · {sweeps[i].name}",
                   placeholder="None: the paper's numbers at the setting on the left")
jobs, res = [], None
if sid is not None:
    st.query_params["compare"] = str(sid)
    jobs = store.jobs(sweep_id=sid)
    dataset, epsilon = sweeps[sid].config["base"]["dataset"], sweeps[sid].config["epsilon"]
    sweep_progress(store, sid, sweeps[sid].status, jobs, key="compare", noun="comparison",
                   failed_in_expander=False,
                   describe=lambda j: f"{mech_title(j.config['mechanism'])}"
                                      + (f", l = {j.config['l']}" if j.config["mechanism"] in MIXING else "")
                                      + f", run {j.config['run'] + 1}")
    res = sweep_results(store, sid)
    res = res[res["runs"] > 0]

# --- Table 5 ------------------------------------------------------------------------------------
title = f"{get_dataset_spec(dataset).title}, ε = {epsilon:g}"
st.subheader(title)
table = comparison_table(dataset, epsilon, res, jobs)
has_paper = bool(paper_table5(dataset, epsilon))
st.dataframe(table if has_paper else table[table["method"].isin([mech_title(m) for m in MECHS])].drop(
    columns=["paper (Table 5)"]), hide_index=True, width="stretch", column_config={
    "ours: accuracy": st.column_config.NumberColumn(format="%.4f"),
    "± std": st.column_config.NumberColumn(format="%.4f"),
    "paper (Table 5)": st.column_config.NumberColumn(format="%.3f"),
    "σ": st.column_config.NumberColumn(format="%.4g"),
    "achieved ε": st.column_config.NumberColumn(format="%.4g")})
if res is not None and (res["mechanism"].isin(MIXING) & res.duplicated("mechanism", keep=False)).any():
    st.caption("Several l were run: each mechanism is shown at its best l (highest mean test accuracy, "
               "as the paper's bold entries; optimistic, since the test split chooses it).")
    with st.expander("Every l"):
        st.dataframe(res[res["mechanism"].isin(MIXING)][["mechanism", "l", "sigma", "runs", "mean", "std"]],
                     hide_index=True, width="stretch", column_config={
                         "sigma": st.column_config.NumberColumn("σ", format="%.4g"),
                         "mean": st.column_config.NumberColumn("accuracy", format="%.4f"),
                         "std": st.column_config.NumberColumn("± std", format="%.4f")})
if not has_paper:
    st.caption(f"The paper reports no Table 5 column for {dataset} at ε = {epsilon:g} (it has MNIST and "
               "Fashion-MNIST at ε = 20, 10 and CIFAR-10 at ε = 30, 20).")
elif dataset == "fashion-mnist":
    st.caption("DPMix: " + reference.TABLE5_NOTES["DP-Mix"])
if table["runs"].sum() or table["paper (Table 5)"].notna().any():
    st.plotly_chart(comparison_figure(table, title), width="stretch", key="compare_fig")
cda_jobs = [j for j in jobs if j.config["mechanism"] == "dp-cda"]
acc = cda_jobs[0].config["accountant"] if cda_jobs else acc_cda
conversion = jobs[0].config["conversion"] if jobs else "mironov"
used_delta = jobs[0].config["delta"] if jobs else delta
st.markdown(
    f"**Which accountant produced each ε** (δ = {fmt_delta(used_delta)}; the RDP accountants "
    f"convert to (ε, δ) with the {conversion} conversion). DP-CDA: `{acc}` (see below). DPMix and "
    f"local perturbation: DPMix's own analysis (`dpmix`: {ACCOUNTANT_INFO['dpmix'].title}; "
    f"`dpmix-low`: {ACCOUNTANT_INFO['dpmix-low'].title}), features scaled to [0, 1] by public "
    f"bounds. Random projection: {DPPRO_TEXT}. The paper's numbers are as published (its own "
    "accountants; T, c and δ unstated); GS-WGAN, G-PATE and DP-Merf are quoted, not run.")
accountant_assumptions([acc, "dpmix", "dpmix-low"])
privacy_footnote(acc, conversion, delta=used_delta, what="DP-CDA's ε")
