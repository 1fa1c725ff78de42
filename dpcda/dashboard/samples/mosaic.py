"""The l x epsilon mosaic: one sample of one class for every order of mixture and privacy level.

Every cell is a small DP-CDA release of its own: ``per_cell`` mixtures of ``l`` distinct rows of
class k (normalized and clipped to ``c`` as in the full release), plus ``N(0, sigma^2 I)`` with
the noise that meets the cell's epsilon (``sigma_for(l, epsilon)``, e.g. a cached calibration).
Only the chosen class's rows are preprocessed and mixed, so a cell costs milliseconds even on
MNIST; the time of a mosaic is that of its calibrations (README, "Samples page"), which
:func:`mosaic_sigmas` cuts to a few cheap upper-bound evaluations per cell.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

#: Rows and columns of the default mosaic (epsilon = inf is the non-private sigma = 0).
MOSAIC_L: tuple[int, ...] = (1, 4, 16, 64)
MOSAIC_EPS: tuple[float, ...] = (math.inf, 20.0, 10.0, 5.0)


#: A setting's epsilon this close (relative) to a column's replaces that column (e.g. 9.998 and 10).
SAME_COLUMN = 0.02


def mosaic_axes(l: int, epsilon: float, *, ls: Sequence[int] = MOSAIC_L,
                epsilons: Sequence[float] = MOSAIC_EPS) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The mosaic's rows and columns with the setting's own ``l`` and ``epsilon`` among them:
    rows ascending, columns descending (inf, the non-private, first); a column within
    :data:`SAME_COLUMN` of ``epsilon`` gives way to it.

    >>> mosaic_axes(8, 1.5)
    ((1, 4, 8, 16, 64), (inf, 20.0, 10.0, 5.0, 1.5))
    >>> mosaic_axes(4, 9.99)[1]
    (inf, 20.0, 9.99, 5.0)
    """
    e = float(epsilon)
    cols = {float(v) for v in epsilons if math.isinf(v) or abs(v - e) > SAME_COLUMN * e} | {e}
    return (tuple(sorted({int(v) for v in ls} | {int(l)})),
            tuple(sorted(cols, key=lambda v: -v)))


@dataclass(frozen=True)
class MosaicCell:
    """One cell: its ``l`` and ``epsilon``, the ``sigma`` used and the sample (a d-vector in the
    release's units), or ``error`` (plain text) when the cell cannot be made."""

    l: int
    epsilon: float
    sigma: float | None = None
    x: np.ndarray | None = None
    error: str | None = None


def solve_sigma(target: float, eps_at: Callable[[float], float], start: float, *,
                max_evals: int = 16, slack: float = 0.01) -> float:
    """The noise whose ``eps_at`` meets ``target`` (never above it), within ``slack`` of it in
    log epsilon where the evaluations allow: from ``start``, the noise is doubled or halved
    (in log steps that grow) until the target is bracketed, then the bracket is shrunk by
    secant steps alternating with bisection (``eps_at`` decreasing in sigma, e.g.
    :func:`dpcda.dashboard.samples.quick_epsilon`, an upper bound). Raises ``ValueError`` when no noise
    tried meets the target."""
    def g(x: float) -> float:  # log(eps / target); +inf where epsilon is infinite
        e = float(eps_at(math.exp(x)))
        return math.log(e / target) if 0 < e < math.inf else (math.inf if e > 0 else -math.inf)

    lo = hi = None  # (log sigma, g): lo misses the target (g > 0), hi meets it (g <= 0)
    x, step, n = math.log(start), 0.5, 0
    while n < max_evals:
        gx, n = g(x), n + 1
        if gx > 0 and (lo is None or x > lo[0]):
            lo = (x, gx)
        if gx <= 0 and (hi is None or x < hi[0]):
            hi = (x, gx)
        if hi is not None and (hi[1] > -slack or (lo is not None and hi[0] - lo[0] < 1e-4)):
            break
        if lo is None or hi is None:  # not bracketed yet: move towards the target
            x, step = (x + step if hi is None else x - step), min(2 * step, 4.0)
            if not math.log(1e-6) < x < math.log(1e4):  # no noise in a sensible range does it
                break
            continue
        mid = 0.5 * (lo[0] + hi[0])
        if n % 2 and math.isfinite(lo[1]) and hi[1] != lo[1]:
            x = lo[0] - lo[1] * (hi[0] - lo[0]) / (hi[1] - lo[1])
            if not lo[0] < x < hi[0]:
                x = mid
        else:
            x = mid
    if hi is None:
        raise ValueError(f"epsilon={target:g} cannot be reached at this setting")
    return math.exp(hi[0])


