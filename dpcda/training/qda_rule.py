"""The release-only rule that regularises noise-aware QDA (issue 28): a spiked-covariance model
read off the release by the Marchenko-Pastur / BBP law, with no tuned constant.

A DP-CDA release's class-k rows have covariance ``R_k = f_k Sigma_k + sigma^2 I`` and the
learner sees their sample covariance ``S_k`` from ``n_k`` rows in ``d`` dimensions
(``gamma = d / n_k``). Model ``Sigma_k`` as an isotropic bulk ``floor_k I`` plus a few spikes.
In release space the bulk is ``b = sigma^2 + f_k floor_k`` and a spike of ``b (1 + x)``
shows in ``S_k`` as an eigenvalue ``b (1 + x)(1 + gamma / x)`` when ``x > sqrt(gamma)`` (the
BBP phase transition; below it the sample eigenvalue sits inside the Marchenko-Pastur bulk,
whose edge is ``b (1 + sqrt(gamma))^2``, and its eigenvector carries nothing of the truth).
So, per class:

1. eigenvalues ``ell`` of ``S_k`` above the edge are spikes; each is inverted,
   ``x = (L - 1 - gamma + sqrt((L - 1 - gamma)^2 - 4 gamma)) / 2`` with ``L = ell / b``, and the
   clean eigenvalue is ``floor_k + b x / f_k``. The release-space bulk ``b`` is never below
   the sampling error of ``S_k`` itself (:func:`wishart_level`): without noise (``sigma =
   0``, the non-private ceiling) a bulk read off a power-law spectrum shrinks with every
   spike found;
2. the bulk ``floor_k`` is the clean trace ``(tr S_k - d sigma^2) / f_k`` (an average over all
   ``d`` directions: precise even when no direction is) minus the spikes, spread over the
   other ``d - r`` directions, never below its own standard error (:func:`bulk_error`);
   1-2 are iterated to a fixed point;
3. a sample eigenvector is only partly aligned with its spike (``cos^2 = (1 - gamma / x^2) /
   (1 + gamma / x)``), so the variance used along it is ``lambda cos^2 + floor (1 - cos^2)``
   (the variance the true covariance has along that direction).

The same model is fitted to the pooled within-class covariance (``gamma = d / N``); each class
then takes ``(1 - alpha_k) C_k + alpha_k C_pooled`` (both bulk-plus-spikes, so the sum is too)
with the Ledoit-Wolf intensity ``alpha_k = E||S_k - R_k||_F^2 / ||Sigma_hat_k -
Sigma_hat_pooled||_F^2`` (capped at 1), whose numerator the Wishart law gives, ``(tr(R_k)^2 +
tr(R_k^2)) / n_k`` (divided by ``f_k^2`` in clean units), estimated with ``S_k``; both norms are
taken in the span of the detected spikes; the bulk, one number per class, is pooled by its
own scalar Ledoit-Wolf weight (:func:`bulk_pooling`). Every input is public (``sigma``, ``f_k``, ``n_k``,
``d``) or the release.
"""

from __future__ import annotations

import numpy as np

#: A bulk never below this share of the clean trace per direction (numerical guard only).
TINY = 1e-6


def spiked_eigenvalues(ell, noise_var: float, f: float, gamma: float, d: int):
    """The rule's steps 1-3 for eigenvalues ``ell`` (any order) of one release covariance.

    Returns ``(variances, order, floor, r)``: the variances to use along the ``r`` spike
    eigenvectors (``order[:r]`` indexes them in ``ell``) and the clean bulk ``floor``."""
    ell = np.asarray(ell, dtype=np.float64)
    order = np.argsort(ell)[::-1]
    e = ell[order]
    clean_tr = max((float(e.sum()) - d * noise_var) / f, 0.0)
    guard = max(TINY * max(clean_tr, 1e-300) / d, bulk_error(e, f, gamma, d))
    floor = max(clean_tr / d, guard)
    edge = (1 + np.sqrt(gamma)) ** 2
    level = wishart_level(e, gamma, d)
    lam, c2, r = np.zeros(0), np.zeros(0), 0
    for _ in range(50):
        b = max(noise_var + f * floor, level)
        L = e / b
        r = int(np.sum(L > edge))
        B = L[:r] - 1 - gamma
        x = (B + np.sqrt(np.maximum(B * B - 4 * gamma, 0.0))) / 2
        lam = floor + b * x / f
        c2 = np.clip((1 - gamma / np.maximum(x, 1e-300) ** 2) / (1 + gamma / np.maximum(x, 1e-300)),
                     0.0, 1.0)
        new = max((clean_tr - float(lam.sum())) / max(d - r, 1), guard)
        if abs(new - floor) <= 1e-9 * floor:
            floor = new
            break
        floor = new
    var = np.maximum(lam * c2 + floor * (1 - c2), floor)
    return var, order, floor, r


