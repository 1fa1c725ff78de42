"""What the Privacy explorer computes: value grids, a dataset's public facts, ε under every
accountant, the Figure-4 curves, the Table-3 calibration, and the published-vs-class-aware rule.

Pure (numpy + :mod:`dpcda.privacy`); the dashboard wraps these in ``st.cache_data`` and the
report reuses them. Rows are plain dicts so a cache can key on the inputs and a table can show
them; a value that cannot be computed is ``None`` with the reason in ``notes``.

>>> rows = epsilon_table(4, 0.5, 0.5, n=60000, class_counts=None, d_x=784, d_y=10, c=1.0,
...                      T=60000, delta=1e-5, conversion="mironov", max_alpha=256)
>>> [r["accountant"] for r in rows][:1]                                   # doctest: +SKIP
['class-aware']
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcda.report.formatting import EMPTY, fmt_alpha, fmt_eps, fmt_int
from dpcda.privacy.pld import CURVE_VALUE_INTERVAL

# --- value grids for the log-scale controls ---------------------------------------------------

#: Orders of mixture offered by the l control: every integer up to 16, then 8 steps per
#: doubling, so each power of two up to 512 is one option and one keyboard step away.
L_VALUES: tuple[int, ...] = tuple(
    list(range(1, 17))
    + [v for lo in (16, 32, 64, 128, 256) for v in range(lo + lo // 8, 2 * lo + 1, lo // 8)]
)
#: The orders of mixture drawn in the paper's Figure 4 and used for Table 3.
POWERS_OF_TWO: tuple[int, ...] = tuple(2**i for i in range(10))  # 1 .. 512

#: Noise scales: 0 (the non-private setting) then 121 log-spaced values from 0.01 to 10.
SIGMA_GRID: tuple[float, ...] = tuple(float(v) for v in np.geomspace(0.01, 10.0, 121))
SIGMA_VALUES: tuple[float, ...] = (0.0,) + SIGMA_GRID

#: delta on a 1-2-5 log scale from 1e-10 to 1e-2.
DELTA_VALUES: tuple[float, ...] = tuple(
    float(f"{m}e{e}") for e in range(-10, -2) for m in (1, 2, 5)
) + (1e-2,)


# --- the private dataset's public facts -------------------------------------------------------

@dataclass(frozen=True)
class DatasetChoice:
    """What a privacy calculation needs to know about the private dataset (all public)."""

    name: str
    n: int
    class_counts: tuple[int, ...] | None
    d_x: int | None
    d_y: int | None

    @property
    def smallest_class(self) -> int | None:
        return min(self.class_counts) if self.class_counts else None

    def describe(self) -> str:
        parts = [f"N = {fmt_int(self.n)}"]
        if self.class_counts:
            parts.append(f"K = {len(self.class_counts)} classes, "
                         f"smallest {fmt_int(self.smallest_class)}")
        if self.d_x:
            parts.append(f"d_x = {self.d_x}, d_y = {self.d_y}")
        return ", ".join(parts)


# --- the published accountant against the valid one (docs/specification.md §2) -------------------

#: Ratio class-aware / paper beyond which one is called larger (5%).
AGREE_WITHIN = 0.05


@dataclass(frozen=True)
class PublishedVsValid:
    """``verdict``: ``"published_below"`` (the paper's ε understates what Algorithm 1 spends),
    ``"published_above"``, ``"agree"`` (within 5%) or ``"missing"`` (one ε not computable);
    ``ratio`` = class-aware / paper (``None`` when missing)."""

    verdict: str
    ratio: float | None
    paper: float | None
    class_aware: float | None


def published_vs_valid(paper: float | None, class_aware: float | None) -> PublishedVsValid:
    """Compare the published ``paper`` ε with the valid ``class-aware`` ε at one setting."""
    if not (paper and class_aware and math.isfinite(paper) and math.isfinite(class_aware)):
        return PublishedVsValid("missing", None, paper, class_aware)
    k = class_aware / paper
    verdict = ("published_below" if k >= 1 + AGREE_WITHIN else
               "published_above" if k <= 1 - AGREE_WITHIN else "agree")
    return PublishedVsValid(verdict, k, paper, class_aware)


def paper_vs_class_aware(paper: float | None, class_aware: float | None) -> str:
    """Markdown: the published accountant's ε beside the valid class-aware bound
    (docs/specification.md §2)."""
    from dpcda.privacy import NOT_A_BOUND

    what = ("`class-aware` is a valid bound for Algorithm 1 as implemented: a record only enters "
            "the T_k mixtures of its own class, each drawn from its N_k records. `paper` is "
            f"Theorem 1 as published ({NOT_A_BOUND}): T mixtures drawn at rate l/N from all "
            "records, with label noise charged; it is kept for reproducing the paper's tables. "
            "Neither is uniformly larger: at large l the class-aware ε is about 3× the "
            "published one; at small l and small σ it is the smaller (it has no label term).")
    cmp = published_vs_valid(paper, class_aware)
    if cmp.verdict == "missing":
        missing = "" if class_aware is not None else (
            " The class-aware ε needs the class counts (pick a preset or type them).")
        return f"**Published vs class-aware.** {what}{missing}"
    verdict = {
        "published_below": f"the published number is {cmp.ratio:.2g}-fold below what "
                           "Algorithm 1 spends",
        "published_above": "here the published analysis is the more cautious one: it charges "
                           "label noise that the class-aware view does not need",
        "agree": "the two agree to within 5%"}[cmp.verdict]
    return (f"**Published vs class-aware.** At this setting class-aware ε = {fmt_eps(class_aware)} "
            f"and paper ε = {fmt_eps(paper)} ({NOT_A_BOUND}): ratio class-aware / paper = "
            f"**{cmp.ratio:.2f}**, so {verdict}. {what}")


# --- ε at one setting, the Figure-4 curves, the Table-3 calibration ---------------------------

def _setting(n, class_counts, d_x, d_y, c, T, delta) -> dict:
    return dict(c=c, T=T, delta=delta, n=n, class_counts=class_counts, d_x=d_x, d_y=d_y)


def epsilon_table(l: int, sigma_x: float, sigma_y: float, *, n: int, class_counts, d_x, d_y,
                  c: float, T: int, delta: float, conversion: str, max_alpha: int,
                  allocation: str = "equal") -> list[dict]:
    """One row per accountant at one setting: ``accountant``, ``epsilon``, ``alpha``, ``bound``
    (a PLD discretisation bound) and ``notes`` (warnings, or why it is not available).
    ``allocation``: how T is split over the classes (needs ``class_counts`` unless equal)."""
    from dpcda.privacy import PrivacyParams, compute_epsilon, list_accountants

    rows = []
    for name in list_accountants():
        row = {"accountant": name, "epsilon": None, "alpha": None, "notes": ""}
        try:
            p = PrivacyParams(l=l, sigma_x=sigma_x, sigma_y=sigma_y, allocation=allocation,
                              **_setting(n, class_counts, d_x, d_y, c, T, delta))
            r = compute_epsilon(p, accountant=name, conversion=conversion, max_alpha=max_alpha)
            row.update(epsilon=float(r.epsilon), alpha=r.alpha, notes=" ".join(r.warnings),
                       bound=r.discretisation_bound)
        except ValueError as exc:
            row["notes"] = f"not available: {exc}"
        rows.append(row)
    return rows


def epsilon_table_text(rows: list[dict]) -> list[dict]:
    """:func:`epsilon_table`'s rows as the Privacy page shows them (text cells): the accountant
    (as code), what it is, ε, whether it bounds DP-CDA as implemented, α, warnings."""
    from dpcda.privacy import ACCOUNTANT_INFO, caveat

    return [{"accountant": f"`{row['accountant']}`",
             "what it is": ACCOUNTANT_INFO[row["accountant"]].title,
             "ε": fmt_eps(row["epsilon"]) if row["epsilon"] is not None else EMPTY,
             "bound for DP-CDA as implemented": caveat(row["accountant"]) or "valid bound",
             "α": fmt_alpha(row["alpha"], row.get("bound")),
             "warnings": row["notes"] or EMPTY} for row in rows]


def figure4_grid(ls, sigmas, *, accountant: str, ratio: float, n: int, class_counts, d_x, d_y,
                 c: float, T: int, delta: float, conversion: str,
                 max_alpha: int) -> dict[int, list[float] | str]:
    """ε(σ) for every l (the paper's Figure 4), or the error message for an l that fails."""
    from dpcda.privacy import epsilon_grid

    kw = dict(sigmas=np.asarray(sigmas), accountant=accountant, conversion=conversion,
              ratio=ratio, max_alpha=max_alpha, **_setting(n, class_counts, d_x, d_y, c, T, delta))
    try:  # one vectorized call for the whole family
        eps = np.asarray(epsilon_grid(ls=list(ls), **kw))
        return {l: [float(v) for v in row] for l, row in zip(ls, eps)}
    except ValueError:
        pass
    out: dict[int, list[float] | str] = {}
    for l in ls:  # some l is invalid: find which, keep the others
        try:
            out[l] = [float(v) for v in np.asarray(epsilon_grid(ls=[l], **kw))[0]]
        except ValueError as exc:
            out[l] = str(exc)
    return out


def curve_note(accountant: str) -> str:
    """How a σ calibrated on the Figure-4 curves was checked: an RDP accountant's ε is exact
    at that σ; a PLD accountant's is an upper bound on the curves' loss grid, whose step is
    chosen per setting (:func:`dpcda.privacy.pld.auto_value_intervals`: 1e-3, doubled where
    the privacy-loss window is wide), coarser than a single ε's grid."""
    from dpcda.privacy import get_accountant

    if get_accountant(accountant).uses_rdp:
        return "from the curve grid (σ interpolated between grid points, its ε checked)"
    return ("from the curve grid (its ε an upper bound on a privacy-loss grid of step "
            f"{CURVE_VALUE_INTERVAL:g} or coarser, chosen per setting)")


def calibration_rows(target: float, ls, *, accountant: str, ratio: float, n: int, class_counts,
                     d_x, d_y, c: float, T: int, delta: float, conversion: str, max_alpha: int,
                     curves: dict | None = None) -> list[dict]:
    """The noise that reaches a target ε for every l (the paper's Table 3 procedure).

    ``curves``: Figure-4 curves on ``SIGMA_GRID[::2]`` (a PLD accountant calibrates on them
    with ``calibrate_on_curve``: ~10 evaluations per target instead of ~200); an l whose curve
    is missing or does not reach the target is calibrated directly.
    """
    from dpcda.privacy import calibrate, calibrate_on_curve

    kw = _setting(n, class_counts, d_x, d_y, c, T, delta)
    rows = []
    for l in ls:
        row = dict(l=l, sigma_x=None, sigma_y=None, epsilon=None, alpha=None, notes="")
        curve = (curves or {}).get(l)
        if curve is not None and not isinstance(curve, str):
            got = calibrate_on_curve(epsilon=target, sigmas=SIGMA_GRID[::2], curve=curve, l=l,
                                     accountant=accountant, conversion=conversion, ratio=ratio,
                                     max_alpha=max_alpha, **kw)
            if got is not None:
                row.update(sigma_x=got[0], sigma_y=ratio * got[0], epsilon=got[1],
                           notes=curve_note(accountant))
                rows.append(row)
                continue
        try:
            cal = calibrate(epsilon=target, l=l, accountant=accountant, conversion=conversion,
                            ratio=ratio, max_alpha=max_alpha, **kw)
            row.update(sigma_x=float(cal.sigma_x), sigma_y=float(cal.sigma_y),
                       epsilon=float(cal.epsilon), alpha=cal.alpha,
                       bound=cal.result.discretisation_bound,
                       notes=" ".join(getattr(cal.result, "warnings", ())))
        except ValueError as exc:
            row["notes"] = str(exc)
        rows.append(row)
    return rows
