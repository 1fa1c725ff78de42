"""Utility: test accuracy of models trained on DP-CDA releases, swept over ε and l.

The page only talks to the job store (:mod:`dpcda.jobs`): Launch queues one ``experiment`` job
per (ε, l, run) and makes sure a worker process runs them; nothing is trained in the Streamlit
process. The selected sweep id is kept in ``st.query_params`` (``?sweep=N``) so a refreshed tab
finds it again; every session shares the store, hence the history of earlier sweeps.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dpcda import reference
from dpcda.data import get_dataset_spec, list_datasets
from dpcda.jobs import ensure_worker, submit_sweep, sweep_results
from dpcda.presets import PRESETS
from dpcda.privacy import ACCOUNTANT_INFO, CONVERSION_TITLES, list_conversions
from dpcda.jobs.experiment import resolve_model
from dpcda.training import AUTO, list_models, model_spec
from pages.common import (DELTA_VALUES, POWERS_OF_TWO, accountant_assumptions, ensure_app_navigation,
                          fmt_delta, fmt_int, privacy_footnote)
from pages.jobs_ui import open_job_store, sweep_progress

EPSILONS = (math.inf, 50.0, 20.0, 10.0, 5.0, 1.0)
ACCOUNTANTS = ("paper", "class-aware", "dpmix", "dpmix-low")  # those DP-CDA can be accounted by
# Epochs per dataset (the model defaults to "auto": dpcda.training.default_model). digits is small
# (1,347 records): at lr 1e-3 and batch 256 a torch model gets only ~6 steps an epoch (measured: a
# linear model 0.20 test accuracy non-private after 5 epochs, 0.82 after 30).
DEFAULT_EPOCHS = {"digits": 30, "adult": 1}  # images otherwise: 5
AUTO_TITLE = "auto (best measured per setting)"

DENOISE_SIGMA = 1.0  # pixels (DPMix Table II's Gaussian filter)
PAPER_LEARNER = {3: "CNN", 4: "tree"}


def eps_label(e: float) -> str:
    return "∞" if math.isinf(e) else f"{e:g}"


def fmt_achieved(e) -> str:
    if e is None or e != e:
        return ""
    return eps_label(e) if math.isinf(e) else f"{e:.4g}"


def paper_cells(dataset: str) -> tuple[dict[float, list], str]:
    """The paper's Table 3 (or Table 4 for Adult) cells for ``dataset``: {ε: [PaperResult]}."""
    if dataset in reference.DATASETS[:3]:
        rows, learner = reference.table3(dataset), PAPER_LEARNER[3]
    elif dataset == "adult":
        rows, learner = reference.table4(), PAPER_LEARNER[4]
    else:
        return {}, ""
    out: dict[float, list] = {}
    for r in rows:
        out.setdefault(float(r.epsilon), []).append(r)
    return out, learner


def accuracy_figure(res: pd.DataFrame, paper: dict, learner: str, title: str):
    """Accuracy against l (log2 axis), mean ± std over runs per ε, the paper's cells dashed."""
    import plotly.graph_objects as go
    from plotly.colors import qualitative

    fig, ls = go.Figure(), sorted(int(v) for v in res["l"].unique())
    for i, (eps, g) in enumerate(res.groupby("epsilon", sort=False)):
        color = qualitative.Plotly[i % len(qualitative.Plotly)]
        g = g[g["runs"] > 0].sort_values("l")
        fig.add_trace(go.Scatter(
            x=g["l"].tolist(), y=g["mean"].tolist(), mode="lines+markers",
            name=f"ours, ε = {eps_label(eps)}",
            legendgroup=str(eps), line=dict(color=color, width=2.5),
            error_y=dict(type="data", array=g["std"].fillna(0.0).tolist(), visible=True, thickness=1.5),
            customdata=list(zip(g["std"].fillna(0.0), g["runs"])),
            hovertemplate=(f"ε = {eps_label(eps)}, l = %{{x}}<br>accuracy %{{y:.4f}} ± "
                           "%{customdata[0]:.4f}<br>%{customdata[1]} run(s)<extra></extra>")))
        cells = sorted((r for r in paper.get(float(eps), []) if r.l in ls), key=lambda r: r.l)
        if cells:
            fig.add_trace(go.Scatter(
                x=[r.l for r in cells], y=[r.accuracy for r in cells], mode="lines+markers",
                name=f"paper ({learner}), ε = {eps_label(eps)}", legendgroup=str(eps),
                line=dict(color=color, dash="dash", width=1.5), marker=dict(symbol="circle-open", size=8),
                hovertemplate=f"paper ({learner}), ε = {eps_label(eps)}, l = %{{x}}<br>"
                              "accuracy %{y:.4f}<extra></extra>"))
    fig.update_xaxes(type="log", title="l (order of mixture, log₂ scale)", tickvals=ls,
                     ticktext=[str(v) for v in ls])
    fig.update_yaxes(title="test accuracy (real test split)", range=[0, 1.02])
    fig.update_layout(title=title, height=460, margin=dict(l=10, r=10, t=50, b=10),
                      showlegend=True, legend=dict(title="target ε"))
    return fig


