"""Noise-aware QDA: per-class covariances recovered from a DP-CDA release (numpy, no torch).

A DP-CDA sample of class k is the mean of ``l`` distinct records of that class plus
``N(0, sigma_x^2 I)``. Its covariance is ``f_k Sigma_k + sigma_x^2 I`` with ``Sigma_k`` the class's
covariance (``1/n_k`` normalisation) and the mixing factor ``f_k = (n_k - l) / (l (n_k - 1))``
(sampling ``l`` of ``n_k`` without replacement). ``l``, ``sigma_x`` and, under the whole-record
relation, public lower bounds ``n_k`` are on the release's card, so the learner inverts it:
``Sigma_k ~ (S_k - sigma_x^2 I) / f_k`` with ``S_k`` the release's sample covariance of class k.

The inversion multiplies estimation noise by ``1 / f_k ~ l``, so it is done in a public basis of
``p`` directions (the leading principal directions of the release itself: post-processing), the
eigenvalues are floored and each class is shrunk towards the pooled covariance. Scores are the
Gaussian log-likelihoods ``-log|C_k| / 2 - (x - mu_k)^T C_k^-1 (x - mu_k) / 2`` in that basis,
plus, outside it, the distance to the class mean over the floor (isotropic, the same for every
class: the LDA-like part that the basis leaves out; measured on one MNIST release, epsilon = 1,
l = 8: 0.848 -> 0.862).

Hyper-parameters (``p``, the shrinkage ``alpha``, the floor ``beta``) never see test data
(``fit`` receives none). The default is a rule: one candidate whose floor scales with the public
``sigma_x``, ``l`` and ``T_k``. Given several candidates, the held-out rule scores a share of
the release's rows under each candidate's *release-space* model ``N(mu_k, f_k C_k + sigma_x^2
I)`` (the distribution those rows were drawn from) and refits the most likely one on every row;
measured, it over-regularises (the noise dominates the held-out likelihood), so it is not the
default. The choice is kept in ``choice_`` (written beside the accuracy by the training loop).
"""

from __future__ import annotations

import numpy as np

#: The default rule: one candidate, p = 150 directions, shrinkage 0.3, floor 0.1 of the
#: inversion's eigenvalue noise (measured on MNIST / Fashion-MNIST at epsilon = 10 and 1,
#: docs/training.md). Several candidates switch on the held-out choice.
DIMS = (150,)
SHRINKAGES = (0.3,)
FLOORS = (0.1,)
#: At most this many held-out rows are scored per candidate (time).
MAX_HELD = 4000
#: The floor's share of the mean eigenvalue in the basis (the whole floor without noise).
TRACE_FLOOR = 0.1


def mixing_factors(l: int, class_sizes) -> np.ndarray:
    """``f_k = (n_k - l) / (l (n_k - 1))``: the variance of the mean of ``l`` of ``n_k`` records
    drawn without replacement, per unit of class variance (1 when ``l = 1``)."""
    n = np.asarray(class_sizes, dtype=np.float64)
    if int(l) < 1 or n.ndim != 1 or np.any(n < l):
        raise ValueError(f"class_sizes must be >= l={l} for every class, got class_sizes={list(n)}")
    if int(l) == 1:
        return np.ones_like(n)
    return (n - l) / (l * np.maximum(n - 1, 1))


