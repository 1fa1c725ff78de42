"""Show code: the library call, the command line and a standalone script behind a page's result.

>>> s = ReproSettings(page="privacy", dataset="mnist", l=4, sigma_x=0.25, delta=1e-5)
>>> r = reproduce(s)
>>> print(r.cli[0])      # python -m dpcda epsilon --preset mnist --l 4 --sigma-x 0.25 ...
>>> r.script             # a Python script printing the same epsilon (its last line: JSON)

Every builder reads plain settings (:class:`ReproSettings`, what the page's widgets hold) and
writes code that calls the real entry points: :func:`dpcda.privacy.compute_epsilon` and
``python -m dpcda epsilon`` (Privacy), :func:`dpcda.mechanisms.generate_from_dataset` and
``generate`` (Samples), :func:`dpcda.jobs.submit_sweep` / ``run_experiment`` and ``sweep``
(Utility), :func:`dpcda.experiments.compare.compare_jobs` and one ``sweep --mechanism`` per mechanism
(Compare). Numbers are written with ``repr`` so that a noise scale round-trips exactly.

Privacy: no code ever contains a random seed or noise of a release; a script draws fresh
randomness (an epsilon is deterministic, an accuracy is not). Pages register no builder of
their own: :data:`BUILDERS` maps a page name to its builder (:func:`register_builder`).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field, fields
from typing import Callable, Mapping

from dpcda.util.registry import Registry

#: Printed by every generated script as its last line, followed by one JSON object.
RESULT_PREFIX = "RESULT "


@dataclass(frozen=True, kw_only=True)
class ReproSettings:
    """What a page shows a result for. Fields a page does not use stay at their defaults."""

    page: str
    dataset: str | None = None
    n: int | None = None                      # custom privacy setting: N ...
    class_counts: tuple[int, ...] | None = None  # ... or the class counts
    d_x: int | None = None
    d_y: int | None = None
    mechanism: str = "dp-cda"
    l: int | None = None
    ls: tuple[int, ...] = ()
    sigma_x: float | None = None
    sigma_y: float | None = None
    epsilon: float | None = None              # a target epsilon (sigma calibrated)
    epsilons: tuple[float, ...] = ()
    sigmas: tuple[float, ...] = ()
    Ts: tuple[int, ...] = ()
    T: int | None = None
    c: float | None = None
    delta: float = 1e-5
    accountant: str | None = None
    conversion: str = "mironov"
    max_alpha: int = 256
    allocation: str | None = None
    normalization: str | None = None
    model: str = "auto"
    epochs: int | None = None
    label_mode: str | None = None
    denoise_sigma: float | None = None
    runs: int = 1
    x: str | None = None
    mechanisms: tuple[str, ...] = ()
    mechanism_ls: tuple[tuple[str, tuple[int, ...]], ...] = ()
    accountants: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        from dpcda.util.checks import check_float, check_int

        set_ = object.__setattr__
        if self.page not in BUILDERS:
            raise ValueError(f"page must be one of {', '.join(BUILDERS.names())}, got page={self.page!r}")
        for name in ("ls", "epsilons", "sigmas", "Ts", "mechanisms"):
            set_(self, name, tuple(getattr(self, name) or ()))
        if self.class_counts is not None:
            set_(self, "class_counts", tuple(int(k) for k in self.class_counts))
        for name in ("mechanism_ls", "accountants"):  # a dict is accepted, kept as sorted pairs
            value = getattr(self, name) or ()
            pairs = value.items() if isinstance(value, Mapping) else value
            set_(self, name, tuple((str(k), tuple(int(x) for x in v) if name == "mechanism_ls"
                                    else str(v)) for k, v in pairs))
        if self.l is not None:
            set_(self, "l", check_int("l", self.l, 1))
        set_(self, "ls", tuple(check_int("l", v, 1) for v in self.ls))
        set_(self, "runs", check_int("runs", self.runs, 1))
        set_(self, "max_alpha", check_int("max_alpha", self.max_alpha, 3))
        set_(self, "delta", check_float("delta", self.delta, lo=0.0, hi=1.0, lo_open=True,
                                        hi_open=True))
        if self.epsilon is not None:
            set_(self, "epsilon", check_float("epsilon", self.epsilon, lo=0.0, lo_open=True))
        for name in ("sigma_x", "sigma_y"):
            if getattr(self, name) is not None:
                set_(self, name, check_float(name, getattr(self, name), lo=0.0))
        if self.T is not None:
            set_(self, "T", check_int("T", self.T, 1))

    @classmethod
    def from_mapping(cls, page: str, settings: Mapping) -> "ReproSettings":
        """From a page's plain dict; an unknown key is a ValueError naming the known ones."""
        known = {f.name for f in fields(cls)} - {"page"}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise ValueError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(page=page, **dict(settings))


