"""How long a batch of ``experiment`` jobs will take on this CPU, before it is launched.

>>> from dpcda.experiments.estimate import estimate_jobs
>>> est = estimate_jobs([{"dataset": "mnist", "epsilon": 10, "l": 16}] * 3)  # doctest: +SKIP
>>> est.seconds, est.level, est.text                                          # doctest: +SKIP
(45.1, 'ok', 'about 45 s for 3 jobs on CPU')

A cost model per job, from public facts only (the dataset's N and d from
:mod:`dpcda.data.presets`, the mechanism's cost model, T, l, the learner and its epochs), with constants
calibrated on measured timings on this project's CPU (one worker, one thread:
``benchmarks/job_timings.py`` prints each measured job beside this estimate; the figures are in
the README, "Job duration estimates"). Jobs run one after the other in one worker, so a
sweep's estimate is the sum of its jobs plus starting the worker. It is an estimate: on a
loaded machine wall time grows with the load, and a GPU shortens the torch learners.

:data:`LONG_SECONDS` (2 min) is what the pages' defaults stay under; above
:data:`REFUSE_SECONDS` (10 min) on CPU a launch is refused unless the user confirms.
Pure arithmetic: no torch, no data, no streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from dpcda.experiments.config import ExperimentConfig

LONG_SECONDS = 120.0
REFUSE_SECONDS = 600.0
LEVELS = ("ok", "long", "refuse")

# --- calibration (seconds; measured on this CPU, one thread; see the module docstring) -----------
WORKER_START = 6.0          # a fresh worker process: python + torch imports
JOB_OVERHEAD = 0.1          # claim, bookkeeping, the test split's preprocessing
LOAD_PER_VALUE = 3.0e-8     # reading the dataset: per value of the N x d training split
CALIBRATE = {"pld": 1.8, "rdp": 0.1}  # sigma for a target epsilon, per job
MIX_PER_VALUE = 1.5e-9      # mixing mechanisms: per T x l x d multiply-add
PROJECT_PER_VALUE = 3.0e-10  # random projection: per N x d x p
MERF_PER_STEP = (0.028, 6.5e-5)  # DP-MERF: (fixed, per feature) seconds per generator step
MERF_REFERENCE = 500 * 4000      # ... at batch 500 and 4,000 random features
MERF_GENERATOR = (600, 500, 4000)  # what an experiment runs: steps, batch, random features
TRAIN_FIXED = {"ncm": 0.05, "lda": 0.12, "qda": 0.12, "lda-tangent": 0.12, "tree": 0.3, "linear": 0.1,
               "fc": 0.15, "cnn": 0.5}
#: Per training value (T x d for ncm/tree, T x d^2 for lda/qda; T x d per epoch for torch models).
#: qda (with its tangent prior for images): 27 s of CPU for one MNIST fit on 60,000 rows and 5 s
#: scoring the 10,000 test images (docs/training.md, benchmarks/accuracy_qda.py): 32 s for
#: T x d^2 = 3.7e10, 4 x lda's per value (the LDA fit: 8.8 s).
#: lda-tangent fits both (the lda, and the qda for its tangent variances): their sum.
TRAIN_PER_VALUE = {"ncm": 3.0e-8, "lda": 2.0e-10, "qda": 8.7e-10, "lda-tangent": 1.1e-9, "tree": 4.0e-8,
                   "linear": 3.0e-8, "fc": 5.0e-8, "cnn": 2.0e-6}
TORCH_MODELS = ("linear", "fc", "cnn")
# How a mechanism's generation cost grows is its registry entry's ``cost_model``
# (dpcda.mechanisms.spec.COST_MODELS): "mixing" (T x l x d), "projection" (N x d x p), or
# "generator" (DP-MERF's steps x batch x features).


@dataclass(frozen=True)
class Estimate:
    """The estimated wall time of launching ``jobs`` jobs, in one worker on this CPU.

    ``level``: ``"ok"`` (at most :data:`LONG_SECONDS`), ``"long"`` (up to
    :data:`REFUSE_SECONDS`), ``"refuse"`` (above it: a page asks for confirmation first).
    ``text`` says it in plain words; ``largest`` is the slowest single job's estimate."""

    seconds: float
    jobs: int
    largest: float
    level: str
    text: str


def duration_text(seconds: float) -> str:
    """``"about 40 s"``, ``"about 3 min"``, ``"about 1.5 h"``."""
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} min"
    return f"about {seconds / 3600:.1f} h"


def typed(cfg) -> ExperimentConfig:
    """``cfg`` as an :class:`ExperimentConfig`: as it is, read from a normalized config (it has
    ``experiment_version``) or filled in and validated from a raw one."""
    if isinstance(cfg, ExperimentConfig):
        return cfg
    if "experiment_version" in cfg:
        return ExperimentConfig.from_json(cfg)
    from dpcda.experiments.run import experiment_config

    return experiment_config(cfg)


def _size(cfg: ExperimentConfig, n: int | None, d: int | None) -> tuple[int, int]:
    from dpcda.data.presets import PRESETS

    name = cfg.dataset
    if name in PRESETS:
        p = PRESETS.get(name)
        n, d = n or p.n, d or p.d_x
    if not n or not d:
        raise ValueError(f"dataset must be a registered dataset (or give n and d), got "
                         f"dataset={name!r}")
    return int(n), int(d)


def _accounting(cfg: ExperimentConfig, mechanism: str) -> str:
    from dpcda.privacy import get_accountant

    if cfg.sigma is not None or not _finite(cfg.epsilon):
        return ""  # a fixed noise scale (the accountant only reports epsilon) or no noise
    acc = cfg.accountant
    if acc is None:
        from dpcda.mechanisms import MECHANISMS

        acc = MECHANISMS.get(mechanism).default_accountant
    return "rdp" if get_accountant(acc).uses_rdp else "pld"  # PLD: an FFT composition