class NoiseAwareQDA:
    """Quadratic discriminant analysis on a DP-CDA release (see the module docstring).

    ``noise_var``: the release's ``sigma_x^2`` in the units of ``X``; ``mix_factors``: ``f_k`` per
    class (:func:`mixing_factors`; ``None`` = 1, no mixing). ``dims``, ``shrinkages``, ``floors``:
    the candidates; ``holdout``: the share of rows held out to choose among them (0 or a single
    candidate: no held-out choice, the first candidate). The floor of a candidate is
    ``beta * noise_var / mean f_k * sqrt(p / T_k) + TRACE_FLOOR * tr(pooled) / p``: a share of
    the inversion's eigenvalue noise (Marchenko-Pastur width) plus a share of the mean
    eigenvalue in the basis (the only floor when there is no noise).
    """

    def __init__(self, n_classes: int, *, noise_var: float = 0.0, mix_factors=None,
                 dims=DIMS, shrinkages=SHRINKAGES, floors=FLOORS, holdout: float = 0.2) -> None:
        self.n_classes = int(n_classes)
        self.noise_var = float(noise_var)
        self.mix_factors = None if mix_factors is None else np.asarray(mix_factors, dtype=np.float64)
        if self.mix_factors is not None and (self.mix_factors.shape != (self.n_classes,)
                                             or np.any(self.mix_factors <= 0)):
            raise ValueError(f"mix_factors must be {self.n_classes} positive numbers, "
                             f"got mix_factors={mix_factors!r}")
        if not 0.0 <= float(holdout) < 1.0:
            raise ValueError(f"holdout must be in [0, 1), got holdout={holdout!r}")
        self.dims, self.shrinkages, self.floors = tuple(dims), tuple(shrinkages), tuple(floors)
        self.holdout = float(holdout)
        self.choice_: dict | None = None
        self._model = None

    # -- estimation ---------------------------------------------------------------------------
    def _basis(self, X: np.ndarray, p_max: int):
        centre = X.mean(axis=0)
        C = np.zeros((X.shape[1], X.shape[1]))
        for i in range(0, len(X), 8192):
            R = X[i:i + 8192] - centre
            C += R.T @ R
        _, V = np.linalg.eigh(C / len(X))
        return centre, V[:, ::-1][:, :min(p_max, X.shape[1])]

    def _moments(self, Z: np.ndarray, y: np.ndarray):
        """Per class: mean, corrected covariance, sample count (present classes only)."""
        K, p = self.n_classes, Z.shape[1]
        f = self.mix_factors if self.mix_factors is not None else np.ones(K)
        mus, covs, counts = np.zeros((K, p)), np.zeros((K, p, p)), np.bincount(y, minlength=K)
        for k in range(K):
            if counts[k] < 2:
                continue
            Zk = Z[y == k]
            mus[k] = Zk.mean(axis=0)
            R = Zk - mus[k]
            covs[k] = (R.T @ R / (len(Zk) - 1) - self.noise_var * np.eye(p)) / f[k]
        return mus, covs, counts

    def _regularised(self, covs, counts, alpha: float, beta: float):
        """Per class: eigen-decomposition of the shrunk, floored covariance."""
        present = counts >= 2
        p = covs.shape[1]
        pooled = np.tensordot(counts[present] / counts[present].sum(), covs[present], axes=1)
        f = self.mix_factors if self.mix_factors is not None else np.ones(self.n_classes)
        t = float(np.mean(counts[present]))
        floor = (beta * self.noise_var / float(np.mean(f[present])) * np.sqrt(p / t)
                 + TRACE_FLOOR * max(np.trace(pooled), 0.0) / p)
        out = []
        for k in range(self.n_classes):
            if not present[k]:
                out.append(None)
                continue
            e, U = np.linalg.eigh((1 - alpha) * covs[k] + alpha * pooled)
            out.append((np.maximum(e, max(floor, 1e-12)), U))
        self._floor = max(floor, 1e-12)
        return out, f

    @staticmethod
    def _loglik(Z, mus, eigs, extra=None):
        s = np.full((len(Z), len(mus)), -np.inf)
        for k, eu in enumerate(eigs):
            if eu is None:
                continue
            e, U = eu
            if extra is not None:  # the release-space variance: f_k * e + sigma^2
                e = extra[0][k] * e + extra[1]
            W = (Z - mus[k]) @ U
            s[:, k] = -0.5 * np.sum(W * W / e, axis=1) - 0.5 * np.sum(np.log(e))
        return s

    def _choose(self, X, Zall, y, grid):
        """The candidate whose release-space model gives the held-out rows the highest mean
        log-likelihood (full dimension: outside the basis each class is isotropic with its
        residual variance). A fixed split of the public release: post-processing, no private
        randomness."""
        rows = np.random.default_rng(0).permutation(len(X))
        n_held = min(int(round(self.holdout * len(X))), MAX_HELD)
        held, fit_rows = rows[:n_held], rows[n_held:]
        d, K = X.shape[1], self.n_classes
        means = np.zeros((K, d))
        for k in range(K):
            if np.any(y[fit_rows] == k):
                means[k] = X[fit_rows][y[fit_rows] == k].mean(axis=0)
        Rf = X[fit_rows] - means[y[fit_rows]]
        Rh = X[held] - means[y[held]]
        full_f, full_h = np.sum(Rf * Rf, axis=1), np.sum(Rh * Rh, axis=1)
        best, best_ll = grid[0], -np.inf
        for p in sorted({g[0] for g in grid}):
            Zf, Zh = Zall[fit_rows, :p], Zall[held, :p]
            mus, covs, counts = self._moments(Zf, y[fit_rows])
            # outside the basis: mean squared residual per dimension (pooled over classes)
            Pf, Ph = (Rf @ self._V[:, :p]), (Rh @ self._V[:, :p])
            rest = max(float(np.mean(full_f - np.sum(Pf * Pf, axis=1))) / max(d - p, 1), 1e-12)
            rest_h = full_h - np.sum(Ph * Ph, axis=1)
            out_ll = -0.5 * rest_h / rest - 0.5 * (d - p) * np.log(rest) if d > p else 0.0
            for a in sorted({g[1] for g in grid if g[0] == p}):
                for b in [g[2] for g in grid if g[0] == p and g[1] == a]:
                    eigs, f = self._regularised(covs, counts, a, b)
                    s = self._loglik(Zh, mus, eigs, extra=(f, self.noise_var))
                    ll = float(np.mean(s[np.arange(len(Zh)), y[held]] + out_ll))
                    if ll > best_ll:
                        best_ll, best = ll, (p, a, b)
        return best, best_ll

    def fit(self, X: np.ndarray, y: np.ndarray, soft: np.ndarray | None = None, **_) -> "NoiseAwareQDA":
        X = np.asarray(X, dtype=np.float64).reshape(len(X), -1)
        y = np.asarray(y, dtype=np.int64) if soft is None else np.asarray(soft).argmax(axis=1)
        centre, V = self._basis(X, max(self.dims))
        Zall = (X - centre) @ V
        self._V = V
        grid = [(p, a, b) for p in self.dims if p <= V.shape[1]
                for a in self.shrinkages for b in self.floors] or [(V.shape[1], 0.0, self.floors[0])]
        held_score = None
        best = grid[0]
        if self.holdout > 0 and len(grid) > 1:
            best, held_score = self._choose(X, Zall, y, grid)
        p, a, b = best
        mus, covs, counts = self._moments(Zall[:, :p], y)
        eigs, _ = self._regularised(covs, counts, a, b)
        self._corrected = covs
        means = np.zeros((self.n_classes, X.shape[1]))
        for k in np.flatnonzero(counts >= 2):
            means[k] = X[y == k].mean(axis=0)
        self._outside = (means, self._floor)
        self._model = (centre, V[:, :p], mus, eigs)
        self.choice_ = {"dims": int(p), "shrinkage": float(a), "floor": float(b),
                        "holdout_loglik": held_score, "rule": "held-out release rows"
                        if held_score is not None else "single candidate"}
        return self

    def corrected_covariances(self) -> np.ndarray:
        """``V (S_k - sigma^2 I) / f_k V^T`` per class: the exact correction, before floor and
        shrinkage, in the original coordinates (restricted to the basis)."""
        if self._model is None:
            raise RuntimeError("NoiseAwareQDA.corrected_covariances called before fit")
        V = self._model[1]
        return np.einsum("ip,kpq,jq->kij", V, self._corrected, V)

    def scores(self, X: np.ndarray) -> np.ndarray:
        if self._model is None:
            raise RuntimeError("NoiseAwareQDA.scores called before fit")
        centre, V, mus, eigs = self._model
        X = np.asarray(X, dtype=np.float64).reshape(len(X), -1)
        s = self._loglik((X - centre) @ V, mus, eigs)
        means, var = self._outside  # outside the basis: the class means, isotropic variance
        for k, eu in enumerate(eigs):
            if eu is not None:
                D = X - means[k]
                P = D @ V
                s[:, k] -= 0.5 * (np.sum(D * D, axis=1) - np.sum(P * P, axis=1)) / var
        return s

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.scores(X).argmax(axis=1)
