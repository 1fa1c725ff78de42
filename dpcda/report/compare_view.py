"""The Compare table for people: a narrow main table, the details apart, and plain data for the
stakeholder report.

:func:`dpcda.experiments.compare.compare_table` has 13 columns (too wide for a 1024 x 768 screen);
:func:`main_and_details` splits it into the columns a decision needs (method, accountant,
achieved ε, l, learner, accuracy as "mean ± std", the paper's number) and the rest (σ,
neighbouring relation, labels, runs, l tried) for an expander. Every cell is text, missing
ones "—". :func:`compare_report_data` returns the same as plain lists for the report.
Pure pandas; no streamlit.
"""

from __future__ import annotations

from dpcda.report.tables import MISSING, for_display

MAIN_COLUMNS = ("method", "accountant", "ε", "l", "learner", "accuracy", "paper")
DETAIL_COLUMNS = ("method", "σ", "neighbouring relation", "labels", "runs", "l tried")
PAPER_COLUMN = "paper (Table 5)"


def accuracy_text(mean, std, runs: int) -> str:
    """"0.8684 ± 0.0015" (3 runs), "0.8684" (one run), "—" (none)."""
    if runs <= 0 or mean is None or mean != mean:
        return MISSING
    if std is None or std != std:
        return f"{mean:.4f}"
    return f"{mean:.4f} ± {std:.4f}"


def _flag(dataset: str | None, learner, mean, std, runs) -> str:
    from dpcda.evaluation.baselines import baseline, flag_words

    if dataset is None or runs <= 0 or mean != mean:
        return ""
    return flag_words(baseline(dataset, str(learner)), float(mean), std, int(runs))


def main_and_details(table, *, with_paper: bool = True, dataset: str | None = None):
    """(main, details): two DataFrames of text from :func:`dpcda.experiments.compare.compare_table`.
    ``with_paper``: keep the paper's column in the main table (False where the paper has no
    column for this dataset and ε). ``dataset``: mark an accuracy within noise of its
    majority-class rate "(≈ majority class)" (:func:`baseline_notes` says it in words)."""
    acc = [accuracy_text(m, s, int(r)) + (" (≈ majority class)" if _flag(dataset, lrn, m, s, int(r)) else "")
           for m, s, r, lrn in zip(table["accuracy"], table["± std"], table["runs"], table["learner"])]
    main = table.assign(accuracy=acc).rename(columns={PAPER_COLUMN: "paper"})
    cols = [c for c in MAIN_COLUMNS if with_paper or c != "paper"]
    main = for_display(main[cols], {"ε": "{:.4g}", **({"paper": "{:.3f}"} if with_paper else {})})
    details = for_display(table[list(DETAIL_COLUMNS)], {"σ": "{:.4g}"})
    return main, details


def baseline_notes(table, dataset: str) -> list[str]:
    """What the accuracies are read against, in words: the majority-class rate of ``dataset``'s
    test split, the non-private ceiling of each learner that ran, and every row within noise of
    the majority rate (:mod:`dpcda.evaluation.baselines`). Empty for a dataset without them."""
    from dpcda.evaluation.baselines import baseline

    b0 = baseline(dataset)
    if b0 is None:
        return []
    ours = table[table["runs"] > 0]
    ceilings = []
    for learner in dict.fromkeys(str(v) for v in ours["learner"]):
        b = baseline(dataset, learner)
        ceilings.append(f"`{learner}` " + (f"{b.ceiling:.3f}" if b.ceiling is not None else "not measured"))
    out = [f"Majority class '{b0.majority.label}': {b0.majority.rate:.3f} of the test split (a model that "
           "always answers it scores that)" + ("; non-private ceiling (the same learner trained on the "
                                                 "real training data): " + ", ".join(ceilings) if ceilings
                                                 else "") + "."]
    for method, learner, mean, std, runs in zip(ours["method"], ours["learner"], ours["accuracy"],
                                                 ours["± std"], ours["runs"]):
        flag = _flag(dataset, learner, mean, std, int(runs))
        if flag:
            out.append(f"{method}: {flag}.")
    return out


