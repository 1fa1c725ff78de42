"""The report of a choice between up to three candidate settings: the numbers of each
(:class:`CandidateNumbers`, plain data), the one-paragraph summary that opens the report
(:func:`summary_paragraph`: the recommendation and the trade-off in numbers), the candidates side
by side (:func:`comparison_rows`) and the file name of the chosen setting (:func:`report_name`).

Every ε names its accountant and its neighbouring relation. Baselines (the majority-class rate,
the non-private ceiling) are optional: rendered when given, never made up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dpcda.report.formatting import fmt_delta, fmt_eps

MAX_CANDIDATES = 3
LETTERS = "ABC"
WHOLE, FEATURES = "whole-record", "class-aware-pld"
#: The relation each accountant protects, in a few words (the summary and the table name it).
RELATION = {WHOLE: "one record, label included", FEATURES: "one record's features, labels kept"}


@dataclass(frozen=True, kw_only=True)
class CandidateNumbers:
    """What the report shows of one candidate. ``eps_whole`` is None when the whole-record
    accountant cannot account the setting (``whole_note`` says why, e.g. a proportional
    allocation); accuracy and the baselines are None when not measured."""

    label: str
    dataset: str
    l: int
    sigma_x: float
    T: int
    delta: float
    allocation: str = "equal"
    target_epsilon: float | None = None
    accountant: str = WHOLE           # the setting's own accountant (its noise is calibrated to it)
    eps_whole: float | None = None
    whole_note: str = ""
    eps_features: float | None = None
    accuracy: float | None = None
    accuracy_std: float | None = None
    accuracy_runs: int = 0
    learner: str = ""
    majority: float | None = None     # majority-class rate on the real test split
    nonprivate: float | None = None   # the same learner on the real training data
    fidelity: float | None = None     # mean relative distance of the class means (or columns)
    samples: np.ndarray | None = None  # a small uint8 picture of released samples

    def __post_init__(self) -> None:
        if not self.label:
            raise ValueError("label must be a non-empty name such as 'A'")
        for name in ("accuracy", "majority", "nonprivate"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and 0.0 <= v <= 1.0):
                raise ValueError(f"{name} must be a rate between 0 and 1 or None, got {name}={v!r}")

    @property
    def headline(self) -> tuple[float, str] | None:
        """(ε, accountant) the summary compares: whole-record where it applies, else features-only."""
        if self.eps_whole is not None:
            return self.eps_whole, WHOLE
        if self.eps_features is not None:
            return self.eps_features, FEATURES
        return None

    def describe(self) -> str:
        noise = (f"target ε = {self.target_epsilon:g} ({self.accountant})"
                 if self.target_epsilon is not None else "noise chosen directly")
        return (f"{self.dataset}, l = {self.l}, σ_x = {self.sigma_x:.4g}, T = {self.T:,}, "
                f"{self.allocation} allocation, {noise}")


def check_candidates(cands: Sequence[CandidateNumbers], chosen: str) -> CandidateNumbers:
    """The chosen candidate; ValueError for an empty or too long list or an unknown label."""
    if not 1 <= len(cands) <= MAX_CANDIDATES:
        raise ValueError(f"candidates must hold 1 to {MAX_CANDIDATES} settings, got {len(cands)}")
    labels = [c.label for c in cands]
    if chosen not in labels:
        raise ValueError(f"chosen must be one of {', '.join(labels)}, got chosen={chosen!r}")
    return cands[labels.index(chosen)]


def _acc(c: CandidateNumbers, hint: bool = True) -> str:
    if c.accuracy is None:
        return "accuracy not measured yet" + (" (a sweep on the Utility page measures it)" * hint)
    sd = f" ± {c.accuracy_std:.2f}" if c.accuracy_std is not None and math.isfinite(c.accuracy_std) else ""
    runs = f", {c.accuracy_runs} run{'s' * (c.accuracy_runs != 1)}" if c.accuracy_runs else ""
    return f"accuracy {c.accuracy:.2f}{sd} ({c.learner or 'learner'}{runs})"


def _eps_words(c: CandidateNumbers) -> str:
    parts = []
    if c.eps_whole is not None:
        parts.append(f"ε = {fmt_eps(c.eps_whole)} ({WHOLE}: {RELATION[WHOLE]})")
    if c.eps_features is not None:
        parts.append(f"ε = {fmt_eps(c.eps_features)} ({FEATURES}: {RELATION[FEATURES]})")
    text = " and ".join(parts) or "no ε"
    if c.eps_whole is None and c.whole_note:
        text += f"; not accountable under {WHOLE}: {c.whole_note}"
    return f"{text} at δ = {fmt_delta(c.delta)}"


def _baselines(c: CandidateNumbers) -> str:
    parts = []
    if c.majority is not None:
        parts.append(f"always guessing the largest class scores {c.majority:.2f}")
    if c.nonprivate is not None:
        parts.append(f"the same learner on the real data (no privacy) {c.nonprivate:.2f}")
    return ("; for scale, " + " and ".join(parts)) if parts else ""


def _tradeoff(chosen: CandidateNumbers, others: Sequence[CandidateNumbers]) -> str:
    """The chosen one against the other candidate (same relation) whose ε differs most, one
    with a measured accuracy preferred."""
    head = chosen.headline
    if head is None:
        return ""
    pairs = [(o, o.headline[0]) for o in others if o.headline and o.headline[1] == head[1]]
    if not pairs:
        return ""

    def spread(p) -> tuple:
        return (p[0].accuracy is not None, abs(math.log(max(p[1], 1e-300) / max(head[0], 1e-300))))

    other, eps_o = max(pairs, key=spread)
    text = (f" Trade-off against Candidate {other.label} (ε = {fmt_eps(eps_o)}, {head[1]}; "
            f"{_acc(other, hint=False)}): Candidate {chosen.label}'s ε is ")
    if eps_o > 0 and head[0] > 0 and not math.isclose(eps_o, head[0], rel_tol=1e-3):
        ratio = head[0] / eps_o
        text += (f"{ratio:.3g}× larger (less private)" if ratio > 1
                 else f"{1 / ratio:.3g}× smaller (more private)")
    else:
        text += "the same"
    if chosen.accuracy is not None and other.accuracy is not None:
        diff = chosen.accuracy - other.accuracy
        return text + f", for {abs(diff):.2f} {'more' if diff >= 0 else 'less'} accuracy."
    return text + "; the cost in accuracy is not known (not measured for both)."


def summary_paragraph(cands: Sequence[CandidateNumbers], chosen: str) -> str:
    """The report's first paragraph (plain text): the recommendation and the trade-off."""
    c = check_candidates(cands, chosen)
    others = [o for o in cands if o.label != chosen]
    n = len(cands)
    intro = (f"Recommendation: Candidate {c.label} of {n} compared" if n > 1
             else f"Recommendation: Candidate {c.label} (the only one compared)")
    return (f"{intro} — {c.describe()}: {_eps_words(c)}; {_acc(c)}{_baselines(c)}."
            + _tradeoff(c, others) + " Smaller ε is more private; every accuracy is on the real "
            "test split. The details of the chosen setting follow.")


