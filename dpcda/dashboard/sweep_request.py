"""A Utility sweep as the page's widgets describe it: checked, estimated, then submitted.

>>> req = SweepRequest(dataset="digits", mechanism="dp-merf", x="epsilon",
...                    epsilons=(math.inf, 10.0), ls=(1,), runs=1)
>>> req.problems(), req.estimate().text          # doctest: +SKIP
([], 'about 1 min for 2 job(s) on CPU')
>>> sweep_id = req.submit(store)                 # doctest: +SKIP

Everything a page used to compute between reading its widgets and calling
:func:`dpcda.jobs.submit_sweep` lives here: the base config (only the settings the mechanism
declares in its registry entry), the grid of experiment configs, each job's learner resolved,
the duration estimate (:mod:`dpcda.experiments.estimate`) and the problems that stop a launch, as values
(``Problem``: a code and plain words). No streamlit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpcda.util.messages import Problem, problem_of

DENOISE_SIGMA = 1.0  # pixels (DPMix Table II's Gaussian filter)


def no_noise_ok(mechanism: str) -> bool:
    """Whether ``mechanism`` declares a way to release without noise (ε = ∞): a noise scale
    (σ = 0) or a ``noise_multiplier`` parameter (0 = no noise), read from its registry entry."""
    from dpcda.mechanisms import MECHANISMS

    m = MECHANISMS.get(mechanism)
    return m.noise_scale or "noise_multiplier" in m.param_names


@dataclass(frozen=True)
class SweepRequest:
    """One Utility launch. ``x``: the axis (``l``, ``epsilon``, ``sigma``, ``T``); exactly one
    of ``epsilons`` (σ calibrated per target) and ``sigmas`` (fixed noise); ``ls`` is ``(1,)``
    for a mechanism without l; ``T``: None (= N) unless the sweep is over ``Ts``."""

    dataset: str
    mechanism: str = "dp-cda"
    x: str = "l"
    epsilons: tuple[float, ...] | None = None
    sigmas: tuple[float, ...] | None = None
    ls: tuple[int, ...] = (1,)
    Ts: tuple[int, ...] | None = None
    runs: int = 1
    model: str = "auto"
    epochs: int = 5
    label_mode: str | None = None
    denoise: bool = False
    accountant: str | None = None
    normalization: str | None = None
    allocation: str | None = None
    conversion: str = "mironov"
    delta: float = 1e-5
    c: float | None = None
    T: int | None = None

    def base(self) -> dict:
        """The shared experiment config: the mechanism's declared settings only."""
        from dpcda.data import get_dataset_spec
        from dpcda.mechanisms import MECHANISMS

        m = MECHANISMS.get(self.mechanism)
        tabular = get_dataset_spec(self.dataset).kind == "tabular"
        train = {"model": self.model, "epochs": int(self.epochs),
                 "denoise_sigma": DENOISE_SIGMA if self.denoise and not tabular else 0.0}
        if self.label_mode:
            train["label_mode"] = self.label_mode
        base = {"dataset": self.dataset, "mechanism": self.mechanism, "delta": self.delta,
                "accountant": self.accountant, "normalization": self.normalization,
                "train": train}
        if "conversion" in m.param_names:
            base["conversion"] = self.conversion
        if "allocation" in m.param_names and self.allocation:
            base["allocation"] = self.allocation
        if self.c is not None:
            base["c"] = float(self.c)
        if self.T:
            base["T"] = int(self.T)
        return base

    def grid(self) -> dict:
        """The keyword arguments of :func:`dpcda.jobs.submit_sweep` besides the base."""
        return {"epsilons": None if self.epsilons is None else sorted(self.epsilons, reverse=True),
                "sigmas": None if self.sigmas is None else sorted(self.sigmas),
                "ls": sorted(self.ls), "Ts": None if not self.Ts else list(self.Ts),
                "runs": int(self.runs), "x": self.x}

    def configs(self) -> list[dict]:
        """Every job's config, normalized (learner resolved, defaults filled in); a
        ``ValueError`` names the first bad setting."""
        from dpcda.experiments.run import normalize
        from dpcda.experiments.sweep import grid_configs

        g = self.grid()
        return [normalize(c) for c in grid_configs(
            self.base(), epsilons=g["epsilons"], sigmas=g["sigmas"], ls=g["ls"], runs=g["runs"],
            Ts=g["Ts"])]

    def problems(self) -> list[Problem]:
        """What stops this launch, each once, in plain words (empty: it can be launched)."""
        values = self.epsilons if self.sigmas is None else self.sigmas
        out = []
        if not values:
            what = "target ε" if self.sigmas is None else "σ"
            out.append(Problem("empty", f"Select at least one {what}.", f"no {what} selected"))
        if not self.ls:
            out.append(Problem("empty", "Select at least one order of mixture l.", "no l selected"))
        if self.epsilons and any(math.isinf(e) for e in self.epsilons) \
                and not no_noise_ok(self.mechanism):
            out.append(Problem("no-noise", f"{self.mechanism} cannot release without noise: "
                               "leave ε = ∞ out.", "epsilon=inf is not available for "
                               f"mechanism={self.mechanism!r}"))
        if out:
            return out
        try:
            self.configs()
        except ValueError as exc:
            out.append(problem_of(exc))
        return out

    def estimate(self, *, worker_running: bool = False, device: str = "cpu"):
        """:func:`dpcda.experiments.estimate.estimate_jobs` of this grid (an empty estimate if it has
        problems)."""
        from dpcda.experiments.estimate import estimate_jobs

        try:
            configs = self.configs()
        except ValueError:
            configs = []
        return estimate_jobs(configs, worker_running=worker_running, device=device)

    def n_jobs(self) -> int:
        values = (self.epsilons if self.sigmas is None else self.sigmas) or ()
        return len(values) * len(self.ls) * len(self.Ts or (None,)) * int(self.runs)

    def count_text(self) -> str:
        """"12 job(s): 3 ε × 4 l × 1 run(s)"."""
        values = (self.epsilons if self.sigmas is None else self.sigmas) or ()
        return (f"{self.n_jobs()} job(s): {len(values)} {'ε' if self.sigmas is None else 'σ'}"
                + f" × {len(self.ls)} l" + (f" × {len(self.Ts)} T" if self.Ts else "")
                + f" × {self.runs} run(s).")

    def submit(self, store) -> int:
        """Queue the sweep; returns its id (ValueError on a bad setting)."""
        from dpcda.experiments.sweep import submit_sweep

        return submit_sweep(store, self.base(), **self.grid())
