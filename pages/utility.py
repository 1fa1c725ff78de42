"""Utility: test accuracy of models trained on DP-CDA releases, swept over ε (or a fixed σ), l, T.

The page only talks to the job store (:mod:`dpcda.jobs`): Launch queues one ``experiment`` job
per grid point and run and makes sure a worker process runs them; nothing is trained in the Streamlit
process. The selected sweep id is kept in ``st.query_params`` (``?sweep=N``) so a refreshed tab
finds it again; every session shares the store, hence the history of earlier sweeps.
"""

from __future__ import annotations

import math

import streamlit as st

from dpcda.data import available_datasets, get_dataset_spec, how_to_get
from dpcda.jobs import submit_sweep, sweep_results
from dpcda.jobs.sweep import parse_epsilons, parse_sigmas, parse_Ts
from dpcda.presets import PRESETS, default_clip_norm
from dpcda.privacy import ACCOUNTANT_INFO, ALLOCATIONS, CONVERSION_TITLES, list_conversions
from dpcda.privacy.allocation import ALLOCATION_TITLES
from dpcda.jobs.experiment import resolve_model
from dpcda.mechanisms import MECHANISMS
from dpcda.tables import for_display
from dpcda.training import AUTO, list_models, model_spec
from pages.common import (DELTA_VALUES, POWERS_OF_TWO, accountant_assumptions, accountant_choice,
                          ensure_app_navigation, fmt_delta, fmt_int, privacy_footnote)
from pages.jobs_ui import executor_choice, open_job_store, start_worker, sweep_progress
from pages.utility_views import (EXPERIMENTS, accuracy_figure, calibration_notes, eps_label, fmt_achieved,
                                 privacy_label, results_table, sweep_x)

EPSILONS = (math.inf, 50.0, 20.0, 10.0, 5.0, 1.0)
ACCOUNTANTS = MECHANISMS.get("dp-cda").accountants  # DP-CDA's, its default (a valid bound) first
NORMS = {"scale": "fixed public range (covered by the guarantee)",
         "zscore": "z-score (private statistics: not covered by the guarantee)"}
# Epochs per dataset (the model defaults to "auto": dpcda.training.default_model). digits is small
# (1,347 records): at lr 1e-3 and batch 256 a torch model gets only ~6 steps an epoch (measured: a
# linear model 0.20 test accuracy non-private after 5 epochs, 0.82 after 30).
DEFAULT_EPOCHS = {"digits": 30, "adult": 1}  # images otherwise: 5
AUTO_TITLE = "auto (best measured per setting)"

DENOISE_SIGMA = 1.0  # pixels (DPMix Table II's Gaussian filter)
DEFAULT_EPS_LIST = "1,2,5,10,20,50,inf"
DEFAULT_SIGMAS = "0.2,0.4,0.7,1,1.5,2,3"  # the thesis's range (0.2 to 3.0)


def parse_list(text: str, parse, container) -> list | None:
    """A comma-separated list from a text box; on bad input an error in ``container`` and None."""
    try:
        return parse(text)
    except ValueError as exc:
        container.error(str(exc))
        return None


def point_text(c: dict) -> str:
    T = f", T = {fmt_int(c['T'])}" if c.get("T") is not None else ""
    return f"{privacy_label(_Point(c))}, l = {c['l']}{T}"


class _Point:  # a job config seen as a results row (epsilon, sigma_target)
    def __init__(self, c: dict) -> None:
        self.epsilon = math.nan if c.get("epsilon") is None else c["epsilon"]
        self.sigma_target = math.nan if c.get("sigma") is None else c["sigma"]


@st.cache_data(ttl=60, show_spinner="Looking for the dataset's files…")
def dataset_problem(name: str) -> str | None:
    """Why ``name`` cannot be loaded here (how to get its files), or None. Loading a missing
    dataset downloads it when this machine is online."""
    from dpcda.data import DatasetUnavailable, load_dataset

    try:
        load_dataset(name)
    except DatasetUnavailable:
        return how_to_get(name)
    except ValueError as exc:
        return str(exc)
    return None


ensure_app_navigation()
st.title("Utility: accuracy of models trained on synthetic data")
st.caption("Train a model on DP-CDA releases over a grid of target ε (or fixed noise σ), orders of "
           "mixture l and sizes T, test it on the **real** test split, and compare with the paper's "
           "Table 3 and the thesis. Jobs run in a background "
           "worker process and survive a page refresh; the store is shared by every session.")
store = open_job_store()

# --- new sweep -------------------------------------------------------------------------------
sb = st.sidebar
sb.header("New sweep")
avail = {a.name: a for a in available_datasets()}  # the datasets present here come first
names = list(avail)
dataset = sb.selectbox("Dataset", names, index=names.index("digits"), key="utility_dataset",
                       format_func=lambda n: avail[n].title + ("" if avail[n].present else " (no files)"),
                       help="digits ships with scikit-learn; the others need their files in "
                            "$DPCDA_DATA_DIR (or a download).")