def learner_note(table) -> str:
    """Which learner each accuracy used, in words, where the rows that ran used different ones
    (e.g. a comparison stored before a default changed): "" where they all used one. The
    *learner* column and the bars name it per row; this says that the gap between such rows is
    not the mechanisms' alone."""
    ours = table[table["runs"] > 0]
    pairs = list(dict.fromkeys(zip(ours["method"], (str(v) for v in ours["learner"]))))
    if len({lrn for _, lrn in pairs}) < 2:
        return ""
    each = "; ".join(f"{method} `{lrn}`" for method, lrn in pairs)
    return (f"Learners differ by row ({each}): the gap between these rows is the learners' as "
            "well as the mechanisms'. Today `auto` trains one learner for every mechanism of a "
            "dataset (the noise-aware LDA, `lda`, on private images; the noise-aware QDA, `qda`, "
            "is an opt-in: docs/mechanisms.md). Choose one learner in the sidebar and run the "
            "comparison again to train every mechanism alike.")


def compare_report_data(jobs, mechanisms, *, dataset: str, epsilon: float) -> dict:
    """The Compare table as plain data for the stakeholder report::

        {"dataset": str, "epsilon": float, "columns": [...], "rows": [{column: text}],
         "details_columns": [...], "details": [{column: text}], "has_paper": bool,
         "baselines": [str],   # majority rate, ceilings, flagged rows (baseline_notes)
         "learners": str}      # why the learners differ by row ("" when one: learner_note)

    ``jobs``: the comparison's jobs (:meth:`dpcda.jobs.JobStore.jobs`), ``mechanisms``: the
    registered mechanisms it compares. Cells are text ("—" where empty)."""
    from dpcda.experiments.compare import compare_table, paper_table5

    has_paper = bool(paper_table5(dataset, epsilon))
    table = compare_table(jobs, list(mechanisms), dataset=dataset, epsilon=epsilon,
                          quoted=has_paper)
    main, details = main_and_details(table, with_paper=has_paper, dataset=dataset)
    return {"dataset": dataset, "epsilon": float(epsilon), "columns": list(main.columns),
            "rows": main.to_dict("records"), "details_columns": list(details.columns),
            "details": details.to_dict("records"), "has_paper": has_paper,
            "baselines": baseline_notes(table, dataset), "learners": learner_note(table)}


def stored_compare_data(db, sweep_id: int) -> dict:
    """:func:`compare_report_data` for a comparison in the job store (the Compare page's
    ``?compare=N``)."""
    from dpcda.jobs import JobStore
    from dpcda.mechanisms import MECHANISMS

    store = db if isinstance(db, JobStore) else JobStore(db)
    cfg = store.get_sweep(sweep_id).config or {}
    if cfg.get("page") != "compare":
        raise ValueError(f"sweep_id must name a comparison (made on the Compare page), got "
                         f"sweep_id={sweep_id}")
    mechs = [m for m in cfg.get("mechanisms", MECHANISMS.names()) if m in MECHANISMS]
    return compare_report_data(store.jobs(sweep_id=sweep_id), mechs,
                               dataset=cfg["base"]["dataset"], epsilon=float(cfg["epsilon"]))


def figure_bars(table) -> dict:
    """The comparison's bar chart as plain data: ours (mean, std, the learner trained on each
    release) and the paper's numbers per method, NaN-free."""
    ours = table[table["runs"] > 0]
    paper = table.dropna(subset=[PAPER_COLUMN])
    return {"ours": {"method": ours["method"].tolist(), "accuracy": ours["accuracy"].tolist(),
                     "std": [0.0 if v != v else float(v) for v in ours["± std"]],
                     "learner": [str(v) for v in ours["learner"]]},
            "paper": {"method": paper["method"].tolist(),
                      "accuracy": [float(v) for v in paper[PAPER_COLUMN]]},
            "empty": not len(ours) and not len(paper)}


def describe_job(config: dict) -> str:
    """A Compare job in words: "DP-CDA, l = 16, run 2"."""
    from dpcda.experiments.config import ExperimentConfig
    from dpcda.mechanisms import MECHANISMS

    cfg = ExperimentConfig.from_json(config)
    m = MECHANISMS.get(cfg.mechanism)
    return m.title + (f", l = {cfg.l}" if m.mixes else "") + f", run {cfg.run + 1}"


def epsilon_options(dataset: str) -> list[float]:
    """The target ε the Compare page offers: the paper's Table 5 columns for ``dataset``, or
    20 and 10."""
    from dpcda.evaluation import reference

    cols = [eps for ds, eps in reference.TABLE5_COLUMNS if ds == dataset]
    return cols or [20.0, 10.0]


__all__ = ["MAIN_COLUMNS", "DETAIL_COLUMNS", "accuracy_text", "baseline_notes", "compare_report_data",
           "describe_job", "learner_note",
           "epsilon_options", "figure_bars", "main_and_details", "stored_compare_data"]
