"""What a report reads from the results store (no number is invented: what the store lacks is
left out and the report says "Not measured yet"): accuracy against l (:func:`accuracy_cells`,
:func:`accuracy_from_sweep`), the measured frontier (:func:`measured_frontier`) and the latest
comparison (:func:`latest_comparison`). Used by :mod:`dpcda.report.gather`.
"""

from __future__ import annotations

import math

from dpcda.experiments.config import job_config

MAX_SERIES = 6     # target epsilons drawn in the accuracy-vs-l chart


def _open_store(store):
    from dpcda.jobs import JobStore
    from dpcda.jobs.db import resolve_db_path

    if store is None or isinstance(store, (str, bytes)) or hasattr(store, "__fspath__"):
        path = resolve_db_path(store)
        return JobStore(path) if path.exists() else None
    return store


def accuracy_cells(jobs, *, dataset: str, accountant: str, delta: float) -> list[dict]:
    """Finished DP-CDA ``experiment`` jobs of ``dataset`` under ``accountant`` and ``delta``,
    grouped by (target epsilon, l): mean, sample std, runs, learners, achieved epsilon."""
    groups: dict[tuple[float, int], dict] = {}
    for j in jobs:
        r = j.result or {}
        if j.kind != "experiment" or j.status != "done" or r.get("accuracy") is None:
            continue
        c = job_config(j)
        if (c.dataset != dataset or c.mechanism != "dp-cda" or c.sigma is not None
                or c.accountant != accountant or c.delta != delta or c.T is not None):
            continue
        key = (float(math.inf if c.epsilon is None else c.epsilon), c.l)
        g = groups.setdefault(key, {"epsilon": key[0], "l": key[1], "acc": [], "learners": set(),
                                    "achieved": r.get("epsilon")})
        g["acc"].append(float(r["accuracy"]))
        g["learners"].add(str(c.train.model))
    out = []
    for g in sorted(groups.values(), key=lambda g: (-g["epsilon"], g["l"])):
        acc = g.pop("acc")
        mean = sum(acc) / len(acc)
        std = math.sqrt(sum((a - mean) ** 2 for a in acc) / (len(acc) - 1)) if len(acc) > 1 else None
        out.append({**g, "mean": mean, "std": std, "runs": len(acc),
                    "learners": ", ".join(sorted(g["learners"]))})
    return out


def baseline_cells(dataset: str, learner: str, mean, std, runs: int) -> dict:
    """The columns every accuracy of the report is read against (issue 21): the majority-class
    rate of the test split, the learner's non-private ceiling, and "predicts one class" when
    the accuracy is within noise of the majority rate (:mod:`dpcda.evaluation.baselines`)."""
    from dpcda.evaluation.baselines import baseline, flag_words

    b = baseline(dataset, learner)
    if b is None:
        return {}
    flag = flag_words(b, mean, std, int(runs)) if mean is not None and mean == mean else ""
    return {"majority class": b.majority.rate, "non-private ceiling": b.ceiling,
            "vs majority": "≈ majority: predicts one class" if flag else ""}


def baseline_caption(dataset: str, learners) -> str:
    """" Read against: ..." (the majority rate and each learner's ceiling), or ""."""
    from dpcda.evaluation.baselines import baseline, baseline_text

    texts = [baseline_text(baseline(dataset, lrn)) for lrn in learners]
    texts = [t for t in dict.fromkeys(texts) if t]
    return (" Read against: " + "; ".join(texts) + ".") if texts else ""


def _eps_label(e: float) -> str:
    return "ε = ∞" if math.isinf(e) else f"ε = {e:g}"


def accuracy_rows(cells: list[dict]) -> list[dict]:
    """Rows of the accuracy-vs-l chart and table (one series per target epsilon)."""
    eps = list(dict.fromkeys(c["epsilon"] for c in cells))[:MAX_SERIES]
    return [{"series": _eps_label(c["epsilon"]), "l": c["l"], "mean": c["mean"], "std": c["std"],
             "runs": c["runs"], "learner": c["learners"]} for c in cells if c["epsilon"] in eps]


def _sweeps(store, sweep_id: int | None) -> list:
    """The store's sweeps, newest first, the one ``sweep_id`` names (the page's) put first."""
    sweeps = list(reversed(store.sweeps()))
    return sorted(sweeps, key=lambda sw: sw.id != sweep_id)  # stable: newest first after it


def accuracy_from_sweep(store, dataset: str, sweep_id: int | None = None
                        ) -> tuple[list[dict] | None, str]:
    """(rows, caption) of the Utility sweep ``sweep_id`` (the one the page shows) when it is a
    DP-CDA sweep of ``dataset`` over l with a finished job, else of the newest such sweep, as
    the Utility page draws it (:func:`dpcda.report.utility_figure.sweep_figure_data`): one series per
    line, the paper's (or the thesis's) reported cells as dashed series."""
    from dpcda.report.utility_figure import sweep_figure_data
    from dpcda.report.utility_results import sweep_x

    for sw in _sweeps(store, sweep_id):
        cfg = sw.config or {}
        base = cfg.get("base") or {}
        if (cfg.get("page") == "compare" or "ls" not in cfg or sweep_x(cfg) != "l"
                or base.get("dataset") != dataset or base.get("mechanism", "dp-cda") != "dp-cda"):
            continue
        data = sweep_figure_data(store, sw.id)
        if not data["lines"]:
            continue
        rows = []
        learners = sorted({str(job_config(j).train.model) for j in store.jobs(sweep_id=sw.id)})
        one = learners[0] if len(learners) == 1 else None
        for line in data["lines"]:
            label = line["label"] or "ours"
            rows += [{"series": label, "l": int(x), "mean": m, "std": s or None, "runs": r,
                      "ε achieved": e, "σ_x": sg,
                      **({k: v for k, v in baseline_cells(dataset, one, m, s, r).items()
                          if k == "vs majority"} if one else {})}
                     for x, m, s, r, e, sg in zip(line["x"], line["mean"], line["std"], line["runs"],
                                                 line["epsilon"], line["sigma"])]
            ref = line.get("reference")
            if ref:
                rows += [{"series": f"{ref['name']}, {label}", "l": int(x), "mean": y,
                          "dashed": True} for x, y in zip(ref["x"], ref["y"])]
        cap = (f"Sweep #{sw.id} ({sw.name}): mean ± std over runs on the real test split, "
               f"accountant {data.get('accountant')}, learner(s) {', '.join(learners)}; dashed: the "
               "reported cells (as published: a reproduction target, not a bound)."
               + baseline_caption(dataset, learners))
        return rows, cap
    return None, ""