def mosaic_sigmas(ls: Sequence[int], epsilons: Sequence[float], *,
                  eps_at: Callable[[int, float], float], start: float = 0.3) -> dict:
    """``{(l, eps): sigma or error text}`` for every finite epsilon and every ``l``: each cell
    solved by :func:`solve_sigma` on ``eps_at(l, sigma)`` (an upper bound such as
    :func:`dpcda.dashboard.samples.quick_epsilon`: every cell meets its epsilon), started from the cell
    solved before it (the previous epsilon of the row, or the first cell of the previous row
    scaled by how l moved): a few cheap evaluations per cell instead of a full calibration."""
    finite = sorted({float(e) for e in epsilons if math.isfinite(e)}, reverse=True)
    out: dict = {}
    row_start, prev_l = start, None
    for l in ls:
        guess = row_start if prev_l is None else row_start * (prev_l / l) ** 0.8
        for i, e in enumerate(finite):
            try:
                guess = out[(l, e)] = solve_sigma(e, lambda s, l=l: eps_at(l, s), guess)
            except ValueError as exc:
                out[(l, e)] = str(exc)
            if i == 0 and not isinstance(out[(l, e)], str):
                row_start, prev_l = out[(l, e)], l
    return out


#: Mosaic noises remembered per setting (:func:`mosaic_sigmas_at`); the oldest go.
MAX_REMEMBERED = 32
_remembered: OrderedDict = OrderedDict()
_running: dict = {}  # key -> Event set when the thread computing it is done
_lock = threading.Lock()


def mosaic_sigmas_at(ls: Sequence[int] = MOSAIC_L, epsilons: Sequence[float] = MOSAIC_EPS, *,
                     start: float = 0.3, **privacy) -> dict:
    """:func:`mosaic_sigmas` on :func:`dpcda.dashboard.samples.quick_epsilon` at the public setting
    ``privacy`` (T, c, delta, n, class_counts, d_x, d_y, accountant, conversion, max_alpha,
    allocation), remembered per (ls, epsilons, start, setting): the same answer, computed once,
    so that :func:`dpcda.dashboard.background.prefetch` can compute it while the page shows the release
    (a call while another thread computes the same setting waits for that answer)."""
    from dpcda.dashboard import background
    from dpcda.dashboard.samples.setting import quick_epsilon

    priv = dict(privacy, class_counts=tuple(privacy["class_counts"]))

    def eps_at(l: int, sigma: float) -> float:
        background.pause_for_foreground()  # a prefetch lets page runs go first
        return quick_epsilon(sigma, l=l, **priv)

    key = (tuple(ls), tuple(float(e) for e in epsilons), float(start), tuple(sorted(priv.items())))
    with _lock:
        if key in _remembered:
            return dict(_remembered[key])
        running = _running.get(key)
        if running is None:
            _running[key] = threading.Event()
    if running is not None:  # another thread (a prefetch) is computing it: wait for that
        with background.waiting():
            running.wait(timeout=300)
        with _lock:
            if key in _remembered:
                return dict(_remembered[key])
        return mosaic_sigmas(ls, epsilons, start=start, eps_at=eps_at)  # it failed there
    try:
        out = mosaic_sigmas(ls, epsilons, start=start, eps_at=eps_at)
        with _lock:
            _remembered[key] = dict(out)
            while len(_remembered) > MAX_REMEMBERED:
                _remembered.popitem(last=False)
        return out
    finally:
        with _lock:
            _running.pop(key).set()


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

    from dpcda.mechanisms.mixing import mix_classwise
    from dpcda.randomness import SecureRandom

    n = len(table)
    dev = torch.device("cpu")
    gen = SecureRandom(seed)
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
