"""Accuracy beside epsilon: measured accuracies of DP-CDA releases, looked up and set on a
privacy-utility frontier.

A measured accuracy belongs to a *release* (dataset, l, the noise sigma_x and sigma_y = ratio *
sigma_x, clip norm c, T, normalisation, allocation) and a learner; it does not depend on the
accountant. The epsilon of that release does, so rows are stored by noise and each accountant
turns them into epsilons when asked (:func:`attach_epsilons`).

Two sources, joined by :func:`measured_rows`:

- the table the project ships (``dpcda/experiments/accuracy_table.csv``, written by
  ``benchmarks/accuracy_frontier.py``: the learner and the number of runs are columns);
- finished ``experiment`` jobs in a job store (the Utility page's sweeps, the Privacy page's
  one-click measurement), aggregated per release and learner.

The privacy-utility frontier (:func:`frontier`) is the best mean accuracy reached by any
measured release whose epsilon is at most a given epsilon: for each epsilon, the best l.
:func:`frontier_rows` does it all from a dataset name (the stakeholder report calls it).
Nothing here imports torch, pandas or streamlit.
"""

from __future__ import annotations

import math
from pathlib import Path

from dpcda.experiments.config import EXPERIMENT_ALLOCATION, ExperimentConfig, job_config
from dpcda.experiments.table import (DEFAULT, NET_MODELS, TABLE_FIELDS, TABLE_PATH,  # noqa: F401
                                     load_table, measured_learner, of_measured_learner,
                                     summarize, write_table)

#: How the releases of the shipped table and of a one-click measurement split T over the classes.
MEASURED_ALLOCATION = EXPERIMENT_ALLOCATION
#: Relative tolerance when matching a noise scale: a quarter of a step of the dashboard's
#: log-spaced sigma grid (40 values a decade, 5.9% apart), so one slider position matches.
SIGMA_RTOL = 0.025
#: The fast learner used for one-click measurements: the project's default (``model="auto"``)
#: except where that is a neural network, replaced by the noise-aware LDA (seconds, not minutes):
#: :func:`dpcda.experiments.table.measured_learner`.


def _release_defaults(dataset: str) -> dict:
    """The releases this module speaks for: DP-CDA's registry defaults, normalisation ``scale``
    (a public range: it spends no privacy, so the Privacy page's ε is the release's whole ε; a
    ``dp-center`` release also spends ε on its centre and is not matched)."""
    from dpcda.mechanisms import MECHANISMS
    from dpcda.data.presets import default_clip_norm
    mech = MECHANISMS.get("dp-cda")
    return dict(c=default_clip_norm(dataset), normalization=mech.default_normalize,
                allocation=EXPERIMENT_ALLOCATION)


def _release_key(job) -> tuple | None:
    """(l, sigma_x, ratio, c, T, normalization, allocation, learner) of a finished DP-CDA job."""
    r = job.result or {}
    if job.kind != "experiment" or job.status != "done" or r.get("accuracy") is None:
        return None
    c = ExperimentConfig.from_json(job.config)
    if c.mechanism != "dp-cda" or r.get("sigma_x") is None:
        return None
    return (c.l, float(r["sigma_x"]), float(c.ratio), float(c.c), c.T, c.normalization,
            c.allocation_or_default, c.train.model)


def store_rows(store, dataset: str) -> list[dict]:
    """Finished DP-CDA experiment jobs of ``dataset`` in a job store, one row per release and
    learner, with their runs' spread; ``source`` names the jobs."""
    groups: dict[tuple, list] = {}
    for job in store.jobs(status="done"):
        key = _release_key(job)
        if key is not None and job_config(job).dataset == dataset:
            groups.setdefault(key, []).append(job)
    rows = []
    for (l, s, ratio, c, T, norm, alloc, learner), jobs in groups.items():
        ids = sorted(j.id for j in jobs)
        rows.append(dict(dataset=dataset, l=l, sigma_x=s, ratio=ratio, c=c, T=T,
                         normalization=norm, allocation=alloc, learner=learner,
                         source="jobs #" + ", #".join(map(str, ids)),
                         **summarize(j.result["accuracy"] for j in jobs)))
    return rows


