"""A Utility sweep's results joined for people: one row per grid point, in words and numbers.

:func:`results_table` joins :func:`dpcda.jobs.sweep_results` (mean/std per point) with each
point's first finished job (σ used, achieved ε, conversion, other accountants) and the paper's
(or the thesis's) reported cell; :func:`display_table` shapes it for a page (labels, empty
columns dropped, "—" for missing cells); :func:`calibration_notes` says per target ε how σ was
reached; :func:`sweep_summary` describes the sweep's setting in one line. Pure pandas, no
streamlit and no plotly.
"""

from __future__ import annotations

import math

from dpcda.evaluation import reference
from dpcda.experiments.config import ExperimentConfig, job_config
from dpcda.privacy import ACCOUNTANT_INFO

PAPER_LEARNER = {3: "CNN", 4: "tree"}
EXPERIMENTS = {  # x -> what the page calls the experiment
    "l": "Accuracy vs l (paper, Table 3)", "epsilon": "Accuracy vs ε (privacy-utility trade-off)",
    "sigma": "Accuracy vs σ (thesis, Fig. 4.3)", "T": "Accuracy vs T (thesis, Fig. 4.5)"}


def eps_label(e: float) -> str:
    return "∞" if math.isinf(e) else f"{e:g}"


def fmt_achieved(e) -> str:
    """An achieved ε as text ("" when unknown)."""
    if e is None or e != e:
        return ""
    return eps_label(e) if math.isinf(e) else f"{e:.4g}"


def fmt_delta(d: float) -> str:
    m, e = f"{d:.0e}".split("e")
    return f"{m}e-{int(e[1:])}" if e.startswith("-") else f"{m}e{int(e)}"


def sweep_x(config: dict | None) -> str:
    """The axis a stored sweep is about (sweeps made before the axis was recorded: l)."""
    return (config or {}).get("x") or "l"


def privacy_label(row) -> str:
    """"ε = 10", "ε = ∞" or "σ = 0.7" for a results row or a job config (target ε or fixed σ)."""
    if isinstance(row, ExperimentConfig):
        row = {"sigma": row.sigma, "epsilon": row.epsilon}
    if isinstance(row, dict):
        s, e = row.get("sigma"), row.get("epsilon")
        s = math.nan if s is None else s
        e = math.nan if e is None else e
    else:
        s, e = getattr(row, "sigma_target", math.nan), row.epsilon
    return f"σ = {s:g}" if s == s else f"ε = {eps_label(float(e))}"


def T_label(T) -> str:
    return "N" if T is None or T != T else f"{int(T):,}"


def point_text(config, *, mixes: bool = True) -> str:
    """A grid point in words: "ε = 10, l = 4, T = 500" (a job's config: its JSON or typed)."""
    cfg = config if isinstance(config, ExperimentConfig) else ExperimentConfig.from_json(config)
    T = f", T = {T_label(cfg.T)}" if cfg.T is not None else ""
    return privacy_label(cfg) + (f", l = {cfg.l}" if mixes else "") + T


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


def models_by_point(jobs) -> dict[str, str]:
    """{privacy label: learner}: ``model="auto"`` resolves per job, so it may differ by ε."""
    out: dict[str, str] = {}
    for j in jobs:
        cfg = job_config(j)
        out.setdefault(privacy_label(cfg), cfg.train.model)
    return out


def model_text(jobs) -> str:
    """"model `lda`" or "models `cnn` (ε = ∞), `lda` (ε = 10)"."""
    by = models_by_point(jobs)
    if len(set(by.values())) == 1:
        return f"model `{next(iter(by.values()))}`"
    return "models " + ", ".join(f"`{m}` ({p})" for p, m in by.items())


def sweep_summary(jobs, *, closed_models=()) -> str:
    """The sweep's setting in one line (dataset, mechanism, learner, labels, accountant, δ,
    normalisation, allocation, c, T). ``closed_models``: learners without epochs."""
    from dpcda.mechanisms import MECHANISMS

    cfg = job_config(jobs[0])
    train = cfg.train
    mech = MECHANISMS.get(cfg.mechanism) if cfg.mechanism in MECHANISMS else None
    Ts = sorted({job_config(j).T for j in jobs}, key=lambda t: -1 if t is None else t)
    epochs = "" if set(models_by_point(jobs).values()) <= set(closed_models) else \
        f", {train.epochs} epoch(s)"
    conv = f", conversion `{cfg.conversion}`" if ACCOUNTANT_INFO[cfg.accountant].uses_rdp else ""
    return (f"**{cfg.dataset}**, {mech.title if mech else cfg.mechanism}, "
            f"{model_text(jobs)}, {train.label_mode} labels"
            + (f", denoised (σ = {train.denoise_sigma:g} px)" if train.denoise_sigma else "")
            + f"{epochs}; accountant `{cfg.accountant}`{conv}, δ = {fmt_delta(cfg.delta)}, "
            f"normalisation `{cfg.normalization}`"
            + (" (not covered by the guarantee)" if cfg.normalization == "zscore" else "")
            + (f", allocation `{cfg.allocation_or_default}`" if mech is None or mech.mixes else "")
            + f", c = {cfg.c:g}, T = {', '.join(T_label(t) for t in Ts)}.")