def _finite(e) -> bool:
    return e is not None and math.isfinite(float(e))


def calibrate_seconds(cfg) -> float:
    """Finding sigma for a target epsilon (0 for a fixed sigma or no noise). A worker caches
    it, so a batch pays it once per distinct setting (:func:`calibration_key`)."""
    cfg = typed(cfg)
    kind = _accounting(cfg, cfg.mechanism)
    return CALIBRATE[kind] if kind else 0.0


def calibration_key(cfg) -> tuple:
    """What a calibration depends on: the same key, the same (cached) sigma."""
    cfg = typed(cfg)
    return tuple(str(getattr(cfg, k)) for k in ("dataset", "mechanism", "accountant", "epsilon",
                                                 "delta", "l", "T", "c", "allocation",
                                                 "conversion"))


def generate_seconds(cfg, *, n: int | None = None, d: int | None = None,
                     calibrate: bool = True) -> float:
    """Loading the data and generating one release (seconds, this CPU); ``calibrate``: count
    finding sigma for the target epsilon (:func:`calibrate_seconds`)."""
    cfg = typed(cfg)
    n, d = _size(cfg, n, d)
    mech = cfg.mechanism
    T = int(cfg.T or n)
    seconds = LOAD_PER_VALUE * n * d + (calibrate_seconds(cfg) if calibrate else 0.0)
    from dpcda.mechanisms import MECHANISMS

    model = MECHANISMS.get(mech).cost_model
    if model == "generator":
        steps, batch, features = MERF_GENERATOR  # an experiment runs the generator's defaults
        scale = batch * features / MERF_REFERENCE
        seconds += steps * scale * (MERF_PER_STEP[0] + MERF_PER_STEP[1] * d)
    elif model == "projection":
        seconds += PROJECT_PER_VALUE * n * d * int(cfg.p or min(100, d))
    else:  # the mixing mechanisms: T samples, each the mean of l rows of d values
        seconds += MIX_PER_VALUE * T * max(1, int(cfg.l or 1)) * d
    return seconds


def train_seconds(cfg, *, n: int | None = None, d: int | None = None) -> float:
    """Training the learner on the release and testing it (seconds, this CPU)."""
    cfg = typed(cfg)
    n, d = _size(cfg, n, d)
    model = cfg.train.model  # resolved: never "auto"
    if model not in TRAIN_PER_VALUE:
        model = "fc"  # an unknown (plugin) model: priced as a small torch network
    T = int(cfg.T or n)
    if _flat(cfg):  # a projection: the learner sees p features, not d
        d = int(cfg.p or min(100, d))
    if model in TORCH_MODELS:
        epochs = int(cfg.train.epochs or 5)
        work = epochs * T * d
    else:
        work = T * d * (d if model in ("lda", "qda", "lda-tangent") else 1)
    return TRAIN_FIXED[model] + TRAIN_PER_VALUE[model] * work


def job_seconds(cfg, *, n: int | None = None, d: int | None = None,
                calibrate: bool = True) -> float:
    """One experiment job (a config as :func:`dpcda.experiments.run.normalize` takes it, or
    its normalized form): overhead + generation + training, seconds on this CPU."""
    cfg = typed(cfg)
    return (JOB_OVERHEAD + generate_seconds(cfg, n=n, d=d, calibrate=calibrate)
            + train_seconds(cfg, n=n, d=d))


def estimate_jobs(configs: Iterable[dict], *, worker_running: bool = False,
                  device: str = "cpu") -> Estimate:
    """The estimate for running ``configs`` (experiment configs, or ``(kind, config)`` pairs
    as :func:`dpcda.experiments.compare.compare_jobs` returns) one after the other in one worker.

    ``worker_running``: no worker start to pay. ``device``: ``"cpu"`` (the calibration) or
    another torch device, on which the torch learners are assumed 10 x faster and nothing is
    refused."""
    configs = [typed(c[1] if isinstance(c, tuple) else c) for c in configs]
    each, seen = [], set()
    for c in configs:
        key = calibration_key(c)
        s = job_seconds(c, calibrate=key not in seen)
        seen.add(key)
        if device != "cpu":
            s -= 0.9 * train_seconds(c) * (_model(c) in TORCH_MODELS)
        each.append(s)
    total = sum(each) + (0.0 if worker_running or not each else WORKER_START)
    level = "ok" if total <= LONG_SECONDS else ("long" if total <= REFUSE_SECONDS or device != "cpu"
                                                 else "refuse")
    where = "on CPU" if device == "cpu" else f"on {device} (calibrated on CPU)"
    text = f"{duration_text(total)} for {len(each)} job(s) {where}"
    return Estimate(seconds=total, jobs=len(each), largest=max(each, default=0.0), level=level,
                    text=text)


def _flat(cfg: ExperimentConfig) -> bool:
    from dpcda.mechanisms import MECHANISMS

    name = cfg.mechanism
    return name in MECHANISMS and MECHANISMS.get(name).flat_output


def _model(cfg: ExperimentConfig) -> str:
    return cfg.train.model


def advice(est: Estimate) -> str:
    """One plain sentence for a page: what the estimate means for this launch."""
    if est.level == "ok":
        return f"Estimated time: {est.text}."
    if est.level == "long":
        return (f"Estimated time: {est.text} — longer than 2 minutes; fewer runs, l values or "
                "epochs, or a closed-form learner (lda, ncm) make it shorter.")
    return (f"Estimated time: {est.text} — over 10 minutes on this CPU. Reduce the runs, l "
            "values, epochs or the learner, or confirm that you want to wait.")
