"""Figures and tables of the Utility page (not a page: helpers for ``pages/utility.py``).

A sweep's results (:func:`dpcda.jobs.sweep_results`) are one row per grid point (target ε or
fixed σ, T, l); the figure puts the sweep's axis ``x`` (l, ε, σ or T) on the horizontal axis and
draws one line per combination of the other settings, with the paper's (or the thesis's)
reported cells overlaid where they exist.
"""

from __future__ import annotations

import math

import pandas as pd

from dpcda import reference
from dpcda.privacy import ACCOUNTANT_INFO
from pages.common import fmt_delta, fmt_int

PAPER_LEARNER = {3: "CNN", 4: "tree"}
X_TITLES = {"l": "l (order of mixture, log₂ scale)", "epsilon": "target ε (log scale)",
            "sigma": "σ_x (fixed noise scale; σ_y = σ_x)", "T": "T (synthetic samples, log scale)"}
EXPERIMENTS = {  # x -> what the page calls the experiment
    "l": "Accuracy vs l (paper, Table 3)", "epsilon": "Accuracy vs ε (privacy-utility trade-off)",
    "sigma": "Accuracy vs σ (thesis, Fig. 4.3)", "T": "Accuracy vs T (thesis, Fig. 4.5)"}


def eps_label(e: float) -> str:
    return "∞" if math.isinf(e) else f"{e:g}"


def fmt_achieved(e) -> str:
    if e is None or e != e:
        return ""
    return eps_label(e) if math.isinf(e) else f"{e:.4g}"


def sweep_x(config: dict) -> str:
    """The axis a stored sweep is about (sweeps made before the axis was recorded: l)."""
    return (config or {}).get("x") or "l"


def privacy_label(row) -> str:
    """"ε = 10", "ε = ∞" or "σ = 0.7" for a results row (target ε or fixed σ)."""
    s = getattr(row, "sigma_target", float("nan"))
    return f"σ = {s:g}" if s == s else f"ε = {eps_label(float(row.epsilon))}"


def T_label(T) -> str:
    return "N" if T is None or T != T else fmt_int(int(T))


def paper_cells(dataset: str) -> tuple[dict[float, list], str]:
    """The paper's Table 3 (or Table 4 for Adult) cells for ``dataset``: {ε: [PaperResult]}."""
    if dataset in reference.DATASETS[:3]:
        rows, learner = reference.table3(dataset), PAPER_LEARNER[3]
    elif dataset == "adult":
        rows, learner = reference.table4(), PAPER_LEARNER[4]
    else:
        return {}, ""
    out: dict[float, list] = {}
    for r in rows:
        out.setdefault(float(r.epsilon), []).append(r)
    return out, learner


def x_values(g: pd.DataFrame, x: str, inf_at: float) -> list[float]:
    if x == "l":
        return g["l"].astype(float).tolist()
    if x == "T":
        return g["T"].tolist()
    if x == "sigma":  # sigma = 0 is stored as epsilon = inf
        return [0.0 if s != s else float(s) for s in g["sigma_target"]]
    return [inf_at if math.isinf(e) else float(e) for e in g["epsilon"]]


def series_of(res: pd.DataFrame, x: str) -> list[tuple[str, pd.DataFrame]]:
    """(label, rows) per line: every combination of the settings other than ``x``; the privacy
    setting is always named, l and T only when they vary."""
    dims = [d for d in ("privacy", "l", "T") if d != x and not (d == "privacy" and x in ("epsilon", "sigma"))]
    keyed = res.assign(privacy=[privacy_label(r) for r in res.itertuples(index=False)],
                       T=res["T"].fillna(-1))
    if x == "sigma":  # σ = 0 points (stored as ε = ∞) belong to every σ line
        keyed = keyed.assign(privacy="")
    varying = [d for d in dims if d == "privacy" or keyed[d].nunique() > 1]
    out = []
    groups = keyed.groupby(varying, sort=False) if varying else [((), keyed)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        parts = []
        for d, v in zip(varying, key):
            if d == "privacy":
                parts.append(v)
            else:
                parts.append(f"l = {v}" if d == "l" else f"T = {T_label(v if v >= 0 else None)}")
        out.append((", ".join(p for p in parts if p), res.loc[g.index]))
    return out


def _overlay(fig, go, res_x: str, label: str, suffix: str, g: pd.DataFrame, dataset: str, paper: dict,
             learner: str, color: str, inf_at: float) -> bool:
    """Dashed reference cells for one of our lines; True if any were drawn."""
    xs, ys, name = [], [], ""
    if res_x == "l":
        eps, sig = g["epsilon"].iloc[0], g["sigma_target"].iloc[0]
        ls = set(g["l"].astype(int))
        if sig == sig:
            cells = [c for c in reference.thesis_cells(dataset, float(sig)) if c.l in ls]
            xs, ys, name = [c.l for c in cells], [c.accuracy for c in cells], "thesis Table 4.2 (CNN)"
        else:
            cells = sorted((c for c in paper.get(float(eps), []) if c.l in ls), key=lambda c: c.l)
            xs, ys, name = [c.l for c in cells], [c.accuracy for c in cells], f"paper ({learner})"
    elif res_x == "epsilon" and g["l"].nunique() == 1:
        l = int(g["l"].iloc[0])
        targets = {float(e) for e in g["epsilon"]}
        cells = sorted((c for e, cs in paper.items() if e in targets for c in cs if c.l == l),
                       key=lambda c: c.epsilon)
        xs = [inf_at if math.isinf(c.epsilon) else c.epsilon for c in cells]
        ys, name = [c.accuracy for c in cells], f"paper ({learner})"
    if not xs:
        return False
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines+markers", name=f"{name}{suffix}",
                             legendgroup=label, line=dict(color=color, dash="dash", width=1.5),
                             marker=dict(symbol="circle-open", size=8),
                             hovertemplate=f"{name}{suffix}<br>x = %{{x}}<br>accuracy %{{y:.4f}}"
                                           "<extra></extra>"))
    return True


