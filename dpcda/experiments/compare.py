"""A fair comparison of the registered mechanisms at one target epsilon (the Compare page).

Every mechanism runs at the same target (epsilon, delta) and clip norm c, each accounted by its
registry entry's default accountant (a valid bound for it as implemented) unless the caller
picks another of its declared accountants (e.g. a paper's, to reproduce a table; its epsilon is
then labelled :data:`dpcda.privacy.NOT_A_BOUND`), and trained with its own default learner and
label mode. :func:`compare_jobs` builds the job list; :func:`compare_table` joins finished jobs
into one row per mechanism at its best l (highest mean accuracy, ties to the smaller l: as the
paper's bold entries, optimistic since the test split picks it), beside the paper's Table 5.
Pure pandas; no streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from dpcda.evaluation import reference
from dpcda.experiments.config import ExperimentConfig

#: Shown where a text cell has nothing to say (a number cell stays empty: NaN).
DASH = "—"

TABLE_COLUMNS = ("method", "accountant", "neighbouring relation", "ε", "σ", "l", "learner",
                 "labels", "accuracy", "± std", "runs", "l tried", "paper (Table 5)")


def _mech(name: str):
    from dpcda.mechanisms import MECHANISMS

    return MECHANISMS.get(name)


def default_ls(mechanism: str, max_l: int | None = None) -> list[int]:
    """The l values Compare runs by default for a mechanism (its entry's measured
    ``compare_ls``; ``[1]`` for a mechanism without l), capped at ``max_l``."""
    m = _mech(mechanism)
    if not m.mixes:
        return [1]
    ls = [l for l in m.compare_ls if max_l is None or l <= max_l]
    return ls or ([max_l] if max_l else [1])


def compare_jobs(dataset: str, epsilon: float, *, mechanisms: Sequence[str], runs: int,
                 ls: dict[str, Iterable[int]] | None = None, delta: float = 1e-5,
                 c: float = 1.0, accountants: dict[str, str] | None = None,
                 train: dict[str, Any] | None = None,
                 train_for: dict[str, dict[str, Any]] | None = None) -> list[tuple[str, dict]]:
    """One ``experiment`` job per mechanism x l x run, all at the same (epsilon, delta, c).

    ``ls[m]`` (default :func:`default_ls`), ``accountants[m]`` (default: the entry's first, a
    valid bound), ``train`` shared training settings (e.g. epochs) and ``train_for[m]``
    per-mechanism ones; the learner and label mode default to the entry's (``model="auto"``).
    """
    from dpcda.util.checks import check_float, check_int

    if not mechanisms:
        raise ValueError("mechanisms must name at least one mechanism, got none")
    runs = check_int("runs", runs, 1)
    epsilon = check_float("epsilon", epsilon, lo=0.0, lo_open=True)
    ls, accountants, train_for = ls or {}, accountants or {}, train_for or {}
    jobs: list[tuple[str, dict]] = []
    for name in mechanisms:
        m = _mech(name)
        m_ls = sorted({int(v) for v in ls.get(name, default_ls(name))}) if m.mixes else [1]
        if not m_ls:
            raise ValueError(f"select at least one l for {m.title}")
        cfg = {"dataset": dataset, "mechanism": name, "epsilon": float(epsilon),
               "delta": float(delta), "c": float(c),
               "accountant": m.check_accountant(accountants.get(name)),
               "train": {**(train or {}), **train_for.get(name, {})}}
        jobs += [("experiment", dict(cfg, l=l, run=r)) for l in m_ls for r in range(runs)]
    return jobs


def _stats(values: list[float]) -> tuple[float, float]:
    n = len(values)
    if not n:
        return math.nan, math.nan
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.nan
    return mean, std


def per_l(jobs) -> list[dict]:
    """One record per (mechanism, l) over the finished jobs: mean and sample std (ddof = 1) of
    the accuracy, runs, and the first finished job's config and result (sigma, accountant...)."""
    groups: dict[tuple[str, int], dict] = {}
    for j in jobs:
        if j.status != "done" or not j.result or j.result.get("accuracy") is None:
            continue
        cfg = ExperimentConfig.from_json(j.config)
        key = (cfg.mechanism, cfg.l)
        g = groups.setdefault(key, {"mechanism": key[0], "l": key[1], "acc": [],
                                    "config": j.config, "result": j.result})
        g["acc"].append(float(j.result["accuracy"]))
    for g in groups.values():
        acc = g.pop("acc")
        g["mean"], g["std"] = _stats(acc)
        g["runs"] = len(acc)
    return list(groups.values())


