"""The two numbers every accuracy is read against: the majority-class rate and the non-private
ceiling of a dataset.

- The **majority-class rate** is the share of the most common label in the dataset's *test*
  split: what a model that always answers that class scores (Adult: 0.764, "<=50K"; digits:
  about 0.10, i.e. chance). It is a public fact of the benchmark (:func:`majority_rate`).
- The **non-private ceiling** is the accuracy of the same learner trained on the *real* training
  data (normalised and clipped like a release, no mixing, no noise): what no private release of
  that learner is expected to beat. It is measured once per (dataset, learner) by
  ``benchmarks/baselines.py`` (:func:`dpcda.experiments.ceiling.measure_ceiling`) and shipped in
  ``dpcda/evaluation/baselines.csv`` with the majority rate, so pages and the report read both
  without loading data (:func:`baseline`).

:func:`near_majority` says whether a measured accuracy is within noise of the majority rate
(the rule is in its docstring) and :func:`majority_words` says so in words. Nothing here imports
torch, pandas or streamlit.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BASELINE_PATH = Path(__file__).with_name("baselines.csv")
BASELINE_FIELDS = ("dataset", "n_test", "majority_class", "majority_rate", "learner", "runs",
                   "ceiling", "ceiling_std")
#: How many standard errors an accuracy must clear above the majority rate (see near_majority).
NOISE_Z = 2.0


@dataclass(frozen=True)
class Majority:
    """The most common label of a test split: its name, its share, the split's size."""

    label: str
    rate: float
    n_test: int


@dataclass(frozen=True)
class Baseline:
    """A dataset's majority rate and, for one learner, its non-private ceiling (None when that
    learner was not measured on the real data)."""

    dataset: str
    majority: Majority
    learner: str | None = None
    ceiling: float | None = None
    ceiling_runs: int = 0


def majority_of_labels(y_test, class_names=None) -> Majority:
    """The majority class of labels ``y_test`` (integers 0..K-1); ``class_names`` names them."""
    y = np.asarray(y_test)
    if y.ndim != 1 or y.size == 0 or not np.issubdtype(y.dtype, np.integer) or y.min() < 0:
        raise ValueError(f"y_test must be a non-empty 1-D array of class indices >= 0, got shape "
                         f"{y.shape} and dtype {y.dtype}")
    counts = np.bincount(y)
    k = int(np.argmax(counts))
    label = str(class_names[k]) if class_names is not None and k < len(class_names) else str(k)
    return Majority(label, float(counts[k] / y.size), int(y.size))


def majority_rate(dataset) -> Majority:
    """The majority class of a loaded :class:`dpcda.data.Dataset`'s test split."""
    return majority_of_labels(dataset.y_test, dataset.class_names)


def near_majority(mean: float, std: float, runs: int, majority: float, n_test: int | None = None) -> bool:
    """Whether a mean accuracy is within noise of the majority rate.

    The rule: flagged when ``mean - majority <= NOISE_Z * se``, where ``se`` joins the spread of
    the runs, ``std / sqrt(runs)`` (0 for one run or an undefined std), and the sampling error of
    a rate measured on ``n_test`` test records, ``sqrt(majority (1 - majority) / n_test)`` (0 when
    ``n_test`` is not given). A mean below the majority rate is always flagged. Adult's 0.764 ±
    0.000 over 3 runs against 0.764 on 16,281 records: flagged; MNIST's 0.82 against 0.11: not.
    """
    for name, v in (("mean", mean), ("majority", majority)):
        if not (isinstance(v, (int, float)) and 0.0 <= v <= 1.0):
            raise ValueError(f"{name} must be an accuracy in [0, 1], got {name}={v!r}")
    if not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an integer >= 1, got runs={runs!r}")
    if n_test is not None and (not isinstance(n_test, int) or n_test < 1):
        raise ValueError(f"n_test must be None or an integer >= 1, got n_test={n_test!r}")
    spread = 0.0 if std is None or runs < 2 or not math.isfinite(std) else float(std)
    var = spread ** 2 / runs + (majority * (1 - majority) / n_test if n_test else 0.0)
    return mean - majority <= NOISE_Z * math.sqrt(var)