def accuracy_figure(res: pd.DataFrame, *, x: str, dataset: str, title: str, accountant: str):
    """Test accuracy against the sweep's axis, mean ± std over runs per line, reference cells
    dashed; for fixed-σ sweeps the ε the accountant reports is drawn on a right-hand log axis.
    Returns (figure, whether any reference cell was drawn)."""
    import plotly.graph_objects as go
    from plotly.colors import qualitative

    paper, learner = paper_cells(dataset)
    finite = [float(e) for e in res["epsilon"] if e == e and not math.isinf(e)]
    inf_at = 2 * max(finite) if finite else 100.0  # where ε = ∞ sits on an ε axis
    fixed_sigma = res["sigma_target"].notna().any()
    fig, overlaid = go.Figure(), False
    for i, (label, g) in enumerate(series_of(res, x)):
        color = qualitative.Plotly[i % len(qualitative.Plotly)]
        suffix = f", {label}" if label else ""
        xs = x_values(g, x, inf_at)
        order = sorted(range(len(xs)), key=xs.__getitem__)
        g = g.iloc[order]
        xs = [xs[k] for k in order]
        std = g["std"].fillna(0.0).tolist()
        fig.add_trace(go.Scatter(
            x=xs, y=g["mean"].tolist(), mode="lines+markers", name=f"ours{suffix}", legendgroup=label,
            line=dict(color=color, width=2.5),
            error_y=dict(type="data", array=std, visible=True, thickness=1.5),
            customdata=list(zip(std, g["runs"], g["epsilon_achieved"].fillna(math.inf),
                                g["sigma"].fillna(0))),
            hovertemplate=(f"ours{suffix}<br>x = %{{x}}<br>accuracy %{{y:.4f}} ± %{{customdata[0]:.4f}}"
                           "<br>%{customdata[1]} run(s)<br>σ_x %{customdata[3]:.4g}, ε %{customdata[2]:.4g}"
                           "<extra></extra>")))
        overlaid |= _overlay(fig, go, x, label, suffix, g, dataset, paper, learner, color, inf_at)
        if fixed_sigma and x != "epsilon":
            eps = g["epsilon_achieved"].tolist()
            keep = [k for k, e in enumerate(eps) if e == e and not math.isinf(e)]
            if keep:
                fig.add_trace(go.Scatter(
                    x=[xs[k] for k in keep], y=[eps[k] for k in keep], mode="lines", yaxis="y2",
                    name=f"ε ({accountant}){suffix}", legendgroup=label,
                    line=dict(color=color, dash="dot", width=1.2),
                    hovertemplate=f"ε{suffix}<br>x = %{{x}}<br>ε = %{{y:.4g}} ({accountant})<extra></extra>"))
    if x == "l":
        ticks = sorted({int(v) for v in res["l"]})
        fig.update_xaxes(type="log", tickvals=ticks, ticktext=[str(v) for v in ticks])
    elif x == "epsilon":
        ticks = sorted({inf_at if math.isinf(e) else float(e) for e in res["epsilon"]})
        fig.update_xaxes(type="log", tickvals=ticks,
                         ticktext=["∞" if v == inf_at and not finite.count(v) else f"{v:g}" for v in ticks])
    elif x == "T":
        fig.update_xaxes(type="log")
    fig.update_xaxes(title=X_TITLES[x])
    fig.update_yaxes(title="test accuracy (real test split)", range=[0, 1.02])
    layout = dict(title=title, height=480, margin=dict(l=10, r=10, t=50, b=10), showlegend=True)
    if fixed_sigma and x != "epsilon":
        layout["yaxis2"] = dict(title=f"ε ({accountant} accountant, log)", overlaying="y", side="right",
                                type="log", showgrid=False, tickformat=".3~g")
    fig.update_layout(**layout)
    return fig, overlaid


