"""What the dashboard's server process has drawn from each dataset's private data, and its
privacy spend (:func:`dpcda.privacy.shown_compose.compose_shown`).

**Which draws.** Every page that shows something computed from a fresh draw: the Samples page
(previews, mosaic cells, releases, ``dp-center`` statistics), the Choose page (each candidate's
release, for its samples and fidelity; the chosen one's report release), the report download
of every page (a release when the page has none) and the Utility and Compare pages (each
finished job's release, shown through its test accuracy: :func:`record_job`, once per job and
process, when the page shows the job's results; a release of another mechanism than DP-CDA is
counted but not composed, so the tally then says it is unbounded).

**Which tally, and why the process's.** The Samples page caches its previews, mosaic cells and
releases with ``st.cache_data``: one draw per setting, shown to every tab that asks for that
setting, in every session, until the cache lets it go (then the next view draws a fresh one).
What one tab has seen is therefore a part of what the server has released, and anyone with
the address can see any cached draw. The ledger counts every draw the process makes, recorded
where the draw happens (inside the cached function: a cache hit draws nothing and records
nothing; a draw evicted and drawn again is a new release and counts again), keyed by the data
source. Its epsilon is an upper bound on what any one viewer, or all of them together, learnt
from those draws. It is kept in memory: a restarted server starts from zero (and so does the
cache: nothing drawn before is still shown).
"""

from __future__ import annotations

import math
import threading
from collections import Counter

from dpcda.privacy.shown_compose import RELATION, Composed, Drawn, compose_shown

_lock = threading.Lock()
_drawn: dict[tuple, list[Drawn]] = {}
_jobs: set[tuple] = set()

#: The kinds' names (one, several), in the order the text lists them.
KINDS = {"preview": ("preview", "previews"), "mosaic cell": ("mosaic cell", "mosaic cells"),
         "release": ("full release", "full releases"),
         "statistics": ("statistics release", "statistics releases"),
         "label histogram": ("label histogram of a refused release", "label histograms of refused releases"),
         "measured": ("release measured by a learner (Utility, Compare)",
                      "releases measured by a learner (Utility, Compare)")}
#: Where the tally's line says the draws were shown.
WHERE = "this server's pages (Samples, Choose, Utility, Compare, reports)"


def _key(source) -> tuple:
    """The tally's key: the data, not its name: an upload's ``("upload", digest, file name)``
    counts under its content's digest alone (the same file uploaded under two names is one
    dataset, one tally)."""
    source = tuple(source)
    return source[:2] if source and source[0] == "upload" else source


def record(source: tuple, drawn: Drawn) -> None:
    """Count one draw from the private data of ``source`` (a hashable key of the data)."""
    if not isinstance(drawn, Drawn):
        raise ValueError(f"drawn must be a Drawn record, got {type(drawn).__name__}")
    with _lock:
        _drawn.setdefault(_key(source), []).append(drawn)


def drawn(source: tuple) -> tuple[Drawn, ...]:
    """Every draw recorded for ``source``, oldest first."""
    with _lock:
        return tuple(_drawn.get(_key(source), ()))


def reset() -> None:
    """Forget every draw (tests; a fresh process starts empty)."""
    with _lock:
        _drawn.clear()
        _jobs.clear()


def record_job(source: tuple, job_key: tuple, result: dict | None, *, n_classes: int) -> bool:
    """Count the release of a finished job (its ``result["drawn"]`` facts,
    :func:`dpcda.privacy.shown_compose.release_facts`) once per ``job_key`` (e.g. the store's
    path and the job's id) in this process; returns whether it was new. A result without those
    facts (a job run before they were kept, another mechanism) counts as not composed."""
    from dpcda.privacy.shown_compose import drawn_of

    d = drawn_of((result or {}).get("drawn"), kind="measured", n_classes=n_classes)
    with _lock:
        if tuple(job_key) in _jobs:
            return False
        _jobs.add(tuple(job_key))
        _drawn.setdefault(_key(source), []).append(d)
    return True


def preview_drawn(*, sigma: float, l: int, c: float, per_class: int, n_classes: int,
                  normalize: str | None) -> Drawn:
    """A live preview: ``per_class`` samples of every class."""
    return Drawn("preview", float(sigma), int(l), (int(per_class),) * int(n_classes), float(c),
                 covered=normalize != "zscore")


def cell_drawn(*, sigma: float, l: int, c: float, k: int, n_classes: int,
               normalize: str | None) -> Drawn:
    """One mosaic cell: one sample of class ``k``."""
    steps = tuple(1 if j == int(k) else 0 for j in range(int(n_classes)))
    return Drawn("mosaic cell", float(sigma), int(l), steps, float(c), covered=normalize != "zscore")


def release_drawn(card: dict, *, normalize: str | None) -> Drawn:
    """A full release, from its data card: its noise, ``l``, ``c``, the samples per class
    (``T_per_class``) and the Gaussian releases it made itself (if any): ``dp-center``'s
    statistics and, under ``whole-record`` without public class bounds, the DP label histogram
    (``privacy.label_histogram``: sensitivity / sigma); their ``mu`` compose as one,
    ``sqrt(mu_1^2 + mu_2^2)``."""
    par, priv = card["parameters"], card.get("privacy") or {}
    mu = float((priv.get("composed_with") or {}).get("mu_gdp") or 0.0)
    hist = priv.get("label_histogram")
    if hist:  # a Gaussian release of the K label counts, drawn from the private labels
        mu = math.hypot(mu, float(hist["sensitivity"]) / float(hist["sigma"]))
    return Drawn("release", float(par["sigma_x"]), int(par["l"]),
                 tuple(int(t) for t in par["T_per_class"]), float(par["c"]), mu=float(mu),
                 covered=normalize != "zscore")


