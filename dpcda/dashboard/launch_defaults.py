"""What the Utility and Compare pages launch by default, per dataset and mechanism: a grid that
finishes in about two minutes on this CPU (:data:`dpcda.experiments.estimate.LONG_SECONDS`).

Each page starts from the full grid it would like (the paper's ε = ∞, 20, 10 and l = 1, 4, 16,
64, three runs, each mechanism's measured learner) and trims it, in this order, until
:func:`dpcda.experiments.estimate.estimate_jobs` is within the budget:

1. a learner that costs minutes (the CNN ``auto`` picks for ε = ∞ on 28 × 28 images) is
   replaced by the noise-aware LDA (the measured best private learner, seconds);
2. runs 3 → 2 → 1;
3. grid values are dropped, least informative first (:data:`KEEP_ORDER`: ε = 10 and ∞, then
   1, 20; l = 16, 4, 64 ...).

What was trimmed is returned in words (``Defaults.trimmed``) so the page can say it. Which
experiments a mechanism offers is read from its registry entry: one with an order of mixture
l gets the "vs l" sweep, one without (DP-MERF, local, random projection) a sweep over ε; a
fixed-σ sweep needs a mechanism that takes a noise scale. Nothing here names a mechanism.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from dpcda.experiments.estimate import LONG_SECONDS, estimate_jobs

INF = math.inf
#: Epochs for the torch learners of data that declares none (uploads); a registered dataset
#: declares its own (``DatasetSpec.epochs``: digits 30, adult 1, measured).
DEFAULT_IMAGE_EPOCHS = 5
#: The full grids before trimming (per experiment axis).
FULL = {"l": {"epsilons": (INF, 20.0, 10.0), "ls": (1, 4, 16, 64)},
        "epsilon": {"epsilons": (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, INF), "ls": (4,)},
        "sigma": {"sigmas": (0.2, 0.4, 0.7, 1.0, 1.5, 2.0, 3.0), "ls": (128,)},
        "T": {"sigmas": (0.7,), "ls": (128,), "T_fractions": (0.1, 0.2, 0.5, 1.0)}}
#: Most informative first: trimming drops from the end.
KEEP_ORDER = {"epsilons": (10.0, INF, 1.0, 20.0, 5.0, 50.0, 2.0),
              "sigmas": (0.7, 0.2, 3.0, 1.5, 0.4, 1.0, 2.0),
              "ls": (16, 4, 64, 128, 1, 32, 8, 2, 256, 512),
              "T_fractions": (1.0, 0.1, 0.5, 0.2)}
FAST_LEARNER = "lda"


@dataclass(frozen=True)
class Defaults:
    """A launch's default grid. ``epsilons``/``sigmas``: the privacy axis (one is None);
    ``Ts``: None (T = N) or a list; ``model``: a learner name or ``"auto"``; ``seconds``: the
    estimate; ``trimmed``: what was cut from the full grid to stay within the budget, in words."""

    epsilons: tuple[float, ...] | None
    sigmas: tuple[float, ...] | None
    ls: tuple[int, ...]
    Ts: tuple[int, ...] | None
    runs: int
    epochs: int
    model: str
    seconds: float
    trimmed: tuple[str, ...] = field(default=())


def epochs_for(dataset: str) -> int:
    from dpcda.data.registry import DATASETS

    return DATASETS.get(dataset).epochs if dataset in DATASETS else DEFAULT_IMAGE_EPOCHS


def compare_datasets() -> tuple[str, ...]:
    """The datasets the Compare page offers: the registered image datasets with public facts
    (every mechanism runs on them and their l range is known without data), those that need no
    files first (the first is the page's default: scikit-learn digits, seconds a run)."""
    from dpcda.data.presets import PRESETS
    from dpcda.data.registry import DATASETS

    names = [n for n in PRESETS.names() if DATASETS.get(n).kind == "image"]
    return tuple(sorted(names, key=lambda n: not DATASETS.get(n).offline))


def experiments_for(mechanism: str) -> list[str]:
    """The sweep axes a mechanism offers (from its registry entry): ``l`` first for one that
    mixes, ``epsilon`` first otherwise; ``sigma`` only with a noise scale; ``T`` always."""
    from dpcda.mechanisms import MECHANISMS

    m = MECHANISMS.get(mechanism)
    axes = ["l", "epsilon"] if m.mixes else ["epsilon"]
    if m.noise_scale:
        axes.append("sigma")
    return axes + ["T"]


def _order(values, key: str) -> list:
    pref = KEEP_ORDER[key]
    return sorted(values, key=lambda v: pref.index(v) if v in pref else len(pref))


def _configs(dataset, mechanism, g: dict, model: str, epochs: int) -> list[dict]:
    from dpcda.experiments.sweep import grid_configs

    base = {"dataset": dataset, "mechanism": mechanism, "train": {"model": model, "epochs": epochs}}
    return grid_configs(base, epsilons=g.get("epsilons"), sigmas=g.get("sigmas"), ls=g["ls"],
                        runs=g["runs"], Ts=g.get("Ts"))


def _resolved(cfgs: list[dict]) -> list[dict]:
    from dpcda.experiments.run import normalize

    return [normalize(c) for c in cfgs]


NAMES = {"epsilons": "ε", "sigmas": "σ", "ls": "l", "Ts": "T"}


def trim(cost, grid: dict, *, budget: float, keys=("epsilons", "sigmas", "ls", "Ts"),
         names: dict | None = None) -> list[str]:
    """Shrink ``grid`` in place (``runs``, then the lists under ``keys``, least informative
    last in each) until ``cost(grid) <= budget``; returns what was cut, in words, one phrase
    per kind ("runs 3 → 1", "ε = 20, ∞ left out"; ``names``: a key's name in them)."""
    names = {**NAMES, **(names or {})}
    runs0, dropped = grid["runs"], {}
    while cost(grid) > budget:
        if grid["runs"] > 1:
            grid["runs"] -= 1
            continue
        lists = [k for k in keys if grid.get(k) and len(grid[k]) > 1]
        if not lists:
            break
        dropped.setdefault(lists[0], []).append(grid[lists[0]].pop())
    cut = [f"runs {runs0} → {grid['runs']}"] if grid["runs"] != runs0 else []
    for k, vals in dropped.items():
        cut.append(f"{names.get(k, k)} = " + ", ".join("∞" if v == INF else f"{v:g}" for v in vals)
                   + " left out")
    return cut


def utility_defaults(dataset: str, mechanism: str, x: str, *, budget: float = LONG_SECONDS,
                     max_l: int | None = None, n: int | None = None) -> Defaults:
    """The Utility page's default sweep for ``dataset``, ``mechanism`` and axis ``x``
    (one of :func:`experiments_for`), trimmed to ``budget`` seconds."""
    from dpcda.mechanisms import MECHANISMS
    from dpcda.data.presets import PRESETS

    if x not in experiments_for(mechanism):
        raise ValueError(f"x must be one of {', '.join(experiments_for(mechanism))} for "
                         f"mechanism={mechanism!r}, got x={x!r}")
    m = MECHANISMS.get(mechanism)
    full = FULL[x]
    if max_l is None and dataset in PRESETS:
        max_l = min(PRESETS.get(dataset).class_counts)
    n = n or (PRESETS.get(dataset).n if dataset in PRESETS else None)
    ls = [v for v in full["ls"] if max_l is None or v <= max_l] or [max_l or 1]
    if not m.mixes:
        ls = [1]
    grid: dict = {"runs": 3, "ls": _order(ls, "ls")}
    if "sigmas" in full and m.noise_scale:
        grid["sigmas"] = _order(full["sigmas"], "sigmas")
    else:
        from dpcda.dashboard.sweep_request import no_noise_ok

        eps = [e for e in full.get("epsilons", (10.0,)) if no_noise_ok(mechanism) or e != INF]
        grid["epsilons"] = _order(eps, "epsilons")
    if x == "T" and n:
        grid["Ts"] = [max(1, round(n * f)) for f in _order(full["T_fractions"], "T_fractions")]
    epochs = epochs_for(dataset)
    model = "auto"

    def cost(g, model_=None):
        return estimate_jobs(_resolved(_configs(dataset, mechanism, _sorted(g), model_ or model,
                                                epochs))).seconds

    cut = []
    if cost(grid) > budget and cost(grid, FAST_LEARNER) < 0.5 * cost(grid):
        model = FAST_LEARNER
        cut.append(f"learner {FAST_LEARNER} (auto's choice would take minutes per job)")
    cut += trim(cost, grid, budget=budget)
    g = _sorted(grid)
    return Defaults(epsilons=_tuple(g.get("epsilons")), sigmas=_tuple(g.get("sigmas")),
                    ls=tuple(g["ls"]), Ts=_tuple(g.get("Ts")), runs=g["runs"], epochs=epochs,
                    model=model, seconds=cost(grid), trimmed=tuple(cut))


def _sorted(g: dict) -> dict:
    out = dict(g)
    for k in ("ls", "sigmas", "Ts"):
        if out.get(k):
            out[k] = sorted(out[k])
    if out.get("epsilons"):
        out["epsilons"] = sorted(out["epsilons"], reverse=True)
    return out


def _tuple(v):
    return None if v is None else tuple(v)


@dataclass(frozen=True)
class CompareDefaults:
    """Compare's default launch: ``runs``, ``epochs``, ``ls`` per mixing mechanism, the
    estimate and what was trimmed, in words."""

    runs: int
    epochs: int
    ls: dict[str, tuple[int, ...]]
    seconds: float
    trimmed: tuple[str, ...] = field(default=())


def compare_defaults(dataset: str, epsilon: float, mechanisms, *,
                     budget: float = LONG_SECONDS) -> CompareDefaults:
    """Compare's defaults for ``dataset`` at ``epsilon``: every mechanism kept (a comparison
    without one is not the comparison), each with its own learner; runs, then the l values
    tried per mixing mechanism are trimmed to ``budget``."""
    from dpcda.experiments.compare import compare_jobs, default_ls
    from dpcda.mechanisms import MECHANISMS
    from dpcda.data.presets import PRESETS

    max_l = min(PRESETS.get(dataset).class_counts) if dataset in PRESETS else None
    mixing = [m for m in mechanisms if MECHANISMS.get(m).mixes]
    grid: dict = {"runs": 3, **{m: _order(default_ls(m, max_l), "ls") for m in mixing}}
    epochs = epochs_for(dataset)

    def cost(g):
        if not mechanisms:
            return 0.0
        jobs = compare_jobs(dataset, epsilon, mechanisms=list(mechanisms), runs=g["runs"],
                            ls={m: g[m] for m in mixing}, train={"epochs": epochs})
        return estimate_jobs(_resolved([c for _, c in jobs])).seconds

    cut = trim(cost, grid, budget=budget, keys=tuple(mixing),
               names={m: f"{MECHANISMS.get(m).title}: l" for m in mixing})
    return CompareDefaults(runs=grid["runs"], epochs=epochs,
                           ls={m: tuple(sorted(grid[m])) for m in mixing}, seconds=cost(grid),
                           trimmed=tuple(cut))