def results_table(res: pd.DataFrame, jobs, paper: dict) -> pd.DataFrame:
    """One row per (ε, l): how σ was calibrated, what it achieved, accuracy, the paper's cell."""
    first: dict[tuple[float, int], dict] = {}
    for j in jobs:
        if j.status == "done" and j.result:
            first.setdefault((float(j.config["epsilon"]), int(j.config["l"])), j.result)
    rows = []
    for r in res.itertuples(index=False):
        info = first.get((float(r.epsilon), int(r.l)), {})
        others = info.get("other_accountants") or {}
        cell = next((p for p in paper.get(float(r.epsilon), []) if p.l == int(r.l)), None)
        rows.append({
            "epsilon_target": float(r.epsilon), "l": int(r.l), "accountant": r.accountant,
            "conversion": info.get("conversion"), "delta": info.get("delta"),
            "sigma_x": info.get("sigma_x", r.sigma), "sigma_y": info.get("sigma_y"),
            "epsilon_achieved": info.get("epsilon"), "alpha": info.get("alpha"),
            "other_accountants": "; ".join(f"{k}: ε = {v['epsilon']:.4g}" for k, v in others.items()
                                           if v.get("epsilon") is not None),
            "runs": int(r.runs), "failed": int(r.failed), "accuracy_mean": r.mean, "accuracy_std": r.std,
            "paper_mean": cell.accuracy if cell else None, "paper_std": cell.std if cell else None})
    return pd.DataFrame(rows)


def calibration_notes(table: pd.DataFrame, jobs) -> list[str]:
    """Per ε, in words: which accountant and conversion set σ, under which δ, T, c."""
    cfg = jobs[0].config
    n_train = next((j.result.get("n_train") for j in jobs if j.result), None)
    T = cfg.get("T") or n_train
    T_text = (f"T = {fmt_int(T)}" + (" = N" if cfg.get("T") is None else "")) if T else "T = N"
    ratio = "" if cfg.get("ratio", 1.0) == 1 else f"{cfg['ratio']:g} × "
    out = []
    for eps, g in table.groupby("epsilon_target", sort=False):
        if math.isinf(eps):
            out.append("**ε = ∞**: no noise (σ_x = σ_y = 0). This is the non-private baseline: it "
                       "carries **no privacy guarantee**.")
            continue
        sig = g.dropna(subset=["sigma_x"])
        span = ", ".join(f"{s:.4g} (l = {l})" for l, s in zip(sig["l"], sig["sigma_x"])) or "not yet known"
        conv = next((v for v in g["conversion"] if v), cfg.get("conversion"))
        out.append(f"**ε = {eps:g}**: σ calibrated for every l by the **{cfg['accountant']}** accountant "
                   f"({ACCOUNTANT_INFO[cfg['accountant']].title}) with the **{conv}** RDP → (ε, δ) "
                   f"conversion, δ = {fmt_delta(cfg['delta'])}, {T_text}, c = {cfg['c']:g}, "
                   f"σ_y = {ratio}σ_x. σ_x used: {span}.")
    return out


