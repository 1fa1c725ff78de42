"""Compare: every registered mechanism at the same target ε, δ and clip norm c (the paper's Table 5).

Launch queues one ``experiment`` job per mechanism × l × run (:func:`dpcda.compare.compare_jobs`);
the table (:func:`dpcda.compare.compare_table`) shows each mechanism at its best l with the
accountant, neighbouring relation, σ, learner and accuracy. Everything shown is read from the
mechanism registry; this page only reads widgets and draws.
"""

from __future__ import annotations

import streamlit as st

from dpcda import reference
from dpcda.compare import compare_jobs, compare_table, default_ls, every_l_table, paper_table5
from dpcda.data import get_dataset_spec
from dpcda.mechanisms import MECHANISMS
from dpcda.presets import PRESETS
from dpcda.privacy import NOT_A_BOUND
from dpcda.tables import for_display
from dpcda.training import AUTO, list_models, model_spec
from pages.common import (DELTA_VALUES, POWERS_OF_TWO, accountant_assumptions, ensure_app_navigation,
                          fmt_delta, privacy_footnote)
from pages.jobs_ui import executor_choice, open_job_store, start_worker, sweep_progress

DATASETS = ("digits", "mnist", "fashion-mnist", "cifar10")
MECHS = tuple(MECHANISMS.names())


def epsilon_options(dataset: str) -> list[float]:
    cols = [eps for ds, eps in reference.TABLE5_COLUMNS if ds == dataset]
    return cols or [20.0, 10.0]


def mech_title(mech: str) -> str:
    return MECHANISMS.get(mech).title


def acc_label(mech: str, acc: str) -> str:
    return acc if MECHANISMS.get(mech).is_valid_bound(acc) else f"{acc} ({NOT_A_BOUND})"


def comparison_figure(table, title: str):
    import plotly.graph_objects as go

    ours, paper = table[table["runs"] > 0], table.dropna(subset=["paper (Table 5)"])
    fig = go.Figure()
    if len(ours):
        fig.add_trace(go.Bar(x=ours["method"].tolist(), y=ours["accuracy"].tolist(), name="ours",
                             error_y=dict(type="data", array=ours["± std"].fillna(0.0).tolist(),
                                          visible=True), marker_color="#2f5fb3"))
    if len(paper):
        fig.add_trace(go.Bar(x=paper["method"].tolist(), y=paper["paper (Table 5)"].tolist(),
                             name="paper (Table 5)", marker_color="#b0b6c0", marker_pattern_shape="/"))
    fig.update_layout(barmode="group", title=title, height=400, margin=dict(l=10, r=10, t=50, b=10),
                      yaxis=dict(title="test accuracy (real test split)", range=[0, 1.02]))
    return fig


ensure_app_navigation()
st.title("Compare: every mechanism at equal ε")
st.caption("Every mechanism is calibrated to the same target ε, δ and clip norm c, each by a bound that "
           "is valid for it as implemented (its default accountant), and trained with its own default "
           "learner and label mode; a model is trained on each release and tested on the real test "
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
epsilon = sb.selectbox("Target ε (all mechanisms)", eps_opts,
                       index=eps_opts.index(10.0) if 10.0 in eps_opts else 0,
                       key="compare_eps", format_func=lambda e: f"{e:g}")
mechs = sb.multiselect("Mechanisms", MECHS, default=list(MECHS), key="compare_mechs",
                       format_func=mech_title)
c1, c2 = sb.columns(2)
runs = int(c1.number_input("Runs", 1, 20, 3, key="compare_runs"))
epochs = int(c2.number_input("Epochs", 1, 500, 10, key="compare_epochs",
                             help="For the torch learners (linear, fc, cnn); closed-form ones ignore it."))
model = sb.selectbox("Learner", [AUTO, *list_models()], key="compare_model",
                     format_func=lambda m: "each mechanism's own (measured)" if m == AUTO
                     else f"{m}: {model_spec(m).title} (all mechanisms)")
c = sb.number_input("Clip norm c (all mechanisms)", 0.01, 100.0, 1.0, key="compare_c")
delta = sb.select_slider("δ", DELTA_VALUES, value=1e-5, format_func=fmt_delta, key="compare_delta")
chosen_ls, accountants = {}, {}
for m in mechs:
    spec = MECHANISMS.get(m)
    with sb.expander(mech_title(m)):
        if spec.mixes:
            key = f"compare_l_{m}"
            if key in st.session_state:  # drop l larger than the new dataset's smallest class
                st.session_state[key] = [v for v in st.session_state[key] if v in ls]
            chosen_ls[m] = st.multiselect(
                "l", ls, default=[v for v in default_ls(m, max_l) if v in ls], key=key,
                help="Each l is run; the table shows the best (by mean test accuracy, like the paper's "
                     "bold entries; optimistic, since the test split picks it).")
        accountants[m] = st.selectbox("Accountant", spec.accountants, key=f"compare_acc_{m}",
                                      format_func=lambda a, m=m: acc_label(m, a))
executor = executor_choice(sb, "compare")
launch = sb.button("Launch comparison", type="primary", key="compare_launch", width="stretch")

new_id = None
if launch:
    train = {"epochs": epochs} if model == AUTO else {"epochs": epochs, "model": model}
    try:
        if not mechs:
            raise ValueError("select at least one mechanism")
        jobs = compare_jobs(dataset, float(epsilon), mechanisms=mechs, runs=runs, ls=chosen_ls,
                            delta=delta, c=float(c), accountants=accountants, train=train)
        config = {"page": "compare", "base": {"dataset": dataset}, "epsilon": float(epsilon),
                  "mechanisms": list(mechs), "runs": runs}
        new_id = store.create_sweep(f"{dataset}: compare at ε {epsilon:g}; {runs} run(s)", config, jobs)
    except ValueError as exc:
        st.error(f"Nothing to launch: {exc}.")
    else:
        start_worker(store, "comparison", executor)

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
                   key="compare_sweep", format_func=lambda i: f"#{i} · {sweeps[i].name}",
                   placeholder="None: the paper's numbers at the setting on the left")
