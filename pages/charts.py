"""Plotly figures (not a page): the Privacy explorer's Figure 4 and calibration curve, and
Compare's bars.

The numbers come from :mod:`dpcda.dashboard.explorer`; this module only draws them (``dpcda`` itself
never imports plotly).
"""

from __future__ import annotations

import math

from dpcda.dashboard.explorer import POWERS_OF_TWO
from dpcda.report.formatting import log_ticks

#: Figure 4's epsilon axis stops here (the paper's figure spans a similar range); larger values
#: (tiny sigma, small l) still show on hover.
EPS_PLOT_MAX = 1e4


def figure4(grid: dict, sigmas, *, star: tuple[float, float] | None, current_l: int, title: str,
            x_title: str = "σ_x = σ_y"):
    """The paper's Figure 4: epsilon against sigma, a log-log curve per l, the setting starred.

    Returns ``(figure, drawn)``: ``drawn`` lists the l whose curve could be computed.
    """
    import plotly.graph_objects as go
    from plotly.colors import sample_colorscale

    drawn = [l for l, v in grid.items() if not isinstance(v, str)]
    # Viridis without its pale-yellow end, which vanishes on a white background.
    colors = sample_colorscale("Viridis",
                               [0.88 * i / max(1, len(grid) - 1) for i in range(len(grid))])
    fig = go.Figure()
    for color, (l, eps) in zip(colors, grid.items()):
        if isinstance(eps, str):
            continue
        y = [e if math.isfinite(e) else None for e in eps]
        fig.add_trace(go.Scatter(
            x=list(sigmas), y=y, mode="lines", name=f"l = {l}",
            line=dict(color=color, width=3.5 if l == current_l else 1.8),
            hovertemplate=f"l = {l}<br>σ = %{{x:.3g}}<br>ε = %{{y:.4g}}<extra></extra>"))
    if star is not None:
        fig.add_trace(go.Scatter(
            x=[star[0]], y=[star[1]], mode="markers", name=f"current (l = {current_l})",
            marker=dict(symbol="star", size=18, color="#d62728", line=dict(width=1, color="black")),
            hovertemplate="current setting<br>σ_x = %{x:.3g}<br>ε = %{y:.4g}<extra></extra>"))
    finite = [e for l in drawn for e in grid[l] if math.isfinite(e) and e > 0]
    lo = max(min(finite), 1e-3) if finite else 1e-2
    hi = min(max(finite), EPS_PLOT_MAX) if finite else EPS_PLOT_MAX
    fig.update_xaxes(type="log", title=x_title, **log_ticks(min(sigmas), max(sigmas)))
    fig.update_yaxes(type="log", title="ε", range=[math.log10(lo) - 0.1, math.log10(hi) + 0.1],
                     **log_ticks(lo, hi))
    fig.update_layout(title=title, height=480, margin=dict(l=10, r=10, t=50, b=10),
                      legend=dict(title="order of mixture"))
    return fig, drawn


def calibration_figure(rows: list[dict], *, target: float):
    """sigma_x needed for the target epsilon as a function of l (log-log)."""
    import plotly.graph_objects as go

    ok = [r for r in rows if r["sigma_x"] is not None]
    fig = go.Figure(go.Scatter(
        x=[r["l"] for r in ok], y=[r["sigma_x"] for r in ok], mode="lines+markers", name="σ_x",
        hovertemplate="l = %{x}<br>σ_x = %{y:.4g}<extra></extra>"))
    fig.update_xaxes(type="log", title="l", tickvals=POWERS_OF_TWO,
                     ticktext=[str(v) for v in POWERS_OF_TWO])
    sig = [r["sigma_x"] for r in ok]
    fig.update_yaxes(type="log", title="σ_x", **(log_ticks(min(sig), max(sig)) if sig else {}))
    fig.update_layout(title=f"noise for ε = {target:g}", height=320, showlegend=False,
                      margin=dict(l=10, r=10, t=40, b=10))
    return fig


def comparison_figure(bars: dict, title: str):
    """Compare's bars (:func:`dpcda.report.compare_view.figure_bars`): ours with ± std, each bar
    labelled with the learner trained on that release; the paper's Table 5 hatched."""
    import plotly.graph_objects as go

    fig = go.Figure()
    if bars["ours"]["method"]:
        fig.add_trace(go.Bar(x=bars["ours"]["method"], y=bars["ours"]["accuracy"], name="ours",
                             error_y=dict(type="data", array=bars["ours"]["std"], visible=True),
                             text=bars["ours"].get("learner"), textposition="inside",
                             hovertemplate="%{x}: %{y:.4f}, learner %{text}<extra></extra>",
                             marker_color="#2f5fb3"))
    if bars["paper"]["method"]:
        fig.add_trace(go.Bar(x=bars["paper"]["method"], y=bars["paper"]["accuracy"],
                             name="paper (Table 5)", marker_color="#b0b6c0", marker_pattern_shape="/"))
    fig.update_layout(barmode="group", title=title, height=380, margin=dict(l=10, r=10, t=50, b=10),
                      yaxis=dict(title="test accuracy (real test split)", range=[0, 1.02]),
                      legend=dict(orientation="h", y=-0.25))
    return fig
