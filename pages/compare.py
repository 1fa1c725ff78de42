"""Compare: every registered mechanism at the same target ε, δ and clip norm c (the paper's Table 5).

The launch is planned by :func:`dpcda.experiments.compare.comparison_plan` (jobs, estimate, problems), the
defaults per dataset by :func:`dpcda.dashboard.launch_defaults.compare_defaults` (about 2 minutes on this
CPU), the table by :mod:`dpcda.report.compare_view` (details in an expander). This page only draws.
"""

from __future__ import annotations

import streamlit as st

from dpcda.evaluation import reference
from dpcda.experiments.compare import (accountant_label, comparison_plan, compare_table, every_l_table,
                                       paper_table5, relation_banner)
from dpcda.report.compare_view import (baseline_notes, describe_job, figure_bars, learner_note,
                                       main_and_details)
from dpcda.data import dataset_availability, get_dataset_spec
from dpcda.experiments.config import job_config
from dpcda.experiments.estimate import advice
from dpcda.dashboard.explain import ends_text
from dpcda.report.formatting import markdown_table
from dpcda.dashboard.launch_defaults import compare_datasets, compare_defaults
from dpcda.mechanisms import MECHANISMS
from dpcda.data.presets import PRESETS, default_clip_norm
from dpcda.dashboard.reproduce import settings_from_comparison
from dpcda.privacy import NOT_A_BOUND
from dpcda.report.tables import for_display
from dpcda.training import AUTO, list_models, model_spec
from pages.charts import comparison_figure
from pages.compare.setting import epsilon_list, note, publish_compare, seed_compare
from pages.common import (DELTA_VALUES, POWERS_OF_TWO, REFUSED, InputRefused, absent_datasets_note,
                          accountant_assumptions, ensure_app_navigation, explain, explain_toggle,
                          float_input, fmt_delta, int_input, privacy_footnote, step_intro, typed)
from pages.inputs_ui import show_problem
from pages.jobs_ui import (executor_choice, open_job_store, start_worker, sweep_from_address, sweep_progress,
                           tally_jobs)
from pages.setting_ui import address_problems
from pages.report_ui import page_tools

DATASETS = tuple(n for n in compare_datasets() if dataset_availability(n).present)  # files here only
MECHS = tuple(MECHANISMS.names())

ensure_app_navigation()
seed_compare(DATASETS, MECHANISMS.get("dp-cda").accountants)  # the shared setting, on arrival
st.title("Compare: every mechanism at equal ε")
step_intro("pages/compare.py")
address_problems()  # a refused value of the link, in words, as on the other pages
st.caption("On the left: a dataset and a target ε, then **Launch comparison**; every mechanism gets "
           "the same budget, each accounted by a bound valid for it.")
explain_toggle()
store = open_job_store()

# --- setting ------------------------------------------------------------------------------------
sb = st.sidebar
sb.header("New comparison")
dataset = sb.selectbox("Dataset", DATASETS, key="compare_dataset",
                       format_func=lambda n: get_dataset_spec(n).title)
note(sb)
absent_datasets_note([n for n in compare_datasets() if n not in DATASETS], container=sb)
explain("dataset", container=sb)
ls = [v for v in POWERS_OF_TWO if v <= min(PRESETS.get(dataset).class_counts)]
epsilon = sb.selectbox("Target ε (all mechanisms)", epsilon_list(dataset), key="compare_eps",
                       format_func=lambda e: f"{e:g}")  # the paper's, and the setting's own
explain("epsilon", container=sb)
mechs = sb.multiselect("Mechanisms", MECHS, default=list(MECHS), key="compare_mechs",
                       format_func=lambda m: MECHANISMS.get(m).title)
explain("mechanism", container=sb)
if st.session_state.get("compare_defaults_for") != (dataset, epsilon):  # its defaults (≈ 2 min)
    d = compare_defaults(dataset, epsilon, MECHS)
    st.session_state.update({"compare_runs": str(d.runs), "compare_epochs": str(d.epochs),
                             "compare_defaults_for": (dataset, epsilon), "compare_trimmed": d.trimmed,
                             **{f"compare_l_{m}": list(v) for m, v in d.ls.items()}})
refused = False
c1, c2 = sb.columns(2)
runs = typed(int_input, "Runs", key="compare_runs", name="runs", lo=1, hi=20, container=c1)
epochs = typed(int_input, "Epochs", key="compare_epochs", name="epochs", lo=1, hi=500, container=c2,
               help="For the torch learners (linear, fc, cnn); closed-form ones ignore it.")
if REFUSED in (runs, epochs):  # each shown at its box; both drawn (an undrawn box loses its value)
    refused, runs, epochs = True, 1, 1
explain("runs", container=sb)
explain("epochs", container=sb)
model = sb.selectbox("Learner", [AUTO, *list_models()], key="compare_model",
                     format_func=lambda m: "each mechanism's own (measured)" if m == AUTO
                     else f"{m}: {model_spec(m).title} (all mechanisms)")
explain("learner", container=sb)
if st.session_state.get("compare_c_for") != dataset:  # a new dataset: its default clip norm
    st.session_state["compare_c"] = f"{default_clip_norm(dataset):g}"
    st.session_state["compare_c_for"] = dataset
try:
    c = float_input("Clip norm c (all mechanisms)", key="compare_c", name="c", lo=0.0, lo_open=True,
                    hi=100.0, container=sb)
except InputRefused:
    refused, c = True, 1.0