def comparison_rows(cands: Sequence[CandidateNumbers], chosen: str | None = None) -> list[dict]:
    """The candidates side by side, one row each (None cells: not measured or not accountable)."""
    rows = []
    for c in cands:
        rows.append({
            "candidate": c.label + (" (chosen)" if c.label == chosen else ""),
            "setting": c.describe(),
            f"ε, {WHOLE}": c.eps_whole if c.eps_whole is not None else (
                "not accountable" if c.whole_note else None),
            f"ε, {FEATURES}": c.eps_features,
            "δ": c.delta,
            "accuracy (mean ± std)": None if c.accuracy is None else (
                f"{c.accuracy:.3f}" + (f" ± {c.accuracy_std:.3f}" if c.accuracy_std is not None
                                       and math.isfinite(c.accuracy_std) else "")),
            "runs, learner": f"{c.accuracy_runs}, {c.learner}" if c.accuracy is not None else None,
            "majority class": c.majority,
            "non-private": c.nonprivate,
            "fidelity (mean rel. distance)": c.fidelity,
        })
    # baseline columns only when some candidate has them (the module that measures them is optional)
    drop = [k for k in ("majority class", "non-private") if all(r[k] is None for r in rows)]
    return [{k: v for k, v in r.items() if k not in drop} for r in rows]


def report_name(c: CandidateNumbers, suffix: str = ".html") -> str:
    """``dpcda_report_<dataset>_l<l>_eps<ε>`` of the chosen setting: its target ε, else its
    headline ε (3 digits), else its noise."""
    import re

    head = c.headline
    noise = (f"eps{c.target_epsilon:.3g}" if c.target_epsilon is not None
             else f"eps{head[0]:.3g}" if head else f"sigma{c.sigma_x:.3g}")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", f"dpcda_report_{c.dataset}_l{c.l}_{noise}")
    return stem + suffix


def display_rows(rows: Sequence[dict]) -> list[dict]:
    """:func:`comparison_rows` as text for a page's table (numbers to 4 digits, None as "—")."""
    def text(v) -> str:
        if v is None:
            return "—"
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    return [{k: text(v) for k, v in r.items()} for r in rows]


def side_by_side(rows: Sequence[dict]) -> list[dict]:
    """:func:`comparison_rows` turned on its side: one row per quantity, one column per
    candidate (its ``candidate`` cell as the column name), so three fit a narrow screen or page."""
    if not rows:
        return []
    names = [str(r["candidate"]) for r in rows]
    return [{"": key, **{n: r.get(key) for n, r in zip(names, rows)}}
            for key in rows[0] if key != "candidate"]
