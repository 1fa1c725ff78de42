"""The Home page's "How DP-CDA works" diagram and text, drawn from today's defaults.

Nothing here is typed in by hand: the accountant, the samples per class, the normalisation per
dataset and the clip norm are read from the library (the DP-CDA registry entry
``dpcda.mechanisms.MECHANISMS.get("dp-cda")``, ``dpcda.privacy.DEFAULT_ACCOUNTANT``,
``dpcda.mechanisms.default_normalization_for`` and the dataset presets), so a changed default
changes the diagram (``tests/pages/test_home_pipeline.py``). No Streamlit here: ``app.py`` draws.
"""

from __future__ import annotations

from dataclasses import dataclass

#: A normalisation in a few words (the diagram's node) and whether the guarantee covers it.
NORMALIZATION_WORDS = {
    "dp-center": "√(public range) − a DP mean",
    "scale": "public range (pixel / 255)",
    "zscore": "z-score (private statistics, not covered)",
    "none": "as given",
}

#: Samples per class under each allocation, in a few words.
ALLOCATION_WORDS = {
    "proportional": "T_k = floor(T · N_k / N)",
    "equal": "T_k = floor(T / K)",
}


@dataclass(frozen=True)
class PipelineDefaults:
    """What the diagram shows, read from the library."""

    accountant: str               # the DP-CDA entry's default accountant
    accountant_title: str         # its plain title
    rdp: bool                     # an RDP accountant (else exact PLD composition)
    allocation: str               # "proportional" or "equal"
    normalizations: tuple[tuple[str, tuple[str, ...]], ...]  # (normalisation, dataset titles)
    upload_normalization: str     # what an upload (no public range) gets
    clip_norms: tuple[tuple[float, tuple[str, ...]], ...]    # (c, dataset titles)


def _short_title(title: str) -> str:
    return title.split(" (")[0]


def pipeline_defaults(mechanism=None) -> PipelineDefaults:
    """Today's defaults of a DP-CDA release (``mechanism``: the registry entry, for tests)."""
    from dpcda.mechanisms import MECHANISMS, default_normalization_for
    from dpcda.data.presets import PRESETS
    from dpcda.privacy import ACCOUNTANTS, DEFAULT_ACCOUNTANT

    mech = mechanism if mechanism is not None else MECHANISMS.get("dp-cda")
    names = mech.param_names
    accountant = mech.param("accountant").default if "accountant" in names else None
    accountant = accountant or DEFAULT_ACCOUNTANT
    info = ACCOUNTANTS[accountant]
    allocation = mech.param("allocation").default if "allocation" in names else "equal"
    by_norm: dict[str, list[str]] = {}
    by_clip: dict[float, list[str]] = {}
    for name in PRESETS.names():
        preset = PRESETS.get(name)
        title = _short_title(preset.title)
        norm = default_normalization_for(name, mech.name, accountant)
        by_norm.setdefault(norm, []).append(title)
        by_clip.setdefault(float(preset.clip_norm), []).append(title)
    upload = mech.default_normalize
    if upload in ("scale", "dp-center"):  # these need a public range, which uploads lack
        upload = "none"
    return PipelineDefaults(
        accountant=accountant, accountant_title=info.title, rdp=bool(info.rdp),
        allocation=allocation,
        normalizations=tuple((n, tuple(t)) for n, t in by_norm.items()),
        upload_normalization=upload,
        clip_norms=tuple(sorted((c, tuple(t)) for c, t in by_clip.items())))


def _dot_text(text: str) -> str:
    """``text`` inside a quoted DOT string (line breaks as ``\\n``)."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def normalization_lines(d: PipelineDefaults) -> list[str]:
    lines = [f"{n}: {NORMALIZATION_WORDS.get(n, n)} ({', '.join(titles)})"
             for n, titles in d.normalizations]
    lines.append(f"{d.upload_normalization}: {NORMALIZATION_WORDS.get(d.upload_normalization, '')}"
                 " (uploads)")
    return lines


def clip_text(d: PipelineDefaults) -> str:
    if len(d.clip_norms) == 1:
        return f"clip every row to L2 norm c = {d.clip_norms[0][0]:g}"
    parts = [f"c = {c:g} ({', '.join(titles)})" for c, titles in d.clip_norms]
    return "clip every row to L2 norm c\n" + "\n".join(parts)


def accountant_text(d: PipelineDefaults) -> str:
    how = "Rényi DP" if d.rdp else "exact composition (PLD)"
    return f"{d.accountant} accountant\n{how}"


def pipeline_dot(d: PipelineDefaults | None = None) -> str:
    """The Graphviz source of the diagram for these defaults (today's when ``None``)."""
    d = d if d is not None else pipeline_defaults()
    per_class = ALLOCATION_WORDS.get(d.allocation, d.allocation)
    norm = "normalize (per dataset)\n" + "\n".join(normalization_lines(d))
    return f"""
digraph dpcda {{
  rankdir=TB; bgcolor="transparent"; nodesep=0.3; ranksep=0.28;
  node [shape=box, style="rounded,filled", fillcolor="#f0f2f6", color="#8a8f98",
        fontname="Helvetica", fontsize=12, margin="0.15,0.06"];
  edge [color="#5f6570", fontname="Helvetica", fontsize=10, arrowsize=0.7];
  data   [label="private data (X, y)\\nN records, K classes", fillcolor="#fde2e1"];
  norm   [label="{_dot_text(norm)}"];
  clip   [label="{_dot_text(clip_text(d))}"];
  subgraph cluster_k {{
    label="for every class k, T_k times ({d.allocation}: {_dot_text(per_class)})"; labeljust=l;
    fontname="Helvetica"; fontsize=11; style="rounded,dashed"; color="#8a8f98";
    pick   [label="pick l distinct records of class k"];
    avg    [label="average them"];
    noisex [label="features\\nmean + N(0, σx² I)"];
    noisey [label="label\\nonehot(k) + N(0, σy² I)"];
  }}
  synth  [label="synthetic set: T_k per class, rows shuffled", fillcolor="#dff3e3"];
  acct   [label="{_dot_text(accountant_text(d))}", fillcolor="#e3ecfb"];
  eps    [label="(ε, δ)", shape=ellipse, fillcolor="#e3ecfb"];
  data -> norm -> clip -> pick -> avg;
  avg -> noisex; avg -> noisey;
  noisex -> synth; noisey -> synth;
  synth -> acct [style=dashed, label="  l, σx, σy, c, T_k, N_k, δ\\l  (never the data)\\l"];
  acct -> eps;
}}
"""


def pipeline_summary(d: PipelineDefaults | None = None) -> str:
    """The paragraph beside the diagram (markdown), for the same defaults."""
    d = d if d is not None else pipeline_defaults()
    per_class = {"proportional": "T_k = ⌊T·N_k/N⌋ samples, in proportion to its size",
                 "equal": "⌊T/K⌋ samples"}.get(d.allocation, d.allocation)
    how = ("tracked with **Rényi differential privacy (RDP)** and converted to an (ε, δ) guarantee"
           if d.rdp else "computed as the exact composition of **privacy loss distributions (PLD)**, "
                         "an (ε, δ) guarantee")
    return ("Each synthetic sample is the **average of l random records of one class**, plus "
            "**Gaussian noise** on the features (σ_x) and on the one-hot label (σ_y). Every class "
            f"gets {per_class}. The privacy cost is {how}, by the default accountant "
            f"`{d.accountant}` ({d.accountant_title}). Averaging more records (larger l) hides "
            "each one better, so less noise is needed for the same ε, but the samples look more "
            "like the class average.")
