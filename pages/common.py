"""Shared UI helpers for the dashboard pages (not a page itself).

Everything here draws Streamlit widgets or formats numbers; the privacy mathematics lives in
:mod:`dpcda.privacy` and the public dataset facts in :mod:`dpcda.presets`. Pages import this
module as ``from pages.common import ...`` (``streamlit run app.py`` puts the repository root
on ``sys.path``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st

from dpcda.presets import get_preset, list_presets
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

CUSTOM = "custom"


def ensure_app_navigation() -> None:
    """Make sure this page runs inside app.py's ``st.navigation``; call it first in every page.

    Streamlit quirk (checked on 1.67): with a ``pages/`` folder beside app.py, a fresh server is
    in the legacy "pages directory" mode until some run calls ``st.navigation``. The first visitor
    who opens a deep link such as ``/privacy`` gets the page script run on its own: every file in
    ``pages/`` (common.py included) is listed as a page and app.py's page config is skipped.
    Leaving that mode and rerunning executes app.py, whose ``st.navigation`` then opens the
    requested page. Outside that situation this is a no-op.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the legacy mode
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


def nearest(values: tuple[float, ...], target: float) -> float:
    """The element of ``values`` closest to ``target`` (on a log scale for positive values)."""
    pos = [v for v in values if v > 0]
    return min(pos, key=lambda v: abs(math.log(v) - math.log(target)))


# --- formatting ---------------------------------------------------------------------------------

def fmt_sigma(s: float) -> str:
    return "0 (no privacy)" if s == 0 else f"{s:.3g}"


def fmt_delta(d: float) -> str:
    m, e = f"{d:.0e}".split("e")
    return f"{m}e-{int(e[1:])}" if e.startswith("-") else f"{m}e{int(e)}"


def fmt_eps(eps: float | None) -> str:
    """Human-readable epsilon; infinity is spelled out as "no privacy"."""
    if eps is None or (isinstance(eps, float) and math.isnan(eps)):
        return "n/a"
    if math.isinf(eps):
        return "∞ (no privacy)"
    if eps < 100:
        return f"{eps:.3g}"
    if eps < 1e5:
        return f"{eps:,.0f}"
    return f"{eps:.3g}"


def fmt_int(n: int) -> str:
    return f"{n:,}"


def fmt_alpha(a, bound=None) -> str:
    """A Rényi order: an integer, or a real order (closed-form accountants); for a PLD accountant
    (no order) its discretisation bound when given."""
    if a is None:
        return "—" if bound is None else f"none (PLD; exact ε within {bound:.2g} below)"
    return str(int(a)) if float(a).is_integer() else f"{float(a):.3g}"


# --- dataset choice -----------------------------------------------------------------------------

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


def parse_counts(text: str) -> tuple[int | None, tuple[int, ...] | None]:
    """Parse a typed dataset size: one integer is N, a comma-separated list is the class counts.

    Returns ``(n, class_counts)``; raises ``ValueError`` naming what was wrong.
    """
    parts = [p.strip().replace("_", "") for p in text.replace(";", ",").split(",")]
    parts = [p for p in parts if p]
    if not parts:
        raise ValueError("dataset size must be N (one integer) or comma-separated class counts, "
                         "got an empty value")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise ValueError("dataset size must be N (one integer) or comma-separated positive "
                         f"integer class counts such as '6000, 6000, 5000', got {text!r}") from None
    if any(v < 1 for v in values):
        raise ValueError(f"every count must be a positive integer, got {text!r}")
    if len(values) == 1:
        return values[0], None
    return sum(values), tuple(values)


def dataset_picker(prefix: str, *, container=st.sidebar) -> DatasetChoice:
    """A preset selectbox (public class counts of MNIST, ...) or a typed custom dataset.

    Widget keys are ``{prefix}preset``, ``{prefix}counts``, ``{prefix}dx``, ``{prefix}dy``.
    Raises ``ValueError`` (from :func:`parse_counts`) for an unparseable custom size.
    """
    options = list_presets() + [CUSTOM]

    def label(name: str) -> str:
        return "custom (type N or class counts)" if name == CUSTOM else get_preset(name).title

    name = container.selectbox("Dataset", options, index=0, format_func=label,
                               key=f"{prefix}preset", help="Public facts only (N, class counts, "
                               "dimensions); no data is loaded.")
    if name != CUSTOM:
        p = get_preset(name)
        return DatasetChoice(name, p.n, tuple(p.class_counts), p.d_x, p.d_y)
    text = container.text_input(
        "N, or class counts N_1, ..., N_K", value=", ".join(["6000"] * 10), key=f"{prefix}counts",
        help="One integer: the dataset size N (enough for the 'paper' accountant). A "
             "comma-separated list: the size of every class (needed by 'class-aware').")
    c1, c2 = container.columns(2)
    d_x = c1.number_input("d_x (features)", min_value=1, value=784, step=1, key=f"{prefix}dx",
                          help="Needed only by the DPMix accountants.")
    typed_k = len([t for t in text.split(",") if t.strip()])
    if typed_k >= 2:  # class counts given: the label dimension is their number
        c2.markdown(f"d_y (classes) = **{typed_k}**, one per class count")
        d_y = typed_k
    else:
        d_y = c2.number_input("d_y (classes)", min_value=1, value=10, step=1, key=f"{prefix}dy")
    n, counts = parse_counts(text)
    return DatasetChoice(CUSTOM, n, counts, int(d_x), len(counts) if counts else int(d_y))


