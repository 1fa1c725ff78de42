"""The Utility page's sidebar form (not a page: drawn by ``pages/utility.py``).

Reads the widgets into a :class:`dpcda.dashboard.sweep_request.SweepRequest`; the defaults of a
(dataset, mechanism, experiment) come from :func:`dpcda.dashboard.launch_defaults.utility_defaults`
(a grid that finishes in about two minutes on this CPU), the choices from the mechanism's
registry entry. Keys start with ``utility_``.
"""

from __future__ import annotations

import math

import streamlit as st

from dpcda.data import available_datasets, get_dataset_spec
from dpcda.dashboard.explain import ends_text
from dpcda.dashboard.setting import T_RANGE
from dpcda.experiments.sweep import parse_epsilons, parse_sigmas, parse_Ts
from dpcda.dashboard.launch_defaults import experiments_for, utility_defaults
from dpcda.mechanisms import MECHANISMS, default_normalization_for
from dpcda.data.presets import PRESETS, default_clip_norm
from dpcda.privacy import ACCOUNTANT_INFO, ALLOCATIONS, CONVERSION_TITLES, list_conversions
from dpcda.privacy.allocation import ALLOCATION_TITLES
from dpcda.dashboard.sweep_request import DENOISE_SIGMA, SweepRequest, no_noise_ok
from dpcda.training import AUTO, list_models, model_spec
from dpcda.report.utility_results import EXPERIMENTS
from pages.common import (DELTA_VALUES, POWERS_OF_TWO, REFUSED, InputRefused, absent_datasets_note,
                          accountant_choice, explain,
                          fmt_delta, float_input, int_input, missing_data_note, show_problem, typed)

EPSILONS = (math.inf, 50.0, 20.0, 10.0, 5.0, 1.0)
NORMS = {"scale": "fixed public range (covered by the guarantee)",
         "zscore": "z-score (private statistics: not covered by the guarantee)",
         "none": "none (features as given, rows clipped to c)",
         "dp-center": "public range, √, minus a DP mean (composed into ε)"}
AUTO_TITLE = "auto (best measured per setting)"
K = "utility_"


def _eps_text(e: float) -> str:
    return "∞ (no privacy)" if math.isinf(e) else f"{e:g}"


def _reset_defaults(dataset: str, mechanism: str, x: str) -> None:
    """A new (dataset, mechanism, experiment): its default grid into the widgets."""
    d = utility_defaults(dataset, mechanism, x)
    s = st.session_state
    if d.epsilons is not None:
        s[K + "eps"] = [e for e in d.epsilons if e in EPSILONS]
        s[K + "eps_list"] = ",".join("inf" if math.isinf(e) else f"{e:g}" for e in sorted(d.epsilons))
    if d.sigmas is not None:
        s[K + "sigmas"] = ",".join(f"{v:g}" for v in d.sigmas)
    if d.Ts:
        s[K + "Ts"] = ",".join(str(t) for t in d.Ts)
    s[K + "ls"] = list(d.ls)
    s[K + "runs"], s[K + "epochs"], s[K + "model"] = str(d.runs), str(d.epochs), d.model
    s[K + "trimmed"] = d.trimmed
    s[K + "defaults_for"] = (dataset, mechanism, x)


def _text_list(label: str, key: str, parse, sb, help: str):
    text = sb.text_input(label, key=key, help=help)
    try:
        return tuple(parse(text))
    except ValueError as exc:
        show_problem(exc, container=sb)
        return None