explain("c", container=sb)
delta = sb.select_slider("δ", DELTA_VALUES, format_func=fmt_delta, key="compare_delta")
sb.caption(ends_text("delta"))
explain("delta", container=sb)
chosen_ls, accountants = {}, {}
for m in mechs:
    spec = MECHANISMS.get(m)
    with sb.expander(MECHANISMS.get(m).title):
        if spec.mixes:
            key = f"compare_l_{m}"
            st.session_state[key] = [v for v in st.session_state.get(key, []) if v in ls]
            chosen_ls[m] = st.multiselect("l", ls, key=key, help="Each l is run; the table shows the best.")
            explain("l")
        accountants[m] = st.selectbox("Accountant", spec.accountants, key=f"compare_acc_{m}",
                                      format_func=lambda a, m=m: accountant_label(a, m))
explain("accountant", container=sb)
publish_compare(dataset=dataset, epsilon=epsilon, delta=delta, c=None if refused else c,
                accountant=accountants.get("dp-cda"))
if st.session_state.get("compare_trimmed"):
    sb.caption("Defaults trimmed to finish in about 2 minutes on this CPU (every mechanism kept): "
               + "; ".join(st.session_state["compare_trimmed"]) + ".")
executor = executor_choice(sb, "compare")
plan = comparison_plan(dataset, epsilon, mechanisms=mechs, runs=runs, ls=chosen_ls, delta=delta, c=c,
                       accountants=accountants, model=model, epochs=epochs)
for p in plan["problems"]:
    show_problem(p, container=sb, warning=True)  # shown as typed, never as Markdown
est, confirmed = plan["estimate"], True
if est is not None:
    sb.caption(f"{len(plan['jobs'])} job(s).")
    (sb.info if est.level == "ok" else sb.warning)(advice(est))
    if est.level == "refuse":
        confirmed = sb.checkbox(f"Launch anyway ({est.text})", key="compare_confirm_long")
blocked = refused or bool(plan["problems"]) or not confirmed
launch = sb.button("Launch comparison", type="primary", key="compare_launch", width="stretch",
                   disabled=blocked)

new_id = None
if launch and not blocked:
    new_id = store.create_sweep(plan["name"], plan["config"], plan["jobs"])
    start_worker(store, "comparison", executor)

# --- which comparison ---------------------------------------------------------------------------
sweeps = {s.id: s for s in reversed(store.sweeps()) if (s.config or {}).get("page") == "compare"}
if new_id is not None:
    st.session_state["compare_sweep"] = new_id
elif st.session_state.get("compare_sweep") not in sweeps:
    sweep_from_address("compare", sweeps, "compare_sweep", "Comparison")
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
                   failed_in_expander=False, describe=lambda j: describe_job(j.config))
    tally_jobs(store, jobs)  # each finished job's release, shown through its accuracy: counted once

# --- the table ----------------------------------------------------------------------------------
title = f"{get_dataset_spec(dataset).title}, ε = {epsilon:g}"
st.subheader(title)
has_paper = bool(paper_table5(dataset, epsilon))
table = compare_table(jobs, shown, dataset=dataset, epsilon=epsilon, quoted=has_paper,
                      planned=None if jobs else accountants)
main, details = main_and_details(table, with_paper=has_paper, dataset=dataset)
st.info(relation_banner(shown, {c.mechanism: c.accountant for c in map(job_config, jobs)} or accountants))
# Markdown tables: they fit the content width and need no table script on a first view.
st.markdown(markdown_table(main))
for line in filter(None, [*baseline_notes(table, dataset), learner_note(table)]):  # issues 21, 28
    st.caption(line)
every = every_l_table(jobs)
with st.expander("Details: noise σ, labels, runs, every l"):
    st.markdown(markdown_table(details))
    if len(every):
        st.markdown(markdown_table(for_display(every, {"σ": "{:.4g}", "accuracy": "{:.4f}",
                                                       "± std": "{:.4f}"})))
if every.duplicated("method").any():
    st.caption("Several l were run: each mechanism is shown at its best l (highest mean test accuracy, "
               "as the paper's bold entries; optimistic, since the test split chooses it).")
if not has_paper:
    st.caption(f"The paper reports no Table 5 column for {dataset} at ε = {epsilon:g} (it has MNIST and "
               "Fashion-MNIST at ε = 20, 10 and CIFAR-10 at ε = 30, 20).")
elif dataset == "fashion-mnist":
    st.caption("DPMix: " + reference.TABLE5_NOTES["DP-Mix"])
bars = figure_bars(table)
if not bars["empty"]:
    st.plotly_chart(comparison_figure(bars, title), width="stretch", key="compare_fig")
cfgs = [job_config(j) for j in jobs]
used = sorted({c.accountant for c in cfgs} or {MECHANISMS.get(m).default_accountant for m in shown})
conversion = cfgs[0].conversion if cfgs else "mironov"
used_delta = cfgs[0].delta if cfgs else delta
st.markdown(f"**Which accountant produced each ε** (δ = {fmt_delta(used_delta)}): the *accountant* "
            f"column; an accountant that is not a valid bound for the mechanism that ran is marked "
            f"\"{NOT_A_BOUND}\". The paper's numbers are as published (its own accountants; T, c and δ "
            "unstated); rows without a mechanism of ours are quoted, not run. Each row's "
            "neighbouring relation is under Details.")
accountant_assumptions(used)
first = shown[0] if shown else "dp-cda"
privacy_footnote(next((c.accountant for c in cfgs if c.mechanism == first),
                      MECHANISMS.get(first).default_accountant), conversion, delta=used_delta,
                 what=f"{MECHANISMS.get(first).title}'s ε", mechanism=first)
page_tools("compare", settings_from_comparison(sweeps[sid].config, jobs) if sid is not None else
           settings_from_comparison(plan["config"], plan["jobs"]) if plan["config"] and not refused
           else {}, sweep_id=sid)