def paper_vs_class_aware(paper: float | None, class_aware: float | None) -> str:
    """Markdown: the published accountant's ε beside the valid class-aware bound (SPEC §2)."""
    from dpcda.privacy import NOT_A_BOUND

    what = ("`class-aware` is a valid bound for Algorithm 1 as implemented: a record only enters "
            "the T_k mixtures of its own class, each drawn from its N_k records. `paper` is "
            f"Theorem 1 as published ({NOT_A_BOUND}): T mixtures drawn at rate l/N from all "
            "records, with label noise charged; it is kept for reproducing the paper's tables. "
            "Neither is uniformly larger: at large l the class-aware ε is about 3× the "
            "published one; at small l and small σ it is the smaller (it has no label term).")
    if not (paper and class_aware and math.isfinite(paper) and math.isfinite(class_aware)):
        missing = "" if class_aware is not None else (
            " The class-aware ε needs the class counts (pick a preset or type them).")
        return f"**Published vs class-aware.** {what}{missing}"
    k = class_aware / paper
    if k >= 1.05:
        verdict = f"the published number is {k:.2g}-fold below what Algorithm 1 spends"
    elif k <= 0.95:
        verdict = ("here the published analysis is the more cautious one: it charges label "
                   "noise that the class-aware view does not need")
    else:
        verdict = "the two agree to within 5%"
    return (f"**Published vs class-aware.** At this setting class-aware ε = {fmt_eps(class_aware)} "
            f"and paper ε = {fmt_eps(paper)} ({NOT_A_BOUND}): ratio class-aware / paper = "
            f"**{k:.2f}**, so {verdict}. {what}")


def accountant_choice(accountant: str) -> str:
    """How an accountant is offered in a DP-CDA selectbox (the default first, paper labelled)."""
    from dpcda.privacy import choice_label

    return choice_label(accountant, "dp-cda")


def epsilon_words(accountant: str, mechanism: str = "dp-cda") -> str:
    """Next to an ε: the accountant, NOT_A_BOUND where it applies, the neighbouring relation."""
    from dpcda.privacy import epsilon_note

    return epsilon_note(accountant, mechanism)


# --- the privacy footnote every page carries -------------------------------------------------

def privacy_footnote(accountant: str, conversion: str, *, what: str = "the headline epsilon",
                     delta: float | None = None, mechanism: str = "dp-cda") -> None:
    """A closing caption naming the accountant behind an epsilon and the assumptions it makes.

    Every page that shows an epsilon calls this once at the bottom (project rule: every page
    says which accountant produced an epsilon and under what assumptions).
    """
    from dpcda.privacy import ACCOUNTANT_INFO, CONVERSION_TITLES

    info = ACCOUNTANT_INFO[accountant]
    conv = (f"the **{conversion}** RDP → (ε, δ) conversion "
            f"({CONVERSION_TITLES.get(conversion, conversion)})" if info.uses_rdp
            else "exact composition of its privacy loss distribution (no RDP conversion)")
    st.divider()
    d = f", δ = {fmt_delta(delta)}" if delta is not None else ""
    from dpcda.privacy import caveat

    note = caveat(accountant, mechanism)
    st.caption(f"**Privacy footnote.** {what[:1].upper() + what[1:]} was computed by the "
               f"**{accountant}** accountant ({info.title}"
               + (f"; **{note}**" if note else "") + f") with {conv}{d}. Neighbours: "
               f"{info.relation} Its assumptions: " + " ".join(info.assumptions.split()))


def accountant_assumptions(names: list[str]) -> None:
    """An expander explaining, in plain words, what each accountant assumes."""
    from dpcda.privacy import ACCOUNTANT_INFO

    with st.expander("What each accountant assumes"):
        for name in names:
            info = ACCOUNTANT_INFO[name]
            st.markdown(f"**`{name}`: {info.title}**")
            st.markdown(info.assumptions)


# --- cached privacy computations (all inputs are plain values, so st.cache_data keys on them) ---