missing = None if avail[dataset].present else dataset_problem(dataset)
if missing:
    sb.info(missing)
tabular = get_dataset_spec(dataset).kind == "tabular"
max_l = min(PRESETS.get(dataset).class_counts) if dataset in PRESETS else None
n_total = sum(PRESETS.get(dataset).class_counts) if dataset in PRESETS else None
x = sb.selectbox("Experiment", list(EXPERIMENTS), format_func=EXPERIMENTS.get, key="utility_experiment",
                 help="What the accuracy is plotted against. ε: σ is calibrated for each target ε; "
                      "σ: the noise is fixed and the accountant reports the ε it gives; T: the number "
                      "of synthetic samples released.")
l_options = [v for v in POWERS_OF_TWO if max_l is None or v <= max_l]
if "utility_ls" in st.session_state:  # the dataset changed: drop l larger than its smallest class
    st.session_state["utility_ls"] = [v for v in st.session_state["utility_ls"] if v in l_options]
epsilons = sigmas = Ts = None
list_ok = True
if x == "l":
    epsilons = sb.multiselect("Target ε", EPSILONS, default=[math.inf, 20.0, 10.0], key="utility_eps",
                              format_func=lambda e: "∞ (no privacy)" if math.isinf(e) else f"{e:g}")
    l_default = [v for v in (1, 4, 16, 64) if v in l_options]
elif x == "epsilon":
    epsilons = parse_list(sb.text_input("Target ε values", DEFAULT_EPS_LIST, key="utility_eps_list",
                                        help="Comma-separated; inf = no privacy."), parse_epsilons, sb)
    l_default = [4] if 4 in l_options else l_options[:1]
elif x == "sigma":
    sigmas = parse_list(sb.text_input("Fixed σ_x values", DEFAULT_SIGMAS, key="utility_sigmas",
                                      help="Comma-separated noise scales (σ_y = σ_x); 0 = no privacy. "
                                           "The accountant reports the ε of each."), parse_sigmas, sb)
    l_default = [128] if 128 in l_options else l_options[-1:]
else:
    T_default = ",".join(str(max(1, round(n_total * f))) for f in (0.1, 0.2, 0.5, 1.0)) if n_total \
        else "1000,2000,5000,10000"
    Ts = parse_list(sb.text_input("T values (synthetic samples)", T_default, key="utility_Ts",
                                  help="Comma-separated."), parse_Ts, sb)
    fixed = sb.radio("Privacy", ("fixed σ (as the thesis)", "target ε"), horizontal=True,
                     key="utility_T_privacy",
                     help="Fixed σ: ε grows with T. Target ε: σ is recalibrated for every T.")
    if fixed.startswith("fixed"):
        sigmas = [float(sb.number_input("σ_x", min_value=0.0, max_value=100.0, value=0.7, step=0.1,
                                        key="utility_T_sigma"))]
    else:
        epsilons = [float(sb.number_input("Target ε", min_value=0.01, max_value=1e4, value=10.0,
                                          key="utility_T_eps"))]
    l_default = [128] if 128 in l_options else l_options[-1:]
list_ok = not (epsilons is None and sigmas is None) and (x != "T" or Ts is not None)
if "utility_ls" not in st.session_state or st.session_state.get("utility_ls_for") != x:
    # first visit, or another experiment: its own default l (Table 3's grid, the thesis's 128, ...)
    st.session_state["utility_ls"] = [v for v in l_default if v in l_options]
    st.session_state["utility_ls_for"] = x
ls = sb.multiselect("Orders of mixture l", l_options, key="utility_ls",
                    help=f"Powers of two up to the smallest class ({max_l}).")
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
accountant = sb.selectbox("Accountant", ACCOUNTANTS, key="utility_accountant", format_func=accountant_choice,
                          help="\n".join(f"- `{a}`: {ACCOUNTANT_INFO[a].title}" for a in ACCOUNTANTS))
norms = sorted(NORMS, key=lambda v: v != MECHANISMS.get("dp-cda").default_normalize)  # the default first
normalization = sb.radio("Normalisation", norms, key="utility_norm", format_func=NORMS.get)
allocs = sorted(ALLOCATIONS, key=lambda v: v != MECHANISMS.get("dp-cda").param("allocation").default)
allocation = sb.radio("Samples per class", allocs, key="utility_allocation",
                      format_func=ALLOCATION_TITLES.get)
T_in = None if x == "T" else sb.number_input(
    "T (synthetic samples)", min_value=1, max_value=10**8, value=None, step=1000, key="utility_T",
    placeholder="= N (the training split)")