@st.cache_data(ttl=60, show_spinner="Looking for the dataset's files…")
def dataset_problem(name: str) -> str | None:
    """Why ``name`` cannot be loaded here (the library's "put the files here" message), or None."""
    from dpcda.data import load_dataset

    try:
        load_dataset(name)
    except ValueError as exc:
        return str(exc)
    return None


ensure_app_navigation()
st.title("Utility: accuracy of models trained on synthetic data")
st.caption("Train a model on DP-CDA releases over a grid of target ε and orders of mixture l, test it "
           "on the **real** test split, and compare with the paper's Table 3. Jobs run in a background "
           "worker process and survive a page refresh; the store is shared by every session.")
store = open_job_store()

# --- new sweep -------------------------------------------------------------------------------
sb = st.sidebar
sb.header("New sweep")
names = list_datasets()
dataset = sb.selectbox("Dataset", names, index=names.index("digits"), key="utility_dataset",
                       format_func=lambda n: get_dataset_spec(n).title
                       + (" (offline)" if get_dataset_spec(n).offline else ""),
                       help="digits ships with scikit-learn; the others need their files in "
                            "$DPCDA_DATA_DIR (or a download).")
missing = dataset_problem(dataset)
if missing:
    sb.error(missing)
tabular = get_dataset_spec(dataset).kind == "tabular"
max_l = min(PRESETS.get(dataset).class_counts) if dataset in PRESETS else None
epsilons = sb.multiselect("Target ε", EPSILONS, default=[math.inf, 20.0, 10.0], key="utility_eps",
                          format_func=lambda e: "∞ (no privacy)" if math.isinf(e) else f"{e:g}")
l_options = [v for v in POWERS_OF_TWO if max_l is None or v <= max_l]
if "utility_ls" in st.session_state:  # the dataset changed: drop l larger than its smallest class
    st.session_state["utility_ls"] = [v for v in st.session_state["utility_ls"] if v in l_options]
ls = sb.multiselect("Orders of mixture l", l_options, default=[v for v in (1, 4, 16, 64) if v in l_options],
                    key="utility_ls", help=f"Powers of two up to the smallest class ({max_l}).")
c1, c2 = sb.columns(2)
runs = int(c1.number_input("Runs per cell", 1, 20, 3, key="utility_runs"))
models = [AUTO] + [m for m in list_models() if not (tabular and model_spec(m).needs_image)]
if (st.session_state.get("utility_model_for") != dataset
        or st.session_state.get("utility_model") not in models):
    st.session_state["utility_model"] = AUTO
    st.session_state["utility_epochs"] = DEFAULT_EPOCHS.get(dataset, 5)
    st.session_state["utility_model_for"] = dataset
epochs = int(c2.number_input("Epochs", 1, 500, key="utility_epochs"))
auto_picks = {e: resolve_model({"dataset": dataset, "epsilon": e, "mechanism": "dp-cda"}, AUTO)
              for e in (20.0, math.inf)}
model = sb.selectbox("Model", models, key="utility_model",
                     format_func=lambda m: AUTO_TITLE if m == AUTO else f"{m}: {model_spec(m).title}",
                     help=f"auto picks, per job, the learner measured best for {dataset}: "
                          f"`{auto_picks[20.0]}` for private releases (ε < ∞), "
                          f"`{auto_picks[math.inf]}` for ε = ∞ (see the README, \"Training and "
                          "accuracy\").")
label_mode = sb.radio("Labels", ("hard", "soft"), horizontal=True, key="utility_label_mode",
                      help="soft: train on the noisy one-hot labels of the release.")
denoise = sb.toggle(f"Denoise (Gaussian filter, {DENOISE_SIGMA:g} px)", value=False, disabled=tabular,
                    key="utility_denoise", help="Post-processing of the images: costs no privacy.")
sb.subheader("Privacy")
accountant = sb.selectbox("Accountant", ACCOUNTANTS, key="utility_accountant",
                          help="\n".join(f"- `{a}`: {ACCOUNTANT_INFO[a].title}" for a in ACCOUNTANTS))
