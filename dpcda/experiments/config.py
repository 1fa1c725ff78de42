"""One experiment point as a typed value: :class:`ExperimentConfig`, JSON only at the edges.

The ``experiment`` job kind, the command line and the pages hand in plain JSON; one function,
:func:`dpcda.experiments.run.experiment_config`, fills the defaults and validates it
(:func:`~dpcda.experiments.run.normalize`) and returns an :class:`ExperimentConfig`. Code inside
reads attributes (``cfg.mechanism``, ``cfg.train.model``), never ``cfg["..."]``.
:meth:`ExperimentConfig.to_json` gives back exactly the normalized JSON, which the job store
hashes for deduplication and keeps in SQLite (so a stored config and its key never change);
:meth:`ExperimentConfig.from_json` reads such a stored config without validating it again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpcda.training.config import TrainConfig

#: The keys of a normalized config, in the order :func:`~dpcda.experiments.run.normalize`
#: writes them (``sigma`` and ``allocation`` only when set and not the default).
KEYS = ("dataset", "mechanism", "epsilon", "delta", "l", "run", "T", "c", "accountant",
        "conversion", "ratio", "max_alpha", "normalization", "allocation", "p", "sigma", "train",
        "experiment_version")
#: The mechanism of a config that names none.
DEFAULT_MECHANISM = "dp-cda"
#: The allocation of an experiment that names none: the library's default (issue 26),
#: ``proportional`` (to the public class bounds under ``whole-record``, to the class counts under
#: the accountants that treat them as public). The shipped frontier table (accuracy_table.csv)
#: is measured with it. A normalized config leaves the key out when ``equal``, so every config
#: stored before experiment version 5 (all ``equal``) keeps its key.
EXPERIMENT_ALLOCATION = "proportional"


@dataclass(frozen=True)
class ExperimentConfig:
    """A filled-in, validated experiment config (the fields of
    :data:`dpcda.experiments.run.DEFAULTS`, ``train`` and ``experiment_version``).

    ``epsilon`` is the target (``inf``: non-private; ``None`` when a fixed ``sigma`` is given);
    ``allocation`` is ``None`` for a mechanism without one and where the default ``"equal"``
    applies; ``train`` is the resolved :class:`~dpcda.training.TrainConfig`.
    """

    dataset: str | None
    train: TrainConfig
    experiment_version: int
    mechanism: str = DEFAULT_MECHANISM
    epsilon: float | None = math.inf
    delta: float = 1e-5
    l: int = 1
    run: int = 0
    T: int | None = None
    c: float = 1.0
    accountant: str | None = None
    conversion: str = "mironov"
    ratio: float = 1.0
    max_alpha: int = 256
    normalization: str | None = None
    allocation: str | None = None
    p: int | None = None
    sigma: float | None = None

    @property
    def private(self) -> bool:
        """Whether it asks for noise: a fixed sigma > 0 or a finite target epsilon."""
        if self.sigma is not None:
            return self.sigma > 0
        return self.epsilon is None or not math.isinf(self.epsilon)

    @property
    def allocation_or_default(self) -> str:
        """The class allocation a generator is given (``"equal"`` unless set)."""
        return self.allocation or "equal"

    def to_json(self) -> dict:
        """The normalized JSON, key for key what :func:`~dpcda.experiments.run.normalize`
        returns (what is hashed and stored)."""
        out = {}
        for key in KEYS:
            value = getattr(self, key)
            if key == "sigma" and value is None:
                continue
            if key == "allocation" and value in (None, "equal"):
                continue
            out[key] = value.to_dict() if key == "train" else value
        return out

    @classmethod
    def from_json(cls, obj: dict) -> ExperimentConfig:
        """From a normalized config (a stored job's ``config``); a missing key takes its
        default (``dataset``: None), an unknown one is a ValueError naming it."""
        if not isinstance(obj, dict):
            raise ValueError(f"an experiment config must be a JSON object, got {type(obj).__name__}")
        unknown = sorted(set(obj) - set(KEYS))
        if unknown:
            raise ValueError(f"unknown experiment config key(s): {', '.join(unknown)}; known: "
                             f"{', '.join(KEYS)}")
        if not isinstance(obj.get("dataset", ""), str):
            raise ValueError(f"dataset must be a dataset name, got dataset={obj.get('dataset')!r}")
        kw = {"dataset": None, **{k: v for k, v in obj.items()
                                   if k not in ("train", "experiment_version")}}
        return cls(train=TrainConfig.from_dict(obj.get("train") or {}),
                   experiment_version=int(obj.get("experiment_version", 0)), **kw)


def job_config(job) -> ExperimentConfig | None:
    """The typed config of a stored ``experiment`` job (``job.kind``, ``job.config``); None for
    a job of another kind."""
    return ExperimentConfig.from_json(job.config) if job.kind == "experiment" else None