def results_table(res, jobs, dataset: str):
    """One row per grid point: how σ was set, the ε it achieved, accuracy, the paper's cell."""
    import pandas as pd

    from dpcda.evaluation.baselines import baseline, flag_words

    paper, _ = paper_cells(dataset)
    fixed_sweep = res["sigma_target"].notna().any()
    first: dict[tuple, dict] = {}
    learners: dict[tuple, str] = {}
    for j in jobs:
        if j.status == "done" and j.result:
            c = job_config(j)
            first.setdefault((c.epsilon, c.sigma, c.T, c.l), j.result)
            learners.setdefault((c.epsilon, c.sigma, c.T, c.l), c.train.model)
    rows = []
    for r in res.itertuples(index=False):
        eps = None if r.epsilon != r.epsilon else float(r.epsilon)
        sig = None if r.sigma_target != r.sigma_target else float(r.sigma_target)
        T = None if r.T != r.T else int(r.T)
        info = first.get((eps, sig, T, int(r.l)), {})
        others = info.get("other_accountants") or {}
        cell = next((p for p in paper.get(eps, []) if p.l == int(r.l)), None) if eps is not None else None
        if getattr(r, "mechanism", "dp-cda") not in (None, "dp-cda"):
            cell = None  # the paper's Table 3 and the thesis are DP-CDA's
        elif sig is not None:
            cell = next((c for c in reference.thesis_cells(dataset, sig) if c.l == int(r.l)), None)
        base = baseline(dataset, learners.get((eps, sig, T, int(r.l))))
        flag = flag_words(base, r.mean, r.std, int(r.runs)) if r.runs and r.mean == r.mean else ""
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
            "paper_std": getattr(cell, "std", None) if cell else None,
            "vs_majority": "≈ majority class" if flag else "",
            "majority": base.majority.rate if base else None,
            "ceiling": base.ceiling if base else None})
    return pd.DataFrame(rows)


def results_csv(table) -> bytes:
    """The results table as CSV bytes for a download: text cells never read as a spreadsheet
    formula (:func:`dpcda.util.csv_safe.safe_frame`), numbers as they are."""
    from dpcda.util.csv_safe import safe_frame

    return safe_frame(table).to_csv(index=False).encode()


def _point(r) -> str:
    """A results row's point: "ε = 10, l = 4" or "σ = 0.7, l = 4"."""
    e, s = r.epsilon_target, r.sigma_fixed
    priv = (f"ε = {eps_label(e)}, " if e is not None and e == e else
            f"σ = {s:g}, " if s is not None and s == s else "")
    return f"{priv}l = {int(r.l)}"


def baseline_notes(table, jobs, dataset: str) -> list[str]:
    """What the accuracies are read against, in words (:mod:`dpcda.evaluation.baselines`): the
    majority-class rate of the test split, the non-private ceiling of each learner that ran,
    and every point within noise of the majority rate. Empty for a dataset without them."""
    from dpcda.evaluation.baselines import baseline, majority_words

    b0 = baseline(dataset)
    if b0 is None:
        return []
    ceil = []
    for learner in dict.fromkeys(models_by_point(jobs).values()):
        b = baseline(dataset, learner)
        ceil.append(f"`{learner}` " + (f"{b.ceiling:.3f}" if b.ceiling is not None else "not measured"))
    out = [f"**Majority class** '{b0.majority.label}': {b0.majority.rate:.3f} of the test split (a model "
           "that always answers it scores that); **non-private ceiling** (the same learner trained on "
           "the real training data): " + ", ".join(ceil) + "."]
    flagged = table[table["vs_majority"] != ""]
    if len(flagged):
        points = "; ".join(_point(r) for r in flagged.itertuples(index=False))
        out.append(f"**Within noise of the majority class** at {points}: {majority_words(b0)}.")
    return out


LABELS = {"epsilon_target": ("target ε", None), "sigma_fixed": ("fixed σ", "{:.4g}"),
          "T": ("T", None), "l": ("l", None), "accountant": ("accountant", None),
          "conversion": ("conversion", None), "sigma_x": ("σ_x used", "{:.4g}"),
          "sigma_y": ("σ_y used", "{:.4g}"), "epsilon_achieved": ("achieved ε", None),
          "alpha": ("α", None), "delta": ("δ", "{:.0e}"), "runs": ("runs", None),
          "failed": ("failed", None), "other_accountants": ("same σ, other accountants", None),
          "accuracy_mean": ("accuracy", "{:.4f}"), "accuracy_std": ("± std", "{:.4f}"),
          "paper_mean": ("reported", "{:.4f}"), "paper_std": ("reported ± std", "{:.4f}"),
          "vs_majority": ("vs majority", None), "majority": ("majority class", "{:.4f}"),
          "ceiling": ("non-private ceiling", "{:.4f}")}

