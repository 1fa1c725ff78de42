"""The Sites page's comparison of the three modes (not a page itself): every ε with its threat
model, accountant and relation (computed live), and the measured accuracy beside it (from the
shipped table), with accuracy against S."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from dpcda.dashboard.sites_accuracy import MODE_TITLES as TITLES
from dpcda.report.formatting import fmt_eps, markdown_table


@st.cache_data(show_spinner="Accounting the aggregator's view…", max_entries=256)
def threats(noise, class_counts: tuple, S: int, t: int) -> list[dict]:
    from dpcda.dashboard.sites import threat_rows

    return threat_rows(noise, class_counts, S, t)


def _eps(r: dict) -> str:
    """The ε cell; where floating point leaves the view no guarantee (as the card says), so."""
    if r.get("epsilon_ideal") is not None:
        return (f"none established: floating point's δ_total ≥ 1 (ideal mechanism: "
                f"{fmt_eps(r['epsilon_ideal'])})")
    return fmt_eps(r["epsilon"])


def mode_table(rows: list[dict], acc, S: int, local_problem: str | None) -> None:
    """One line per mode and threat model: ε, accountant, relation; the accuracy per mode
    (``acc``: :class:`dpcda.dashboard.sites_accuracy.SitesAccuracy`, each value naming the
    normalisation it was measured on where it is not the page's)."""
    head = acc.column(S)
    table = []
    for r in rows:
        local_off = r["mode"] == "local" and local_problem is not None
        table.append({"mode": TITLES[r["mode"]], "threat model": f"({r['key']}) {r['threat']}",
                      "ε": "refused" if local_off else _eps(r),
                      "accountant": f"`{r['accountant']}`", "relation": r["relation"],
                      head: "—" if local_off else acc.cell(r["mode"], S)})
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


def accuracy_figure(acc, S: int, title: str) -> go.Figure | None:
    """Measured accuracy against S per mode (log S axis), the current S marked: the library's
    series (``acc.series()``), scale's as lines, another normalisation's own as markers."""
    series = acc.series()
    if not series:
        return None
    fig = go.Figure()
    for s in series:
        fig.add_trace(go.Scatter(x=s["xs"], y=s["ys"], name=s["name"],
                                 mode="lines+markers" if s["lines"] else "markers",
                                 marker=dict(size=7 if s["lines"] else 12,
                                             symbol="circle" if s["lines"] else "diamond")))
    fig.add_vline(x=S, line_dash="dot", line_color="#888888")
    fig.update_xaxes(type="log", title="sites S")
    fig.update_yaxes(title="test accuracy")
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=40, b=10), title=title)
    return fig