def statistics_drawn(*, mu: float, n_classes: int) -> Drawn:
    """One ``mu``-GDP release of normalisation statistics (``dp-center``), kept for the previews
    and the mosaic."""
    return Drawn("statistics", 0.0, 1, (0,) * int(n_classes), mu=float(mu))


def histogram_drawn(*, sigma: float, n_classes: int) -> Drawn:
    """A DP label histogram drawn alone: a release that drew its class bounds from one and was
    then refused (its ``l`` above them, :class:`dpcda.mechanisms.dp_cda_account.BoundsRefusal`);
    the refusal shows a function of it. One Gaussian release of the K counts, sensitivity
    :data:`dpcda.privacy.label_histogram.SENSITIVITY` at noise ``sigma``."""
    from dpcda.privacy.label_histogram import SENSITIVITY

    return Drawn("label histogram", 0.0, 1, (0,) * int(n_classes), mu=float(SENSITIVITY) / float(sigma))


def spent(source: tuple, *, lower_counts, delta: float) -> Composed:
    """The composition of every draw of ``source`` at ``delta``."""
    return compose_shown(drawn(source), lower_counts=lower_counts, delta=delta)


def spent_text(source: tuple, *, lower_counts, delta: float, failure: float = 0.0) -> str:
    """One line for the page: "Shown so far ... ε = … (whole-record, δ = …), composed over N
    releases", with the counts by kind, or why it is infinite. ``lower_counts``: public lower
    bounds on the class sizes; None where none are known (then not accounted, said so).
    ``failure``: the probability that ``lower_counts`` do not hold (a DP label histogram's beta):
    the draws are composed at ``delta - failure``, so the ``delta`` stated includes it."""
    from dpcda.report.formatting import fmt_delta, fmt_eps

    ds = drawn(source)
    if not ds:
        return (f"**Shown so far** from this data by {WHERE}: nothing drawn yet "
                f"(ε = 0, {RELATION}).")
    if lower_counts is None:  # e.g. an upload before a release published bounds: none to read
        return (f"**Shown so far** from this data by {WHERE}: {len(ds)} releases, not accounted "
                f"here yet: this data's class sizes are private under the {RELATION} relation and "
                "no public lower bounds on them are known (a release's card publishes the ones it "
                "used).")
    try:
        r = spent(source, lower_counts=lower_counts, delta=delta - failure)
    except ValueError as exc:
        return (f"**Shown so far** from this data by {WHERE}: {len(ds)} releases, not "
                f"accounted under the {RELATION} relation ({exc}).")
    counts = Counter(d.kind for d in ds)
    kinds = ", ".join(f"{counts[k]} {names[counts[k] != 1]}" for k, names in KINDS.items()
                      if counts[k])
    head = (f"**Shown so far** from this data by {WHERE}, all tabs together "
            "(the Samples page's draws are cached and shared): ")
    n_ok = r.releases - r.real - r.uncovered - r.other

    def bound(eps: float, n: int) -> str:
        return (f"ε = {fmt_eps(eps)} ({RELATION}, δ = {fmt_delta(delta)}"
                + (", with the bounds' failure probability" if failure else "")
                + f"), composed over {n} release{'s' if n != 1 else ''}")

    how = " (Rényi DP summed and converted once: an upper bound, looser than a card's ε.)"
    if math.isinf(r.epsilon) and (r.real or r.uncovered or r.other):
        why = "; ".join(w for w in (
            f"{r.real} views of real records, not private" if r.real else "",
            f"{r.uncovered} draws normalised by z-score statistics of the private data (not "
            "covered)" if r.uncovered else "",
            f"{r.other} releases of another mechanism or from before this tally kept its facts "
            "(each accounted on its own card, not composed here)" if r.other else "") if w)
        return (head + f"ε = ∞ ({why}; {kinds} in all). The noisy, covered releases alone: "
                + bound(r.noisy_epsilon, n_ok) + "." + how)
    return head + bound(r.epsilon, r.releases) + (f" ({kinds})" if len(counts) > 1 else "") + "." + how


def record_jobs(dataset: str, store, jobs) -> int:
    """:func:`record_job` for every finished job of a built-in ``dataset`` among ``jobs`` (those
    a page shows the results of), keyed by the store's path and the job's id; returns how many
    were new."""
    from dpcda.data.presets import get_preset

    k = len(get_preset(dataset).class_counts)
    where = str(getattr(store, "path", id(store)))
    return sum(record_job(("builtin", dataset), (where, j.id), j.result, n_classes=k)
               for j in jobs if j.status == "done")


def builtin_text(dataset: str, delta: float) -> str:
    """:func:`spent_text` for a built-in ``dataset``, read against its public class counts."""
    from dpcda.data.presets import get_preset

    return spent_text(("builtin", dataset), lower_counts=get_preset(dataset).class_counts, delta=delta)