def best_per_mechanism(jobs) -> dict[str, dict]:
    """Per mechanism, the (mechanism, l) record with the highest mean accuracy (ties: smaller l)."""
    best: dict[str, dict] = {}
    for g in sorted(per_l(jobs), key=lambda g: (-g["mean"], g["l"])):
        best.setdefault(g["mechanism"], g)
    return best


def paper_table5(dataset: str, epsilon: float) -> dict[str, float]:
    """{paper method name: reported accuracy} for one Table 5 column (empty if none)."""
    if dataset not in reference.DATASETS[:3]:
        return {}
    return {r.method: r.accuracy for r in reference.table5(dataset)
            if r.epsilon == float(epsilon)}


def accountant_label(accountant: str | None, mechanism: str) -> str:
    """The accountant's name, with :data:`NOT_A_BOUND` where it is not valid for ``mechanism``."""
    from dpcda.privacy import NOT_A_BOUND

    if not accountant:
        return DASH
    return accountant if _mech(mechanism).is_valid_bound(accountant) else \
        f"{accountant} ({NOT_A_BOUND})"


def under_relation(mechanism: str, accountant: str | None = None):
    """The neighbouring relation (:class:`dpcda.privacy.events.Relation`) the epsilon of
    ``mechanism`` under ``accountant`` (default: its entry's) holds for."""
    from dpcda.privacy import get_accountant

    return get_accountant(accountant or _mech(mechanism).default_accountant).neighbours


def same_relation(mechanisms: Sequence[str], accountants: dict[str, str] | None = None):
    """``(sentence, narrower)``: one sentence saying which relation every epsilon of the table
    holds under (the whole record, label included, by default), and the mechanisms whose
    epsilon only holds under a narrower relation, each with why (their labels are released as
    they are, so under the whole-record relation they promise nothing)."""
    from dpcda.privacy.events import Relation

    accountants = accountants or {}
    narrower = {m: under_relation(m, accountants.get(m)) for m in mechanisms}
    narrower = {m: r for m, r in narrower.items() if r is not Relation.REPLACE_ONE}
    sentence = ("Every ε in this table holds under the same relation: one person's whole record, "
                "features and label, may be replaced by any other (the standard one; DP-CDA's "
                "default accountant, `whole-record`).")
    why = {m: (f"its ε holds only when a record's features change and its label is kept ({r.words}) "
               "— its labels are released as they are, so it promises nothing for a whole record")
           for m, r in narrower.items()}
    return sentence, why


def relation_banner(mechanisms: Sequence[str], accountants: dict[str, str] | None = None) -> str:
    """Markdown for above the Compare table: :func:`same_relation`'s sentence, then each
    mechanism whose epsilon only holds under a narrower relation, by title, with why."""
    sentence, narrower = same_relation(mechanisms, accountants)
    return sentence + "".join(f" **{_mech(m).title}**: {why}." for m, why in narrower.items())


def compare_table(jobs, mechanisms: Sequence[str], *, dataset: str, epsilon: float,
                  quoted: bool = True, planned: dict[str, str] | None = None):
    """The comparison as a DataFrame (:data:`TABLE_COLUMNS`): one row per mechanism at its best
    l, then (``quoted``) the paper's other Table 5 rows, which we do not run. Missing numbers
    are NaN (an empty cell), missing text :data:`DASH`; never ``None``. ``planned``: the
    accountant each mechanism without a job would use (shown before anything ran)."""
    import pandas as pd

    from dpcda.privacy import get_accountant

    paper = paper_table5(dataset, epsilon)
    best = best_per_mechanism(jobs)
    tried: dict[str, list[int]] = {}
    for g in per_l(jobs):
        tried.setdefault(g["mechanism"], []).append(g["l"])
    typed = [ExperimentConfig.from_json(j.config) for j in jobs]
    rows = []
    for name in mechanisms:
        m = _mech(name)
        g = best.get(name)
        cfg = ExperimentConfig.from_json(g["config"]) if g else next(
            (c for c in typed if c.mechanism == name), None)
        res = g["result"] if g else {}
        acc = res.get("accuracy") is not None and res.get("accountant") \
            or (cfg.accountant if cfg else None) or (planned or {}).get(name)
        train = cfg.train.to_dict() if cfg else {}
        eps = res.get("epsilon")
        rows.append({
            "method": m.title, "accountant": accountant_label(acc, name),
            "neighbouring relation": get_accountant(acc).relation or DASH if acc else DASH,
            "ε": float(eps) if isinstance(eps, (int, float)) else math.nan,
            "σ": float(res["sigma_x"]) if res.get("sigma_x") is not None else math.nan,
            "l": g["l"] if g and m.mixes else None,
            "learner": train.get("model") or DASH, "labels": train.get("label_mode") or DASH,
            "accuracy": g["mean"] if g else math.nan, "± std": g["std"] if g else math.nan,
            "runs": g["runs"] if g else 0,
            "l tried": ", ".join(map(str, sorted(tried.get(name, [])))) if m.mixes else DASH,
            "paper (Table 5)": paper.get(m.paper_name, math.nan)})
    if quoted:
        ours = {_mech(n).paper_name for n in mechanisms}
        from dpcda.mechanisms import MECHANISMS

        registered = {MECHANISMS.get(n).paper_name for n in MECHANISMS}
        names = [] if not paper else list(dict.fromkeys(r.method for r in reference.table5(dataset)))
        for name in names:  # the paper's rows for this dataset (NaN where it has no number)
            if name in ours or name in registered:
                continue
            value = paper.get(name, math.nan)
            rows.append({"method": name, "accountant": "(the paper's number only)",
                         "neighbouring relation": DASH, "ε": math.nan, "σ": math.nan, "l": None,
                         "learner": DASH, "labels": DASH, "accuracy": math.nan,
                         "± std": math.nan, "runs": 0, "l tried": DASH,
                         "paper (Table 5)": value})
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    for col in ("ε", "σ", "accuracy", "± std", "paper (Table 5)"):
        table[col] = pd.to_numeric(table[col], errors="coerce").astype(float)
    table["l"] = pd.array(table["l"].tolist(), dtype="Int64")
    table["runs"] = table["runs"].astype(int)
    return table