#: Column order on a page (issue 21: the accuracy stays on screen at 1024 px, the long
#: "same σ, other accountants" text last).
FIRST = ("epsilon_target", "sigma_fixed", "T", "l", "accuracy_mean", "accuracy_std", "vs_majority",
         "majority", "ceiling", "paper_mean", "paper_std")
LAST = ("other_accountants",)


def display_table(table, *, mixes: bool = True):
    """:func:`results_table` for a page: column labels, ε as text, the columns that say
    nothing here dropped (no paper cell, no fixed σ, no α under PLD, no l for a mechanism
    without l), every missing cell "—"; the accuracy next to the setting it measures."""
    from dpcda.report.tables import for_display

    show = table.assign(
        epsilon_target=table["epsilon_target"].map(lambda e: "" if e is None or e != e else eps_label(e)),
        epsilon_achieved=table["epsilon_achieved"].map(fmt_achieved))
    drop = []
    if table["paper_mean"].isna().all():
        drop += ["paper_mean", "paper_std"]
    if table["sigma_fixed"].isna().all():
        drop.append("sigma_fixed")
    elif table["epsilon_target"].isna().all():
        drop.append("epsilon_target")
    for col in ("alpha", "conversion", "sigma_y", "other_accountants", "vs_majority", "majority", "ceiling"):
        if table[col].isna().all() or (table[col] == "").all():
            drop.append(col)
    if not mixes:
        drop.append("l")
    show = show.drop(columns=[c for c in drop if c in show])
    first = [c for c in FIRST if c in show]  # results first: the accuracy beside its setting,
    last = [c for c in LAST if c in show]    # the long text of other accountants at the end
    show = show[first + [c for c in show.columns if c not in first + last] + last]
    shown = {c: LABELS[c] for c in show.columns if c in LABELS}
    return for_display(show.rename(columns={c: lab for c, (lab, _) in shown.items()}),
                       {lab: f for lab, f in shown.values() if f})


def calibration_notes(table, jobs) -> list[str]:
    """Per target ε (or for the fixed σ values), in words: which accountant and conversion,
    under which δ, T, c."""
    from dpcda.privacy import caveat

    cfg = job_config(jobs[0])
    mechanism = cfg.mechanism
    n_train = next((j.result.get("n_train") for j in jobs if j.result), None)
    Ts = sorted({job_config(j).T for j in jobs}, key=lambda t: -1 if t is None else t)
    if len(Ts) > 1:
        T_text = "T = " + ", ".join(T_label(t) for t in Ts)
    else:
        T = Ts[0] or n_train
        T_text = (f"T = {T_label(T)}" + (" = N" if Ts[0] is None else "")) if T else "T = N"
    ratio = "" if cfg.ratio == 1 else f"{cfg.ratio:g} × "
    note = caveat(cfg.accountant, mechanism)
    acct = (f"**{cfg.accountant}** accountant ({ACCOUNTANT_INFO[cfg.accountant].title}"
            + (f"; **{note}**" if note else "") + "; neighbours: "
            + ACCOUNTANT_INFO[cfg.accountant].relation.rstrip(".") + ")")
    conv = next((v for v in table["conversion"] if v), None)
    conv_text = f" with the **{conv}** RDP → (ε, δ) conversion" if conv else ""
    setting = f"δ = {fmt_delta(cfg.delta)}, {T_text}, c = {cfg.c:g}"
    noise = "σ" if mechanism != "dp-merf" else "the embedding's noise"
    out = []
    if table["sigma_fixed"].notna().any():
        sig = table.dropna(subset=["sigma_fixed"])
        span = ", ".join(f"{fmt_achieved(e)} (σ = {s:g}, l = {l})"
                         for s, l, e in zip(sig["sigma_fixed"], sig["l"], sig["epsilon_achieved"]))
        out.append(f"**Fixed σ** (σ_y = {ratio}σ_x): ε is what the {acct} reports{conv_text}, "
                   f"{setting}. ε: {span}.")
    for eps, g in table.dropna(subset=["epsilon_target"]).groupby("epsilon_target", sort=False):
        if math.isinf(eps):
            out.append("**ε = ∞** (no noise): this is the non-private baseline: it carries **no "
                       "privacy guarantee**.")
            continue
        sig = g.dropna(subset=["sigma_x"])
        span = ", ".join(f"{s:.4g} (l = {l}" + ("" if len(Ts) == 1 else f", T = {T_label(t)}") + ")"
                         for l, t, s in zip(sig["l"], sig["T"], sig["sigma_x"]))
        used = f" σ_x used: {span}." if span else ""
        out.append(f"**ε = {eps:g}**: {noise} calibrated for every point by the {acct}{conv_text}, "
                   f"{setting}.{used}")
    return out
