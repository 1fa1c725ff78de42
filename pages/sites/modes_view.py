"""The Sites page's comparison of the three modes (not a page itself): every ε with its threat
model, accountant and relation (computed live), and the measured accuracy beside it (from the
shipped table), with accuracy against S."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from dpcda.dashboard.sites import MODES
from dpcda.report.formatting import fmt_eps, markdown_table

TITLES = {"centralized": "centralized (trusted curator)", "cape": "CAPE (correlated noise)",
          "local": "local (each site alone)"}


@st.cache_data(show_spinner="Accounting the aggregator's view…", max_entries=256)
def threats(noise, class_counts: tuple, S: int, t: int) -> list[dict]:
    from dpcda.dashboard.sites import threat_rows

    return threat_rows(noise, class_counts, S, t)


def _acc(acc: dict, mode: str, S: int) -> str:
    got = acc.get(mode, {}).get(S)
    if got is None:
        near = sorted(acc.get(mode, {}))
        return "not measured at this S" + (f" (measured at S = {', '.join(map(str, near))})"
                                           if near else "")
    value, runs, learner, commit = got
    return f"{value:.3f} ({runs} run{'s' * (runs > 1)}, {learner}, commit {commit})"


def mode_table(rows: list[dict], acc: dict, S: int, local_problem: str | None,
               measured_on: str | None = None) -> None:
    """One line per mode and threat model: ε, accountant, relation; the accuracy per mode
    (``measured_on``: the normalisation the accuracy was measured with, named in its header
    when it is not the one the ε are of)."""
    head = "accuracy (measured)" if measured_on is None else f"accuracy (measured on {measured_on})"
    table = []
    for r in rows:
        local_off = r["mode"] == "local" and local_problem is not None
        table.append({"mode": TITLES[r["mode"]], "threat model": f"({r['key']}) {r['threat']}",
                      "ε": "refused" if local_off else fmt_eps(r["epsilon"]),
                      "accountant": f"`{r['accountant']}`", "relation": r["relation"],
                      head: "—" if local_off else _acc(acc, r["mode"], S)})
    st.markdown(markdown_table(table))


def center_caption(noise, scale) -> None:
    """What ``dp-center`` changes in the ε above (``noise``: its row; ``scale``: the ``scale``
    row at the same target, or None)."""
    vs = "" if scale is None else f" (scale: σ = {scale.sigma_x:.4g})"
    st.caption(
        f"**dp-center.** The per-feature means are released once, before the mixtures, with "
        f"μ_c = {noise.stats_mu:.4g} (GDP), summed across the sites by the same masked "
        f"protocol (docs/decentral.md, Theorem 6). Their share comes out of the target: the "
        f"mixtures get σ = {noise.sigma_x:.4g}{vs}, and (a) is the composed ε of both under "
        f"`{noise.accountant}`. (b) and (c) compose the statistics' view, μ_c·√(S/H) with "
        "H = S − t honest sites, into both bounds, as the release's card does; at the same "
        "target they can come out a little below scale's, as the larger mixing noise saves more "
        "there than the statistics add.")


def accuracy_figure(acc: dict, S: int, title: str) -> go.Figure | None:
    """Measured accuracy against S per mode (log S axis), the current S marked."""
    if not any(acc.get(m) for m in MODES):
        return None
    fig = go.Figure()
    for mode in MODES:
        pts = sorted(acc.get(mode, {}).items())
        if pts:
            fig.add_trace(go.Scatter(x=[p[0] for p in pts], y=[p[1][0] for p in pts],
                                     mode="lines+markers", name=TITLES[mode]))
    fig.add_vline(x=S, line_dash="dot", line_color="#888888")
    fig.update_xaxes(type="log", title="sites S")
    fig.update_yaxes(title="test accuracy")
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=40, b=10), title=title)
    return fig