def every_l_table(jobs):
    """Every (mechanism, l) that finished: l, sigma, runs, mean and std (for an expander)."""
    import pandas as pd

    rows = [{"method": _mech(g["mechanism"]).title, "l": g["l"],
             "σ": g["result"].get("sigma_x", math.nan), "runs": g["runs"],
             "accuracy": g["mean"], "± std": g["std"]}
            for g in sorted(per_l(jobs), key=lambda g: (g["mechanism"], g["l"]))]
    return pd.DataFrame(rows, columns=["method", "l", "σ", "runs", "accuracy", "± std"])


def comparison_plan(dataset: str, epsilon: float, *, mechanisms: Sequence[str], runs: int,
                    ls: dict[str, Iterable[int]], delta: float, c: float,
                    accountants: dict[str, str], model: str = "auto", epochs: int = 5) -> dict:
    """What the Compare page launches: ``{"jobs", "config", "name", "problems", "estimate"}``.

    ``problems`` (plain-words :class:`dpcda.util.messages.Problem` values, each once) is non-empty
    when nothing can be launched; ``estimate`` is :func:`dpcda.experiments.estimate.estimate_jobs` of
    the jobs (None with problems); ``config`` (stored with the sweep) records the page's
    settings, so that "Reproduce this" gives them back. ``model="auto"``: each mechanism's own
    learner."""
    from dpcda.experiments.estimate import estimate_jobs
    from dpcda.experiments.run import experiment_config
    from dpcda.util.messages import Problem, problem_of

    if not mechanisms:
        p = Problem("empty", "Select at least one mechanism.", "mechanisms is empty")
        return {"jobs": [], "config": None, "name": "", "problems": [p], "estimate": None}
    train = {"epochs": int(epochs)} if model == "auto" else {"epochs": int(epochs), "model": model}
    try:
        jobs = compare_jobs(dataset, float(epsilon), mechanisms=list(mechanisms), runs=runs, ls=ls,
                            delta=delta, c=float(c), accountants=accountants, train=train)
        typed = [experiment_config(cfg) for _, cfg in jobs]
        est = estimate_jobs([cfg.to_json() for cfg in typed])
    except ValueError as exc:
        return {"jobs": [], "config": None, "name": "", "problems": [problem_of(exc)],
                "estimate": None}
    config = {"page": "compare", "base": {"dataset": dataset}, "epsilon": float(epsilon),
              "mechanisms": list(mechanisms), "runs": int(runs), "delta": float(delta),
              "c": float(c), "model": model, "epochs": int(epochs),
              "ls": {m: sorted({int(v) for v in ls[m]}) for m in mechanisms
                     if m in ls and _mech(m).mixes},
              "accountants": {cfg.mechanism: cfg.accountant for cfg in typed}}
    return {"jobs": jobs, "config": config, "problems": [], "estimate": est,
            "name": f"{dataset}: compare at ε {epsilon:g}; {runs} run(s)"}