def wishart_level(ell, gamma: float, d: int) -> float:
    """The sampling error of ``S_k`` as a release-space level: the bulk ``b`` of step 1 is
    never below it, so a spike must stand above ``S_k``'s own estimation error beyond the
    Marchenko-Pastur edge. The Wishart law gives ``E||S - R||_F^2 = (tr(R)^2 + tr(R^2)) / n``;
    an isotropic ``R = b_W I`` has the same error when ``b_W = sqrt((tr R)^2 + tr R^2) /
    sqrt(d^2 + d)``, and its sample eigenvalues then spread ``b_W ((1 + sqrt(gamma))^2 - 1)``
    above it (the edge): that spread is the level, estimated with the eigenvalues ``ell`` of
    ``S_k``. It vanishes as ``n`` grows (``gamma -> 0``); where the noise dominates (every
    private release measured) ``b_W ~ sigma^2 + f tr(Sigma) / d`` and the level, ``(2
    sqrt(gamma) + gamma) b_W``, is below ``sigma^2``: the rule is unchanged there. Without
    noise (the non-private ceiling: ``sigma = 0``, ``f = 1``) the bulk had been the class's
    own power-law tail, and each fixed-point step found more spikes above the shrinking bulk
    (MNIST: 321-491 spikes per class, bulk 0.4% of the mean pixel variance, then pooled down to
    the pooled model's 0.1% with its 618 spikes): the near-constant border directions decided
    the log-likelihood (ceiling 0.831, below the private 0.94). With the level the ceiling is
    0.949 on MNIST and 0.828 on Fashion-MNIST (was 0.746); docs/training.md, third pass."""
    ell = np.asarray(ell, dtype=np.float64)
    tr = float(ell.sum())
    b_w = np.sqrt(max(tr, 0.0) ** 2 + float(np.sum(ell * ell))) / np.sqrt(d * d + d)
    return float(b_w * ((1 + np.sqrt(gamma)) ** 2 - 1))


def bulk_error(ell, f: float, gamma: float, d: int) -> float:
    """The standard error of the clean bulk per direction, ``sqrt(Var tr S) / (f d)`` with the
    Wishart ``Var tr S = 2 tr(R^2) / n`` (``n = d / gamma``), ``tr(R^2)`` estimated by ``sum
    ell^2`` (biased up: the error is not understated). Issue 28, item (c): the bulk is never put
    below it. Where the noise swamps a class (a ``scale`` release with l = 64: ``sigma^2 / f``
    hundreds of times the clean variance per pixel) the clean trace can come out <= 0 and the
    bulk was ``1e-306``: that class's log-determinant then decided every prediction."""
    ell = np.asarray(ell, dtype=np.float64)
    return float(np.sqrt(2.0 * gamma * np.sum(ell * ell) / d) / (f * d))


def bulk_pooling(floor_k: float, floor_pooled: float, error_k: float) -> float:
    """The weight of the pooled bulk in class k's bulk: Ledoit-Wolf for one scalar,
    ``min(1, error_k^2 / (floor_k - floor_pooled)^2)`` (the pooled bulk's own error, from ``N``
    rows, is neglected). A class bulk within its standard error of the pooled one is the pooled
    one: a bulk that differs by noise alone no longer moves ``d`` log-determinant terms."""
    dist = (floor_k - floor_pooled) ** 2
    return 1.0 if dist <= error_k ** 2 else float(error_k ** 2 / dist)


def ledoit_wolf_intensity(S_k, n_k: int, f_k: float, corrected_k, corrected_pooled,
                          subspace=None) -> float:
    """``alpha_k``: the Wishart error of the corrected class covariance over its distance to
    the pooled one (Frobenius), capped at 1, both measured in ``subspace`` (orthonormal
    columns; ``None``: everywhere). The rule passes the span of the detected spikes (the
    class's and the pooled ones): outside it both estimates are replaced by a bulk anyway, and
    the ``d^2`` entries of pure noise there would swamp the error (measured: alpha = 1, every
    class pooled, MNIST epsilon = 10: 0.87 where the class's own spikes give 0.93)."""
    if subspace is not None:
        Q = np.asarray(subspace)
        S_k, corrected_k, corrected_pooled = (Q.T @ M @ Q for M in (S_k, corrected_k,
                                                                     corrected_pooled))
    err = (np.trace(S_k) ** 2 + np.sum(S_k * S_k)) / (max(n_k - 1, 1) * f_k ** 2)
    dist = float(np.sum((corrected_k - corrected_pooled) ** 2))
    return float(min(1.0, err / max(dist, 1e-300)))