def _setting_kwargs(n, class_counts, d_x, d_y, c, T, delta):
    return dict(c=c, T=T, delta=delta, n=n, class_counts=class_counts, d_x=d_x, d_y=d_y)


@st.cache_data(show_spinner=False, max_entries=256)
def epsilon_table(l: int, sigma_x: float, sigma_y: float, *, n: int, class_counts, d_x, d_y,
                  c: float, T: int, delta: float, conversion: str, max_alpha: int) -> list[dict]:
    """One row per accountant at one setting: epsilon, alpha, warnings or the error message."""
    from dpcda.privacy import PrivacyParams, compute_epsilon, list_accountants

    rows = []
    for name in list_accountants():
        row = {"accountant": name, "epsilon": None, "alpha": None, "notes": ""}
        try:
            p = PrivacyParams(l=l, sigma_x=sigma_x, sigma_y=sigma_y,
                              **_setting_kwargs(n, class_counts, d_x, d_y, c, T, delta))
            r = compute_epsilon(p, accountant=name, conversion=conversion, max_alpha=max_alpha)
            row.update(epsilon=float(r.epsilon), alpha=r.alpha, notes=" ".join(r.warnings),
                       bound=r.discretisation_bound)
        except ValueError as exc:
            row["notes"] = f"not available: {exc}"
        rows.append(row)
    return rows


@st.cache_data(show_spinner="Computing the ε curves…", max_entries=64)
def figure4_grid(ls: tuple[int, ...], sigmas: tuple[float, ...], *, accountant: str, ratio: float,
                 n: int, class_counts, d_x, d_y, c: float, T: int, delta: float, conversion: str,
                 max_alpha: int) -> dict[int, list[float] | str]:
    """epsilon(sigma) for every l (row), or the error message for an l that cannot be computed."""
    from dpcda.privacy import epsilon_grid

    kw = dict(sigmas=np.asarray(sigmas), accountant=accountant, conversion=conversion,
              ratio=ratio, max_alpha=max_alpha,
              **_setting_kwargs(n, class_counts, d_x, d_y, c, T, delta))
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


@st.cache_data(show_spinner="Calibrating the noise for every l…", max_entries=64)
def calibration_rows(target: float, ls: tuple[int, ...], *, accountant: str, ratio: float, n: int,
                     class_counts, d_x, d_y, c: float, T: int, delta: float, conversion: str,
                     max_alpha: int) -> list[dict]:
    """The noise that reaches a target epsilon, for every l (the paper's Table 3 procedure).

    A PLD accountant calibrates on the (cached) Figure-4 curves, one coarse evaluation per l
    (``calibrate_on_curve``): a new target costs ~10 evaluations instead of ~200.
    """
    from dpcda.privacy import calibrate, calibrate_on_curve, get_accountant

    kw = _setting_kwargs(n, class_counts, d_x, d_y, c, T, delta)
    curves = {}
    if not get_accountant(accountant).uses_rdp:
        curves = figure4_grid(ls, SIGMA_GRID[::2], accountant=accountant, ratio=ratio,
                              conversion=conversion, max_alpha=max_alpha, n=n,
                              class_counts=class_counts, d_x=d_x, d_y=d_y, c=c, T=T, delta=delta)
    rows = []
    for l in ls:
        row = dict(l=l, sigma_x=None, sigma_y=None, epsilon=None, alpha=None, notes="")
        curve = curves.get(l)
        if curve is not None and not isinstance(curve, str):
            got = calibrate_on_curve(epsilon=target, sigmas=SIGMA_GRID[::2], curve=curve, l=l,
                                     accountant=accountant, conversion=conversion, ratio=ratio,
                                     max_alpha=max_alpha, **kw)
            if got is not None:
                row.update(sigma_x=got[0], sigma_y=ratio * got[0], epsilon=got[1],
                           notes=f"from the curve grid (value_interval {CURVE_VALUE_INTERVAL:g})")
                rows.append(row)
                continue
        try:
            cal = calibrate(epsilon=target, l=l, accountant=accountant, conversion=conversion,
                            ratio=ratio, max_alpha=max_alpha,
                            **_setting_kwargs(n, class_counts, d_x, d_y, c, T, delta))
            row.update(sigma_x=float(cal.sigma_x), sigma_y=float(cal.sigma_y),
                       epsilon=float(cal.epsilon), alpha=cal.alpha,
                       bound=cal.result.discretisation_bound,
                       notes=" ".join(getattr(cal.result, "warnings", ())))
        except ValueError as exc:
            row["notes"] = str(exc)
        rows.append(row)
    return rows


# --- figures ---------------------------------------------------------------------------------

#: Figure 4's epsilon axis stops here (the paper's figure spans a similar range); larger values
#: (tiny sigma, small l) still show on hover.
EPS_PLOT_MAX = 1e4


