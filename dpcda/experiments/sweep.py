"""Sweeps of experiment jobs over (epsilon or sigma, T, l, run), and their results as tables.

A sweep is one ``experiment`` job per grid point; its results are aggregated per
(epsilon or sigma, T, l): mean and sample standard deviation of the test accuracy over the runs that
finished. pandas is imported only by the functions that return DataFrames.
"""

from __future__ import annotations

import math
from typing import Iterable

from dpcda.experiments.config import job_config
from dpcda.jobs.store import JobStore

RESULT_COLUMNS = ("dataset", "mechanism", "accountant", "epsilon", "sigma_target", "T", "l", "sigma",
                  "epsilon_achieved", "runs", "failed", "mean", "std")


def _store(db) -> JobStore:
    return db if isinstance(db, JobStore) else JobStore(db)


def _parse_list(text: str, name: str, convert, ok, problem) -> list:
    """A comma-separated list: each part through ``convert`` (a ValueError counts as invalid)
    and ``ok``; ``problem(part)`` words the error for a bad part; no value may repeat."""
    values = []
    for part in str(text).split(","):
        part = part.strip()
        try:
            v = convert(part)
        except ValueError:
            v = None
        if v is None or not ok(v):
            raise ValueError(problem(part))
        values.append(v)
    if len(set(values)) != len(values):
        raise ValueError(f"{name} must not repeat a value, got {name}={text!r}")
    return values


def parse_epsilons(text: str) -> list[float]:
    """``"inf,20,10"`` -> [inf, 20.0, 10.0]; every value a number > 0 or ``inf``, no repeats."""
    return _parse_list(text, "epsilons", float, lambda v: v > 0, lambda part: (
        f"epsilons must be a comma-separated list of numbers > 0 or inf, got {part!r} in "
        f"epsilons={text!r}"))


def parse_ls(text: str, *, max_l: int | None = None, what: str = "") -> list[int]:
    """``"1,2,4"`` -> [1, 2, 4]; integers in [1, max_l] (max_l: the smallest class), no repeats."""
    hi = f", {max_l}]" if max_l is not None else ", inf)"
    return _parse_list(text, "ls", int, lambda v: v >= 1 and (max_l is None or v <= max_l), lambda part: (
        f"l must be an integer in [1{hi}{what}, got l={part!r} in ls={text!r}"))


AXES = ("l", "epsilon", "sigma", "T")  # what a sweep's accuracy can be plotted against


def parse_sigmas(text: str) -> list[float]:
    """``"0.2,0.5,1"`` -> [0.2, 0.5, 1.0]; fixed noise scales sigma_x, numbers >= 0, no repeats."""
    return _parse_list(text, "sigmas", float, lambda v: v >= 0 and math.isfinite(v), lambda part: (
        f"sigmas must be a comma-separated list of finite numbers >= 0, got {part!r} in "
        f"sigmas={text!r}"))


def parse_Ts(text: str) -> list[int]:
    """``"1000,12000"`` -> [1000, 12000]; numbers of synthetic samples, integers >= 1, no repeats."""
    return _parse_list(text, "Ts", int, lambda v: v >= 1, lambda part: (
        f"T must be an integer >= 1, got T={part!r} in Ts={text!r}"))


def _privacy_axis(epsilons, sigmas) -> list[tuple[str, float]]:
    if (epsilons is None) == (sigmas is None):
        raise ValueError("give either epsilons (sigma calibrated per point) or sigmas (fixed noise; "
                         f"the accountant reports epsilon), got epsilons={epsilons!r}, sigmas={sigmas!r}")
    if epsilons is not None:
        return [("epsilon", float(e)) for e in epsilons]
    return [("sigma", float(s)) for s in sigmas]


def grid_configs(base: dict, *, epsilons: Iterable[float] | None = None, ls: Iterable[int],
                 runs: int, sigmas: Iterable[float] | None = None,
                 Ts: Iterable[int] | None = None) -> list[dict]:
    """One experiment config per (epsilon or sigma, T, l, run), in that nesting order.

    Exactly one of ``epsilons`` (each point's sigma calibrated by the accountant) and ``sigmas``
    (fixed noise; the accountant reports the epsilon). ``Ts`` defaults to ``base["T"]`` (N when
    unset)."""
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an integer >= 1, got runs={runs!r}")
    privacy = _privacy_axis(None if epsilons is None else list(epsilons),
                            None if sigmas is None else list(sigmas))
    Ts = [int(t) for t in Ts] if Ts else [base.get("T")]
    return [dict(base, **{key: value}, T=T, l=int(l), run=r)
            for key, value in privacy for T in Ts for l in ls for r in range(runs)]