def measured_rows(dataset: str, store=None, *, table: str | Path | None = None,
                  learner: str | None = DEFAULT) -> list[dict]:
    """The shipped table's rows for ``dataset`` followed by the job store's (if given), of
    ``learner`` only: by default each row's :func:`measured_learner` (the learner a one-click
    measurement trains today), so a readout, a frontier or a recommended l never rests on a
    learner that is no longer the default; a learner's name keeps that one; None keeps all."""
    rows = load_table(table, dataset=dataset)
    rows += store_rows(store, dataset) if store is not None else []
    return of_measured_learner(rows, learner)


def _same_sigma(a: float, b: float, rtol: float = SIGMA_RTOL) -> bool:
    return a == b or (a > 0 and b > 0 and abs(math.log(a / b)) <= rtol)


def matches(row: dict, *, l: int, sigma_x: float, ratio: float = 1.0, c: float | None = None,
            T: int | None = None, n: int | None = None, normalization: str | None = None,
            allocation: str | None = None, dataset: str | None = None) -> bool:
    """Whether ``row`` measured the release at this setting (None: the dataset's default;
    ``T = n`` counts as "T = N"; sigma within :data:`SIGMA_RTOL`, sigma_x = 0 only exactly)."""
    d = _release_defaults(dataset or row["dataset"])
    want_T = None if T is None or T == n else int(T)
    row_T = None if row["T"] is None or row["T"] == n else int(row["T"])
    return (row["l"] == l and _same_sigma(row["sigma_x"], sigma_x) and row_T == want_T
            and (sigma_x == 0 or math.isclose(row["ratio"], ratio, rel_tol=1e-6))
            and math.isclose(row["c"], d["c"] if c is None else c, rel_tol=1e-6)
            and row["normalization"] == (normalization or d["normalization"])
            and row["allocation"] == (allocation or d["allocation"]))


def lookup(rows: list[dict], **setting) -> dict | None:
    """The best-supported measurement of one release (see :func:`matches`): most runs first,
    then the job store over the shipped table. None when nothing matches."""
    hits = [r for r in rows if matches(r, **setting)]
    if not hits:
        return None
    return max(hits, key=lambda r: (r["runs"], r["source"] != "table"))


def _dominating_split(kw: dict) -> dict:
    """Under ``whole-record`` a proportional split is accounted by the equal split of
    ``K * max T_k`` samples instead: an upper bound on its epsilon, one pair of classes instead
    of every ordered pair (measured on digits' 136 shipped rows: 1.3 s instead of 23 s). Valid:
    any ordered pair (k, k') of the proportional split is dominated, factor by factor, by the
    pair of the two smallest bounds in the order that puts the smallest class where k or k'
    is (a larger sampling rate and at least as many steps; docs/whole-record.md §3-§5)."""
    if (kw["accountant"] != "whole-record" or kw["allocation"] != "proportional"
            or not kw["class_counts"]):
        return {}
    from dpcda.privacy import samples_per_class

    counts = kw["class_counts"]
    t_k = samples_per_class(int(kw["T"]), counts, "proportional")
    return dict(T=int(max(t_k)) * len(counts), allocation="equal")


