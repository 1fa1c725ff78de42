"""The Utility figure as plain data: accuracy against the sweep's axis, one line per setting.

:func:`figure_data` turns a sweep's results (:func:`dpcda.jobs.sweep_results`) into lines
(x, mean, std, runs, achieved ε, σ) with the paper's or the thesis's reported cells beside
them, and the axis (title, log scale, ticks, where ε = ∞ sits). The page draws it with plotly;
the stakeholder report draws the same data (:func:`sweep_figure_data` reads it from the store).
Plain Python and pandas; no plotting library.
"""

from __future__ import annotations

import math

from dpcda.evaluation import reference
from dpcda.experiments.config import DEFAULT_MECHANISM, job_config
from dpcda.report.utility_results import T_label, paper_cells, privacy_label

X_TITLES = {"l": "l (order of mixture, log₂ scale)", "epsilon": "target ε (log scale)",
            "sigma": "σ_x (fixed noise scale; σ_y = σ_x)", "T": "T (synthetic samples, log scale)"}


def x_values(g, x: str, inf_at: float) -> list[float]:
    if x == "l":
        return g["l"].astype(float).tolist()
    if x == "T":
        return g["T"].tolist()
    if x == "sigma":  # sigma = 0 is stored as epsilon = inf
        return [0.0 if s != s else float(s) for s in g["sigma_target"]]
    return [inf_at if math.isinf(e) else float(e) for e in g["epsilon"]]


def series_of(res, x: str) -> list[tuple[str, object]]:
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


def reference_cells(x: str, g, dataset: str, inf_at: float) -> dict | None:
    """The reported cells beside one of our lines: {"name", "x", "y"}, or None."""
    if g["mechanism"].iloc[0] not in (None, "dp-cda"):
        return None  # the paper's Table 3 and the thesis report DP-CDA only
    paper, learner = paper_cells(dataset)
    xs, ys, name = [], [], ""
    if x == "l":
        eps, sig = g["epsilon"].iloc[0], g["sigma_target"].iloc[0]
        ls = set(g["l"].astype(int))
        if sig == sig:
            cells = [c for c in reference.thesis_cells(dataset, float(sig)) if c.l in ls]
            xs, ys, name = [c.l for c in cells], [c.accuracy for c in cells], "thesis Table 4.2 (CNN)"
        else:
            cells = sorted((c for c in paper.get(float(eps), []) if c.l in ls), key=lambda c: c.l)
            xs, ys, name = [c.l for c in cells], [c.accuracy for c in cells], f"paper ({learner})"
    elif x == "epsilon" and g["l"].nunique() == 1:
        l = int(g["l"].iloc[0])
        targets = {float(e) for e in g["epsilon"]}
        cells = sorted((c for e, cs in paper.items() if e in targets for c in cs if c.l == l),
                       key=lambda c: c.epsilon)
        xs = [inf_at if math.isinf(c.epsilon) else c.epsilon for c in cells]
        ys, name = [c.accuracy for c in cells], f"paper ({learner})"
    return {"name": name, "x": xs, "y": ys} if xs else None


def figure_data(res, *, x: str, dataset: str, learner: str | None = None) -> dict:
    """Everything the accuracy figure shows, as plain data::

        {"x": axis, "x_title": str, "x_log": bool, "ticks": [(value, text)] | None,
         "inf_at": float, "fixed_sigma": bool,
         "lines": [{"label", "x", "mean", "std", "runs", "epsilon", "sigma",
                    "reference": {"name", "x", "y"} | None}],
         "levels": [(accuracy, label)]}

    ``levels`` are the horizontal rules every accuracy is read against: the majority-class rate
    of ``dataset``'s test split and ``learner``'s non-private ceiling when it was measured
    (:func:`dpcda.evaluation.baselines.levels`); empty for a dataset without them.

    Lines are sorted by x; ``std`` is 0 for a single run; ``epsilon`` is what the
    accountant reported (∞ for no noise); ε = ∞ sits at ``inf_at`` on an ε axis."""
    finite = [float(e) for e in res["epsilon"] if e == e and not math.isinf(e)]
    inf_at = 2 * max(finite) if finite else 100.0
    lines = []
    for label, g in series_of(res, x):
        xs = x_values(g, x, inf_at)
        order = sorted(range(len(xs)), key=xs.__getitem__)
        g = g.iloc[order]
        lines.append({"label": label, "x": [xs[k] for k in order], "mean": g["mean"].tolist(),
                      "std": g["std"].fillna(0.0).tolist(), "runs": [int(v) for v in g["runs"]],
                      "epsilon": g["epsilon_achieved"].fillna(math.inf).tolist(),
                      "sigma": g["sigma"].fillna(0.0).tolist(),
                      "reference": reference_cells(x, g, dataset, inf_at)})
    ticks = None
    if x == "l":
        ticks = [(v, str(v)) for v in sorted({int(v) for v in res["l"]})]
    elif x == "epsilon":
        vals = sorted({inf_at if math.isinf(e) else float(e) for e in res["epsilon"]})
        ticks = [(v, "∞" if v == inf_at and v not in finite else f"{v:g}") for v in vals]
    from dpcda.evaluation.baselines import baseline, levels

    return {"x": x, "x_title": X_TITLES[x], "x_log": x in ("l", "epsilon", "T"), "ticks": ticks,
            "inf_at": inf_at, "fixed_sigma": bool(res["sigma_target"].notna().any()),
            "lines": lines, "levels": list(levels(baseline(dataset, learner)))}


