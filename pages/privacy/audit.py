"""The Audit section of the Privacy page (not a page itself): launch an empirical privacy
audit as a background job, follow it, and set what it finds beside what the accountants claim.
Everything computed lives in :mod:`dpcda.evaluation.audit`; this module reads widgets and draws."""

from __future__ import annotations

import streamlit as st

from dpcda.evaluation.audit.report import (
    audited_points,
    claim_rows,
    claims_over_l,
    job_config,
    paper_gap,
    settings_for_release,
)
from pages.common import POWERS_OF_TWO, InputRefused, fmt_eps, fmt_int, int_input, show_problem

KEY = "privacy_audit"
VALID_NOTE = "as published, not a bound for this implementation"
CANARY_WORDS = {"label": "label change: against whole-record (the default relation)",
                "features": "features only, label kept: against class-aware-pld"}


@st.cache_data(show_spinner=False, max_entries=64)
def _claims_over_l(settings: dict, ls: tuple[int, ...]) -> dict:
    from dpcda.evaluation.audit import AuditSettings

    return claims_over_l(AuditSettings(**settings), ls)


def _audit_jobs(store) -> list:
    return [j for j in store.jobs() if j.kind == "audit"]


def _figure(claims: dict, ls: list[int], points: list[dict], valid: list[str], other: list[str]):
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, eps in claims.items():
        tag = "" if name in valid else " (features-only)" if name in other else " (as published)"
        fig.add_scatter(x=ls, y=eps, mode="lines", name=f"claimed: {name}{tag}",
                        line={"dash": "solid" if name in valid else "dot"})
    if points:
        fig.add_scatter(x=[p["l"] for p in points], y=[p["epsilon_lower"] for p in points],
                        mode="markers", marker={"size": 11, "symbol": "triangle-up"},
                        name="audited lower bound (95%)")
        fig.add_scatter(x=[p["l"] for p in points], y=[p["epsilon_gdp"] for p in points],
                        mode="markers", marker={"size": 9, "symbol": "circle-open"},
                        name="audited Gaussian-DP estimate")
    fig.update_xaxes(type="log", title="l", tickvals=ls)
    fig.update_yaxes(type="log", title="ε")
    fig.update_layout(height=380, margin={"t": 30, "b": 10}, legend={"font": {"size": 11}})
    return fig