def log_ticks(lo: float, hi: float) -> dict:
    """Tick values 1, 2, 5 x 10^k between ``lo`` and ``hi`` (only decades over a wide range)."""
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mantissas = (1, 2, 5) if k1 - k0 <= 4 else (1,)
    vals = [m * 10.0**k for k in range(k0, k1 + 1) for m in mantissas]
    vals = [v for v in vals if lo / 1.3 <= v <= hi * 1.3]
    return dict(tickvals=vals, ticktext=[f"{v:g}" for v in vals])


def figure4(grid: dict, sigmas, *, star: tuple[float, float] | None, current_l: int, title: str,
            x_title: str = "σ_x = σ_y"):
    """The paper's Figure 4: epsilon against sigma, a log-log curve per l, the setting starred."""
    import plotly.graph_objects as go
    from plotly.colors import sample_colorscale

    drawn = [l for l, v in grid.items() if not isinstance(v, str)]
    # Viridis without its pale-yellow end, which vanishes on a white background.
    colors = sample_colorscale("Viridis",
                               [0.88 * i / max(1, len(grid) - 1) for i in range(len(grid))])
    fig = go.Figure()
    for color, (l, eps) in zip(colors, grid.items()):
        if isinstance(eps, str):
            continue
        y = [e if math.isfinite(e) else None for e in eps]
        fig.add_trace(go.Scatter(
            x=list(sigmas), y=y, mode="lines", name=f"l = {l}",
            line=dict(color=color, width=3.5 if l == current_l else 1.8),
            hovertemplate=f"l = {l}<br>σ = %{{x:.3g}}<br>ε = %{{y:.4g}}<extra></extra>"))
    if star is not None:
        fig.add_trace(go.Scatter(
            x=[star[0]], y=[star[1]], mode="markers", name=f"current (l = {current_l})",
            marker=dict(symbol="star", size=18, color="#d62728", line=dict(width=1, color="black")),
            hovertemplate="current setting<br>σ_x = %{x:.3g}<br>ε = %{y:.4g}<extra></extra>"))
    finite = [e for l in drawn for e in grid[l] if math.isfinite(e) and e > 0]
    lo = max(min(finite), 1e-3) if finite else 1e-2
    hi = min(max(finite), EPS_PLOT_MAX) if finite else EPS_PLOT_MAX
    fig.update_xaxes(type="log", title=x_title, **log_ticks(min(sigmas), max(sigmas)))
    fig.update_yaxes(type="log", title="ε", range=[math.log10(lo) - 0.1, math.log10(hi) + 0.1],
                     **log_ticks(lo, hi))
    fig.update_layout(title=title, height=480, margin=dict(l=10, r=10, t=50, b=10),
                      legend=dict(title="order of mixture"))
    return fig, drawn


def calibration_figure(rows: list[dict], *, target: float):
    """sigma_x needed for the target epsilon as a function of l (log-log)."""
    import plotly.graph_objects as go

    ok = [r for r in rows if r["sigma_x"] is not None]
    fig = go.Figure(go.Scatter(
        x=[r["l"] for r in ok], y=[r["sigma_x"] for r in ok], mode="lines+markers", name="σ_x",
        hovertemplate="l = %{x}<br>σ_x = %{y:.4g}<extra></extra>"))
    fig.update_xaxes(type="log", title="l", tickvals=POWERS_OF_TWO,
                     ticktext=[str(v) for v in POWERS_OF_TWO])
    sig = [r["sigma_x"] for r in ok]
    fig.update_yaxes(type="log", title="σ_x", **(log_ticks(min(sig), max(sig)) if sig else {}))
    fig.update_layout(title=f"noise for ε = {target:g}", height=320, showlegend=False,
                      margin=dict(l=10, r=10, t=40, b=10))
    return fig


# --- the "Explain" toggle ---------------------------------------------------------------------

EXPLAIN_KEY = "explain_notes"


def explain_toggle() -> bool:
    """The sidebar's "Explain" toggle (on for a first visit; ``?explain=0`` turns it off)."""
    if EXPLAIN_KEY not in st.session_state:
        st.session_state[EXPLAIN_KEY] = st.query_params.get("explain", "1") != "0"
    return st.sidebar.toggle("Explain", key=EXPLAIN_KEY,
                             help="Plain-language notes beside every input: what it does and "
                                  "which direction is more private.")


def explain(key: str, *, container=None) -> None:
    """Draw input ``key``'s plain note (and its privacy direction) when Explain is on."""
    from dpcda.explain import ends_text, get_note

    if not st.session_state.get(EXPLAIN_KEY, True):
        return
    note = get_note(key)
    ends = ends_text(key)
    (container or st).caption(note.text + (f"  \n{ends}" if ends else ""))