T_in = sb.number_input("T (synthetic samples)", min_value=1, max_value=10**8, value=None, step=1000,
                       key="utility_T", placeholder="= N (the training split)")
c = float(sb.number_input("Clip norm c", min_value=0.01, max_value=100.0, value=1.0, step=0.1,
                          key="utility_c"))
delta = sb.select_slider("δ", DELTA_VALUES, value=1e-5, format_func=fmt_delta, key="utility_delta")
conversion = sb.radio("RDP → (ε, δ) conversion", list_conversions(), key="utility_conversion",
                      captions=[CONVERSION_TITLES.get(v, "") for v in list_conversions()])
n_jobs = len(epsilons) * len(ls) * runs
sb.caption(f"{n_jobs} job(s): {len(epsilons)} ε × {len(ls)} l × {runs} run(s).")
if not epsilons or not ls:
    sb.warning("Select at least one target ε and one l.")
launch = sb.button("Launch sweep", type="primary", key="utility_launch", width="stretch",
                   disabled=bool(missing), help="Disabled: this dataset's files are missing."
                   if missing else None)

new_id = None
if launch:
    if not epsilons or not ls:
        st.error("Nothing to launch: select at least one target ε and at least one order of mixture l.")
    else:
        base = {"dataset": dataset, "accountant": accountant, "conversion": conversion, "delta": delta,
                "c": c,
                "train": {"model": model, "epochs": epochs, "label_mode": label_mode,
                          "denoise_sigma": DENOISE_SIGMA if denoise and not tabular else 0.0}}
        if T_in:
            base["T"] = int(T_in)
        try:
            new_id = submit_sweep(store, base, epsilons=sorted(epsilons, reverse=True), ls=sorted(ls),
                                  runs=runs)
        except ValueError as exc:
            st.error(f"Cannot launch this sweep: {exc}")
        else:
            try:
                ensure_worker(store)
            except (OSError, RuntimeError, ValueError) as exc:
                st.warning(f"The sweep is queued but no worker could be started ({exc}). Run "
                           f"`python -m dpcda worker --db {store.path}` in a shell.")

# --- which sweep -------------------------------------------------------------------------------
sweeps = {s.id: s for s in reversed(store.sweeps()) if "ls" in (s.config or {})}  # newest first
if new_id is not None:
    st.session_state["utility_sweep"] = new_id
elif st.session_state.get("utility_sweep") not in sweeps:
    wanted = st.query_params.get("sweep")
    if wanted is not None:
        try:
            wanted_id = int(wanted)
        except ValueError:
            wanted_id = None
        if wanted_id in sweeps:
            st.session_state["utility_sweep"] = wanted_id
        else:
            st.warning(f"Sweep {wanted!r} (from the address) is not in the job store {store.path}.")
            del st.query_params["sweep"]
sid = st.selectbox("Sweep (every session's sweeps, newest first)", list(sweeps), index=None,
                   key="utility_sweep",
                   format_func=lambda i: f"#{i} · {sweeps[i].name}",
                   placeholder="Launch a sweep on the left, or pick an earlier one")
if sid is None:
    st.info("No sweep selected.")
    accountant_assumptions(list(ACCOUNTANTS))
    st.stop()
st.query_params["sweep"] = str(sid)

jobs = store.jobs(sweep_id=sid)
cfg = jobs[0].config
train = cfg["train"]
model_by_eps: dict[float, str] = {}  # model="auto" resolves per job, so it may differ by ε
for j in jobs:
    model_by_eps.setdefault(float(j.config["epsilon"]), j.config["train"]["model"])
if len(set(model_by_eps.values())) == 1:
    model_text = f"model `{train['model']}`"
else:
    model_text = "models " + ", ".join(f"`{m}` (ε = {eps_label(e)})" for e, m in model_by_eps.items())