def default_x(*, n_privacy: int, n_l: int, n_T: int, fixed_sigma: bool) -> str:
    """The axis a sweep is plotted against when none is named: T if it varies, else the privacy
    axis if it varies at a single l, else l."""
    if n_T > 1:
        return "T"
    if n_privacy > 1 and n_l == 1:
        return "sigma" if fixed_sigma else "epsilon"
    return "l"


def submit_sweep(db, base: dict, *, epsilons: Iterable[float] | None = None, ls: Iterable[int],
                 runs: int, sigmas: Iterable[float] | None = None, Ts: Iterable[int] | None = None,
                 x: str | None = None, name: str | None = None, force: bool = False,
                 time_limit: float | None = None, stall_after: float | None = None,
                 max_attempts: int | None = None) -> int:
    """Queue a sweep of ``experiment`` jobs; returns the sweep id. Grid points already computed
    with an identical configuration are linked, not rerun (unless ``force``). Every grid point
    is checked first (:func:`dpcda.experiments.preflight.check_grid`): one refused point queues
    nothing.

    ``x`` records the axis the sweep is about (one of :data:`AXES`; default :func:`default_x`).
    ``time_limit`` / ``stall_after``: seconds each job may run / go without progress (see
    :meth:`dpcda.jobs.JobStore.submit`; None: the defaults); ``max_attempts``: how many times a
    job is started before it fails for good (None: the store's default, 2).
    """
    epsilons = None if epsilons is None else list(epsilons)
    sigmas = None if sigmas is None else list(sigmas)
    ls, Ts = list(ls), (list(Ts) if Ts else None)
    configs = grid_configs(base, epsilons=epsilons, sigmas=sigmas, ls=ls, Ts=Ts, runs=runs)
    from dpcda.experiments.preflight import check_grid

    check_grid(configs)  # what generate refuses is refused here, before anything is queued
    values = epsilons if epsilons is not None else sigmas
    if x is None:
        x = default_x(n_privacy=len(values), n_l=len(ls), n_T=len(Ts or [None]),
                      fixed_sigma=sigmas is not None)
    if x not in AXES or (x == "sigma" and sigmas is None) or (x == "epsilon" and epsilons is None):
        over = "fixed sigmas" if sigmas is not None else "target epsilons"
        raise ValueError(f"x must be one of l, T, or {'sigma' if sigmas is not None else 'epsilon'} "
                         f"for a sweep over {over}, got x={x!r}")
    if name is None:
        privacy = (f"eps {','.join(_fmt_eps(e) for e in epsilons)}" if epsilons is not None
                   else f"sigma {','.join(f'{s:g}' for s in sigmas)}")
        T_part = f"; T {','.join(map(str, Ts))}" if Ts else ""
        name = f"{base.get('dataset', '?')}: {privacy}; l {','.join(map(str, ls))}{T_part}; {runs} run(s)"
    sweep_config = dict(base=base, epsilons=epsilons, ls=ls, runs=runs, x=x)
    if sigmas is not None:
        sweep_config["sigmas"] = sigmas
    if Ts:
        sweep_config["Ts"] = Ts
    limits = {k: v for k, v in (("time_limit", time_limit), ("stall_after", stall_after)) if v is not None}
    sweep_config.update(limits)
    if max_attempts is not None:
        limits["max_attempts"] = max_attempts
    return _store(db).create_sweep(name, sweep_config, [("experiment", c) for c in configs], force=force,
                                   **limits)


def sweep_finished(db, sweep_id: int) -> bool:
    return all(j.terminal for j in _store(db).jobs(sweep_id=sweep_id))


def _fmt_eps(e: float) -> str:
    return "inf" if math.isinf(e) else f"{e:g}"


JOB_COLUMNS = ["job_id", "status", "dataset", "mechanism", "accountant", "epsilon", "sigma_target", "T",
               "l", "run", "sigma", "epsilon_achieved", "accuracy", "seconds", "device", "epoch",
               "n_epochs", "reused_from", "message"]


