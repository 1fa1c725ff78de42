"""The stakeholder report as one self-contained HTML file (:func:`build_report`).

No network: images are base64 PNG ``data:`` URIs (:mod:`dpcda.report.png`), charts inline SVG
(:mod:`dpcda.report.svg`), the style inline; a Content-Security-Policy forbids every outside
request. No script. Sections: :data:`dpcda.report.inputs.SECTIONS`.
"""

from __future__ import annotations

import json
import math
from html import escape

from dpcda.report.inputs import SECTIONS, ReportInputs
from dpcda.report.png import data_uri
from dpcda.report.svg import Series, line_chart

NOT_MEASURED = "Not measured yet"
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
STYLE = """
body{font-family:system-ui,sans-serif;max-width:980px;margin:24px auto;padding:0 16px;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:1.8em}
table{border-collapse:collapse;font-size:.88em;margin:.5em 0}td,th{border:1px solid #ccc;
padding:3px 7px;text-align:left;vertical-align:top}th{background:#f0f2f6}
.headline{font-size:1.35em;background:#e3ecfb;padding:10px 14px;border-radius:6px}
.warn{background:#fff4e0;border-left:4px solid #d9822b;padding:6px 10px}
.missing{color:#777;font-style:italic}img.px{image-rendering:pixelated}
figcaption,.cap{color:#555;font-size:.88em}pre{background:#f6f6f6;padding:8px;overflow-x:auto;
font-size:.8em}nav a{margin-right:10px}
.headline.lead{font-size:1.05em;line-height:1.45}
.cands{display:flex;gap:12px;flex-wrap:wrap}.cands figure{margin:0}
@page{size:A4;margin:15mm}
@media print{body{max-width:none;margin:0;padding:0;font-size:11pt}h2{break-after:avoid}
nav,details,.screen-only{display:none}thead{display:table-header-group}table{font-size:.8em}
img.px{width:auto;height:auto;max-height:75mm}.cands img.px{max-height:45mm}
h1{font-size:1.4em;margin:.3em 0}h2{margin-top:1.2em}
figure,tr,img,svg,pre,.headline,.warn,.summary,#caveats ul{break-inside:avoid}
.details{break-before:page}}
"""


def _cell(v) -> str:
    from dpcda.report.tables import format_cell

    if isinstance(v, float) and math.isfinite(v) and not v.is_integer():
        return escape(f"{v:.4g}")
    return escape(format_cell(v))


def table(rows, columns=None) -> str:
    """An HTML table of row dicts (missing cells "—")."""
    cols = list(columns or dict.fromkeys(k for r in rows for k in r))
    head = "".join(f"<th>{escape(str(c))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_cell(r.get(c))}</td>" for c in cols) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _missing(what: str) -> str:
    return f'<p class="missing">{NOT_MEASURED}: {escape(what)}</p>'


