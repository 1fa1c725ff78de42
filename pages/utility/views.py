"""The Utility page's figure and launch box (not a page: helpers for ``pages/utility.py``).

The figure's content is :func:`dpcda.report.utility_figure.figure_data` (plain data, also used by the
stakeholder report); here it is only drawn with plotly. The launch box shows the estimate of
:mod:`dpcda.experiments.estimate` before anything is queued.
"""

from __future__ import annotations


from dpcda.experiments.estimate import advice
from pages.inputs_ui import show_problem


def accuracy_figure(data: dict, *, title: str, accountant: str):
    """Draw :func:`dpcda.report.utility_figure.figure_data`: ours solid with ± std bars, reference
    cells dashed, and for fixed-σ sweeps the ε the accountant reports on a right-hand log axis.
    Returns (figure, whether any reference cell was drawn)."""
    import plotly.graph_objects as go
    from plotly.colors import qualitative

    fig, overlaid = go.Figure(), False
    fixed_sigma = data["fixed_sigma"] and data["x"] != "epsilon"
    for i, line in enumerate(data["lines"]):
        color = qualitative.Plotly[i % len(qualitative.Plotly)]
        label = line["label"]
        suffix = f", {label}" if label else ""
        fig.add_trace(go.Scatter(
            x=line["x"], y=line["mean"], mode="lines+markers", name=f"ours{suffix}", legendgroup=label,
            line=dict(color=color, width=2.5),
            error_y=dict(type="data", array=line["std"], visible=True, thickness=1.5),
            customdata=list(zip(line["std"], line["runs"], line["epsilon"], line["sigma"])),
            hovertemplate=(f"ours{suffix}<br>x = %{{x}}<br>accuracy %{{y:.4f}} ± %{{customdata[0]:.4f}}"
                           "<br>%{customdata[1]} run(s)<br>σ_x %{customdata[3]:.4g}, ε %{customdata[2]:.4g}"
                           "<extra></extra>")))
        ref = line["reference"]
        if ref:
            overlaid = True
            fig.add_trace(go.Scatter(
                x=ref["x"], y=ref["y"], mode="lines+markers", name=f"{ref['name']}{suffix}",
                legendgroup=label, line=dict(color=color, dash="dash", width=1.5),
                marker=dict(symbol="circle-open", size=8),
                hovertemplate=f"{ref['name']}{suffix}<br>x = %{{x}}<br>accuracy %{{y:.4f}}<extra></extra>"))
        if fixed_sigma:
            keep = [k for k, e in enumerate(line["epsilon"]) if e == e and e != float("inf")]
            if keep:
                fig.add_trace(go.Scatter(
                    x=[line["x"][k] for k in keep], y=[line["epsilon"][k] for k in keep], mode="lines",
                    yaxis="y2", name=f"ε ({accountant}){suffix}", legendgroup=label,
                    line=dict(color=color, dash="dot", width=1.2),
                    hovertemplate=f"ε{suffix}<br>x = %{{x}}<br>ε = %{{y:.4g}} ({accountant})<extra></extra>"))
    for value, label in data.get("levels", ()):  # majority-class rate, non-private ceiling
        fig.add_hline(y=value, line=dict(color="gray", dash="dashdot", width=1),
                      annotation_text=f"{label} {value:.3f}", annotation_position="bottom right")
    if data["x_log"]:
        fig.update_xaxes(type="log")
    if data["ticks"]:
        fig.update_xaxes(tickvals=[v for v, _ in data["ticks"]], ticktext=[t for _, t in data["ticks"]])
    fig.update_xaxes(title=data["x_title"])
    fig.update_yaxes(title="test accuracy (real test split)", range=[0, 1.02])
    layout = dict(title=title, height=460, margin=dict(l=10, r=10, t=50, b=10), showlegend=True,
                  legend=dict(orientation="h", y=-0.2))
    if fixed_sigma:
        layout["yaxis2"] = dict(title=f"ε ({accountant} accountant, log)", overlaying="y", side="right",
                                type="log", showgrid=False, tickformat=".3~g")
    fig.update_layout(**layout)
    return fig, overlaid


def launch_box(sb, request, *, present: bool, key: str = "utility") -> bool:
    """The estimate before launching, and the Launch button; True when the user launched.
    Above 10 minutes on CPU a launch needs a confirmation box ticked first."""
    problems = request.problems() if request is not None else []
    for p in problems:
        show_problem(p, container=sb, warning=True)  # shown as typed, never as Markdown
    est = request.estimate() if request is not None and not problems else None
    if est is not None:
        sb.caption(request.count_text())
        (sb.info if est.level == "ok" else sb.warning)(advice(est))
    confirmed = True
    if est is not None and est.level == "refuse":
        confirmed = sb.checkbox(f"Launch anyway ({est.text})", key=f"{key}_confirm_long")
    why = ("this dataset's files are not on this server" if not present else
           "an input above is refused" if request is None else
           problems[0].plain if problems else "confirm the long run first" if not confirmed else None)
    return sb.button("Launch sweep", type="primary", key=f"{key}_launch", width="stretch",
                     disabled=why is not None, help=f"Disabled: {why}" if why else None)
