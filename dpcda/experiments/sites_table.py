"""The measured accuracy of the three modes across sites, shipped with the package
(``sites_table.csv``, written by ``benchmarks/sites_table.py``; docs/decentral.md, "Measured").

Accuracy per (dataset, epsilon, split, S, mode, normalisation) takes minutes to measure, so the
Sites page reads it from this table instead of measuring on every slider move. Each row names
the learner, the runs and the commit it was measured with; a setting is keyed with its learner,
so rows of an earlier default learner stay as a record and readers pick today's
(:func:`default_learner`). A row's ``normalize`` names the normalisation its releases used
(``scale``, the default, or ``dp-center``); a file without that column holds ``scale`` rows.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

TABLE_PATH = Path(__file__).with_name("sites_table.csv")
FIELDS = ("dataset", "epsilon", "split", "alpha", "sites", "mode", "l", "T", "learner", "runs",
          "accuracy", "accuracies", "epsilon_a", "epsilon_b", "release_seconds", "commit",
          "normalize")


@dataclass(frozen=True)
class SitesRow:
    """One measured setting: the mean test accuracy over ``runs`` fresh splits and releases."""

    dataset: str
    epsilon: float
    split: str
    alpha: float | None
    sites: int
    mode: str
    learner: str
    runs: int
    accuracy: float
    accuracies: tuple[float, ...]
    commit: str
    #: the normalisation the releases used (``scale`` or ``dp-center``)
    normalize: str = "scale"


def default_learner(dataset: str, epsilon: float) -> str:
    """The learner today's measurements use and the page shows: what ``model="auto"`` resolves
    to for this dataset and epsilon (:func:`dpcda.experiments.run.resolve_model`, public
    metadata only), as :func:`dpcda.experiments.sites_run.run_sites` trains."""
    from dpcda.experiments.run import resolve_model

    return str(resolve_model({"dataset": dataset, "epsilon": float(epsilon)}, "auto"))


def _opt(v: str) -> float | None:
    return float(v) if v not in ("", "None") else None


def load_sites_table(path: Path | str = TABLE_PATH) -> list[SitesRow]:
    """Every row of the table (empty if there is no table)."""
    path = Path(path)
    if not path.exists():
        return []
    with path.open() as f:
        return [SitesRow(dataset=r["dataset"], epsilon=float(r["epsilon"]), split=r["split"],
                         alpha=_opt(r["alpha"]), sites=int(r["sites"]), mode=r["mode"],
                         learner=r["learner"], runs=int(r["runs"]), accuracy=float(r["accuracy"]),
                         accuracies=tuple(float(a) for a in r["accuracies"].split(";") if a),
                         commit=r["commit"], normalize=r.get("normalize") or "scale")
                for r in csv.DictReader(f)]