def _img(img, alt: str, width: int = 520) -> str:
    h, w = img.shape[:2]
    scale = max(1, width // max(1, w)) if w < width else 1
    return (f'<img class="px" src="{data_uri(img)}" alt="{escape(alt)}" width="{w * scale}" '
            f'height="{h * scale}">')


def _plain(text) -> str:
    """Markdown emphasis and code marks removed, whitespace collapsed."""
    return " ".join(str(text).replace("**", "").replace("`", "").split())


def _eps(v) -> str:
    return "∞ (no privacy)" if v is None or (isinstance(v, float) and math.isinf(v)) else f"{v:.4g}"


def privacy_section(inp: ReportInputs) -> str:
    p = inp.privacy
    if not p:
        return _missing("no privacy accounting was given for this setting")
    if not p.get("private", True):
        out = ['<p class="headline">ε = ∞: <b>no privacy</b> (σ = 0, no noise).</p>',
               '<p class="warn">This setting carries no privacy guarantee at all.</p>']
    else:
        out = [f'<p class="headline">ε = <b>{_eps(p.get("epsilon"))}</b> at δ = '
               f'{p.get("delta"):g}</p>']
        if p.get("bound_note"):
            out.append(f'<p class="warn">This ε is <b>{escape(p["bound_note"])}</b>.</p>')
        out.append(
            f"<p><b>In plain words.</b> Whether or not any one person's record is in the data, "
            f"every possible release is at most e<sup>ε</sup> ≈ {math.exp(min(p['epsilon'], 700)):.3g} "
            f"times more (or less) likely, except with probability δ = {p.get('delta'):g}. "
            "Smaller ε is more private.</p>")
    out.append(f"<p><b>Accountant:</b> <code>{escape(str(p.get('accountant')))}</code> "
               f"({escape(str(p.get('accountant_title', '')))})"
               + (f"; {escape(str(p['conversion']))} RDP → (ε, δ) conversion" if p.get("conversion")
                  else "; exact composition of privacy loss distributions (no RDP conversion)")
               + (f"; the exact ε lies within {p['discretisation_bound']:.2g} below"
                  if p.get("discretisation_bound") else "") + ".</p>")
    if p.get("relation"):
        out.append(f"<p><b>Neighbouring datasets</b> (what ε protects): {escape(p['relation'])}</p>")
    if p.get("assumptions"):
        out.append(f"<p><b>Assumptions:</b> {escape(_plain(p['assumptions']))}</p>")
    others = p.get("other_accountants") or {}
    if others:
        out.append("<p>The same noise under the other accountants:</p>" + table(
            [{"accountant": k, "ε": v.get("epsilon"),
              "valid bound for this implementation": "yes" if v.get("valid_bound", True)
              else v.get("bound_note", "no")} for k, v in others.items()]))
    return "".join(out)


CARD_FACTS = (("dataset", "dataset"), ("N", "data.N"), ("classes K", "data.K"),
              ("class counts", "data.class_counts"), ("features d", "data.d_x"),
              ("l", "parameters.l"), ("σ_x", "parameters.sigma_x"), ("σ_y", "parameters.sigma_y"),
              ("clip norm c", "parameters.c"), ("T", "parameters.T"),
              ("T per class", "parameters.T_per_class"), ("allocation", "parameters.allocation"),
              ("normalisation", "normalization.note"), ("algorithm", "algorithm_title"),
              ("library", "library_version"), ("created", "created_at"))


def _get(d, path: str):
    for part in path.split("."):
        d = d.get(part) if isinstance(d, dict) else None
    return d


def card_section(inp: ReportInputs) -> str:
    out = ["<p>The setting of this report:</p>",
           table([{"setting": k, "value": v} for k, v in inp.setting.items()])]
    if not inp.card:
        return "".join(out) + _missing(inp.missing.get(
            "data-card", "no release was generated, so there is no data card"))
    rows = [{"field": k, "value": ", ".join(map(str, v)) if isinstance(v, list) else v}
            for k, path in CARD_FACTS if (v := _get(dict(inp.card), path)) is not None]
    out += ["<p>From the release's data card (it records what was done, never a seed or the "
            "noise):</p>", table(rows),
            "<details><summary>The whole data card (JSON)</summary><pre>"
            + escape(json.dumps(inp.card, indent=2)) + "</pre></details>"]
    return "".join(out)


def _figure(img, alt: str, caption: str, width: int = 520) -> str:
    return f"<figure>{_img(img, alt, width)}<figcaption>{escape(caption)}</figcaption></figure>"


def accuracy_section(inp: ReportInputs) -> str:
    rows = inp.accuracy_vs_l
    if not rows:
        return _missing("no finished accuracy runs for this dataset in the results store; "
                        "launch a sweep on the Utility page")
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(str(r.get("series", "")), []).append(r)
    series = [Series(k or "accuracy", [r["l"] for r in g], [r["mean"] for r in g],
                     [r.get("std") for r in g], dashed=bool(g[0].get("dashed")))
              for k, g in groups.items()]
    ls = sorted({int(r["l"]) for r in rows})
    svg = line_chart(series, title="test accuracy against l", x_title="l (order of mixture)",
                     y_title="test accuracy (real test split)", x_log=min(ls) > 0,
                     y_range=(0, 1), x_ticks=[(v, str(v)) for v in ls])
    return (svg + f'<p class="cap">{escape(inp.accuracy_caption)}</p>'
            + table([{k: v for k, v in r.items() if k != "dashed"} for r in rows]))


def frontier_section(inp: ReportInputs) -> str:
    rows = inp.frontier
    if not rows:
        return _missing("no accuracy measured at any finite ε for this dataset; run a sweep over "
                        "ε (Utility page) to draw the privacy-utility frontier")
    finite = [r for r in rows if r["epsilon"] is not None and math.isfinite(r["epsilon"])]
    if not finite:
        return _missing("only non-private (ε = ∞) accuracy is stored") + table(rows)
    marker = None
    if inp.frontier_current is not None:
        marker = (float(inp.frontier_current[0]), float(inp.frontier_current[1]), "this setting")
    svg = line_chart([Series("best l per ε", [r["epsilon"] for r in finite],
                             [r["accuracy"] for r in finite], [r.get("std") for r in finite])],
                     title="accuracy against ε (best l per ε)", x_title="ε (log scale)",
                     y_title="test accuracy", x_log=True, y_range=(0, 1), marker=marker)
    return svg + f'<p class="cap">{escape(_plain(inp.frontier_caption))}</p>' + table(rows)


def caveats_for(inp: ReportInputs) -> list[str]:
    """The caveats that apply to this report (plus ``inp.caveats``)."""
    out = []
    p = inp.privacy or {}
    if p.get("bound_note"):
        out.append(f"The headline ε is {p['bound_note']}: it is the published analysis, kept for "
                   "reproducing the paper; the default accountant's ε is a valid bound.")
    if p and not p.get("private", True):
        out.append("σ = 0: this release is not private at all (ε = ∞).")
    norm = (inp.card or {}).get("normalization") or {}
    method = norm.get("method") or inp.setting.get("normalisation") or inp.setting.get("normalization")
    if norm.get("statistics_from_private_data") or method == "zscore":
        out.append("Normalisation z-score uses the mean and standard deviation of the private data: "
                   "those statistics are outside the guarantee (not covered by ε). The public "
                   "'scale' normalisation is covered.")
    elif method == "dp-center":
        out.append("Normalisation dp-center releases a per-feature mean of the private data under "
                   "differential privacy with a share of the budget; that release is composed into "
                   "the ε above. z-score statistics would be outside the guarantee.")
    else:
        out.append("Normalisation z-score (statistics of the private data) would be outside the "
                   "guarantee; this report's normalisation "
                   + (f"({method}) " if method else "") + "learns nothing from the private data.")
    if p.get("discretisation_bound"):
        out.append("A privacy-loss-distribution ε is an upper bound computed on a grid; the exact "
                   f"value lies within {p['discretisation_bound']:.2g} below it.")
    if inp.accuracy_vs_l or inp.frontier or inp.compare:
        out.append("Accuracies are on the real test split; where a best l is shown, the test split "
                   "chose it (optimistic, like the paper's bold entries).")
    out.append("N and the class counts are treated as public by the accountants.")
    return out + list(inp.caveats)


def scope_lines(inp: ReportInputs) -> str:
    """The report's first lines: what ε covers, which numbers are outside it (measured on the
    real data) and why a seeded release is not private (its draws can be replayed)."""
    measured = [w for w, shown in (
        ("the fidelity distances (the release compared with the real test split)", inp.fidelity),
        ("the accuracies (models tested on the real test split)",
         inp.accuracy_vs_l or inp.frontier or inp.compare)) if shown]
    measured = measured or ["fidelity and accuracy figures (measured on the real data)"]
    out = ['<p class="scope"><b>What ε covers.</b> The ε below covers the released samples and '
           "their data card only. <b>Outside ε:</b> " + escape("; ".join(measured)) + " are "
           "computed on the real data and are not differentially private: they are for the data "
           "holder, and publishing them reveals something about the real data that ε does not "
           "bound.</p>"]
    seeded = bool((inp.privacy or {}).get("seeded"))
    if seeded:
        out.append('<p class="warn"><b>NOT PRIVATE: a seeded release.</b> Its random draws (which '
                   "records were mixed, the noise added) follow from its seed: anyone who knows or "
                   "guesses the seed replays every draw, takes the noise off and recovers the means "
                   "of real records, whatever the noise's size. Its ε is what the same noise gives "
                   "when drawn unseeded.</p>")
    else:
        here = ((inp.privacy or {}).get("seeded") is False
                and " (as here: its draws come from a fresh secret key)")
        out.append(f'<p class="scope">A release is private only unseeded{here or ""}. A seeded '
                   "release (<code>seed=</code>, "
                   "<code>--seed</code>) is reproducible and not private: anyone who knows or "
                   "guesses the seed replays its draws, noise included.</p>")
    return "".join(out)


def build_report(inp: ReportInputs, *, lead: str = "") -> str:
    """The report as one HTML string (UTF-8, no outside reference). ``lead``: HTML put first,
    before the sections, which then follow as "details" (a choice's summary page,
    :func:`dpcda.report.choice_html.build_choice_report`; on paper they start a new page).
    On paper (print CSS) the navigation and the data card's JSON (a folded element that does
    nothing on paper) are left out; long tables break between rows."""
    def missing(sid: str, default: str) -> str:
        return _missing(inp.missing.get(sid, default))

    body = {
        "privacy": privacy_section(inp),
        "data-card": card_section(inp),
        "samples": _figure(inp.samples, "synthetic samples per class", inp.samples_caption)
        if inp.samples is not None else missing("samples", "no release was generated for this setting"),
        "class-means": _figure(inp.class_means, "class means", inp.class_means_caption, 200)
        if inp.class_means is not None
        else missing("class-means", "no release was generated for this setting"),
        "accuracy-vs-l": accuracy_section(inp),
        "frontier": frontier_section(inp),
        "compare": (table(inp.compare) + f'<p class="cap">{escape(inp.compare_caption)}</p>')
        if inp.compare else missing("compare", "no comparison for this dataset in the results store; "
                                     "launch one on the Compare page"),
        "fidelity": (table(inp.fidelity) + f'<p class="cap">{escape(inp.fidelity_caption)}</p>')
        if inp.fidelity else missing("fidelity", "no release was generated for this setting"),
        "caveats": "<ul>" + "".join(f"<li>{escape(c)}</li>" for c in caveats_for(inp)) + "</ul>",
    }
    nav = "".join(f'<a href="#{sid}">{escape(title)}</a>' for sid, title in SECTIONS)
    sections = "".join(f'<section id="{sid}"><h2>{escape(title)}</h2>{body[sid]}</section>'
                       for sid, title in SECTIONS)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>{escape(inp.title)}: {escape(inp.dataset)}</title><style>{STYLE}</style></head>"
            f"<body><h1>{escape(inp.title)}</h1>{scope_lines(inp)}<p>Dataset <b>{escape(inp.dataset)}</b>. "
            "Written by dpcda; this file is self-contained (no network).</p>"
            + (f'{lead}<div class="details"><h1>Details of the chosen setting</h1>' if lead else "")
            + f"<nav>{nav}</nav>{sections}" + ("</div>" if lead else "") + "</body></html>\n")


def error_report(message: str) -> str:
    """A one-paragraph HTML page saying why no report could be built."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}"><title>No report</title>'
            f"</head><body><h1>No report</h1><p>The report could not be built for these settings: "
            f"{escape(message)}</p></body></html>\n")
