"""Sections of the Privacy page (not a page itself): the accuracy beside ε with its frontier,
Figure 4 and the calibration. They read widgets, call :mod:`dpcda`, draw."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dpcda.evaluation import baselines as bl
from dpcda.experiments import frontier as fr
from dpcda.dashboard import frontier_memo as fm
from dpcda.mechanisms import MECHANISMS
from dpcda.data.presets import list_presets
from dpcda.privacy import caveat
from dpcda.report.svg import frontier_svg
from pages.common import (EPS_PLOT_MAX, POWERS_OF_TWO, SIGMA_GRID, InputRefused,
                          calibration_figure, calibration_rows, explain, explain_on, figure4,
                          figure4_grid, float_input, fmt_alpha, fmt_eps, fmt_int)

KEY = "privacy_acc"
ACCOUNTANTS = tuple(MECHANISMS.get("dp-cda").accountants)


def note(key: str, container=None) -> None:
    """The input's plain note when Explain is on; otherwise at least its privacy direction."""
    from dpcda.dashboard.explain import ends_text

    if explain_on():
        explain(key, container=container)
    elif ends_text(key):
        (container or st).caption(ends_text(key))


def _front(rows: list[dict], **kw) -> list[dict]:
    """The frontier of ``rows``: each release's ε remembered (dpcda.dashboard.frontier_memo)."""
    if not rows:
        return []
    if fm.remembered(rows, **kw):
        return fr.frontier(fm.epsilons(rows, **kw))
    with st.spinner("Setting the measured accuracies against ε…"):
        return fr.frontier(fm.epsilons(rows, **kw))