def attach_epsilons(rows: list[dict], *, accountant: str, n: int, class_counts=None, d_x=None,
                    d_y=None, delta: float, conversion: str = "mironov", max_alpha: int = 256,
                    allocation: str | None = None) -> list[dict]:
    """Copies of ``rows`` with ``epsilon``: what ``accountant`` charges for each release (its l,
    sigma_x, ratio, c, T (None: N)); inf for sigma_x = 0; a row it cannot account gets NaN and
    its reason in ``epsilon_error``. One vectorised call per (ratio, c, T, allocation).

    ``allocation=None`` (default) accounts each release with its own split of T (the shipped
    table's: :data:`MEASURED_ALLOCATION`); ``"equal"`` or ``"proportional"`` accounts every
    release with that split instead. Under ``whole-record`` a proportional split gets a cheap
    upper bound (:func:`_dominating_split`), never less than its exact epsilon."""
    from dpcda.privacy import epsilon_grid

    out = [dict(r, epsilon=math.inf if r["sigma_x"] == 0 else math.nan) for r in rows]
    families: dict[tuple, list[dict]] = {}
    for r in out:
        if r["sigma_x"] > 0:
            families.setdefault((r["ratio"], r["c"], r["T"] or n, allocation or r["allocation"]),
                                []).append(r)
    for (ratio, c, T, alloc), fam in families.items():
        kw = dict(T=T, delta=delta, c=c, n=n, class_counts=class_counts, d_x=d_x, d_y=d_y,
                  accountant=accountant, conversion=conversion, ratio=ratio,
                  max_alpha=max_alpha, allocation=alloc)
        kw.update(_dominating_split(kw))
        ls = sorted({r["l"] for r in fam})
        sigmas = sorted({r["sigma_x"] for r in fam})
        try:  # the whole family in one vectorised call (a grid over l and sigma)
            grid = {(l, s): float(e) for l, row in zip(ls, epsilon_grid(ls=ls, sigmas=sigmas, **kw))
                    for s, e in zip(sigmas, row)}
        except ValueError:  # some l cannot be accounted: one call per l, keep the reasons
            grid = {}
            for l in ls:
                mine = sorted({r["sigma_x"] for r in fam if r["l"] == l})
                try:
                    grid.update({(l, s): float(e) for s, e in
                                 zip(mine, epsilon_grid(ls=[l], sigmas=mine, **kw)[0])})
                except ValueError as exc:
                    grid.update({(l, s): str(exc) for s in mine})
        for r in fam:
            value = grid[(r["l"], r["sigma_x"])]
            if isinstance(value, str):
                r["epsilon_error"] = value
            else:
                r["epsilon"] = value
    return out


def frontier(rows: list[dict]) -> list[dict]:
    """The privacy-utility frontier of rows carrying ``epsilon``: sorted by epsilon, every row
    whose mean accuracy beats every row of smaller or equal epsilon (so at each epsilon the best
    l measured so far). Rows without a finite epsilon (non-private, unaccountable) are left out."""
    ok = [r for r in rows if math.isfinite(r.get("epsilon", math.nan)) and not math.isnan(r["mean"])]
    ok.sort(key=lambda r: (r["epsilon"], -r["mean"]))
    best, out = -math.inf, []
    for r in ok:
        if r["mean"] > best:
            best = r["mean"]
            out.append(r)
    return out


def best_within(front: list[dict], epsilon: float) -> dict | None:
    """The frontier point that applies at ``epsilon``: the best release with epsilon <= it."""
    inside = [r for r in front if r["epsilon"] <= epsilon]
    return inside[-1] if inside else None


def public_facts(dataset: str) -> dict:
    """n, class counts, d_x, d_y of a preset (public facts the accountants need)."""
    from dpcda.data.presets import PRESETS, get_preset

    if dataset not in PRESETS:
        raise ValueError(f"dataset must be one of {', '.join(PRESETS.names())} (a preset with "
                         f"public class counts), got dataset={dataset!r}")
    p = get_preset(dataset)
    return dict(n=p.n, class_counts=tuple(p.class_counts), d_x=p.d_x, d_y=p.d_y)


def measured_normalization(dataset: str) -> str:
    """The normalisation of the releases the frontier matches (:func:`release_rows`): the
    registry's DP-CDA default, ``scale``."""
    return _release_defaults(dataset)["normalization"]


