"""Public lower bounds on the class sizes from a DP histogram of the labels (whole-record).

Under the ``whole-record`` relation the class sizes ``N_k`` are private; the accountant needs
public lower bounds ``n_k`` (docs/whole-record.md §1). For a built-in dataset they are its
published counts (nothing is spent). For any other data, a release with a target epsilon draws
them from the data under DP (docs/whole-record.md §11):

1. the K label counts plus Gaussian noise of std ``sigma_h = sqrt(2) / mu_h`` (replace-one
   changes two counts by one: L2 sensitivity ``sqrt(2)``), from the secure source on the public
   grid (:func:`dpcda.randomness.noise.add_gaussian`); ``mu_h`` makes it alone
   ``(label_share * epsilon, delta / 4)``-DP (Balle & Wang 2018, Theorem 8);
2. ``n_k = floor(h_k - z sigma_h - gamma)`` (``gamma``: the grid step), with ``K Phi(-z) =
   beta = delta / 4``: the data meet the bounds except with probability ``beta``;
3. the mixing (and ``dp-center``'s statistics) calibrated to ``((1 - label_share) epsilon,
   delta / 2)`` on those bounds.

The three compose to ``(epsilon, delta)`` (basic composition, valid when the second stage is
chosen from the first one's output, plus the failure probability ``beta``). Pure numpy/scipy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from dpcda.util.checks import check_delta, check_float

#: The share of the target epsilon a release spends on its label histogram by default.
DEFAULT_LABEL_SHARE = 0.05
#: L2 sensitivity of the K label counts under replace-one (one count -1, another +1).
SENSITIVITY = math.sqrt(2.0)
#: How the target delta is split: (mixing, histogram's Gaussian, failure probability beta).
DELTA_SPLIT = (0.5, 0.25, 0.25)


def check_label_share(share) -> float:
    return check_float("label_share", share, lo=0.0, lo_open=True, hi=1.0, hi_open=True)


@dataclass(frozen=True)
class LabelPlan:
    """The public parameters of a label histogram in a release with a target ``epsilon``."""

    share: float
    epsilon: float        # the release's target (all parts together)
    delta: float
    epsilon_hist: float   # the histogram alone is (epsilon_hist, delta_hist)-DP
    delta_hist: float
    beta: float           # P(the data do not meet the bounds) <= beta
    z: float
    sigma: float          # the histogram's noise std (public)
    epsilon_rest: float   # what the mixing (and dp-center's statistics) are calibrated to
    delta_rest: float

    def card(self) -> dict:
        return {"release": "label histogram (K counts), one Gaussian release, from which the "
                           "public lower bounds n_k = floor(count - z sigma - grid step) come",
                "label_share": self.share, "epsilon": self.epsilon_hist, "delta": self.delta_hist,
                "sigma": self.sigma, "sensitivity": SENSITIVITY, "z": self.z,
                "failure_probability": self.beta,
                "rest_epsilon": self.epsilon_rest, "rest_delta": self.delta_rest,
                "composition": "basic composition: histogram (epsilon, delta) + mixing "
                               "(epsilon, delta) + failure probability beta added to delta "
                               "(docs/whole-record.md §11)"}


def label_plan(epsilon: float, delta: float, K: int, share: float = DEFAULT_LABEL_SHARE) -> LabelPlan:
    """The split of a target ``(epsilon, delta)`` between the label histogram and the rest."""
    from dpcda.privacy.composed import stats_mu

    share = check_label_share(share)
    epsilon = check_float("epsilon", epsilon, lo=0.0, lo_open=True)
    delta = check_delta(delta)
    d_rest, d_hist, beta = (f * delta for f in DELTA_SPLIT)
    eps_hist = share * epsilon
    sigma = SENSITIVITY / stats_mu(eps_hist, d_hist)
    z = float(-ndtri(beta / int(K)))
    return LabelPlan(share=share, epsilon=epsilon, delta=delta, epsilon_hist=eps_hist,
                     delta_hist=d_hist, beta=beta, z=z, sigma=float(sigma),
                     epsilon_rest=epsilon - eps_hist, delta_rest=d_rest)


def useful(plan: LabelPlan, N: int, K: int, l: int) -> bool:
    """Whether the histogram can serve ``l`` at this public size: a class of ``N / K`` records
    (the balanced case) would get a bound of at least ``l + 1`` even with noise ``z sigma``
    below its count. Decided from public inputs only (N is public under replace-one); where it
    is False a release uses the class sizes as public instead (the card's notice
    ``class_sizes_from_data``: the features-only promise), rather than spend epsilon on bounds
    that cannot serve it."""
    from dpcda.randomness.noise import grid_for

    gamma = grid_for(plan.sigma, float(N)).gamma
    return N / K - 2.0 * plan.z * plan.sigma - gamma - 1.0 >= l + 1


def target_plan(epsilon: float, delta: float, *, N: int, K: int, d: int, T: int, l: int,
                share: float = DEFAULT_LABEL_SHARE) -> LabelPlan | None:
    """The label histogram a whole-record release at target ``(epsilon, delta)`` draws when the
    data publish no class bounds, or None where it could not serve ``l`` (:func:`useful`): the
    target less floating point's share kept back (at most ``T`` samples of ``d + K`` noisy values,
    the statistics' ``d`` and the histogram's ``K``), then :func:`label_plan`. Public inputs only;
    the one decision both :func:`dpcda.mechanisms.generate_dpcda` and the Samples page read."""
    from dpcda.randomness.noise import calibration_aim, delta_aim

    n_values = T * (d + K) + d + K
    plan = label_plan(calibration_aim(epsilon, n_values), delta_aim(delta, epsilon, n_values), K, share)
    return plan if useful(plan, N, K, l) else None


def noisy_bounds(counts, plan: LabelPlan, source) -> tuple[np.ndarray, np.ndarray, object]:
    """``(noisy counts, lower bounds n_k, grid)``: the DP histogram of the private ``counts``
    (noise from ``source``, a :class:`~dpcda.randomness.secure.SecureRandom`, float64, on the
    public grid) and the bounds from it (at least 0). The bound is exceeded by the true count
    only when the noise exceeds ``z sigma`` (the grid rounds by at most half a step)."""
    from dpcda.randomness.noise import add_gaussian, grid_for

    counts = np.asarray(counts, dtype=np.float64)
    n_total = float(counts.sum())  # N is public under replace-one
    grid = grid_for(plan.sigma, n_total)
    noisy = add_gaussian(counts, plan.sigma, source, bound=n_total, grid=grid)
    bounds = np.floor(noisy - plan.z * plan.sigma - grid.gamma)
    return noisy, np.maximum(bounds, 0.0).astype(np.int64), grid