st.caption(f"**{cfg['dataset']}**, {model_text}, {train['label_mode']} labels"
           + (f", denoised (σ = {train['denoise_sigma']:g} px)" if train.get("denoise_sigma") else "")
           + f", {train['epochs']} epoch(s); accountant `{cfg['accountant']}`, conversion "
           f"`{cfg['conversion']}`, δ = {fmt_delta(cfg['delta'])}, c = {cfg['c']:g}, "
           f"T = {'N' if cfg.get('T') is None else fmt_int(cfg['T'])}. Store: `{store.path}`.")
sweep_progress(store, sid, sweeps[sid].status, jobs, key="utility", noun="sweep",
               describe=lambda j: f"ε = {eps_label(j.config['epsilon'])}, l = {j.config['l']}, "
                                  f"run {j.config['run'] + 1}")

# --- results ------------------------------------------------------------------------------------
res = sweep_results(store, sid)
res = res[res["runs"] > 0]
paper, learner = paper_cells(cfg["dataset"])
if res.empty and jobs and all(j.terminal for j in jobs):
    st.warning("No results: no job of this sweep finished successfully (see the failed jobs above).")
elif res.empty:
    st.info("No results yet: they appear here as jobs finish.")
else:
    title = f"{cfg['dataset']}: {model_text.split(' ', 1)[1]} trained on DP-CDA releases"
    st.plotly_chart(accuracy_figure(res, paper, learner, title.replace("`", "")), width="stretch",
                    key="utility_fig")
    if paper:
        st.caption(f"Dashed: the paper's Table {3 if learner == 'CNN' else 4} ({learner}, mean of 10 "
                   "runs) at "
                   "the same ε and l (it reports ε = ∞, 20, 10 only). Error bars: ± one sample standard "
                   "deviation over our runs (none for a single run).")
    table = results_table(res, jobs, paper)
    show = table.assign(epsilon_target=table["epsilon_target"].map(eps_label),
                        epsilon_achieved=table["epsilon_achieved"].map(fmt_achieved))
    if not paper:
        show = show.drop(columns=["paper_mean", "paper_std"])
    st.dataframe(show, hide_index=True, width="stretch", column_config={
        "epsilon_target": st.column_config.TextColumn("target ε"),
        "sigma_x": st.column_config.NumberColumn("σ_x used", format="%.4g"),
        "sigma_y": st.column_config.NumberColumn("σ_y used", format="%.4g"),
        "epsilon_achieved": st.column_config.TextColumn("achieved ε"),
        "alpha": st.column_config.NumberColumn("α", format="%d"),
        "delta": st.column_config.NumberColumn("δ", format="%.0e"),
        "other_accountants": st.column_config.TextColumn("same σ, other accountants"),
        "accuracy_mean": st.column_config.NumberColumn("accuracy", format="%.4f"),
        "accuracy_std": st.column_config.NumberColumn("± std", format="%.4f"),
        "paper_mean": st.column_config.NumberColumn(f"paper ({learner})", format="%.4f"),
        "paper_std": st.column_config.NumberColumn("paper ± std", format="%.4f")})
    st.download_button("Download results (CSV)", table.to_csv(index=False).encode(), key="utility_csv",
                       file_name=f"dpcda-sweep-{sid}-{cfg['dataset']}.csv", mime="text/csv")
    st.markdown("**How each ε was reached**\n\n"
                + "\n".join(f"- {t}" for t in calibration_notes(table, jobs)))
    norm = next((j.result.get("normalization") for j in jobs if j.result), None) or {}
    if norm.get("note") and not norm.get("covered_by_guarantee", True):
        st.warning(f"Normalisation: {norm['note']}.")
    if "cnn" in model_by_eps.values():
        st.caption("The CNN normalises with GroupNorm by default, not the paper's BatchNorm: BatchNorm's "
                   "running statistics, learnt on noise-dominated synthetic images, break on clean test "
                   "images (see the README).")

accountant_assumptions(sorted({cfg["accountant"], "paper", "class-aware"}, key=ACCOUNTANTS.index))
privacy_footnote(cfg["accountant"], cfg["conversion"], delta=cfg["delta"],
                 what=f"every finite ε of sweep #{sid}")