def accuracy_section(*, dataset: str, facts: dict, l: int, sigma_x: float, ratio: float,
                     c: float, T: int, delta: float, accountant: str, conversion: str,
                     max_alpha: int, eps_now: float | None, allocation: str = fr.MEASURED_ALLOCATION,
                     normalize: str | None = None) -> None:
    """What accuracy this ε buys: the measured readout (or one click to measure it) and the
    privacy-utility frontier of every measured release of ``dataset`` (T split as the measured
    releases: a setting with another ``allocation`` is not matched to them, and is measured on
    Utility)."""
    from dpcda.data.availability import dataset_availability
    from pages.jobs_ui import measurement_progress, open_job_store, start_worker

    store = open_job_store()
    # Pending first: a run that finishes between the two reads is then still polled for.
    pending = fr.pending_jobs(store, dataset, l=l, sigma_x=sigma_x)
    rows = fr.release_rows(dataset, store, c=c, T=T, ratio=ratio)
    here = fr.lookup(rows, l=l, sigma_x=sigma_x, ratio=ratio, c=c, T=T, n=facts["n"],
                     dataset=dataset, allocation=allocation)
    front = _front(rows, accountant=accountant, delta=delta, conversion=conversion,
                   max_alpha=max_alpha, **facts)
    best = fr.best_within(front, eps_now) if eps_now is not None else None
    if here is not None:
        st.metric("Test accuracy of a model trained on this release", fr.accuracy_text(here))
        st.caption(fr.measurement_text(here))
    else:
        st.metric("Test accuracy of a model trained on this release", "not measured yet")
        if best is not None:
            st.caption(f"The best measured release with ε ≤ this one: {fr.accuracy_text(best)} "
                       f"(l = {best['l']}, σ = {best['sigma_x']:.3g}, ε = {fmt_eps(best['epsilon'])}, "
                       f"learner `{best['learner']}`).")
    if norm_note := fr.normalization_note(dataset, normalize, accountant):  # rows are `scale`'s
        st.caption(norm_note)
    shown = here or best  # the readout above; the frontier's learner when there is none
    base = bl.baseline(dataset, (shown or (front[-1] if front else {})).get("learner"))
    if base is not None:  # what every accuracy is read against (issue 21, item 2)
        st.caption("Read it against: " + bl.baseline_text(base) + ".")
        flag = bl.flag_words(base, *(shown[k] for k in ("mean", "std", "runs"))) if shown else ""
        if flag:
            st.warning(f"**Within noise of the majority class:** {flag}.")
    if allocation != fr.MEASURED_ALLOCATION:  # the one-click measurement's and the frontier's split
        st.caption(f"This setting splits T {allocation}ly; the accuracies here are of releases "
                   f"with T split {fr.MEASURED_ALLOCATION}ly. Measure this split on **Utility** (a "
                   "sweep with the same allocation).")
    elif here is None or here["runs"] < fr.MEASURE_RUNS:
        if pending:
            measurement_progress(store, dataset, l, sigma_x, len(pending))
        elif dataset_availability(dataset).present:
            secs = fr.estimate_seconds(dataset)
            if st.button(f"Measure it ({fr.MEASURE_RUNS} runs, about {secs:.0f} s)",
                         key=f"{KEY}_measure", help="Runs in the background with the fast "
                         "learner; the page updates as each run finishes."):
                fr.submit_measurement(store, dataset, l=l, sigma_x=sigma_x, ratio=ratio, c=c,
                                      T=None if T == facts["n"] else T, delta=delta)
                start_worker(store, noun="measurement")
                st.rerun()
        else:
            st.caption(f"{dataset}'s files are not on this server, so it cannot be measured here.")
    star = (eps_now, here["mean"]) if here is not None and eps_now and math.isfinite(eps_now) \
        else None
    if front:
        # Inline SVG, not a chart library: Vega-Lite's scripts (with the data grid's) cost about
        # 0.3 s of a first view, the SVG gives back half of it (README, browser timings).
        # st.html's sanitiser drops SVG; markdown passes it through as an HTML block.
        st.markdown(frontier_svg(front, star=star, eps_now=eps_now,
                                 title="Privacy-utility frontier",
                                 subtitle=f"{dataset}, {accountant} accountant, "
                                 f"{fr.measured_normalization(dataset)} releases",
                                 levels=bl.levels(base)),
                    unsafe_allow_html=True)
        st.caption("Each step: the best accuracy measured with ε at most that value (hover for "
                   f"its l; learner: {', '.join(sorted({r['learner'] for r in front}))}, the "
                   "default's); bars span the runs' range; dotted: the majority-class rate and the "
                   "non-private ceiling. ε here is what the chosen accountant charges each "
                   "measured release, with its own split of T (an upper bound for a proportional "
                   "split under whole-record).")
    else:
        st.caption(f"No measured accuracies for {dataset} at c = {c:g}, T = {fmt_int(T)} yet.")
    # What a switch of accountant or dataset needs next, computed while the reader looks.
    setting = dict(c=c, T=None if T == facts["n"] else T, ratio=ratio, delta=delta,
                   conversion=conversion, max_alpha=max_alpha)
    fm.prefetch(fm.switch_tasks(dataset, store, accountant=accountant, accountants=ACCOUNTANTS,
                                datasets=list_presets(), **setting),
                key=(dataset, accountant, *setting.values()))


def figure4_section(*, ds, l: int, sigma_x: float, ratio: float, accountant: str, r,
                    common: dict) -> tuple[int, ...]:
    """The paper's Figure 4 for the chosen accountant, the current setting starred."""
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
    st.caption("The star marks the current setting (bold curve: the current l, when it is a power "
               f"of two). The ε axis stops at {EPS_PLOT_MAX:g}; hover for larger values. At a fixed "
               "noise level a larger l spends less ε: one record moves an average of l records by "
               "1/l as much, which outweighs the higher chance (l/N) of being picked. So the noise "
               "needed for a target ε falls as l grows, as in the calibration below.")
    return ls


def calibration_section(*, ls: tuple[int, ...], ratio: float, accountant: str,
                        common: dict) -> None:
    """Target ε → the noise that reaches it, for every l (the paper's Table 3 procedure)."""
    st.subheader("Calibration: the noise that reaches a target ε")
    try:
        target = float_input("Target ε", key="privacy_target_eps", name="epsilon", lo=0.01,
                             hi=1e4, value=10.0, help="A number from 0.01 to 10,000. The paper's "
                             "Table 3 uses ε = 10 and 20 with δ = 1e-5.")
    except InputRefused:
        return
    note("target_epsilon")
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
    st.caption(f"σ_y = {'σ_x' if ratio == 1 else f'{ratio:.3g} × σ_x'}; the achieved ε "
               f"(`{accountant}`{caveat(accountant) and ': ' + caveat(accountant)}) never "
               "exceeds the target. This is how the paper sets the noise for every l in its "
               "Table 3.")
