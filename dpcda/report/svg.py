"""Inline SVG charts for the report and the Privacy page (no plotting library, no script, no
network).

:func:`line_chart` draws one or more series (mean with ± error bars) against a linear or log
x axis, with an optional marked point (the current setting); :func:`frontier_svg` the Privacy
page's privacy-utility frontier (a step per measured release, hover titles). Pure string building.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape

COLOURS = ("#2f5fb3", "#d9822b", "#2a9d5c", "#9b59b6", "#c0392b", "#5f6570")
W, H = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 62, 150, 34, 48


@dataclass(frozen=True)
class Series:
    """One line: ``xs`` and ``ys`` (same length), optional ``errs`` (± half-widths)."""

    label: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    errs: tuple[float | None, ...] = field(default=())
    dashed: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "xs", tuple(float(v) for v in self.xs))
        object.__setattr__(self, "ys", tuple(float(v) for v in self.ys))
        object.__setattr__(self, "errs", tuple(None if e is None or e != e else float(e)
                                               for e in self.errs))
        if len(self.xs) != len(self.ys) or (self.errs and len(self.errs) != len(self.xs)):
            raise ValueError(f"series {self.label!r}: xs, ys (and errs) must have one length, got "
                             f"{len(self.xs)}, {len(self.ys)}, {len(self.errs)}")


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def nice_ticks(lo: float, hi: float, log: bool) -> list[float]:
    """Tick values: 1-2-5 decades (log) or about six round steps (linear)."""
    if log:
        k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        mant = (1, 2, 5) if k1 - k0 <= 3 else (1,)
        return [m * 10.0**k for k in range(k0, k1 + 1) for m in mant if lo <= m * 10.0**k <= hi]
    span = hi - lo or 1.0
    step = 10 ** math.floor(math.log10(span / 5))
    step *= next(m for m in (1, 2, 5, 10) if span / (step * m) <= 6)
    start = math.ceil(lo / step) * step
    return [round(start + i * step, 10) for i in range(int((hi - start) / step) + 1)]


def line_chart(series: list[Series], *, title: str, x_title: str, y_title: str,
               x_log: bool = False, y_range: tuple[float, float] | None = None,
               x_ticks: list[tuple[float, str]] | None = None,
               marker: tuple[float, float, str] | None = None) -> str:
    """An ``<svg>`` element (a string): the series, axes, legend and the optional marker."""
    pts = [(x, y) for s in series for x, y in zip(s.xs, s.ys) if math.isfinite(y)]
    if marker is not None:
        pts.append(marker[:2])
    if not pts:
        raise ValueError("line_chart needs at least one finite point")
    xs = [x for x, _ in pts]
    if x_log and min(xs) <= 0:
        raise ValueError(f"a log x axis needs x > 0, got {min(xs)}")
    x0, x1 = min(xs), max(xs)
    if x0 == x1:
        x0, x1 = (x0 / 2, x1 * 2) if x_log else (x0 - 1, x1 + 1)
    if y_range is None:
        ys = [y for _, y in pts]
        y0, y1 = min(ys), max(ys)
        pad = (y1 - y0) * 0.1 or 0.05
        y_range = (y0 - pad, y1 + pad)
    y0, y1 = y_range
    fx = (lambda v: math.log10(v)) if x_log else (lambda v: v)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(v: float) -> float:
        return LEFT + (fx(v) - fx(x0)) / (fx(x1) - fx(x0)) * pw

    def py(v: float) -> float:
        return TOP + (1 - (v - y0) / (y1 - y0)) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" '
           f'height="{H}" role="img" aria-label="{escape(title)}" font-family="sans-serif" '
           'font-size="12">',
           f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14">{escape(title)}</text>',
           f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="white" stroke="#888"/>']
    for v in nice_ticks(y0, y1, False):
        y = py(v)
        out.append(f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                   f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{_fmt(v)}</text>')
    ticks = x_ticks or [(v, _fmt(v)) for v in nice_ticks(x0, x1, x_log)]
    for v, lab in ticks:
        if x0 <= v <= x1:
            x = px(v)
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + ph}" stroke="#eee"/>'
                       f'<text x="{x:.1f}" y="{TOP + ph + 16}" text-anchor="middle">'
                       f'{escape(lab)}</text>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 8}" text-anchor="middle">{escape(x_title)}</text>'
               f'<text transform="translate(14 {TOP + ph / 2}) rotate(-90)" text-anchor="middle">'
               f'{escape(y_title)}</text>')
    for i, s in enumerate(series):
        col = COLOURS[i % len(COLOURS)]
        ok = [(x, y, s.errs[k] if s.errs else None) for k, (x, y) in enumerate(zip(s.xs, s.ys))
              if math.isfinite(y)]
        ok.sort()
        if len(ok) > 1:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y, _ in ok)
            dash = ' stroke-dasharray="6 4"' if s.dashed else ""
            out.append(f'<polyline points="{path}" fill="none" stroke="{col}" stroke-width="2"{dash}/>')
        for x, y, e in ok:
            if e:
                out.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{py(y - e):.1f}" '
                           f'y2="{py(y + e):.1f}" stroke="{col}"/>')
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="{col}">'
                       f'<title>{escape(s.label)}: x = {_fmt(x)}, y = {_fmt(y)}'
                       + (f' ± {_fmt(e)}' if e else "") + '</title></circle>')
        ly = TOP + 14 + 18 * i
        out.append(f'<line x1="{W - RIGHT + 10}" x2="{W - RIGHT + 30}" y1="{ly - 4}" y2="{ly - 4}" '
                   f'stroke="{col}" stroke-width="2"/>'
                   f'<text x="{W - RIGHT + 34}" y="{ly}">{escape(s.label[:22])}</text>')
    if marker is not None:
        mx, my, lab = marker
        out.append(f'<circle cx="{px(mx):.1f}" cy="{py(my):.1f}" r="7" fill="none" stroke="#d62728" '
                   f'stroke-width="2.5"><title>{escape(lab)}</title></circle>')
        ly = TOP + 14 + 18 * len(series)
        out.append(f'<circle cx="{W - RIGHT + 20}" cy="{ly - 4}" r="5" fill="none" stroke="#d62728" '
                   f'stroke-width="2"/><text x="{W - RIGHT + 34}" y="{ly}">{escape(lab[:22])}</text>')
    out.append("</svg>")
    return "".join(out)


#: The frontier chart's two series, as its legend names them.
FRONTIER = "best measured (best l)"
HERE = "this setting"
_BLUE, _RED = "#1f77b4", "#d62728"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _log_tick(v: float) -> str:
    """A log axis label: 0.02, 1, 500 as written; 10³, 2·10³, 10⁻³ outside [0.01, 1000)."""
    if 0.01 <= v < 1000:
        return f"{v:g}"
    k = math.floor(math.log10(v) + 1e-9)
    m = round(v / 10.0**k, 3)
    return ("" if m == 1 else f"{m:g}·") + "10" + str(k).translate(_SUPERSCRIPT)


def _text(v: str) -> str:
    """Escaped SVG text on one line (a blank line would end st.markdown's HTML block)."""
    return escape(" ".join(str(v).split()))


def _star(cx: float, cy: float, r: float) -> str:
    """A five-pointed star's polygon points around (cx, cy), outer radius ``r``."""
    pts = []
    for k in range(10):
        a = math.pi / 2 + k * math.pi / 5
        rad = r if k % 2 == 0 else r * 0.382
        pts.append(f"{cx + rad * math.cos(a):.1f},{cy - rad * math.sin(a):.1f}")
    return " ".join(pts)


def frontier_svg(front: list[dict], *, star: tuple[float, float] | None = None,
                 eps_now: float | None = None, title: str, subtitle: str = "",
                 levels: tuple[tuple[float, str], ...] = ()) -> str:
    """The privacy-utility frontier as an inline ``<svg>`` (a string, no script): test accuracy
    against ε on a log axis, a step per row of ``front`` (keys epsilon, mean, min, max, l,
    sigma_x, runs; :func:`dpcda.experiments.frontier.frontier`) with a bar over its runs' range and a hover
    title (ε, accuracy, l, σ, runs, learner where given); this setting as a red star at
    ``star`` = (ε, accuracy) when it was measured, else a dashed rule at ``eps_now`` (nothing
    when ε is not finite). Rows without a finite positive ε or a finite mean are left out; the
    rest are drawn in ε order.
    ``levels``: (accuracy, label) pairs drawn as dotted horizontal rules (the majority-class
    rate, the non-private ceiling: :mod:`dpcda.evaluation.baselines`). Scales to its
    container's width."""
    pts = sorted((r for r in front if math.isfinite(r["epsilon"]) and r["epsilon"] > 0
                  and math.isfinite(r["mean"])), key=lambda r: r["epsilon"])
    if star is not None and not (math.isfinite(star[0]) and star[0] > 0
                                 and math.isfinite(star[1])):
        star = None
    rule = None if star is not None or eps_now is None or not math.isfinite(eps_now) \
        or eps_now <= 0 else float(eps_now)
    xs = [r["epsilon"] for r in pts] + ([star[0]] if star else []) + ([rule] if rule else [])
    if not xs:
        raise ValueError("frontier_svg needs at least one finite positive epsilon")
    x0, x1 = min(xs) / 1.25, max(xs) * 1.25
    while len(nice_ticks(x0, x1, True)) < 2:  # e.g. one point: widen until two ticks show
        x0, x1 = x0 / 2, x1 * 2
    levels = tuple((float(v), str(lab)) for v, lab in levels if v is not None and math.isfinite(v))
    top = max([1e-9] + [r["max"] for r in pts if math.isfinite(r["max"])]
              + ([star[1]] if star else []) + [v for v, _ in levels])
    y1 = 1.0 if top > 0.5 else 0.5
    w, h, left, right, t, bottom = 420, 300, 46, 12, 46, 66
    pw, ph = w - left - right, h - t - bottom

    def px(v: float) -> float:
        return left + (math.log10(v) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * pw

    def py(v: float) -> float:
        return t + (1 - min(max(v, 0.0), y1) / y1) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="100%" '
           f'style="max-width:{w}px;height:auto" role="img" aria-label="{_text(title)}" '
           # The open tag alone on its line: a markdown renderer (st.markdown) then takes the
           # whole chart as one HTML block and leaves its text alone.
           'font-family="sans-serif" font-size="12">\n',
           f'<text x="{left}" y="18" font-size="15" font-weight="600">{_text(title)}</text>',
           f'<text x="{left}" y="35" fill="#555">{_text(subtitle)}</text>',
           f'<rect x="{left}" y="{t}" width="{pw}" height="{ph}" fill="white" stroke="#888"/>']
    for v in nice_ticks(0.0, y1, False):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{py(v):.1f}" y2="{py(v):.1f}" '
                   f'stroke="#eee"/><text x="{left - 6}" y="{py(v) + 4:.1f}" '
                   f'text-anchor="end">{_fmt(v)}</text>')
    for v in nice_ticks(x0, x1, True):
        out.append(f'<line x1="{px(v):.1f}" x2="{px(v):.1f}" y1="{t}" y2="{t + ph}" stroke="#eee"/>'
                   f'<text x="{px(v):.1f}" y="{t + ph + 16}" text-anchor="middle">'
                   f'{_log_tick(v)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{t + ph + 34}" text-anchor="middle">'
               'ε (smaller is more private)</text>'
               f'<text transform="translate(14 {t + ph / 2}) rotate(-90)" '
               'text-anchor="middle">test accuracy</text>')
    for v, lab in levels:
        out.append(f'<line class="frontier-level" data-level="{v!r}" x1="{left}" x2="{left + pw}" '
                   f'y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#999" stroke-dasharray="2 3"/>'
                   f'<text x="{left + 4}" y="{py(v) - 3:.1f}" fill="#666" font-size="10">'
                   f'{escape(lab)} {v:.3f}</text>')
    if pts:
        path = f"M{px(pts[0]['epsilon']):.1f},{py(pts[0]['mean']):.1f}" + "".join(
            f"H{px(b['epsilon']):.1f}V{py(b['mean']):.1f}" for b in pts[1:])
        out.append(f'<path class="frontier-step" d="{path}" fill="none" stroke="{_BLUE}" '
                   'stroke-width="2"/>')
    for r in pts:
        x = px(r["epsilon"])
        if math.isfinite(r["min"]) and math.isfinite(r["max"]) and r["max"] > r["min"]:
            out.append(f'<line class="frontier-range" x1="{x:.1f}" x2="{x:.1f}" '
                       f'y1="{py(r["min"]):.1f}" y2="{py(r["max"]):.1f}" stroke="{_BLUE}"/>')
        spread = (f" (runs {r['min']:.3f}–{r['max']:.3f})" if math.isfinite(r["min"])
                  and math.isfinite(r["max"]) and r["max"] > r["min"] else "")
        learner = f", learner {r['learner']}" if r.get("learner") else ""
        tip = (f"ε = {r['epsilon']:.3g}, accuracy = {r['mean']:.3f}{spread}, l = {r['l']}, "
               f"σ = {r['sigma_x']:.3g}, runs = {r['runs']}{learner}")
        out.append(f'<circle class="frontier-point" data-epsilon="{float(r["epsilon"])!r}" '
                   f'data-mean="{float(r["mean"])!r}" data-l="{int(r["l"])}" cx="{x:.1f}" '
                   f'cy="{py(r["mean"]):.1f}" r="4" fill="{_BLUE}"><title>{escape(tip)}</title>'
                   '</circle>')
    if star is not None:
        out.append(f'<polygon class="here-star" data-epsilon="{float(star[0])!r}" '
                   f'data-mean="{float(star[1])!r}" '
                   f'points="{_star(px(star[0]), py(star[1]), 11)}" fill="{_RED}" '
                   f'stroke="black"><title>{escape(HERE)}: ε = {star[0]:.3g}, accuracy = '
                   f'{star[1]:.3f}</title></polygon>')
    if rule is not None:
        out.append(f'<line class="here-rule" data-epsilon="{rule!r}" x1="{px(rule):.1f}" '
                   f'x2="{px(rule):.1f}" y1="{t}" y2="{t + ph}" '
                   f'stroke="gray" stroke-dasharray="4 4"><title>this ε = {rule:.3g}</title></line>'
                   + (f'<text x="{px(rule) - 4:.1f}" y="{t + 14}" fill="gray" text-anchor="end">'
                      if px(rule) > left + pw - 50 else  # near the right edge: label on its left
                      f'<text x="{px(rule) + 4:.1f}" y="{t + 14}" fill="gray">') + 'this ε</text>')
    ly, lx = h - 10, left + 200
    out.append(f'<line x1="{left}" x2="{left + 22}" y1="{ly - 4}" y2="{ly - 4}" stroke="{_BLUE}" '
               f'stroke-width="2"/><text x="{left + 28}" y="{ly}">{escape(FRONTIER)}</text>')
    if star is not None:
        out.append(f'<polygon points="{_star(lx, ly - 4, 7)}" fill="{_RED}" stroke="black"/>'
                   f'<text x="{lx + 12}" y="{ly}">{escape(HERE)}</text>')
    elif rule is not None:
        out.append(f'<line x1="{lx - 8}" x2="{lx + 14}" y1="{ly - 4}" y2="{ly - 4}" stroke="gray" '
                   f'stroke-dasharray="4 4"/><text x="{lx + 20}" y="{ly}">this ε (not measured)'
                   '</text>')
    out.append("</svg>")
    return "".join(out)