def job_results(db, sweep_id: int):
    """One row per job of the sweep: its grid point, status, accuracy and noise.

    ``epsilon`` is the target (NaN for a fixed-sigma point, whose ``sigma_target`` is set);
    ``T`` is NaN where it was left at N; ``epsilon_achieved`` is what the accountant reports."""
    import pandas as pd

    rows = []
    for j in _store(db).jobs(sweep_id=sweep_id):
        c, r = job_config(j), j.result or {}
        rows.append(dict(
            job_id=j.id, status=j.status, dataset=c.dataset, mechanism=c.mechanism,
            accountant=c.accountant, epsilon=c.epsilon, sigma_target=c.sigma,
            T=c.T, l=c.l, run=c.run,
            sigma=r.get("sigma_x"), epsilon_achieved=r.get("epsilon"),
            accuracy=r.get("accuracy") if j.status == "done" else None,
            seconds=r.get("seconds"), device=r.get("device"), epoch=j.epoch, n_epochs=j.n_epochs,
            reused_from=j.reused_from, message=j.message))
    df = pd.DataFrame(rows, columns=JOB_COLUMNS)
    for col in ("epsilon", "sigma_target", "T", "sigma", "epsilon_achieved", "accuracy", "seconds"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    return df


def sweep_results(db, sweep_id: int):
    """Mean and sample std (ddof=1; NaN for a single run) of test accuracy per grid point
    (epsilon or sigma, T, l), over the runs that finished; ``failed`` counts the runs that did
    not; ``sigma`` and ``epsilon_achieved`` are the means over the finished runs."""
    import pandas as pd

    jobs = job_results(db, sweep_id)
    out = []
    keys = ["dataset", "mechanism", "accountant", "epsilon", "sigma_target", "T", "l"]
    for key, g in jobs.groupby(keys, sort=False, dropna=False):
        done = g[g["status"] == "done"]
        acc = done["accuracy"].astype(float)
        nan = float("nan")
        out.append(dict(zip(keys, key), sigma=done["sigma"].mean() if len(done) else nan,
                        epsilon_achieved=done["epsilon_achieved"].mean() if len(done) else nan,
                        runs=int(len(done)), failed=int((g["status"] == "failed").sum()),
                        mean=acc.mean() if len(acc) else nan,
                        std=acc.std(ddof=1) if len(acc) > 1 else nan))
    df = pd.DataFrame(out, columns=list(RESULT_COLUMNS))
    df["l"] = df["l"].astype(int)
    return df.sort_values(["epsilon", "sigma_target", "T", "l"], ascending=[False, True, True, True],
                          kind="stable", na_position="last").reset_index(drop=True)


def list_sweeps(db):
    """Every sweep in the store with its status and job counts, newest first."""
    import pandas as pd

    store = _store(db)
    rows = []
    for s in store.sweeps():
        counts = {k: 0 for k in ("queued", "running", "done", "failed", "cancelled")}
        for j in store.jobs(sweep_id=s.id):
            counts[j.status] += 1
        base = (s.config or {}).get("base", {})
        rows.append(dict(sweep_id=s.id, created=pd.Timestamp(s.created, unit="s"), name=s.name,
                         status=s.status, dataset=base.get("dataset"), jobs=sum(counts.values()),
                         **counts))
    cols = ["sweep_id", "created", "name", "status", "dataset", "jobs", "queued", "running", "done",
            "failed", "cancelled"]
    return pd.DataFrame(rows, columns=cols).sort_values("sweep_id", ascending=False).reset_index(drop=True)


def format_table(df) -> str:
    """The results table as aligned text: dataset, accountant, epsilon (the target, or the one
    the accountant reports for a fixed sigma, marked "~"), l, T (when set), sigma, runs,
    mean ± std."""
    show_T = "T" in df and df["T"].notna().any()
    header = ["dataset", "accountant", "epsilon", "l", *(["T"] if show_T else []), "sigma", "runs",
              "accuracy (mean ± std)"]
    lines = []
    for r in df.itertuples(index=False):
        fixed = getattr(r, "sigma_target", float("nan"))
        fixed = fixed == fixed  # a fixed-sigma point
        sigma = "n/a" if r.sigma != r.sigma else ("0 (non-private)" if r.sigma == 0 else f"{r.sigma:.4g}")
        if fixed:
            a = r.epsilon_achieved
            eps = "n/a" if a != a else "~" + (_fmt_eps(a) if math.isinf(a) else f"{a:.4g}")
            sigma = f"{r.sigma_target:g} (fixed)"
        else:
            eps = _fmt_eps(float(r.epsilon))
        if r.runs == 0:
            acc = "n/a"
        elif r.std != r.std:
            acc = f"{r.mean:.4f}"
        else:
            acc = f"{r.mean:.4f} ± {r.std:.4f}"
        runs = f"{r.runs}" + (f" ({r.failed} failed)" if r.failed else "")
        T = [] if not show_T else ["N" if r.T != r.T else str(int(r.T))]
        lines.append([str(r.dataset), str(r.accountant), eps, str(r.l), *T, sigma, runs, acc])
    right = {2, 3, 4, 5} if show_T else {2, 3, 4}
    widths = [max(len(h), *(len(row[i]) for row in lines)) if lines else len(h)
              for i, h in enumerate(header)]
    fmt = lambda row: "  ".join(v.rjust(w) if i in right else v.ljust(w)  # noqa: E731
                                for i, (v, w) in enumerate(zip(row, widths))).rstrip()
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, lines)])