if st.session_state.get("utility_c_for") != dataset:  # a new dataset: its default clip norm
    st.session_state["utility_c"], st.session_state["utility_c_for"] = default_clip_norm(dataset), dataset
c = float(sb.number_input("Clip norm c", min_value=0.01, max_value=100.0, step=0.1, key="utility_c"))
delta = sb.select_slider("δ", DELTA_VALUES, value=1e-5, format_func=fmt_delta, key="utility_delta")
conversion = sb.radio("RDP → (ε, δ) conversion", list_conversions(), key="utility_conversion",
                      captions=[CONVERSION_TITLES.get(v, "") for v in list_conversions()])
privacy_values = (epsilons if sigmas is None else sigmas) or []
n_T = len(Ts or [None])
n_jobs = len(privacy_values) * len(ls) * n_T * runs
sb.caption(f"{n_jobs} job(s): {len(privacy_values)} {'ε' if sigmas is None else 'σ'} × {len(ls)} l"
           + (f" × {n_T} T" if Ts else "") + f" × {runs} run(s).")
if list_ok and (not privacy_values or not ls):
    sb.warning("Select at least one target ε and one l." if x == "l" else "Select at least one l.")
executor = executor_choice(sb, "utility")
launch = sb.button("Launch sweep", type="primary", key="utility_launch", width="stretch",
                   disabled=bool(missing), help="Disabled: this dataset's files are missing."
                   if missing else None)

new_id = None
if launch:
    if not list_ok:
        st.error("Nothing launched: correct the list in the sidebar first.")
    elif not privacy_values or not ls:
        st.error("Nothing to launch: select at least one target ε and at least one order of mixture l.")
    else:
        base = {"dataset": dataset, "accountant": accountant, "conversion": conversion, "delta": delta,
                "c": c, "normalization": normalization, "allocation": allocation,
                "train": {"model": model, "epochs": epochs, "label_mode": label_mode,
                          "denoise_sigma": DENOISE_SIGMA if denoise and not tabular else 0.0}}
        if T_in:
            base["T"] = int(T_in)
        try:
            new_id = submit_sweep(
                store, base, epsilons=None if epsilons is None else sorted(epsilons, reverse=True),
                sigmas=None if sigmas is None else sorted(sigmas), ls=sorted(ls), Ts=Ts, runs=runs, x=x)
        except ValueError as exc:
            st.error(f"Cannot launch this sweep: {exc}")
        else:
            start_worker(store, "sweep", executor)

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
                   format_func=lambda i: f"#{i} · {EXPERIMENTS[sweep_x(sweeps[i].config)].split(' (')[0]}"
                                         f" · {sweeps[i].name}",
                   placeholder="Launch a sweep on the left, or pick an earlier one")
if sid is None:
    st.info("No sweep selected.")
    accountant_assumptions(list(ACCOUNTANTS))
    st.stop()
st.query_params["sweep"] = str(sid)

jobs = store.jobs(sweep_id=sid)
cfg = jobs[0].config
train = cfg["train"]
sx = sweep_x(sweeps[sid].config)
model_by_point: dict[str, str] = {}  # model="auto" resolves per job, so it may differ by ε
for j in jobs:
    model_by_point.setdefault(privacy_label(_Point(j.config)), j.config["train"]["model"])
if len(set(model_by_point.values())) == 1:
    model_text = f"model `{train['model']}`"
else:
    model_text = "models " + ", ".join(f"`{m}` ({p})" for p, m in model_by_point.items())
Ts_used = sorted({j.config.get("T") for j in jobs}, key=lambda t: -1 if t is None else t)
T_text = ", ".join("N" if t is None else fmt_int(t) for t in Ts_used)
st.caption(f"**{EXPERIMENTS[sx]}** · **{cfg['dataset']}**, {model_text}, {train['label_mode']} labels"
           + (f", denoised (σ = {train['denoise_sigma']:g} px)" if train.get("denoise_sigma") else "")
           + ("" if all(model_spec(m).kind == "closed" for m in model_by_point.values())
              else f", {train['epochs']} epoch(s)")
           + f"; accountant `{cfg['accountant']}`, conversion "
           f"`{cfg['conversion']}`, δ = {fmt_delta(cfg['delta'])}, normalisation `{cfg['normalization']}`"
           + (" (not covered by the guarantee)" if cfg["normalization"] == "zscore" else "")
           + f", allocation `{cfg.get('allocation', 'equal')}`, "
           f"c = {cfg['c']:g}, T = {T_text}. "
           f"Store: `{store.path}`.")
sweep_progress(store, sid, sweeps[sid].status, jobs, key="utility", noun="sweep",
               describe=lambda j: f"{point_text(j.config)}, run {j.config['run'] + 1}")

# --- results ------------------------------------------------------------------------------------
res = sweep_results(store, sid)
res = res[res["runs"] > 0]
if res.empty and jobs and all(j.terminal for j in jobs):
    st.warning("No results: no job of this sweep finished successfully (see the failed jobs above).")