def normalization_note(dataset: str, normalize: str | None, accountant: str) -> str:
    """``""`` where a release at the reader's normalisation (``normalize``; None: the dataset's
    default under ``accountant``) is what the frontier's rows measured; else one sentence saying
    which normalisation the accuracies were measured under and what differs. The frontier
    never matches a ``dp-center`` release: its ε also composes the DP centre, which
    :func:`attach_epsilons` (the mixing's ε) would leave out, understating it."""
    from dpcda.data import get_dataset_spec
    from dpcda.mechanisms import default_normalization_for

    rows_norm = measured_normalization(dataset)
    mine = normalize or default_normalization_for(dataset, "dp-cda", accountant)
    if mine == rows_norm:
        return ""
    origin = ("this setting's normalisation" if normalize else
              f"{get_dataset_spec(dataset).title}'s default under `{accountant}`")
    spend = (", which also spends ε on its DP centre: at the same noise its ε is at least the "
             "frontier's (the note under the headline gives it)" if mine == "dp-center" else "")
    return (f"**Measured on `{rows_norm}` releases:** every accuracy here, the frontier and its "
            f"best l are of releases normalised with `{rows_norm}` (a public range: no ε spent "
            f"on it, so each ε here is the release's whole ε). This release uses `{mine}` "
            f"({origin}){spend}; no `{mine}` release is measured here, so its accuracy may "
            "differ.")


def release_rows(dataset: str, store=None, *, c: float | None = None, T: int | None = None,
                 ratio: float = 1.0, table: str | Path | None = None,
                 learner: str | None = DEFAULT) -> list[dict]:
    """The measured releases of ``dataset`` (shipped table, then ``store``) that a frontier at
    clip norm ``c`` (None: the dataset's default), ``T`` (None: N) and ``ratio`` may use: the
    default normalisation and allocation only (what a release made today uses), of ``learner``
    (:func:`measured_rows`: by default the learner a one-click measurement trains today)."""
    n = public_facts(dataset)["n"]
    d = _release_defaults(dataset)
    c = d["c"] if c is None else c
    want_T = None if T is None or T == n else int(T)
    return [r for r in measured_rows(dataset, store, table=table, learner=learner)
            if math.isclose(r["c"], c, rel_tol=1e-6) and r["normalization"] == d["normalization"]
            and r["allocation"] == d["allocation"]
            and (None if r["T"] in (None, n) else r["T"]) == want_T
            and (r["sigma_x"] == 0 or math.isclose(r["ratio"], ratio, rel_tol=1e-6))]


def frontier_rows(dataset: str, accountant: str, store=None, *, delta: float = 1e-5,
                  conversion: str = "mironov", max_alpha: int = 256, c: float | None = None,
                  T: int | None = None, ratio: float = 1.0,
                  table: str | Path | None = None) -> list[dict]:
    """The privacy-utility frontier of ``dataset`` under ``accountant`` (the stakeholder
    report's entry point): :func:`release_rows` with their ``epsilon`` at ``delta``,
    ``conversion``, ``max_alpha`` (each release with its own split of T); sorted by
    epsilon, each row the best mean accuracy so far (keys: epsilon, l, sigma_x, mean, std,
    min, max, runs, learner, source)."""
    rows = release_rows(dataset, store, c=c, T=T, ratio=ratio, table=table)
    return frontier(attach_epsilons(rows, accountant=accountant, delta=delta, conversion=conversion,
                             max_alpha=max_alpha, allocation=None, **public_facts(dataset)))


def fast_config(dataset: str, *, l: int, sigma_x: float, ratio: float = 1.0,
                c: float | None = None, T: int | None = None, delta: float = 1e-5,
                accountant: str | None = None) -> dict:
    """The experiment config (no ``run``) of a one-click measurement at a page's setting: the
    release at this noise (the accountant only reports its epsilon) and the fast learner."""
    base = dict(dataset=dataset, mechanism="dp-cda", l=int(l), sigma=float(sigma_x), delta=delta,
                ratio=ratio, c=c, T=T, accountant=accountant)
    return dict(base, model=measured_learner(dataset, float(sigma_x) > 0))


# --- one-click measurement and the readout's words -------------------------------------------

#: Seconds one run of the fast learner took here (shared 2-core CPU, benchmarks/
#: accuracy_frontier.py) are each dataset's ``DatasetSpec.seconds_per_run`` (this where it declares
#: none); a worker's start (imports torch).
DEFAULT_SECONDS_PER_RUN = 30.0
WORKER_START_SECONDS = 8.0
MEASURE_RUNS = 3
#: The accountant a measurement job reports its epsilon with. Accuracy does not depend on it (the
#: noise is fixed); the RDP class-aware bound is valid for DP-CDA and costs milliseconds where the
#: PLD one costs about a second per release, which a one-click measurement would wait for.
MEASURE_ACCOUNTANT = "class-aware"