def measured_frontier(dataset: str, store, *, privacy: dict, card: dict | None, delta: float,
                      conversion: str, l: int) -> tuple[list[dict], tuple[float, float] | None]:
    """(rows, current point) from :func:`dpcda.experiments.frontier.frontier_rows` (shipped table + store);
    the current point is (this release's ε, its measured accuracy) when it was measured."""
    from dpcda.experiments import frontier as fr

    par = (card or {}).get("parameters") or {}
    c = par.get("c")
    try:
        rows = fr.frontier_rows(dataset, privacy["accountant"], store, delta=delta,
                                conversion=conversion or "mironov", c=c)
    except ValueError:  # e.g. a dataset without a preset
        return [], None
    out = [{"epsilon": r["epsilon"], "accuracy": r["mean"],
            "std": None if r["std"] != r["std"] else r["std"], "best l": r["l"],
            "σ_x": r["sigma_x"], "runs": r["runs"], "learner": r["learner"],
            "source": "shipped table" if r["source"] == "table" else r["source"],
            **baseline_cells(dataset, r["learner"], r["mean"], r["std"], r["runs"])} for r in rows]
    cur = None
    eps = privacy.get("epsilon")
    if par.get("sigma_x") is not None and eps is not None and math.isfinite(eps):
        hit = fr.lookup(fr.measured_rows(dataset, store), l=int(l), sigma_x=par["sigma_x"],
                        ratio=(par.get("sigma_y") or par["sigma_x"]) / par["sigma_x"] if par["sigma_x"]
                        else 1.0, c=c, T=par.get("T"), n=(card.get("data") or {}).get("N"),
                        normalization=(card.get("normalization") or {}).get("method"),
                        allocation=par.get("allocation"), dataset=dataset)
        cur = (float(eps), float(hit["mean"])) if hit else None
    return out, cur


def frontier_caption(dataset: str, *, accountant: str, delta: float, normalize: str | None,
                     measured_here: bool) -> str:
    """The caption under the report's frontier: which releases its rows are (the shipped table and
    the store's, at the normalisation they were measured with: :func:`dpcda.experiments.frontier.
    measured_normalization`), how their ε is charged, and, where this release's normalisation
    (``normalize``; None: the dataset's default) differs, the Privacy page's own sentence
    (:func:`dpcda.experiments.frontier.normalization_note`, e.g. "Measured on `scale` releases")."""
    from dpcda.experiments import frontier as fr

    try:
        rows_norm = f"`{fr.measured_normalization(dataset)}`"
        note = fr.normalization_note(dataset, normalize, accountant)
    except ValueError:  # e.g. a dataset without a preset: no measured rows either
        rows_norm, note = "the default", ""
    return (f"Every measured release of {dataset} (the table the project ships and finished runs "
            f"in the results store) at the default allocation, normalised with {rows_norm}; its ε "
            f"under {accountant} at δ = {delta:g}, each release with its own split of T; each "
            "point the best accuracy reached at that ε or less, so the best l per ε (chosen on the "
            "test split). The circle marks this setting" + ("" if measured_here else
                                                             " (not measured: no circle)") + "."
            + (" " + note if note else ""))


def latest_comparison(store, dataset: str, sweep_id: int | None = None):
    """(table rows, caption) of the comparison ``sweep_id`` (the one the Compare page shows)
    when it is one of ``dataset`` with a finished job, else of the newest such comparison: the
    Compare page's narrow main table (:func:`dpcda.report.compare_view.compare_report_data`)."""
    from dpcda.report.compare_view import compare_report_data
    from dpcda.mechanisms import MECHANISMS

    for sw in _sweeps(store, sweep_id):
        cfg = sw.config or {}
        if cfg.get("page") != "compare" or (cfg.get("base") or {}).get("dataset") != dataset:
            continue
        jobs = store.jobs(sweep_id=sw.id)
        if not any(j.status == "done" for j in jobs):
            continue
        mechs = [m for m in cfg.get("mechanisms") or MECHANISMS.names() if m in MECHANISMS]
        data = compare_report_data(jobs, mechs, dataset=dataset, epsilon=float(cfg["epsilon"]))
        cap = (f"Comparison #{sw.id} at target ε = {cfg['epsilon']:g}, {cfg.get('runs', '?')} run(s) "
               "per l; each mechanism at its best l (chosen on the test split), with its own "
               "accountant (named per row) and learner"
               + ("; the paper's column is its Table 5, as published." if data["has_paper"]
                  else ".") + "".join(" " + b for b in data.get("baselines", []))
               + (" " + data["learners"] if data.get("learners") else ""))
        return [dict(r) for r in data["rows"]], cap
    return None, ""