@dataclass(frozen=True)
class Reproduction:
    """The code behind one page's result: a library snippet, shell command(s), a script."""

    page: str
    what: str                       # the result reproduced, in words
    library: str                    # Python snippet (the library call)
    cli: tuple[str, ...]            # shell command line(s)
    script: str                     # standalone Python script (prints RESULT_PREFIX + JSON last)
    filename: str
    notes: tuple[str, ...] = field(default=())

    @property
    def cli_text(self) -> str:
        return "\n".join(self.cli)


BUILDERS: Registry[Callable[[ReproSettings], Reproduction]] = Registry("reproducible page")


def register_builder(page: str):
    """Decorator: ``fn(settings) -> Reproduction`` reproduces ``page``."""
    return BUILDERS.register(page)


def settings_from(obj, **overrides) -> dict:
    """The :class:`ReproSettings` fields an object (e.g. a page's request dataclass) carries,
    under the same names, plus ``overrides``; a ``denoise`` flag becomes ``denoise_sigma``
    (the object's ``denoise_sigma``, else the 1-pixel filter of the pages)."""
    known = {f.name for f in fields(ReproSettings)} - {"page"}
    out = {k: getattr(obj, k) for k in known if getattr(obj, k, None) is not None}
    if getattr(obj, "denoise", False) is True and "denoise_sigma" not in out:
        out["denoise_sigma"] = 1.0
    return {**out, **overrides}


def settings_from_sweep(config: Mapping) -> dict:
    """The Utility page's settings of a stored sweep (``JobStore.get_sweep(i).config``: its
    ``base`` and grid), so "Reproduce this" gives the sweep that is shown, exactly."""
    base = dict(config.get("base") or {})
    train = dict(base.pop("train", None) or {})
    out = {k: base[k] for k in ("dataset", "mechanism", "accountant", "conversion", "delta", "c",
                                "normalization", "allocation", "T") if base.get(k) is not None}
    out.update({k: train[k] for k in ("model", "epochs", "label_mode") if train.get(k) is not None})
    if train.get("denoise_sigma"):
        out["denoise_sigma"] = train["denoise_sigma"]
    for key in ("epsilons", "sigmas", "ls", "Ts"):
        if config.get(key):
            out[key] = tuple(config[key])
    out["runs"] = int(config.get("runs", 1))
    if config.get("x"):
        out["x"] = config["x"]
    return out


