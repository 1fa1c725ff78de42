"""When is every released sample static? A rule from public quantities only (c and sigma).

A DP-CDA sample is the mean of ``l`` rows, each clipped to L2 norm at most ``c``, plus
``N(0, sigma^2 I_d)``. Its *legibility score*

    score = c / sigma

is the signal-to-noise ratio of an ideal observer who knows the class shape (a matched filter:
the signal's norm, at most ``c``, over the noise's standard deviation along any one direction).
It uses public settings only. Below :data:`SCORE_MIN` we call every sample *unrecognisable*.

Why not ``c / (sigma sqrt(d))`` (the norms of signal and noise)? Looked at by eye
(``docs/samples.md``), MNIST digits (d = 784) are still readable where that ratio is 0.7 and
gone at 0.35, while digits' 8 x 8 images (d = 64) are gone at 1 and readable at 4: the threshold
moves with sqrt(d), so d cancels. In terms of ``c / sigma`` both datasets turn to static
between 10 and 16 and are readable from about 20 (MNIST) / 32 (digits).

Under a target epsilon the calibrated ``sigma`` scales with ``c``, so the score does not depend
on ``c``: the lever is ``l`` (more records per mixture, less noise for the same epsilon). The hint
(:func:`legibility_hint`) names the smallest offered ``l`` that brings the score to the threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

#: Legibility score (c / sigma) below which every sample counts as unrecognisable.
SCORE_MIN = 12.0


def legibility_score(*, c: float, sigma: float) -> float:
    """``c / sigma``: the largest signal norm over the noise's std (inf for ``sigma = 0``)."""
    if not (isinstance(c, (int, float)) and math.isfinite(c) and c > 0):
        raise ValueError(f"c must be a finite number > 0 (the clip norm), got c={c!r}")
    if not (isinstance(sigma, (int, float)) and math.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"sigma must be a finite number >= 0, got sigma={sigma!r}")
    return math.inf if sigma == 0 else float(c) / float(sigma)


def unrecognisable(*, c: float, sigma: float, score_min: float = SCORE_MIN) -> bool:
    """True when every sample is static: :func:`legibility_score` below ``score_min``."""
    return legibility_score(c=c, sigma=sigma) < score_min


def legible_sigma(*, c: float, score_min: float = SCORE_MIN) -> float:
    """The largest noise at which samples still reach ``score_min``."""
    return float(c) / score_min


def smallest_legible_l(candidates: Sequence[int], meets: Callable[[int], bool]) -> int | None:
    """The smallest ``l`` in ``candidates`` (increasing) for which ``meets(l)`` holds, by
    bisection (``meets`` is monotone: a larger l needs less noise for the same epsilon);
    None when even the largest fails."""
    ls = sorted(int(v) for v in candidates)
    if not ls or not meets(ls[-1]):
        return None
    lo, hi = -1, len(ls) - 1  # meets(ls[hi]) holds; every index <= lo fails
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if meets(ls[mid]):
            hi = mid
        else:
            lo = mid
    return ls[hi]


@dataclass(frozen=True)
class Legibility:
    """The verdict for one setting: its ``score``, whether every sample is static, a plain
    ``hint`` (empty when legible) and the ``suggested_l`` it names (if any)."""

    score: float
    static: bool
    hint: str = ""
    suggested_l: int | None = None


def legibility_hint(*, c: float, sigma: float, l: int, epsilon: float | None,
                    candidates: Sequence[int] = (),
                    epsilon_at: Callable[[int, float], float] | None = None,
                    score_min: float = SCORE_MIN) -> Legibility:
    """Judge a setting and, when every sample is static, say what would help.

    ``epsilon``: the target epsilon (None when the noise was chosen directly).
    ``epsilon_at(l, sigma)``: the accountant's epsilon for order ``l`` at noise ``sigma``; with
    it and ``candidates`` (the offered orders of mixture) the hint names the smallest
    ``l`` above the current one whose noise at the threshold still meets the same epsilon.
    """
    score = legibility_score(c=c, sigma=sigma)
    if score >= score_min:
        return Legibility(score, False)
    need = legible_sigma(c=c, score_min=score_min)
    head = (f"Every sample here is mostly static: the noise (σ = {sigma:.3g} on every pixel) "
            f"drowns a signal of size at most c = {c:g} (readable needs about σ ≤ {need:.3g}).")
    tail = " The class means on the right average the noise away."
    if epsilon is None or epsilon_at is None:
        return Legibility(score, True, f"{head} Try σ ≤ {need:.3g} (less private).{tail}")
    bigger = [v for v in candidates if v > l]
    best = smallest_legible_l(bigger, lambda v: epsilon_at(v, need) <= epsilon) if bigger else None
    if best is None:
        return Legibility(score, True, f"{head} No offered l gets there at ε = {epsilon:g}: try a "
                                       f"larger ε (less private).{tail}")
    return Legibility(score, True, f"{head} Try l ≥ {best} at the same ε = {epsilon:g}: each "
                                   f"sample then averages more records, so it needs less noise.{tail}",
                      best)