def sweep_form(sb) -> tuple[SweepRequest | None, bool]:
    """Draw the form in ``sb``; returns (the request, or None where an input is refused;
    whether the dataset's files are here)."""
    avail = {a.name: a for a in available_datasets()}
    names = [n for n, a in avail.items() if a.present]  # offered: the datasets whose files are here
    if st.session_state.get(K + "dataset", names[0]) not in names:
        st.session_state[K + "dataset"] = names[0]  # e.g. the shared setting names an absent one
    dataset = sb.selectbox("Dataset", names, key=K + "dataset", format_func=lambda n: avail[n].title)
    absent_datasets_note([n for n, a in avail.items() if not a.present], container=sb)
    explain("dataset", container=sb)
    present = avail[dataset].present
    if not present:  # the files went away since the page was drawn
        missing_data_note(dataset, container=sb)
    mechanism = sb.selectbox("Mechanism", MECHANISMS.names(), key=K + "mechanism",
                             format_func=lambda m: MECHANISMS.get(m).title)
    explain("mechanism", container=sb)
    mech = MECHANISMS.get(mechanism)
    axes = experiments_for(mechanism)
    if st.session_state.get(K + "experiment") not in axes:
        st.session_state[K + "experiment"] = axes[0]
    x = sb.selectbox("Experiment", axes, format_func=EXPERIMENTS.get, key=K + "experiment")
    explain("experiment", container=sb)
    if st.session_state.get(K + "defaults_for") != (dataset, mechanism, x):
        _reset_defaults(dataset, mechanism, x)
    tabular = get_dataset_spec(dataset).kind == "tabular"
    max_l = min(PRESETS.get(dataset).class_counts) if dataset in PRESETS else None
    epsilons = sigmas = Ts = None
    refused = False
    eps_opts = [e for e in EPSILONS if no_noise_ok(mechanism) or not math.isinf(e)]
    if x == "l":
        epsilons = tuple(sb.multiselect("Target ε", eps_opts, key=K + "eps", format_func=_eps_text))
    elif x == "epsilon":
        epsilons = _text_list("Target ε values", K + "eps_list", parse_epsilons, sb,
                              "Comma-separated; inf = no privacy.")
    elif x == "sigma":
        sigmas = _text_list("Fixed σ_x values", K + "sigmas", parse_sigmas, sb,
                            "Comma-separated noise scales (σ_y = σ_x); 0 = no privacy.")
    else:
        Ts = _text_list("T values (synthetic samples)", K + "Ts", parse_Ts, sb, "Comma-separated.")
        fixed = mech.noise_scale and sb.radio(
            "Privacy", ("fixed σ (as the thesis)", "target ε"), horizontal=True,
            key=K + "T_privacy").startswith("fixed")
        try:
            if fixed:
                sigmas = (float_input("σ_x", key=K + "T_sigma", name="sigma_x", lo=0.0, hi=100.0,
                                      value=0.7, container=sb),)
            else:
                epsilons = (float_input("Target ε", key=K + "T_eps", name="epsilon", lo=0.0,
                                        lo_open=True, hi=1e4, value=10.0, container=sb),)
        except InputRefused:
            refused = True
    explain("sigma_x" if sigmas is not None else "epsilon", container=sb)
    if epsilons is None and sigmas is None and not refused:
        refused = True  # a list that did not parse (its problem is shown under it)
    ls = (1,)
    if mech.mixes:
        l_options = [v for v in POWERS_OF_TWO if max_l is None or v <= max_l]
        st.session_state[K + "ls"] = [v for v in st.session_state.get(K + "ls", []) if v in l_options]
        ls = tuple(sb.multiselect("Orders of mixture l", l_options, key=K + "ls",
                                  help=f"Powers of two up to the smallest class ({max_l})."))
        explain("l", container=sb)
    c1, c2 = sb.columns(2)
    runs = typed(int_input, "Runs per cell", key=K + "runs", name="runs", lo=1, hi=20, container=c1)
    epochs = typed(int_input, "Epochs", key=K + "epochs", name="epochs", lo=1, hi=500, container=c2)
    if REFUSED in (runs, epochs):  # each shown at its box; both drawn (an undrawn box loses its value)
        refused, runs, epochs = True, 1, 1
    explain("runs", container=sb)
    explain("epochs", container=sb)
    models = [AUTO] + [m for m in list_models() if not (tabular and model_spec(m).needs_image)]
    if st.session_state.get(K + "model") not in models:
        st.session_state[K + "model"] = AUTO
    model = sb.selectbox("Learner", models, key=K + "model",
                         format_func=lambda m: AUTO_TITLE if m == AUTO else f"{m}: {model_spec(m).title}",
                         help=f"auto: the learner measured best for {dataset} and each setting "
                              "(README, \"Training and accuracy\").")
    explain("learner", container=sb)
    label_mode = sb.radio("Labels", ("default", "hard", "soft"), horizontal=True,
                          key=K + "label_mode", help=f"default: {mech.title}'s own ({mech.label_mode}).")
    explain("label_mode", container=sb)
    denoise = sb.toggle(f"Denoise (Gaussian filter, {DENOISE_SIGMA:g} px)", value=False,
                        disabled=tabular, key=K + "denoise")
    explain("denoise", container=sb)
    sb.subheader("Privacy")
    accountant = sb.selectbox("Accountant", mech.accountants, key=K + "accountant",
                              format_func=accountant_choice,
                              help="\n".join(f"- `{a}`: {ACCOUNTANT_INFO[a].title}"
                                              for a in mech.accountants))
    explain("accountant", container=sb)
    norm_choices = mech.param("normalize").choices if "normalize" in mech.param_names else ()
    first = default_normalization_for(dataset, mech.name, accountant)
    norms = sorted((n for n in norm_choices if n in NORMS), key=lambda v: v != first)
    normalization = sb.radio("Normalisation", norms, key=K + "norm", format_func=NORMS.get) if norms else None
    explain("normalization", container=sb)
    allocation = None
    if "allocation" in mech.param_names:
        allocs = sorted(ALLOCATIONS, key=lambda v: v != mech.param("allocation").default)
        allocation = sb.radio("Samples per class", allocs, key=K + "allocation",
                              format_func=ALLOCATION_TITLES.get)
        explain("allocation", container=sb)
    T = None if x == "T" else typed(int_input, "T (synthetic samples)", key=K + "T", name="T",
                                    **T_RANGE, allow_empty=True, container=sb,
                                    placeholder="= N (the training split)")
    if st.session_state.get(K + "c_for") != dataset:  # a new dataset: its default clip norm
        st.session_state[K + "c"] = f"{default_clip_norm(dataset):g}"
        st.session_state[K + "c_for"] = dataset
    c = typed(float_input, "Clip norm c", key=K + "c", name="c", lo=0.0, lo_open=True, hi=100.0,
              container=sb)
    if REFUSED in (T, c):  # each shown at its box; both drawn
        refused, T, c = True, None, None
    explain("T", container=sb)
    explain("c", container=sb)
    delta = sb.select_slider("δ", DELTA_VALUES, format_func=fmt_delta, key=K + "delta")
    sb.caption(ends_text("delta"))
    explain("delta", container=sb)
    conversion = "mironov"
    if ACCOUNTANT_INFO[accountant].uses_rdp and "conversion" in mech.param_names:
        conversion = sb.radio("RDP → (ε, δ) conversion", list_conversions(), key=K + "conversion",
                              captions=[CONVERSION_TITLES.get(v, "") for v in list_conversions()])
        explain("conversion", container=sb)
    if refused:
        return None, present
    return SweepRequest(
        dataset=dataset, mechanism=mechanism, x=x, epsilons=epsilons, sigmas=sigmas, ls=ls, Ts=Ts,
        runs=runs, model=model, epochs=epochs,
        label_mode=None if label_mode == "default" else label_mode, denoise=denoise,
        accountant=accountant, normalization=normalization, allocation=allocation,
        conversion=conversion, delta=delta, c=c, T=T), present
