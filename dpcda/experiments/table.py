"""The shipped accuracy table (``dpcda/experiments/accuracy_table.csv``): its format, and which
of its rows speak for the dashboard's default.

Each row is one DP-CDA release setting measured ``runs`` times with a fresh release each
(written by ``benchmarks/accuracy_frontier.py``); the ``learner`` column names what was trained
on the release and ``learner_setting`` the hyper-parameters it chose from the release alone (the
noise-aware QDA's shrinkage, floor, ...; empty for learners without a choice).

Rows of several learners may sit side by side (e.g. the opt-in noise-aware QDA beside the
default noise-aware LDA on MNIST), each labelled with its learner. A measured accuracy speaks for
the dashboard's default only when its learner is the one a one-click measurement would train
today (:func:`measured_learner`: the project's ``auto`` learner for the dataset and privacy
level, the noise-aware LDA in place of a neural network). :func:`of_measured_learner` keeps
those rows: the Privacy page's readout, its frontier and the l it recommends per ε read nothing
else, so a row of another learner can never be taken for the default's. Nothing here imports
torch.
"""

from __future__ import annotations

import csv
import functools
import math
import statistics
from pathlib import Path

TABLE_PATH = Path(__file__).with_name("accuracy_table.csv")
TABLE_FIELDS = ("dataset", "l", "sigma_x", "ratio", "c", "T", "normalization", "allocation",
                "learner", "learner_setting", "runs", "mean", "std", "min", "max")
#: The fast learner's stand-in for a neural network (seconds, not minutes).
NET_MODELS = ("cnn", "dpmix-cnn", "fc", "linear")
#: ``learner=`` of :func:`of_measured_learner` meaning "the default's learner for each row".
DEFAULT = "default"


@functools.lru_cache(maxsize=64)
def measured_learner(dataset: str, private: bool) -> str:
    """The learner of a one-click measurement of a DP-CDA release of ``dataset`` (``private``:
    sigma_x > 0): ``model="auto"`` as the job runner resolves it, with the noise-aware LDA in
    place of a neural network. Public facts only (the dataset's registry entry)."""
    from dpcda.experiments.run import resolve_model

    chosen = resolve_model(dict(dataset=dataset, mechanism="dp-cda",
                                sigma=0.5 if private else 0.0), "auto")
    return "lda" if chosen in NET_MODELS else chosen


def of_measured_learner(rows: list[dict], learner: str | None = DEFAULT) -> list[dict]:
    """The rows whose ``learner`` is ``learner``; :data:`DEFAULT`: each row's
    :func:`measured_learner` (by its dataset and whether its sigma_x > 0); None: every row."""
    if learner is None:
        return list(rows)
    if learner != DEFAULT:
        return [r for r in rows if r.get("learner") == learner]
    return [r for r in rows
            if r.get("learner") == measured_learner(r["dataset"], bool(r["sigma_x"] > 0))]


def setting_text(choice: dict | None) -> str:
    """A learner's hyper-parameter choice (its ``choice_``, e.g. QDA's) as one short token:
    each number ``key=value`` (3 significant digits), each list of numbers by its range; words
    (the rule's name) and scores left out. ``""`` for none."""
    if not choice:
        return ""
    parts = []
    for key, v in choice.items():
        if isinstance(v, bool) or key.endswith("loglik"):
            continue
        if isinstance(v, (int, float)):
            parts.append(f"{key}={v:.3g}")
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, (int, float)) for x in v):
            lo, hi = min(v), max(v)
            parts.append(f"{key}={lo:.3g}" if lo == hi else f"{key}={lo:.3g}-{hi:.3g}")
    return " ".join(parts)


def summarize(accuracies) -> dict:
    """runs, mean, sample std (NaN for one run), min and max of a list of accuracies."""
    acc = [float(a) for a in accuracies]
    if not acc:
        raise ValueError("accuracies must hold at least one value, got []")
    return dict(runs=len(acc), mean=statistics.fmean(acc),
                std=statistics.stdev(acc) if len(acc) > 1 else math.nan, min=min(acc), max=max(acc))


def load_table(path: str | Path | None = None, dataset: str | None = None) -> list[dict]:
    """The shipped table (or ``path``) as rows; ``T`` empty means T = N. ``dataset`` filters.
    A table written before the ``learner_setting`` column reads it as ``""``."""
    rows: list[dict] = []
    if path is None and not TABLE_PATH.exists():  # a checkout without the measured table
        return rows
    with open(path or TABLE_PATH, newline="") as fh:
        for raw in csv.DictReader(fh):
            if dataset is not None and raw["dataset"] != dataset:
                continue
            row = dict(raw, source="table", learner_setting=raw.get("learner_setting") or "")
            for key in ("l", "runs"):
                row[key] = int(raw[key])
            for key in ("sigma_x", "ratio", "c", "mean", "std", "min", "max"):
                row[key] = float(raw[key]) if raw[key] != "" else math.nan
            row["T"] = int(raw["T"]) if raw["T"] else None
            rows.append(row)
    return rows


def write_table(rows: list[dict], path: str | Path) -> None:
    """Write rows in the shipped table's format (the columns :data:`TABLE_FIELDS`)."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=TABLE_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "T": "" if r.get("T") is None else int(r["T"]),
                        "learner_setting": r.get("learner_setting") or "",
                        **{k: f"{r[k]:.6g}" for k in ("sigma_x", "ratio", "c")},
                        **{k: "" if math.isnan(r[k]) else f"{r[k]:.4f}"
                           for k in ("mean", "std", "min", "max")}})


def release_key(row: dict) -> tuple:
    """What makes two rows the same measured release and learner: a re-measurement replaces
    the row with this key (a row of another learner on the same release stays beside it)."""
    return (row["dataset"], int(row["l"]), f"{float(row['sigma_x']):.6g}", f"{float(row['ratio']):.6g}",
            f"{float(row['c']):.6g}", row.get("T"), row["normalization"], row["allocation"],
            row["learner"])


def merge(old: list[dict], new: list[dict], *, drop_dataset: bool = False) -> tuple[list[dict], list[dict]]:
    """(table, dropped): ``old`` with ``new`` in place of the rows of the same release and
    learner (:func:`release_key`); every other row is kept, labelled with its learner (rows of a
    learner that is not the default stay, and :func:`of_measured_learner` keeps them out of the
    default's frontier). With ``drop_dataset`` every old row of ``new``'s datasets that is not
    measured again is dropped instead."""
    replaced = {release_key(r) for r in new}
    datasets = {r["dataset"] for r in new}
    kept, dropped = [], []
    for r in old:
        if release_key(r) in replaced:
            continue
        (dropped if drop_dataset and r["dataset"] in datasets else kept).append(r)
    order = {name: i for i, name in enumerate(dict.fromkeys(r["dataset"] for r in old + new))}
    table = sorted(kept + new, key=lambda r: (order[r["dataset"]], r["l"], r["sigma_x"], r["learner"]))
    return table, dropped
