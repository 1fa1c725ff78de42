"""What a stakeholder report shows: :class:`ReportInputs`, plain data only.

Every section's data is optional: a section without data says "Not measured yet" and what
would produce it (never a made-up number). Tables are lists of row dicts (``rows_of`` turns a
pandas DataFrame into one); images are uint8 arrays (H x W grey or H x W x 3 RGB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

#: (anchor id, heading) of every section, in order.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("privacy", "Privacy guarantee"), ("data-card", "Data card"), ("samples", "Sample images"),
    ("class-means", "Class means"), ("accuracy-vs-l", "Accuracy vs l"),
    ("frontier", "Privacy-utility frontier"), ("compare", "Compare"), ("fidelity", "Fidelity"),
    ("caveats", "Caveats"))


def rows_of(table) -> list[dict] | None:
    """A DataFrame (or a list of dicts) as a list of row dicts; None stays None."""
    if table is None:
        return None
    if hasattr(table, "to_dict"):
        return [dict(r) for r in table.to_dict("records")]
    return [dict(r) for r in table]


def _image(name: str, img) -> np.ndarray | None:
    if img is None:
        return None
    a = np.asarray(img)
    if a.dtype != np.uint8 or not (a.ndim == 2 or (a.ndim == 3 and a.shape[2] == 3)) or a.size == 0:
        raise ValueError(f"{name} must be a uint8 image (H x W or H x W x 3), got {a.dtype} {a.shape}")
    return a


@dataclass(frozen=True, kw_only=True)
class ReportInputs:
    """The data of one report. ``privacy`` is a data card's privacy block
    (:func:`dpcda.mechanisms.card.privacy_from_result`)."""

    dataset: str
    setting: Mapping[str, Any]
    privacy: Mapping[str, Any] | None = None
    card: Mapping[str, Any] | None = None
    samples: np.ndarray | None = None
    samples_caption: str = ""
    class_means: np.ndarray | None = None
    class_means_caption: str = ""
    accuracy_vs_l: Sequence[Mapping[str, Any]] | None = None   # rows: series, l, mean, std, runs
    accuracy_caption: str = ""
    frontier: Sequence[Mapping[str, Any]] | None = None        # rows: epsilon, accuracy, std, l
    frontier_current: tuple[float, float] | None = None        # (epsilon, accuracy) of the setting
    frontier_caption: str = ""
    compare: Sequence[Mapping[str, Any]] | None = None
    compare_caption: str = ""
    fidelity: Sequence[Mapping[str, Any]] | None = None
    fidelity_caption: str = ""
    caveats: Sequence[str] = field(default=())
    #: Why a section has no data, by section id (overrides the default "Not measured yet" text).
    missing: Mapping[str, str] = field(default_factory=dict)
    title: str = "DP-CDA synthetic data: privacy and utility report"

    def __post_init__(self) -> None:
        if not isinstance(self.dataset, str) or not self.dataset:
            raise ValueError(f"dataset must be a dataset name, got dataset={self.dataset!r}")
        for name in ("samples", "class_means"):
            object.__setattr__(self, name, _image(name, getattr(self, name)))
        for name in ("accuracy_vs_l", "frontier", "compare", "fidelity"):
            rows = rows_of(getattr(self, name))
            object.__setattr__(self, name, rows if rows else None)  # an empty table: not measured
        for name, keys in (("accuracy_vs_l", ("l", "mean")), ("frontier", ("epsilon", "accuracy"))):
            for r in getattr(self, name) or ():
                missing = [k for k in keys if k not in r]
                if missing:
                    raise ValueError(f"every {name} row needs {', '.join(keys)}, a row lacks "
                                     f"{', '.join(missing)}: {r}")
        cur = self.frontier_current
        if cur is not None and not all(isinstance(v, (int, float)) and math.isfinite(v) for v in cur):
            raise ValueError(f"frontier_current must be two finite numbers (epsilon, accuracy), got {cur!r}")
        object.__setattr__(self, "caveats", tuple(str(c) for c in self.caveats))
        ids = {sid for sid, _ in SECTIONS}
        if set(self.missing) - ids:
            raise ValueError(f"missing names unknown sections {sorted(set(self.missing) - ids)}; "
                             f"sections: {', '.join(sorted(ids))}")
        object.__setattr__(self, "missing", dict(self.missing))
