"""The Sites page's figures of the split (not a page itself): the map of S sites round the
aggregator, each with its class mix as a small pie, and every site's mix as stacked bars."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from dpcda.dashboard.sites import Design, ring

#: Above this many sites the map draws the sites as dots (their pies would be unreadable).
MAX_PIES = 16
COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2",
          "#ff9da6", "#9d755d", "#bab0ac")


def _color(k: int) -> str:
    return COLORS[k % len(COLORS)]


def site_map(d: Design, class_names: list[str]) -> go.Figure:
    """Sites on a circle, lines to the aggregator in the middle; a pie of each site's class mix
    (the design's) on its node for up to :data:`MAX_PIES` sites."""
    pos = ring(len(d.size))
    fig = go.Figure()
    for x, y in pos:
        fig.add_shape(type="line", x0=0.5, y0=0.5, x1=x, y1=y, xref="paper", yref="paper",
                      line=dict(color="#bbbbbb", width=1))
    pies = len(pos) <= MAX_PIES
    r = min(0.09, 0.9 / max(len(pos), 1)) if pies else 0.0
    for s, (x, y) in enumerate(pos):
        if pies:
            fig.add_trace(go.Pie(values=d.mix[s].tolist(), labels=class_names, sort=False, textinfo="none",
                                 domain=dict(x=[x - r, x + r], y=[y - r, y + r]),
                                 marker=dict(colors=[_color(k) for k in range(len(class_names))]),
                                 showlegend=s == 0, name=f"site {s + 1}",
                                 hovertemplate=f"site {s + 1}: class %{{label}} %{{percent}}"
                                               "<extra></extra>"))
    fig.add_trace(go.Scatter(x=[p[0] for p in pos] + [0.5], y=[p[1] for p in pos] + [0.5],
                             mode="markers+text", showlegend=False, hoverinfo="text",
                             text=[f"{s + 1}" if not pies else "" for s in range(len(pos))]
                             + ["aggregator"],
                             textposition=["middle center"] * len(pos) + ["bottom center"],
                             marker=dict(size=[0 if pies else 10] * len(pos) + [26],
                                         color=["#888888"] * len(pos) + ["#2f5fb3"])))
    fig.update_xaxes(visible=False, range=[0, 1])
    fig.update_yaxes(visible=False, range=[0, 1], scaleanchor="x")
    fig.update_layout(height=380, margin=dict(l=10, r=10, t=30, b=10),
                      title=f"{len(pos)} site{'s' * (len(pos) > 1)} round one aggregator",
                      legend=dict(title="class"))
    return fig


def mix_bars(d: Design, class_names: list[str]) -> go.Figure:
    """Every site's class mix (the design's), stacked to 100%, with its share of the records."""
    sites = [f"site {s + 1}" for s in range(len(d.size))]
    fig = go.Figure()
    for k, name in enumerate(class_names):
        fig.add_trace(go.Bar(x=sites, y=(d.mix[:, k] * 100).tolist(), name=name, marker_color=_color(k),
                             hovertemplate="%{x}: %{y:.1f}%<extra>class " + name + "</extra>"))
    fig.update_layout(barmode="stack", height=280, margin=dict(l=10, r=10, t=30, b=10),
                      yaxis_title="% of the site's records", showlegend=False,
                      title="Class mix per site (the design)")
    return fig


def draw_split(d: Design, class_names: list[str]) -> None:
    left, right = st.columns([1, 1.2], gap="medium")
    left.plotly_chart(site_map(d, class_names), key="sites_map")
    right.plotly_chart(mix_bars(d, class_names), key="sites_mix")
    sizes = ", ".join(f"{100 * v:.0f}%" for v in d.size[:12]) + (" …" if len(d.size) > 12 else "")
    right.caption(f"Expected share of the records per site: {sizes}.")