def settings_from_comparison(config: Mapping, jobs=()) -> dict:
    """The Compare page's settings of a comparison: ``config`` is its stored sweep config
    (``JobStore.get_sweep(i).config``) or the page's plan before launch
    (:func:`dpcda.experiments.compare.comparison_plan`), ``jobs`` its jobs (stored ones, or the plan's
    ``(kind, config)`` pairs). Settings the config does not record (comparisons stored before
    it did) are read from the jobs. Where DP-CDA has finished runs, ``l`` is its best l (the
    one the table shows; the report's release uses it)."""
    from dpcda.experiments.compare import best_per_mechanism
    from dpcda.experiments.config import ExperimentConfig
    from dpcda.mechanisms import MECHANISMS

    cfgs = [ExperimentConfig.from_json(j[1] if isinstance(j, tuple) else j.config) for j in jobs]
    mechs = [m for m in config.get("mechanisms") or dict.fromkeys(c.mechanism for c in cfgs)
             if m in MECHANISMS]
    out: dict = {"dataset": (config.get("base") or {}).get("dataset"),
                 "epsilon": float(config["epsilon"]), "mechanisms": tuple(mechs),
                 "runs": int(config.get("runs", 1))}
    first = cfgs[0] if cfgs else None
    for key, value in (("delta", first and first.delta), ("c", first and first.c),
                       ("epochs", first and first.train.epochs)):
        out[key] = config.get(key, value)
    out["model"] = config.get("model") or (
        first.train.model if first and len({c.train.model for c in cfgs}) == 1 else "auto")
    ls = config.get("ls")
    if ls is None:
        ls = {}
        for c in cfgs:
            ls.setdefault(c.mechanism, set()).add(c.l)
    out["mechanism_ls"] = {m: tuple(sorted(ls[m])) for m in mechs
                           if m in ls and MECHANISMS.get(m).mixes}
    accs = config.get("accountants") or {c.mechanism: c.accountant for c in cfgs}
    out["accountants"] = {m: accs[m] for m in mechs if m in accs}
    best = best_per_mechanism([j for j in jobs if not isinstance(j, tuple)]).get("dp-cda")
    if best is not None:
        out["l"] = int(best["l"])
    return {k: v for k, v in out.items() if v is not None}


def list_pages() -> list[str]:
    return BUILDERS.names()


def reproduce(settings: ReproSettings | None = None, /, page: str | None = None,
              **values) -> Reproduction:
    """The :class:`Reproduction` of ``settings`` (or of ``page`` and keyword settings)."""
    if settings is None:
        if page is None:
            raise ValueError("give settings (a ReproSettings) or page=... with its settings")
        settings = ReproSettings.from_mapping(page, values)
    return BUILDERS.get(settings.page)(settings)


# --- formatting --------------------------------------------------------------------------------

def py(value) -> str:
    """A Python literal for a setting (floats round-trip exactly; inf as math.inf)."""
    if isinstance(value, float) and math.isinf(value):
        return "math.inf" if value > 0 else "-math.inf"
    if isinstance(value, tuple):
        return "(" + ", ".join(py(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(py(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py(k)}: {py(v)}" for k, v in value.items()) + "}"
    return repr(value)


def kwargs(values: Mapping, indent: int = 4) -> str:
    """``k=v`` lines (``None`` values left out), for a call spread over several lines."""
    pad = " " * indent
    return ",\n".join(f"{pad}{k}={py(v)}" for k, v in values.items() if v is not None)


def num(value) -> str:
    """A number on a command line (``inf`` for infinity, ``repr`` otherwise)."""
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    return repr(value) if isinstance(value, float) else str(value)


def command(args: list) -> str:
    """``python -m dpcda ...`` with options whose value is None left out."""
    out: list[str] = ["python", "-m", "dpcda"]
    i = 0
    while i < len(args):
        a = args[i]
        if isinstance(a, str) and a.startswith("--") and i + 1 < len(args) and \
                not (isinstance(args[i + 1], str) and args[i + 1].startswith("--")):
            if args[i + 1] is not None:
                out += [a, args[i + 1] if isinstance(args[i + 1], str) else num(args[i + 1])]
            i += 2
            continue
        out.append(a if isinstance(a, str) else num(a))
        i += 1
    return shlex.join(out)


def script(what: str, body: str) -> str:
    """A standalone script around ``body`` (which must set ``result``, a JSON-safe dict)."""
    from dpcda import __version__

    return (f'#!/usr/bin/env python3\n"""{what}\n\nWritten by dpcda {__version__}\'s "Reproduce this". '
            "Needs the dpcda package (pip install -e . in its repository) and, for datasets other "
            "than digits,\ntheir files in $DPCDA_DATA_DIR. Every run draws fresh randomness: no seed "
            "is recorded anywhere, so an\naccuracy varies from run to run while an epsilon does not.\n"
            '"""\n\nimport json\nimport math  # noqa: F401  (math.inf may appear in the settings)\n\n'
            + body.strip("\n") + "\n\nprint(" + repr(RESULT_PREFIX) + " + json.dumps(result))\n")


def file_stem(*parts) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "-", "_".join(str(p) for p in parts if p is not None))