def estimate_seconds(dataset: str, runs: int = MEASURE_RUNS, learner: str | None = None) -> float:
    """A rough duration of a one-click measurement (worker start + ``runs`` sequential runs).

    ``seconds_per_run`` is measured with the dataset's fast learner (:func:`fast_config`'s);
    ``learner`` (None: that one) another, e.g. the opt-in ``"qda"``: the difference of the two
    learners' training estimates (:func:`dpcda.experiments.estimate.train_seconds`) is added."""
    from dpcda.data.registry import DATASETS

    if dataset not in DATASETS:
        return WORKER_START_SECONDS + runs * DEFAULT_SECONDS_PER_RUN
    per_run = DATASETS.get(dataset).seconds_per_run
    if learner is not None:
        from dpcda.experiments.estimate import train_seconds

        fast = fast_config(dataset, l=4, sigma_x=0.5)  # the learner does not depend on l or sigma > 0
        if learner != fast["model"]:
            per_run += max(0.0, train_seconds({**fast, "model": learner}) - train_seconds(fast))
    return WORKER_START_SECONDS + runs * per_run


def submit_measurement(store, dataset: str, *, l: int, sigma_x: float, ratio: float = 1.0,
                       c: float | None = None, T: int | None = None, delta: float = 1e-5,
                       runs: int = MEASURE_RUNS) -> int:
    """Queue ``runs`` experiment jobs (a sweep) measuring this release with the fast learner
    (its epsilon reported by :data:`MEASURE_ACCOUNTANT`); returns the sweep id. Runs already in
    the store are linked, not rerun."""
    from dpcda.experiments.sweep import submit_sweep

    base = fast_config(dataset, l=l, sigma_x=sigma_x, ratio=ratio, c=c, T=T, delta=delta,
                       accountant=MEASURE_ACCOUNTANT)
    name = f"{dataset}: accuracy at l = {l}, sigma = {sigma_x:.4g} ({base['model']}, Privacy page)"
    return submit_sweep(store, base, sigmas=[float(sigma_x)], ls=[int(l)], runs=runs, x="sigma",
                        name=name)


def pending_jobs(store, dataset: str, *, l: int, sigma_x: float) -> list:
    """Queued or running experiment jobs that measure ``dataset`` at (l, sigma_x)."""
    return [j for j in store.jobs() if j.kind == "experiment" and not j.terminal
            and (c := job_config(j)).dataset == dataset and c.l == l
            and c.sigma is not None and _same_sigma(c.sigma, sigma_x)]


LEARNER_WORDS = {"ncm": "nearest class mean", "lda": "noise-aware LDA", "qda": "noise-aware QDA",
                 "tree": "decision tree",
                 "cnn": "the paper's CNN", "linear": "linear softmax"}


def accuracy_text(row: dict) -> str:
    """``"0.884 ± 0.002"`` (one run: ``"0.884"``)."""
    return f"{row['mean']:.3f}" + ("" if math.isnan(row["std"]) else f" ± {row['std']:.3f}")


def measurement_text(row: dict) -> str:
    """How a measured accuracy was obtained, in words: runs, range, learner, source."""
    runs = row["runs"]
    spread = (f"mean ± std over {runs} runs, each a fresh release (range {row['min']:.3f}–"
              f"{row['max']:.3f})" if runs > 1 else "one run so far")
    learner = row.get("learner") or "?"
    source = ("measured by benchmarks/accuracy_frontier.py, shipped with dpcda"
              if row.get("source") == "table" else f"from the job store ({row.get('source')})")
    return (f"{spread}; learner `{learner}` ({LEARNER_WORDS.get(learner, learner)}) trained on "
            f"the release (normalised with `{row.get('normalization')}`), tested on the real "
            f"held-out split; {source}.")
