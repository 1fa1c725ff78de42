"""Utility: test accuracy of models trained on a mechanism's releases, swept over l, ε, σ or T.

The page reads the sidebar (``pages/utility/form.py``) into a :class:`dpcda.dashboard.sweep_request.
SweepRequest`, shows its estimated duration, and on Launch queues the sweep in the job store
(a background worker runs it; nothing is trained in the Streamlit process). The results are
joined and shaped by :mod:`dpcda.report.utility_results` and :mod:`dpcda.report.utility_figure`. The selected
sweep id is kept in ``st.query_params`` (``?sweep=N``) so a refreshed tab finds it again.
"""

from __future__ import annotations

import streamlit as st

from dpcda.experiments.config import job_config
from dpcda.experiments.sweep import sweep_results
from dpcda.mechanisms import MECHANISMS
from dpcda.dashboard.reproduce import settings_from, settings_from_sweep
from dpcda.training import model_spec
from dpcda.report.utility_figure import figure_data, figure_notes
from dpcda.report.utility_results import (EXPERIMENTS, baseline_notes, calibration_notes, display_table,
                                          models_by_point, point_text, results_csv, results_table,
                                          sweep_summary, sweep_x)
from pages.common import (accountant_assumptions, ensure_app_navigation, explain_toggle,
                          privacy_footnote, show_problem, step_intro)
from pages.jobs_ui import (executor_choice, open_job_store, start_worker, sweep_from_address, sweep_progress,
                           tally_jobs)
from pages.report_ui import page_tools
from pages.setting_ui import address_problems, seed, shared_setting
from pages.utility.form import sweep_form
from pages.utility.setting import publish_utility, widget_values
from pages.utility.views import accuracy_figure, launch_box

ensure_app_navigation()
seed("utility", widget_values(shared_setting()))  # the shared setting, on arrival
st.title("Utility: what accuracy does a release buy?")
step_intro("pages/utility.py")
address_problems()
st.caption("On the left: pick a dataset and a mechanism, check the estimated time, press **Launch "
           "sweep**; each release trains a model that is tested on the **real** test split.")
explain_toggle()
store = open_job_store()

# --- new sweep -------------------------------------------------------------------------------
sb = st.sidebar
sb.header("New sweep")
top = sb.container()  # the estimate and "Launch sweep", drawn after the form, shown above it
request, present = sweep_form(sb)
publish_utility(request)
trimmed = st.session_state.get("utility_trimmed") or ()
if trimmed:
    sb.caption("Defaults trimmed to finish in about 2 minutes on this CPU: " + "; ".join(trimmed) + ".")
executor = executor_choice(sb, "utility")
launch = launch_box(top, request, present=present)
if request is None:  # where the reader looks: the refusal itself is under its input
    st.info("**Launch is off:** an input of the new sweep (left) is refused; it says why, in red.")

new_id = None
if launch and request is not None:
    try:
        new_id = request.submit(store)
    except ValueError as exc:
        show_problem(exc)
    else:
        start_worker(store, "sweep", executor)

# --- which sweep -------------------------------------------------------------------------------
sweeps = {s.id: s for s in reversed(store.sweeps()) if "ls" in (s.config or {})}  # newest first
if new_id is not None:
    st.session_state["utility_sweep"] = new_id
elif st.session_state.get("utility_sweep") not in sweeps:
    sweep_from_address("sweep", sweeps, "utility_sweep", "Sweep")
sid = st.selectbox("Sweep (every session's sweeps, newest first)", list(sweeps), index=None,
                   key="utility_sweep",
                   format_func=lambda i: f"#{i} · {EXPERIMENTS[sweep_x(sweeps[i].config)].split(' (')[0]}"
                                         f" · {sweeps[i].name}",
                   placeholder="Launch a sweep on the left, or pick an earlier one")
if sid is None:
    st.info("No sweep selected.")
    accountant_assumptions(list(MECHANISMS.get("dp-cda").accountants))
    page_tools("utility", settings_from(request) if request is not None else {})  # the form's
    st.stop()
st.query_params["sweep"] = str(sid)

jobs = store.jobs(sweep_id=sid)
cfg = job_config(jobs[0])
mech = MECHANISMS.get(cfg.mechanism)
sx = sweep_x(sweeps[sid].config)
closed = [m for m in set(models_by_point(jobs).values()) if model_spec(m).kind == "closed"]
st.caption(f"**{EXPERIMENTS[sx]}** · " + sweep_summary(jobs, closed_models=closed))
sweep_progress(store, sid, sweeps[sid].status, jobs, key="utility", noun="sweep",
               describe=lambda j: f"{point_text(job_config(j), mixes=mech.mixes)}, "
                                  f"run {job_config(j).run + 1}")
tally_jobs(store, jobs)  # each finished job's release, shown through its accuracy: counted once

# --- results ------------------------------------------------------------------------------------
res = sweep_results(store, sid)
res = res[res["runs"] > 0]
if res.empty and jobs and all(j.terminal for j in jobs):
    st.warning("No results: no job of this sweep finished successfully (see the failed jobs above).")
elif res.empty:
    st.info("No results yet: they appear here as jobs finish.")
else:
    models = set(models_by_point(jobs).values())  # the ceiling drawn is one learner's
    data = figure_data(res, x=sx, dataset=cfg.dataset, learner=models.pop() if len(models) == 1 else None)
    title = f"{cfg.dataset}: models trained on {mech.title} releases"
    fig, _ = accuracy_figure(data, title=title, accountant=cfg.accountant)
    st.plotly_chart(fig, width="stretch", key="utility_fig")
    for note in figure_notes(data, dataset=cfg.dataset, accountant=cfg.accountant):
        st.caption(note)
    table = results_table(res, jobs, cfg.dataset)
    st.dataframe(display_table(table, mixes=mech.mixes), hide_index=True, width="stretch")
    for line in baseline_notes(table, jobs, cfg.dataset):  # what every accuracy is read against
        (st.warning if line.startswith("**Within noise") else st.caption)(line)
    st.download_button("Download results (CSV)", results_csv(table), key="utility_csv",
                       file_name=f"dpcda-sweep-{sid}-{cfg.dataset}.csv", mime="text/csv")
    st.markdown("**How each ε was reached**\n\n"
                + "\n".join(f"- {t}" for t in calibration_notes(table, jobs)))
    norm = next((j.result.get("normalization") for j in jobs if j.result), None) or {}
    if norm.get("note") and not norm.get("covered_by_guarantee", True):
        st.warning(f"Normalisation: {norm['note']}.")
    if "cnn" in models_by_point(jobs).values():
        st.caption("The CNN normalises with GroupNorm by default, not the paper's BatchNorm: BatchNorm's "
                   "running statistics, learnt on noise-dominated synthetic images, break on clean test "
                   "images (see the README).")

accountant_assumptions(sorted({cfg.accountant, mech.default_accountant}))
privacy_footnote(cfg.accountant, cfg.conversion, delta=cfg.delta,
                 what=f"every finite ε of sweep #{sid}", mechanism=mech.name)
page_tools("utility", settings_from_sweep(sweeps[sid].config), sweep_id=sid)  # the sweep shown
