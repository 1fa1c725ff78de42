"""Sweeps of experiment jobs over (epsilon, l, run), and their results as tables.

A sweep is one ``experiment`` job per grid point; its results are aggregated per
(epsilon, l): mean and sample standard deviation of the test accuracy over the runs that
finished. pandas is imported only by the functions that return DataFrames.
"""

from __future__ import annotations

import math
from typing import Iterable

from dpcda.jobs.store import JobStore

RESULT_COLUMNS = ("dataset", "mechanism", "accountant", "epsilon", "l", "sigma", "runs", "failed",
                  "mean", "std")


def _store(db) -> JobStore:
    return db if isinstance(db, JobStore) else JobStore(db)


def parse_epsilons(text: str) -> list[float]:
    """``"inf,20,10"`` -> [inf, 20.0, 10.0]; every value a number > 0 or ``inf``, no repeats."""
    values = []
    for part in str(text).split(","):
        part = part.strip()
        try:
            v = float(part)
        except ValueError:
            v = float("nan")
        if not (v > 0) or math.isnan(v):
            raise ValueError(f"epsilons must be a comma-separated list of numbers > 0 or inf, "
                             f"got {part!r} in epsilons={text!r}")
        values.append(v)
    if len(set(values)) != len(values):
        raise ValueError(f"epsilons must not repeat a value, got epsilons={text!r}")
    return values


def parse_ls(text: str, *, max_l: int | None = None, what: str = "") -> list[int]:
    """``"1,2,4"`` -> [1, 2, 4]; integers in [1, max_l] (max_l: the smallest class), no repeats."""
    values = []
    hi = f", {max_l}]" if max_l is not None else ", inf)"
    for part in str(text).split(","):
        part = part.strip()
        try:
            v = int(part)
        except ValueError:
            v = 0
        if v < 1 or (max_l is not None and v > max_l):
            raise ValueError(f"l must be an integer in [1{hi}{what}, got l={part!r} in ls={text!r}")
        values.append(v)
    if len(set(values)) != len(values):
        raise ValueError(f"ls must not repeat a value, got ls={text!r}")
    return values


def grid_configs(base: dict, *, epsilons: Iterable[float], ls: Iterable[int], runs: int) -> list[dict]:
    """One experiment config per (epsilon, l, run), in that nesting order."""
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be an integer >= 1, got runs={runs!r}")
    return [dict(base, epsilon=float(eps), l=int(l), run=r)
            for eps in epsilons for l in ls for r in range(runs)]


def submit_sweep(db, base: dict, *, epsilons: Iterable[float], ls: Iterable[int], runs: int,
                 name: str | None = None, force: bool = False) -> int:
    """Queue a sweep of ``experiment`` jobs; returns the sweep id. Grid points already computed
    with an identical configuration are linked, not rerun (unless ``force``)."""
    epsilons, ls = list(epsilons), list(ls)
    configs = grid_configs(base, epsilons=epsilons, ls=ls, runs=runs)
    if name is None:
        name = f"{base.get('dataset', '?')}: eps {','.join(_fmt_eps(e) for e in epsilons)}; " \
               f"l {','.join(map(str, ls))}; {runs} run(s)"
    sweep_config = dict(base=base, epsilons=epsilons, ls=ls, runs=runs)
    return _store(db).create_sweep(name, sweep_config, [("experiment", c) for c in configs], force=force)


def sweep_finished(db, sweep_id: int) -> bool:
    return all(j.terminal for j in _store(db).jobs(sweep_id=sweep_id))


def _fmt_eps(e: float) -> str:
    return "inf" if math.isinf(e) else f"{e:g}"


def job_results(db, sweep_id: int):
    """One row per job of the sweep: its grid point, status, accuracy and noise."""
    import pandas as pd

    rows = []
    for j in _store(db).jobs(sweep_id=sweep_id):
        c, r = j.config, j.result or {}
        rows.append(dict(
            job_id=j.id, status=j.status, dataset=c.get("dataset"), mechanism=c.get("mechanism"),
            accountant=c.get("accountant"), epsilon=c.get("epsilon"), l=c.get("l"), run=c.get("run"),
            sigma=r.get("sigma_x"), epsilon_achieved=r.get("epsilon"),
            accuracy=r.get("accuracy") if j.status == "done" else None,
            seconds=r.get("seconds"), device=r.get("device"), epoch=j.epoch, n_epochs=j.n_epochs,
            reused_from=j.reused_from, message=j.message))
    cols = ["job_id", "status", "dataset", "mechanism", "accountant", "epsilon", "l", "run", "sigma",
            "epsilon_achieved", "accuracy", "seconds", "device", "epoch", "n_epochs", "reused_from",
            "message"]
    df = pd.DataFrame(rows, columns=cols)
    for col in ("epsilon", "sigma", "epsilon_achieved", "accuracy", "seconds"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    return df


def sweep_results(db, sweep_id: int):
    """Mean and sample std (ddof=1; NaN for a single run) of test accuracy per (epsilon, l),
    over the runs that finished; ``failed`` counts the runs that did not."""
    import pandas as pd

    jobs = job_results(db, sweep_id)
    out = []
    keys = ["dataset", "mechanism", "accountant", "epsilon", "l"]
    for key, g in jobs.groupby(keys, sort=False, dropna=False):
        done = g[g["status"] == "done"]
        acc = done["accuracy"].astype(float)
        out.append(dict(zip(keys, key), sigma=done["sigma"].mean() if len(done) else float("nan"),
                        runs=int(len(done)), failed=int((g["status"] == "failed").sum()),
                        mean=acc.mean() if len(acc) else float("nan"),
                        std=acc.std(ddof=1) if len(acc) > 1 else float("nan")))
    df = pd.DataFrame(out, columns=list(RESULT_COLUMNS))
    df["l"] = df["l"].astype(int)
    return df.sort_values(["epsilon", "l"], ascending=[False, True], kind="stable").reset_index(drop=True)


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
    """The results table as aligned text: dataset, epsilon, l, sigma, runs, mean ± std."""
    header = ["dataset", "accountant", "epsilon", "l", "sigma", "runs", "accuracy (mean ± std)"]
    lines = []
    for r in df.itertuples(index=False):
        sigma = "n/a" if r.sigma != r.sigma else ("0 (non-private)" if r.sigma == 0 else f"{r.sigma:.4g}")
        if r.runs == 0:
            acc = "n/a"
        elif r.std != r.std:
            acc = f"{r.mean:.4f}"
        else:
            acc = f"{r.mean:.4f} ± {r.std:.4f}"
        runs = f"{r.runs}" + (f" ({r.failed} failed)" if r.failed else "")
        lines.append([str(r.dataset), str(r.accountant), _fmt_eps(float(r.epsilon)), str(r.l),
                      sigma, runs, acc])
    widths = [max(len(h), *(len(row[i]) for row in lines)) if lines else len(h)
              for i, h in enumerate(header)]
    fmt = lambda row: "  ".join(v.rjust(w) if i in (2, 3, 4) else v.ljust(w)  # noqa: E731
                                for i, (v, w) in enumerate(zip(row, widths))).rstrip()
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, lines)])
