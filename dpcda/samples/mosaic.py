"""The l x epsilon mosaic: one sample of one class for every order of mixture and privacy level.

Every cell is a small DP-CDA release of its own: ``per_cell`` mixtures of ``l`` distinct rows of
class k (normalized and clipped to ``c`` as in the full release), plus ``N(0, sigma^2 I)`` with
the noise that meets the cell's epsilon (``sigma_for(l, epsilon)``, e.g. a cached calibration).
Only the chosen class's rows are preprocessed and mixed, so a cell costs milliseconds even on
MNIST; the time of a mosaic is that of its calibrations (README, "Samples page"), which
:func:`row_sigmas` cuts to one full calibration per row plus about two evaluations per other
cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

#: Rows and columns of the default mosaic (epsilon = inf is the non-private sigma = 0).
MOSAIC_L: tuple[int, ...] = (1, 4, 16, 64)
MOSAIC_EPS: tuple[float, ...] = (math.inf, 20.0, 10.0, 5.0)


@dataclass(frozen=True)
class MosaicCell:
    """One cell: its ``l`` and ``epsilon``, the ``sigma`` used and the sample (a d-vector in the
    release's units), or ``error`` (plain text) when the cell cannot be made."""

    l: int
    epsilon: float
    sigma: float | None = None
    x: np.ndarray | None = None
    error: str | None = None


def row_sigmas(epsilons: Sequence[float], *, calibrate_one: Callable[[float], float],
               eps_at: Callable[[float], float], nudge: float = 1.02, tries: int = 3) -> dict:
    """The noise meeting every finite epsilon of one mosaic row (one ``l``), never above it.

    One full calibration (``calibrate_one(eps) -> sigma``) at the middle epsilon and one
    evaluation (``eps_at(sigma) -> epsilon``) at 1.25 times its noise give the local slope
    ``k`` of ``log eps`` against ``log sigma``; every other epsilon starts from the power-law
    guess ``sigma_mid * (eps_mid / eps)^(1/k)``, checked with one evaluation and raised by
    ``nudge`` until it meets its epsilon (``tries`` times), else calibrated in full. Returns
    ``{eps: sigma}``, or ``{eps: error text}`` where the accountant refuses.
    """
    finite = sorted({float(e) for e in epsilons if math.isfinite(e)})
    out: dict = {}
    if not finite:
        return out
    mid = finite[len(finite) // 2]
    try:
        s_mid = float(calibrate_one(mid))
    except ValueError as exc:
        return {e: str(exc) for e in finite}
    out[mid] = s_mid
    try:
        e_mid, e_up = float(eps_at(s_mid)), float(eps_at(1.25 * s_mid))
        k = (math.log(e_mid) - math.log(e_up)) / math.log(1.25)
    except (ValueError, ZeroDivisionError):
        k = 0.0
    for e in (v for v in finite if v != mid):
        s = s_mid * (e_mid / e) ** (1 / k) if k > 0 else None
        for _ in range(tries if s else 0):
            if eps_at(s) <= e:
                out[e] = s
                break
            s *= nudge
        if e not in out:
            try:
                out[e] = float(calibrate_one(e))
            except ValueError as exc:
                out[e] = str(exc)
    return out


def class_table(X: np.ndarray, y: np.ndarray, k: int, preprocess) -> np.ndarray:
    """The rows of class ``k`` after ``preprocess`` (normalize, then clip to c), float32."""
    y = np.asarray(y)
    rows = np.flatnonzero(y == int(k))
    if rows.size == 0:
        raise ValueError(f"class {k} has no rows")
    return np.asarray(preprocess(np.asarray(X)[rows]), dtype=np.float32)


def mosaic_cells(table: np.ndarray, *, sigma_for: Callable[[int, float], float],
                 ls: Sequence[int] = MOSAIC_L, epsilons: Sequence[float] = MOSAIC_EPS,
                 per_cell: int = 1, seed: int | None = None) -> list[MosaicCell]:
    """The cells, row by row (``l`` in ``ls`` no larger than the class, then ``epsilons``).

    ``table``: one class's preprocessed rows (:func:`class_table`). ``sigma_for(l, eps)``: the
    noise meeting ``eps`` at order ``l`` (raise ``ValueError`` when it cannot); ``eps = inf``
    gets ``sigma = 0``. ``seed`` is for tests only (never shown).
    """
    import torch

    from dpcda.mechanisms._torch import make_generator
    from dpcda.mechanisms.mixing import mix_classwise

    n = len(table)
    dev = torch.device("cpu")
    gen = make_generator(dev, seed)
    zeros = np.zeros(n, dtype=np.int64)
    cells = []
    for l in (int(v) for v in ls if int(v) <= n):
        for eps in epsilons:
            try:
                sigma = 0.0 if math.isinf(eps) else float(sigma_for(l, float(eps)))
            except ValueError as exc:
                cells.append(MosaicCell(l, float(eps), error=str(exc)))
                continue
            mixed = mix_classwise(table, zeros, 1, l, int(per_cell), sigma, 0.0,
                                  generator=gen, device=dev)
            cells.append(MosaicCell(l, float(eps), sigma, mixed.X[0].astype(np.float64)))
    return cells
