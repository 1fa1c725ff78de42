"""Frontier epsilons remembered per release, and computed ahead in the background.

The Privacy page charges every measured release of a dataset under the chosen accountant
(:func:`dpcda.experiments.frontier.attach_epsilons`); for digits' 136 shipped rows that is 0.1-0.4 s of CPU
per accountant, paid again on each switch of accountant or dataset. Here:

- :func:`epsilons` is ``attach_epsilons`` remembering each release's value (per accountant,
  public facts, delta, conversion, max_alpha, allocation): a switch back, or a new measured row,
  costs only the releases not seen before. The values are those ``attach_epsilons`` computes
  (nothing approximated; in a batch of other releases a value may differ in its last bits).
- :func:`dpcda.dashboard.background.prefetch` computes, in one daemon thread after a short delay, what a
  switch would need next (the page: the same releases under the other accountants, the other
  datasets under this one, :func:`switch_tasks`), so that the switch finds them remembered.

    rows, facts = release_rows("digits"), public_facts("digits")
    eps = epsilons(rows, accountant="class-aware", delta=1e-5, **facts)  # then remembered
    prefetch(switch_tasks("digits", accountant="class-aware", accountants=[...], ...))
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from dpcda.dashboard import background
from dpcda.dashboard.background import prefetch
from dpcda.experiments.frontier import attach_epsilons, public_facts, release_rows

__all__ = ["epsilons", "forget", "prefetch", "remembered", "switch_tasks"]

#: Releases a prefetch task accounts at a time; between two chunks a page run goes first. (Digits'
#: 136 rows under one accountant were one 0.1-0.4 s call; in chunks of 8 they take 0.26 s
#: instead of 0.36 s under class-aware, the smaller grids wasting less, 0.10-0.11 s either way
#: under paper and dpmix.)
TASK_CHUNK = 8

#: Releases remembered (a point: one release under one accounting setting); the oldest go.
MAX_POINTS = 20_000
_memo: OrderedDict[tuple, tuple[float, str | None]] = OrderedDict()
_lock = threading.Lock()


def _point(r: dict, n: int, allocation: str | None) -> tuple:
    return (r["l"], r["sigma_x"], r["ratio"], r["c"], r["T"] or n, allocation or r["allocation"])


def _keys(rows, accountant, n, class_counts, d_x, d_y, delta, conversion, max_alpha,
          allocation) -> list[tuple]:
    """One memo key per release: the accounting setting, then the release's own point."""
    setting = (accountant, n, None if class_counts is None else tuple(class_counts), d_x, d_y,
               delta, conversion, int(max_alpha), allocation)
    return [(setting, _point(r, n, allocation)) for r in rows]


def epsilons(rows: list[dict], *, accountant: str, n: int, class_counts=None, d_x=None,
             d_y=None, delta: float, conversion: str = "mironov", max_alpha: int = 256,
             allocation: str | None = None) -> list[dict]:
    """:func:`dpcda.experiments.frontier.attach_epsilons` (same arguments, same result), computing only the
    releases whose epsilon is not remembered yet."""
    keys = _keys(rows, accountant, n, class_counts, d_x, d_y, delta, conversion, max_alpha,
                 allocation)
    with _lock:
        known = {k: _memo[k] for k in keys if k in _memo}
    missing = {k: r for k, r in zip(keys, rows) if k not in known}
    if missing:
        done = attach_epsilons(list(missing.values()), accountant=accountant, n=n,
                               class_counts=class_counts, d_x=d_x, d_y=d_y, delta=delta,
                               conversion=conversion, max_alpha=max_alpha, allocation=allocation)
        new = {k: (r["epsilon"], r.get("epsilon_error")) for k, r in zip(missing, done)}
        known.update(new)
        with _lock:
            _memo.update(new)
            while len(_memo) > MAX_POINTS:
                _memo.popitem(last=False)
    out = []
    for k, r in zip(keys, rows):
        eps, error = known[k]
        out.append(dict(r, epsilon=eps) | ({"epsilon_error": error} if error else {}))
    return out


def remembered(rows: list[dict], *, accountant: str, n: int, class_counts=None, d_x=None,
               d_y=None, delta: float, conversion: str = "mironov", max_alpha: int = 256,
               allocation: str | None = None) -> bool:
    """Whether :func:`epsilons` would compute nothing for these releases."""
    keys = _keys(rows, accountant, n, class_counts, d_x, d_y, delta, conversion, max_alpha,
                 allocation)
    with _lock:
        return all(k in _memo for k in keys)


def forget() -> None:
    """Drop every remembered value (tests)."""
    with _lock:
        _memo.clear()
    background.forget()


def switch_tasks(dataset: str, store=None, *, accountant: str, accountants: Iterable[str],
                 datasets: Iterable[str], c: float, T: int | None, ratio: float, delta: float,
                 conversion: str = "mironov", max_alpha: int = 256) -> list[Callable[[], object]]:
    """What the Privacy page needs after one switch, as tasks for :func:`prefetch`: the
    releases of each other dataset (its own N when ``T`` is None) under ``accountant`` (the
    guided path picks the dataset first), then those of ``dataset`` under each other
    accountant. The rows are read when a task runs."""
    kw = dict(delta=delta, conversion=conversion, max_alpha=max_alpha)

    def task(name: str, acc: str) -> Callable[[], object]:
        def run() -> object:
            facts = public_facts(name)
            rows = release_rows(name, store, c=c, T=T, ratio=ratio)
            out = []
            for i in range(0, len(rows), TASK_CHUNK):  # page runs go first between chunks
                background.pause_for_foreground()
                out += epsilons(rows[i:i + TASK_CHUNK], accountant=acc, **facts, **kw)
            return out
        return run

    return ([task(d, accountant) for d in datasets if d != dataset]
            + [task(dataset, a) for a in accountants if a != accountant])
