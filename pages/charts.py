"""Plotly figures (not a page): the Privacy explorer's Figure 4 and calibration curve, and
Compare's bars.

The numbers come from :mod:`dpcda.explorer`; this module only draws them (``dpcda`` itself
never imports plotly).
"""

from __future__ import annotations

import math

from dpcda.explorer import POWERS_OF_TWO
from dpcda.formatting import log_ticks

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
    """Compare's bars (:func:`dpcda.compare_view.figure_bars`): ours with ± std, the paper's
    Table 5 hatched."""
    import plotly.graph_objects as go

    fig = go.Figure()
    if bars["ours"]["method"]:
        fig.add_trace(go.Bar(x=bars["ours"]["method"], y=bars["ours"]["accuracy"], name="ours",
                             error_y=dict(type="data", array=bars["ours"]["std"], visible=True),
                             marker_color="#2f5fb3"))
    if bars["paper"]["method"]:
        fig.add_trace(go.Bar(x=bars["paper"]["method"], y=bars["paper"]["accuracy"],
                             name="paper (Table 5)", marker_color="#b0b6c0", marker_pattern_shape="/"))
    fig.update_layout(barmode="group", title=title, height=380, margin=dict(l=10, r=10, t=50, b=10),
                      yaxis=dict(title="test accuracy (real test split)", range=[0, 1.02]),
                      legend=dict(orientation="h", y=-0.25))
    return fig


#: A five-pointed star as a Vega symbol path (unit size), for "this setting".
STAR_PATH = ("M0,-1L0.225,-0.309L0.951,-0.309L0.363,0.118L0.588,0.809L0,0.382L-0.588,0.809"
             "L-0.363,0.118L-0.951,-0.309L-0.225,-0.309Z")
FRONTIER = "best measured (best l)"
HERE = "this setting"
HERE_COLUMNS = ("kind", "epsilon", "mean", "series", "label")


def frontier_chart(front: list[dict], *, star: tuple[float, float] | None,
                   eps_now: float | None, title: str, subtitle: str = "") -> tuple[dict, list[dict]]:
    """The privacy-utility frontier as ``(spec, here)`` for ``st.vega_lite_chart(here, spec)``:
    accuracy against ε (log), a step per measured row (inline; hover: l, σ, runs), bars over the
    runs' range; ``here``, the chart's top-level data, marks this setting: a star at ``star`` =
    (ε, accuracy) when measured, else a dotted rule at ``eps_now`` (nothing when ε is infinite).

    Vega-Lite, not Plotly: the browser draws it several times faster (Plotly's 4.7 MB script is
    parsed on every first view of the page). The setting is data, not spec, so that a slider
    step only updates the drawn chart (Streamlit rebuilds a Vega view only when its spec
    changes; see the README's browser timings)."""
    rows = [dict(epsilon=r["epsilon"], mean=r["mean"], min=r["min"], max=r["max"], l=r["l"],
                 sigma=r["sigma_x"], runs=r["runs"], series=FRONTIER) for r in front]
    x = {"field": "epsilon", "type": "quantitative", "title": "ε (smaller is more private)",
         "scale": {"type": "log"}}
    y = {"field": "mean", "type": "quantitative", "title": "test accuracy", "scale": {"zero": True}}
    color = {"field": "series", "type": "nominal", "title": None,
             "scale": {"domain": [FRONTIER, HERE], "range": ["#1f77b4", "#d62728"]},
             "legend": {"orient": "bottom"}}
    tip = [{"field": "epsilon", "title": "ε", "format": ".3g"},
           {"field": "mean", "title": "accuracy", "format": ".3f"}]
    steps: list[dict] = [
        {"mark": {"type": "line", "interpolate": "step-after", "point": True},
         "encoding": {"x": x, "y": y, "color": color,
                      "tooltip": tip + [{"field": "l", "title": "l"},
                                        {"field": "sigma", "title": "σ", "format": ".3g"},
                                        {"field": "runs", "title": "runs"}]}},
        {"mark": {"type": "rule"},
         "encoding": {"x": x, "y": {"field": "min", "type": "quantitative"},
                      "y2": {"field": "max"}, "color": color}},
    ]
    rule = [{"filter": "datum.kind === 'rule'"}]
    layers: list[dict] = [
        # The measured rows sit in a layer of their own (inline: they change rarely).
        {"data": {"values": rows}, "layer": steps},
        {"transform": [{"filter": "datum.kind === 'star'"}],
         "mark": {"type": "point", "shape": STAR_PATH, "size": 300, "filled": True,
                  "stroke": "black", "strokeWidth": 1, "opacity": 1},
         "encoding": {"x": x, "y": y, "color": color, "tooltip": tip}},
        {"transform": rule, "mark": {"type": "rule", "strokeDash": [4, 4], "color": "gray"},
         "encoding": {"x": x}},
        {"transform": rule, "mark": {"type": "text", "align": "left", "dx": 4, "y": 8,
                                     "color": "gray"},
         "encoding": {"x": x, "text": {"field": "label"}}},
    ]
    if star is not None:
        here = [dict(kind="star", epsilon=star[0], mean=star[1], series=HERE, label=HERE)]
    elif eps_now is not None and math.isfinite(eps_now) and eps_now > 0:
        here = [dict(kind="rule", epsilon=eps_now, mean=None, series=HERE, label="this ε")]
    else:
        here = []
    spec = {"title": {"text": title, "subtitle": subtitle}, "height": 300, "layer": layers}
    return spec, here