def majority_words(b: Baseline) -> str:
    """The flag in words: what a result within noise of the majority rate means."""
    hint = ("; where T is split equally over the classes, the proportional allocation (by the "
            "public class counts) keeps this imbalance in the release" if b.majority.rate >= 0.5 else "")
    return (f"the model predicts one class: no better than always answering "
            f"'{b.majority.label}' ({b.majority.rate:.1%} of the test split){hint}")


def flag_words(b: Baseline | None, mean: float, std: float, runs: int) -> str:
    """:func:`majority_words` when ``mean`` is within noise of ``b``'s majority rate, else ''."""
    if b is None or mean is None or not math.isfinite(mean):
        return ""
    s = 0.0 if std is None else std
    return majority_words(b) if near_majority(float(mean), s, int(runs), b.majority.rate,
                                              b.majority.n_test) else ""


def baseline_text(b: Baseline | None) -> str:
    """One line: the majority rate and the ceiling ("" when nothing is known)."""
    if b is None:
        return ""
    text = f"majority class '{b.majority.label}': {b.majority.rate:.3f}"
    if b.ceiling is not None:
        text += f"; non-private ceiling ({b.learner} on the real training data): {b.ceiling:.3f}"
    elif b.learner:
        text += f"; non-private ceiling of {b.learner}: not measured"
    return text


# --- the shipped table ---------------------------------------------------------------------------

def load_baselines(path: str | Path | None = None) -> list[dict]:
    """The shipped table's rows (or ``path``'s): one per (dataset, learner)."""
    p = Path(path) if path is not None else BASELINE_PATH
    if not p.exists():
        return []
    with open(p, newline="") as fh:
        rows = []
        for raw in csv.DictReader(fh):
            rows.append(dict(raw, n_test=int(raw["n_test"]), runs=int(raw["runs"]),
                             majority_rate=float(raw["majority_rate"]),
                             ceiling=float(raw["ceiling"]) if raw["ceiling"] else math.nan,
                             ceiling_std=float(raw["ceiling_std"]) if raw["ceiling_std"] else math.nan))
    return rows


def write_baselines(rows: list[dict], path: str | Path) -> None:
    """Write rows in the shipped table's format, sorted by dataset and learner."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=BASELINE_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in sorted(rows, key=lambda r: (r["dataset"], r["learner"])):
            w.writerow({**r, "majority_rate": f"{r['majority_rate']:.4f}",
                        **{k: "" if math.isnan(r[k]) else f"{r[k]:.4f}" for k in ("ceiling", "ceiling_std")}})


def baseline(dataset: str, learner: str | None = None, *, path: str | Path | None = None) -> Baseline | None:
    """``dataset``'s majority rate and ``learner``'s ceiling from the shipped table; None when the
    dataset is not in it (an upload, a plugin)."""
    rows = [r for r in load_baselines(path) if r["dataset"] == dataset]
    if not rows:
        return None
    r0 = rows[0]
    maj = Majority(r0["majority_class"], r0["majority_rate"], r0["n_test"])
    mine = [r for r in rows if r["learner"] == learner and not math.isnan(r["ceiling"])]
    if not mine:
        return Baseline(dataset, maj, learner)
    return Baseline(dataset, maj, learner, mine[0]["ceiling"], mine[0]["runs"])


def levels(b: Baseline | None) -> tuple[tuple[float, str], ...]:
    """(accuracy, label) rules for a figure: the majority rate and, when measured, the ceiling."""
    if b is None:
        return ()
    out = ((b.majority.rate, f"majority '{b.majority.label}'"),)
    return out + (((b.ceiling, f"non-private {b.learner}"),) if b.ceiling is not None else ())