jobs, shown = [], list(mechs)
if sid is not None:
    st.query_params["compare"] = str(sid)
    jobs = store.jobs(sweep_id=sid)
    cfg = sweeps[sid].config
    dataset, epsilon = cfg["base"]["dataset"], cfg["epsilon"]
    shown = [m for m in cfg.get("mechanisms", MECHS) if m in MECHANISMS]
    sweep_progress(store, sid, sweeps[sid].status, jobs, key="compare", noun="comparison",
                   failed_in_expander=False,
                   describe=lambda j: f"{mech_title(j.config['mechanism'])}"
                                      + (f", l = {j.config['l']}"
                                         if MECHANISMS.get(j.config["mechanism"]).mixes else "")
                                      + f", run {j.config['run'] + 1}")

# --- the table ----------------------------------------------------------------------------------
title = f"{get_dataset_spec(dataset).title}, ε = {epsilon:g}"
st.subheader(title)
has_paper = bool(paper_table5(dataset, epsilon))
table = compare_table(jobs, shown, dataset=dataset, epsilon=epsilon, quoted=has_paper)
shown_table = table if has_paper else table.drop(columns=["paper (Table 5)"])
st.dataframe(for_display(shown_table.rename(columns={"ε": "achieved ε"}), {
    "accuracy": "{:.4f}", "± std": "{:.4f}", "σ": "{:.4g}", "achieved ε": "{:.4g}"}
    | ({"paper (Table 5)": "{:.3f}"} if has_paper else {})), hide_index=True, width="stretch")
every = every_l_table(jobs)
if every.duplicated("method").any():
    st.caption("Several l were run: each mechanism is shown at its best l (highest mean test accuracy, "
               "as the paper's bold entries; optimistic, since the test split chooses it).")
    with st.expander("Every l"):
        st.dataframe(for_display(every, {"σ": "{:.4g}", "accuracy": "{:.4f}", "± std": "{:.4f}"}),
                     hide_index=True, width="stretch")
if not has_paper:
    st.caption(f"The paper reports no Table 5 column for {dataset} at ε = {epsilon:g} (it has MNIST and "
               "Fashion-MNIST at ε = 20, 10 and CIFAR-10 at ε = 30, 20).")
elif dataset == "fashion-mnist":
    st.caption("DPMix: " + reference.TABLE5_NOTES["DP-Mix"])
if table["runs"].sum() or table["paper (Table 5)"].notna().any():
    st.plotly_chart(comparison_figure(table, title), width="stretch", key="compare_fig")
used = sorted({j.config["accountant"] for j in jobs} or {MECHANISMS.get(m).default_accountant for m in shown})
conversion = jobs[0].config["conversion"] if jobs else "mironov"
used_delta = jobs[0].config["delta"] if jobs else delta
st.markdown(f"**Which accountant produced each ε** (δ = {fmt_delta(used_delta)}): the *accountant* "
            f"column, with the neighbouring relation it assumes; an accountant that is not a valid bound "
            f"for the mechanism that ran is marked \"{NOT_A_BOUND}\". The paper's numbers are as "
            "published (its own accountants; T, c and δ unstated); rows without a mechanism of ours are "
            "quoted, not run.")
accountant_assumptions(used)
first = shown[0] if shown else "dp-cda"
privacy_footnote(next((j.config["accountant"] for j in jobs if j.config["mechanism"] == first),
                      MECHANISMS.get(first).default_accountant), conversion, delta=used_delta,
                 what=f"{mech_title(first)}'s ε")
