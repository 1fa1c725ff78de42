"""Checks of a whole grid of experiment configurations before anything is queued.

A sweep's jobs run later (minutes or hours), in a worker; a setting that ``generate`` refuses
at once must not be queued to fail there. :func:`check_grid` refuses, with a ``ValueError``
naming the parameter and the allowed values, what ``python -m dpcda generate`` refuses for the
same setting without computing anything: numbers outside the ranges below (the pages' ranges;
beyond them the accountant's arithmetic overflows or the calibration cannot succeed), a T the
release-size limit refuses, an unknown dataset, a dataset whose files are missing (after the
download ``generate`` would try). It reads only public metadata (the presets) and the file
system, except for a dataset that is not on disk, which it tries to load as ``generate`` does.

:func:`check_numbers` is the same range check for one setting (the ``generate`` and
``epsilon`` commands use it).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable

from dpcda.util.checks import check_float, check_int

if TYPE_CHECKING:
    from dpcda.experiments.config import ExperimentConfig

#: Target epsilons a calibration is asked for (besides inf, "no noise"): beyond 10,000 any noise
#: meets the target; below 0.001 the noise needed exceeds what the calibrator searches.
EPSILON_RANGE = (1e-3, 1e4)
SIGMA_MAX = 1e4  # a fixed noise scale sigma_x (sigma_y); beyond, float32 noise overflows
C_MAX = 1e4  # the clip norm; beyond, the accountants' sensitivity terms overflow
T_MAX = 10**9  # synthetic samples (the Privacy page's limit)


def check_numbers(*, epsilon=None, sigma_x=None, sigma_y=None, c=None, T=None) -> None:
    """Refuse numbers outside the ranges above (``None``: not given; ``epsilon`` may be inf).
    A value below the lower end gets the generators' own wording (e.g. ``sigma_x must be a
    finite number >= 0``); one above the upper end, the whole range."""
    def within(name, value, lo, lo_open, hi, why=""):
        check_float(name, value, lo=lo, lo_open=lo_open, why=why)
        check_float(name, value, lo=lo, lo_open=lo_open, hi=hi, why=why)

    if epsilon is not None and not (isinstance(epsilon, float) and math.isinf(epsilon)
                                    and epsilon > 0):
        check_float("epsilon", epsilon, lo=0.0, lo_open=True, why=" (or inf)")
        check_float("epsilon", epsilon, lo=EPSILON_RANGE[0], hi=EPSILON_RANGE[1],
                    why=" (or inf)")
    for name, value in (("sigma_x", sigma_x), ("sigma_y", sigma_y)):
        if value is not None:
            within(name, value, 0.0, False, SIGMA_MAX)
    if c is not None:
        within("c", c, 0.0, True, C_MAX, " (the clip norm)")
    if T is not None:
        check_int("T", T, 1)
        check_int("T", T, 1, T_MAX)


def check_grid(configs: Iterable[dict]) -> None:
    """Check every (normalized or raw) ``experiment`` config of a sweep; the first problem
    raises ``ValueError`` (the grid point it belongs to named when it is not the only one)."""
    from dpcda.experiments.run import experiment_config

    seen_datasets: set[str] = set()
    seen: set[tuple] = set()
    for raw in configs:
        cfg = experiment_config(raw)
        key = (cfg.dataset, cfg.epsilon, cfg.sigma, cfg.T, cfg.c, cfg.ratio, cfg.mechanism, cfg.p)
        if key in seen:
            continue
        seen.add(key)
        sigma = cfg.sigma
        check_numbers(epsilon=cfg.epsilon, sigma_x=sigma,
                      sigma_y=None if sigma is None else sigma * cfg.ratio, c=cfg.c, T=cfg.T)
        if cfg.dataset not in seen_datasets:
            _check_dataset(cfg.dataset)
            seen_datasets.add(cfg.dataset)
        _check_T(cfg)


def _check_dataset(name: str) -> None:
    """An unknown name or a dataset whose files are missing (and cannot be downloaded)."""
    from dpcda.data.availability import dataset_availability

    if dataset_availability(name).present:  # ValueError listing the known ones
        return
    from dpcda.data import load_dataset

    try:
        load_dataset(name)  # what generate does: the download it may try, its error
    except (OSError, RuntimeError, ValueError) as exc:
        raise ValueError(f"dataset {name!r} cannot be loaded here: {exc}") from None


def _check_T(cfg: ExperimentConfig) -> None:
    """T at least the number of classes and within the release-size limit (public metadata)."""
    from dpcda.data.presets import PRESETS

    T = cfg.T
    if T is None or cfg.dataset not in PRESETS:
        return
    preset = PRESETS.get(cfg.dataset)
    K = len(preset.class_counts)
    check_int("T", T, K, T_MAX, f" (at least the number of classes K={K} of {cfg.dataset})")
    from dpcda.mechanisms import MECHANISMS
    from dpcda.mechanisms.validation import check_release_size

    if not MECHANISMS.get(cfg.mechanism).flat_output:  # a projection has its own width
        check_release_size(T, preset.d_x)