def results_table(res: pd.DataFrame, jobs, dataset: str) -> pd.DataFrame:
    """One row per grid point: how σ was set, the ε it achieved, accuracy, the paper's cell."""
    paper, _ = paper_cells(dataset)
    fixed_sweep = res["sigma_target"].notna().any()
    first: dict[tuple, dict] = {}
    for j in jobs:
        if j.status == "done" and j.result:
            c = j.config
            first.setdefault((c.get("epsilon"), c.get("sigma"), c.get("T"), int(c["l"])), j.result)
    rows = []
    for r in res.itertuples(index=False):
        eps = None if r.epsilon != r.epsilon else float(r.epsilon)
        sig = None if r.sigma_target != r.sigma_target else float(r.sigma_target)
        T = None if r.T != r.T else int(r.T)
        info = first.get((eps, sig, T, int(r.l)), {})
        others = info.get("other_accountants") or {}
        cell = next((p for p in paper.get(eps, []) if p.l == int(r.l)), None) if eps is not None else None
        if sig is not None:
            cell = next((c for c in reference.thesis_cells(dataset, sig) if c.l == int(r.l)), None)
        if sig is None and fixed_sweep and eps is not None and math.isinf(eps):
            sig = 0.0  # sigma = 0 is stored as the epsilon = inf point
        rows.append({
            "epsilon_target": eps, "sigma_fixed": sig, "T": T if T is not None else info.get("n_synthetic"),
            "l": int(r.l), "accountant": r.accountant,
            "conversion": info.get("conversion"), "delta": info.get("delta"),
            "sigma_x": info.get("sigma_x", r.sigma), "sigma_y": info.get("sigma_y"),
            "epsilon_achieved": r.epsilon_achieved, "alpha": info.get("alpha"),
            "other_accountants": "; ".join(f"{k}: ε = {v['epsilon']:.4g}"
                                           + (f" ({v['bound_note']})" if v.get("bound_note") else "")
                                           for k, v in others.items() if v.get("epsilon") is not None),
            "runs": int(r.runs), "failed": int(r.failed), "accuracy_mean": r.mean, "accuracy_std": r.std,
            "paper_mean": cell.accuracy if cell else None,
            "paper_std": getattr(cell, "std", None) if cell else None})
    return pd.DataFrame(rows)


def calibration_notes(table: pd.DataFrame, jobs) -> list[str]:
    """Per target ε (or for the fixed σ values), in words: which accountant and conversion,
    under which δ, T, c."""
    cfg = jobs[0].config
    n_train = next((j.result.get("n_train") for j in jobs if j.result), None)
    Ts = sorted({j.config.get("T") for j in jobs}, key=lambda t: -1 if t is None else t)
    if len(Ts) > 1:
        T_text = "T = " + ", ".join(T_label(t) for t in Ts)
    else:
        T = Ts[0] or n_train
        T_text = (f"T = {fmt_int(T)}" + (" = N" if Ts[0] is None else "")) if T else "T = N"
    ratio = "" if cfg.get("ratio", 1.0) == 1 else f"{cfg['ratio']:g} × "
    from dpcda.privacy import caveat

    note = caveat(cfg["accountant"], cfg.get("mechanism", "dp-cda"))
    acct = (f"**{cfg['accountant']}** accountant ({ACCOUNTANT_INFO[cfg['accountant']].title}"
            + (f"; **{note}**" if note else "") + "; neighbours: "
            + ACCOUNTANT_INFO[cfg["accountant"]].relation.rstrip(".") + ")")
    conv = next((v for v in table["conversion"] if v), cfg.get("conversion"))
    setting = f"δ = {fmt_delta(cfg['delta'])}, {T_text}, c = {cfg['c']:g}"
    out = []
    if table["sigma_fixed"].notna().any():
        sig = table.dropna(subset=["sigma_fixed"])
        span = ", ".join(f"{fmt_achieved(e)} (σ = {s:g}, l = {l})"
                         for s, l, e in zip(sig["sigma_fixed"], sig["l"], sig["epsilon_achieved"]))
        out.append(f"**Fixed σ** (σ_y = {ratio}σ_x): ε is what the {acct} reports with the **{conv}** "
                   f"RDP → (ε, δ) conversion, {setting}. ε: {span}.")
    for eps, g in table.dropna(subset=["epsilon_target"]).groupby("epsilon_target", sort=False):
        if math.isinf(eps):
            out.append("**ε = ∞** (σ = 0): no noise. This is the non-private baseline: it carries **no "
                       "privacy guarantee**.")
            continue
        sig = g.dropna(subset=["sigma_x"])
        span = ", ".join(f"{s:.4g} (l = {l}" + ("" if len(Ts) == 1 else f", T = {T_label(t)}") + ")"
                         for l, t, s in zip(sig["l"], sig["T"], sig["sigma_x"])) or "not yet known"
        out.append(f"**ε = {eps:g}**: σ calibrated for every point by the {acct} with the **{conv}** "
                   f"RDP → (ε, δ) conversion, {setting}, σ_y = {ratio}σ_x. σ_x used: {span}.")
    return out