elif res.empty:
    st.info("No results yet: they appear here as jobs finish.")
else:
    title = f"{cfg['dataset']}: {model_text.split(' ', 1)[1]} trained on DP-CDA releases"
    fig, overlaid = accuracy_figure(res, x=sx, dataset=cfg["dataset"], title=title.replace("`", ""),
                                    accountant=cfg["accountant"])
    st.plotly_chart(fig, width="stretch", key="utility_fig")
    bars = "Error bars: ± one sample standard deviation over our runs (none for a single run)."
    if overlaid and res["sigma_target"].notna().any():
        st.caption("Dashed: the thesis's Table 4.2 (its CNN, MNIST, σ_x = σ_y = 0.7, T = 12,000, "
                   "features in [0, 1], soft labels). " + bars)
    elif overlaid:
        learner = "tree" if cfg["dataset"] == "adult" else "CNN"
        st.caption(f"Dashed: the paper's Table {4 if learner == 'tree' else 3} ({learner}, mean of 10 "
                   "runs) at the same ε and l (it reports ε = ∞, 20, 10 only), a reproduction target: its "
                   "ε is the published accountant's (as published, not a bound for this "
                   "implementation), so our points match it only under `paper`. " + bars)
    elif sx in ("sigma", "T"):
        st.caption("The thesis reports accuracy versus σ (its Fig. 4.3: MNIST, l = 128, T = 12,000) and "
                   "versus T (Fig. 4.5: σ = 0.7, l = 128) as figures only, with no numbers in its text, "
                   "so there is nothing to overlay. " + bars)
    else:
        st.caption("The paper reports no cell for this dataset and these settings. " + bars)
    if res["sigma_target"].notna().any() and sx != "epsilon":
        st.caption(f"Dotted, right axis: the ε that the `{cfg['accountant']}` accountant gives each "
                   "fixed σ.")
    table = results_table(res, jobs, cfg["dataset"])
    show = table.assign(epsilon_target=table["epsilon_target"].map(lambda e: "" if e != e or e is None
                                                                   else eps_label(e)),
                        epsilon_achieved=table["epsilon_achieved"].map(fmt_achieved))
    if table["paper_mean"].isna().all():
        show = show.drop(columns=["paper_mean", "paper_std"])
    if table["sigma_fixed"].isna().all():
        show = show.drop(columns=["sigma_fixed"])
    elif table["epsilon_target"].isna().all():
        show = show.drop(columns=["epsilon_target"])
    labels = {"epsilon_target": ("target ε", None), "sigma_fixed": ("fixed σ", "{:.4g}"),
              "T": ("T", None), "sigma_x": ("σ_x used", "{:.4g}"), "sigma_y": ("σ_y used", "{:.4g}"),
              "epsilon_achieved": ("achieved ε", None), "alpha": ("α", None), "delta": ("δ", "{:.0e}"),
              "other_accountants": ("same σ, other accountants", None),
              "accuracy_mean": ("accuracy", "{:.4f}"), "accuracy_std": ("± std", "{:.4f}"),
              "paper_mean": ("reported", "{:.4f}"), "paper_std": ("reported ± std", "{:.4f}")}
    if "alpha" in show and show["alpha"].isna().all():  # the PLD accountant has no Rényi order
        show = show.drop(columns=["alpha"])
    shown = {c: labels[c] for c in show.columns if c in labels}
    st.dataframe(for_display(show.rename(columns={c: lab for c, (lab, _) in shown.items()}),
                             {lab: f for lab, f in shown.values() if f}),
                 hide_index=True, width="stretch")
    st.download_button("Download results (CSV)", table.to_csv(index=False).encode(), key="utility_csv",
                       file_name=f"dpcda-sweep-{sid}-{cfg['dataset']}.csv", mime="text/csv")
    st.markdown("**How each ε was reached**\n\n"
                + "\n".join(f"- {t}" for t in calibration_notes(table, jobs)))
    norm = next((j.result.get("normalization") for j in jobs if j.result), None) or {}
    if norm.get("note") and not norm.get("covered_by_guarantee", True):
        st.warning(f"Normalisation: {norm['note']}.")
    if "cnn" in model_by_point.values():
        st.caption("The CNN normalises with GroupNorm by default, not the paper's BatchNorm: BatchNorm's "
                   "running statistics, learnt on noise-dominated synthetic images, break on clean test "
                   "images (see the README).")

accountant_assumptions(sorted({cfg["accountant"], ACCOUNTANTS[0], "paper"}, key=ACCOUNTANTS.index))
privacy_footnote(cfg["accountant"], cfg["conversion"], delta=cfg["delta"],
                 what=f"every finite ε of sweep #{sid}")