def sweep_figure_data(db, sweep_id: int) -> dict:
    """:func:`figure_data` for a stored sweep, with its ``dataset``, ``mechanism``,
    ``accountant`` and ``title`` added (the report's accuracy-vs-l figure); ``lines`` is empty
    until a job has finished."""
    from dpcda.jobs import JobStore
    from dpcda.experiments.sweep import sweep_results
    from dpcda.mechanisms import MECHANISMS
    from dpcda.report.utility_results import sweep_x

    store = db if isinstance(db, JobStore) else JobStore(db)
    sweep = store.get_sweep(sweep_id)
    res = sweep_results(store, sweep_id)
    res = res[res["runs"] > 0]
    jobs = store.jobs(sweep_id=sweep_id)
    cfg = job_config(jobs[0]) if jobs else None
    dataset = (cfg and cfg.dataset) or (sweep.config or {}).get("base", {}).get("dataset", "")
    mech = cfg.mechanism if cfg else DEFAULT_MECHANISM
    x = sweep_x(sweep.config)
    models = {job_config(j).train.model for j in jobs}
    learner = next(iter(models)) if len(models) == 1 else None
    data = figure_data(res, x=x, dataset=dataset, learner=learner) if len(res) else {
        "x": x, "x_title": X_TITLES[x], "x_log": x != "sigma", "ticks": None, "inf_at": 100.0,
        "fixed_sigma": False, "lines": [], "levels": []}
    title = MECHANISMS.get(mech).title if mech in MECHANISMS else mech
    return data | {"dataset": dataset, "mechanism": mech, "accountant": cfg and cfg.accountant,
                   "title": f"{dataset}: accuracy of models trained on {title} releases"}


def figure_notes(data: dict, *, dataset: str, accountant: str) -> list[str]:
    """The captions under the figure, in words: what the dashed and dotted lines are."""
    bars = "Error bars: ± one sample standard deviation over our runs (none for a single run)."
    overlaid = any(line["reference"] for line in data["lines"])
    if overlaid and data["fixed_sigma"]:
        out = ["Dashed: the thesis's Table 4.2 (its CNN, MNIST, σ_x = σ_y = 0.7, T = 12,000, "
               "features in [0, 1], soft labels). " + bars]
    elif overlaid:
        learner = "tree" if dataset == "adult" else "CNN"
        out = [f"Dashed: the paper's Table {4 if learner == 'tree' else 3} ({learner}, mean of 10 "
               "runs) at the same ε and l (it reports ε = ∞, 20, 10 only), a reproduction target: "
               "its ε is the published accountant's (as published, not a bound for this "
               "implementation), so our points match it only under `paper`. " + bars]
    elif data["x"] in ("sigma", "T"):
        out = ["The thesis reports accuracy versus σ (Fig. 4.3) and versus T (Fig. 4.5) as "
               "figures only, with no numbers in its text, so there is nothing to overlay. " + bars]
    else:
        out = ["The paper reports no cell for this mechanism, dataset and setting. " + bars]
    if data.get("levels"):
        out.append("Grey rules: " + "; ".join(f"{lab} {v:.3f}" for v, lab in data["levels"])
                   + " (the majority-class rate of the test split; the non-private ceiling: the same "
                   "learner trained on the real training data).")
    if data["fixed_sigma"] and data["x"] != "epsilon":
        out.append(f"Dotted, right axis: the ε that the `{accountant}` accountant gives each fixed σ.")
    return out