def audit_section(*, l: int, sigma_x: float, c: float, T: int, delta: float, class_counts,
                  params) -> None:
    """Draw the section for the page's setting (``params``: its PrivacyParams, for the gap;
    nothing is drawn without class counts: the audit needs N_k)."""
    from pages.jobs_ui import open_job_store, start_worker
    from pages.privacy.views import note

    if not class_counts:
        return

    st.subheader("Audit: does the code spend what the accountants claim?")
    st.caption("Runs DP-CDA's own mixing kernel many times on two neighbouring datasets of a "
               "worst-case canary record (norm c, its classmates at the opposite side): by "
               "default the **label canary**, which moves to another class of the smallest size "
               "(both classes run), or the **features canary** (features replaced, label kept). "
               "The outcomes give a **rigorous 95% lower bound** on ε (Clopper–Pearson, "
               "thresholds chosen on a separate half of the trials) and a **Gaussian-DP "
               "estimate** (Nasr et al. 2023). A lower bound above a valid upper bound would be "
               "a bug. Derivation: docs/audit.md.")
    gap = paper_gap(params) if params is not None else None
    if gap:
        st.warning(f"The published `paper` ε = {fmt_eps(gap['paper'])} is **below** the exact "
                   f"PLD ε of Algorithm 1 ({fmt_eps(gap['pld'])}) at this setting, by "
                   f"{fmt_eps(gap['difference'])} ({gap['ratio']:.2f}×): {VALID_NOTE}.")
    if sigma_x <= 0:
        st.info("The audit needs noise: σ_x = 0 is the non-private setting (ε = ∞).")
        return
    store = open_job_store()
    show = st.toggle("Show the audit", key=f"{KEY}_show",
                     value=st.session_state.get(f"{KEY}_show_kept", bool(_audit_jobs(store))),
                     help="On by default once an audit has run here. Computes every "
                          "accountant's claim over l (a few seconds the first time).")
    st.session_state[f"{KEY}_show_kept"] = show  # kept while a refused input hides the section
    if not show:
        return
    from dpcda.evaluation.audit import (  # scipy.stats: only once shown
        canary_classes,
        claimed_epsilons,
        default_trials,
    )

    n_k = min(class_counts)
    T_k = int(T) // len(class_counts)
    canary = st.radio("Canary", list(CANARY_WORDS), key=f"{KEY}_canary", horizontal=True,
                      format_func=CANARY_WORDS.get,
                      help="The label canary is the worst realised pair of the default "
                           "whole-record relation; the features canary the worst realised pair "
                           "when labels are kept.")
    # A plain value: the box is not drawn while an input is refused, and a box drawn anew shows
    # its default unless its value is assigned again before it (Streamlit 1.67).
    kept = f"{KEY}_trials_kept"
    if kept in st.session_state:
        st.session_state[f"{KEY}_trials"] = st.session_state.get(f"{KEY}_trials", st.session_state[kept])
    try:
        trials = int_input("Trials per arm (with / without the canary)", key=f"{KEY}_trials",
                           name="trials", lo=20, hi=10**6,
                           value=default_trials(l, max(T_k, 1), canary_classes(canary)),
                           help="A whole number from 20 to 1,000,000. The default keeps one "
                                "audit under about 5 minutes on 2 CPU cores.")
    except InputRefused:
        return
    finally:
        st.session_state[kept] = st.session_state[f"{KEY}_trials"]
    note("trials")
    try:
        s = settings_for_release(l=l, sigma_x=sigma_x, c=c, T=T, delta=delta,
                                 class_counts=class_counts, trials=int(trials), canary=canary)
    except ValueError as exc:
        show_problem(exc, lead="Cannot audit this setting: ")
        return
    st.caption(f"Audited: the {canary} canary, N_k = {fmt_int(n_k)} records, T_k = {fmt_int(T_k)} "
               f"mixtures per class, l = {l}, σ_x = {sigma_x:g}, c = {c:g}, δ = {delta:g}, "
               f"{fmt_int(s.trials)} trials per arm; against `{s.against}`.")
    if st.button("Run the audit", key=f"{KEY}_run"):
        store.submit("audit", job_config(s))
        start_worker(store, noun="audit")
    _progress(store)
    jobs = _audit_jobs(store)
    results = [j.result for j in jobs if j.status == "done" and j.result]
    points = audited_points(results, s)
    mine = next((p for p in points if p["l"] == l), None)
    ls = [v for v in POWERS_OF_TWO if v <= n_k]
    claims = _claims_over_l(s.to_dict(), tuple(ls))
    now = claimed_epsilons(s)
    left, right = st.columns([1, 2], gap="large")
    with left:
        if mine:
            st.metric("Audited lower bound on ε (95%)", fmt_eps(mine["epsilon_lower"]))
            st.metric("Gaussian-DP estimate of ε", fmt_eps(mine["epsilon_gdp"]))
        else:
            st.info("No finished audit at this setting yet: press **Run the audit**.")
        if now["against"]:
            st.caption(f"Against `{now['against']}`: ε = {fmt_eps(now['claimed'][now['against']])}. "
                       f"{now['relations'][now['against']]}")
        rows = [{**r, "epsilon": fmt_eps(r["epsilon"])} for r in claim_rows(now)]
        st.dataframe([{"accountant": r["accountant"], "claimed ε": r["epsilon"],
                       "bound for this pair": r["bound for this pair"]} for r in rows],
                     hide_index=True)
        bad = [n for n in now["valid"] if mine and mine["epsilon_lower"] > now["claimed"][n]]
        if bad:
            st.error(f"The audited lower bound exceeds the valid bound of {', '.join(bad)}: a bug.")
    with right:
        fig = _figure(claims, ls, points, now["valid"], now["other_relation"])
        st.plotly_chart(fig, key=f"{KEY}_fig", width="stretch")
        st.caption("Lines: what each accountant claims at this σ_x over l (dotted: not a bound "
                   "for this canary's pair). Markers: finished audits of this setting and canary "
                   "(any l).")


def _progress(store) -> None:
    active = [j for j in _audit_jobs(store) if not j.terminal]

    @st.fragment(run_every=2 if active else None)
    def poll() -> None:
        now = [j for j in _audit_jobs(store) if not j.terminal]
        if len(now) != len(active):
            st.rerun()
        for j in now:
            frac = (j.epoch or 0) / (j.n_epochs or 100)
            st.progress(min(frac, 1.0), text=f"audit job #{j.id} (l = {j.config.get('l')}): "
                        f"{j.status}, {int(100 * frac)}% of the trials")
        failed = [j for j in _audit_jobs(store) if j.status == "failed"][-1:]
        for j in failed:
            show_problem(ValueError((j.message or "failed").splitlines()[0]), warning=True,
                         lead=f"audit job #{j.id} failed: ")

    poll()
