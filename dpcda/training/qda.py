"""Noise-aware QDA: per-class covariances recovered from a DP-CDA release (numpy, no torch).

A DP-CDA sample of class k is the mean of ``l`` distinct records of that class plus
``N(0, sigma_x^2 I)``. Its covariance is ``f_k Sigma_k + sigma_x^2 I`` with ``Sigma_k`` the class's
covariance (``1/n_k`` normalisation) and the mixing factor ``f_k = (n_k - l) / (l (n_k - 1))``
(sampling ``l`` of ``n_k`` without replacement). ``l``, ``sigma_x`` and, under the whole-record
relation, public lower bounds ``n_k`` are on the release's card, so the learner inverts it:
``Sigma_k ~ (S_k - sigma_x^2 I) / f_k`` with ``S_k`` the release's sample covariance of class k.

The inversion multiplies the estimation noise by ``1 / f_k ~ l``; what of ``Sigma_k`` the release
can resolve is decided by a rule without tuned constants (:mod:`dpcda.training.qda_rule`:
Ledoit-Wolf shrinkage towards the pooled covariance with the Wishart error, then a spiked model,
isotropic bulk plus the eigen-directions above the Marchenko-Pastur edge, inverted by the BBP
law; the bulk never below its standard error and pooled by its own Ledoit-Wolf weight, and
in release space never below the sampling error of ``S_k``, which keeps a bulk without noise).
Images (``image_shape`` given) add the tangent prior (:mod:`dpcda.training.qda_prior`):
each test image's own shift / rotation / scaling / shear / thickness tangents widen every class
Gaussian by transformation variances fitted on the release. Scores are Gaussian
log-likelihoods. Every hyper-parameter is a function of the release and its public
parameters: ``fit`` receives nothing else, and the values are kept in ``choice_``.
"""

from __future__ import annotations

import numpy as np

from dpcda.training.qda_prior import image_tangents, tangent_variances
from dpcda.training.qda_rule import bulk_error, bulk_pooling, ledoit_wolf_intensity, spiked_eigenvalues

#: Test rows scored per block (the tangents take n x 7 x d floats).
BLOCK = 2048


def mixing_factors(l: int, class_sizes) -> np.ndarray:
    """``f_k = (n_k - l) / (l (n_k - 1))``: the variance of the mean of ``l`` of ``n_k`` records
    drawn without replacement, per unit of class variance (1 when ``l = 1``)."""
    n = np.asarray(class_sizes, dtype=np.float64)
    if int(l) < 1:
        raise ValueError(f"l must be an integer >= 1, got l={l!r}")
    if n.ndim != 1 or np.any(n < l):
        # Worded from public inputs only: the class sizes are private counts (never in a message).
        raise ValueError(f"class_sizes must be one number per class, each >= l={int(l)} (the records "
                         "averaged per sample); a class of this dataset is smaller than l: lower l")
    if int(l) == 1:
        return np.ones_like(n)
    return (n - l) / (l * np.maximum(n - 1, 1))


def class_moments(X, y, n_classes: int):
    """``(means, covariances, counts)`` per class of the release's rows ``X`` with labels ``y``
    (classes with fewer than 2 rows: zeros); the products in float32 (post-processing of the
    public release, never a private path)."""
    d = X.shape[1]
    counts = np.bincount(y, minlength=n_classes)
    means, covs = np.zeros((n_classes, d)), np.zeros((n_classes, d, d))
    for k in np.flatnonzero(counts >= 2):
        Xk = X[y == k]
        means[k] = Xk.mean(axis=0, dtype=np.float64)
        D = (Xk - means[k]).astype(np.float32)
        covs[k] = (D.T @ D).astype(np.float64) / (len(Xk) - 1)
    return means, covs, counts


def _combine(own, pooled, a: float):
    """``(1 - a) C_own + a C_pooled`` for two bulk-plus-spikes covariances, as one (variances
    along orthonormal directions, bulk): both are ``floor I + W E W^T``, so the sum is too."""
    W = np.hstack([own[1], pooled[1]])
    E = np.concatenate([(1 - a) * (own[0] - own[2]), a * (pooled[0] - pooled[2])])
    floor = (1 - a) * own[2] + a * pooled[2]
    if W.shape[1] == 0:
        return np.zeros(0), W, floor
    Q, R = np.linalg.qr(W)
    e, V = np.linalg.eigh((R * E) @ R.T)
    return floor + np.maximum(e, 0.0), Q @ V, floor


class NoiseAwareQDA:
    """Quadratic discriminant analysis on a DP-CDA release (see the module docstring).

    ``noise_var``: the release's ``sigma_x^2`` in the units of ``X``; ``mix_factors``: ``f_k`` per
    class (:func:`mixing_factors`; ``None`` = 1, no mixing); ``image_shape``: ``(C, H, W)`` of
    the rows, which switches the tangent prior on (``tangent=False`` switches it off);
    ``pool=False`` skips the shrinkage towards the pooled covariance.
    """

    def __init__(self, n_classes: int, *, noise_var: float = 0.0, mix_factors=None,
                 image_shape=None, tangent: bool = True, pool: bool = True,
                 shrinkage: float | None = None) -> None:
        self.n_classes = int(n_classes)
        self.noise_var = float(noise_var)
        if not np.isfinite(self.noise_var) or self.noise_var < 0:
            raise ValueError(f"noise_var must be a number >= 0, got noise_var={noise_var!r}")
        self.mix_factors = None if mix_factors is None else np.asarray(mix_factors, dtype=np.float64)
        if self.mix_factors is not None and (self.mix_factors.shape != (self.n_classes,)
                                             or np.any(self.mix_factors <= 0)):
            raise ValueError(f"mix_factors must be {self.n_classes} positive numbers, "
                             f"got mix_factors={mix_factors!r}")
        self.image_shape = None if image_shape is None else tuple(int(s) for s in image_shape)
        if self.image_shape is not None and (len(self.image_shape) not in (2, 3)
                                             or min(self.image_shape[-2:]) < 3):
            raise ValueError("image_shape must be (C, H, W) or (H, W) with H, W >= 3, "
                             f"got image_shape={image_shape!r}")
        self.tangent, self.pool = bool(tangent), bool(pool)
        if shrinkage is not None and not 0.0 <= float(shrinkage) <= 1.0:
            raise ValueError(f"shrinkage must be None (the rule) or in [0, 1], got shrinkage={shrinkage!r}")
        self.shrinkage = None if shrinkage is None else float(shrinkage)
        self.choice_: dict | None = None
        self._model = None

    def fit(self, X: np.ndarray, y: np.ndarray, soft: np.ndarray | None = None, **_) -> "NoiseAwareQDA":
        X = np.asarray(X).reshape(len(X), -1)
        y = np.asarray(y, dtype=np.int64) if soft is None else np.asarray(soft).argmax(axis=1)
        K, d, s2 = self.n_classes, X.shape[1], self.noise_var
        f = self.mix_factors if self.mix_factors is not None else np.ones(K)
        means, S, counts = class_moments(X, y, K)
        present = counts >= 2
        if not present.any():
            raise ValueError("y must name at least one class with 2 or more rows")
        n_all = int(counts[present].sum())
        w = (counts[present] - 1) / max(n_all - int(present.sum()), 1)
        S_pool = np.tensordot(w, S[present], axes=1)
        f_pool = float(np.sum(counts[present] * f[present]) / n_all)
        eye = np.eye(d)
        corr_pool = (S_pool - s2 * eye) / f_pool
        self._corrected = np.where(present[:, None, None], (S - s2 * eye) / f[:, None, None], 0.0)
        classes, alphas, ranks, floors = [None] * K, np.zeros(K), np.zeros(K, int), np.zeros(K)
        bulk_w = np.zeros(K)
        pooled = None
        if self.pool and present.sum() > 1:
            ell, U = np.linalg.eigh(S_pool)
            var, order, floor, r = spiked_eigenvalues(ell, s2, f_pool, d / max(n_all - 1, 1), d)
            pooled = (var, U[:, order[:r]], floor)
        for k in np.flatnonzero(present):
            n_k = max(int(counts[k]) - 1, 1)
            ell, U = np.linalg.eigh(S[k])
            var, order, floor, r = spiked_eigenvalues(ell, s2, float(f[k]), d / n_k, d)
            own = (var, U[:, order[:r]], floor)
            a = 0.0
            if pooled is not None:
                b = bulk_pooling(floor, pooled[2], bulk_error(ell, float(f[k]), d / n_k, d))
                nf = (1 - b) * floor + b * pooled[2]
                own, bulk_w[k] = (var - floor + nf, own[1], nf), b
                Q = np.linalg.qr(np.hstack([pooled[1], own[1]]))[0]
                a = ledoit_wolf_intensity(S[k], int(counts[k]), float(f[k]), self._corrected[k],
                                          corr_pool, subspace=Q) if self.shrinkage is None else self.shrinkage
            classes[k] = _combine(own, pooled, a) if a > 0 else own
            alphas[k], ranks[k], floors[k] = a, len(classes[k][0]), classes[k][2]
        lam = None
        if self.tangent and self.image_shape is not None:
            ks = np.flatnonzero(present)
            lam = tangent_variances(means[ks], S[ks], s2, f[ks], floors[ks], self.image_shape)
        self._model = (means, classes, lam)
        self.choice_ = {
            "rule": "release-only: Ledoit-Wolf pooling (spikes and bulk), spiked model (BBP)"
                    + (", tangent prior" if lam is not None else ""),
            "shrinkage": round(float(np.mean(alphas[present])), 4),
            "spikes": [int(v) for v in ranks[present]],
            "floor": float(np.mean(floors[present])),
            "bulk_pooling": round(float(np.mean(bulk_w[present])), 4),
            "tangent_variances": None if lam is None else [float(v) for v in lam],
        }
        return self

    def corrected_covariances(self) -> np.ndarray:
        """``(S_k - sigma^2 I) / f_k`` per class: the exact correction, before the rule."""
        if self._model is None:
            raise RuntimeError("NoiseAwareQDA.corrected_covariances called before fit")
        return self._corrected

    def scores(self, X: np.ndarray) -> np.ndarray:
        if self._model is None:
            raise RuntimeError("NoiseAwareQDA.scores called before fit")
        X = np.asarray(X, dtype=np.float64).reshape(len(X), -1)
        return np.concatenate([self._block(X[i:i + BLOCK]) for i in range(0, len(X), BLOCK)]
                              or [np.zeros((0, self.n_classes))])

    def _block(self, X):
        means, classes, lam = self._model
        d = X.shape[1]
        s = np.full((len(X), self.n_classes), -np.inf)
        Tx = None
        if lam is not None and np.any(lam > 0):
            keep = lam > 0
            Tx = image_tangents(X, self.image_shape)[:, keep] * np.sqrt(lam[keep])[None, :, None]
            TT = np.einsum("nrd,nsd->nrs", Tx, Tx)
        for k, c in enumerate(classes):
            if c is None:
                continue
            var, U, floor = c
            D = X - means[k]
            W = D @ U
            w = 1.0 / floor - 1.0 / var  # C^-1 = I / floor - U diag(w) U^T
            q = np.sum(D * D, axis=1) / floor - np.sum(W * W * w, axis=1)
            logdet = float(np.sum(np.log(var)) + (d - len(var)) * np.log(floor))
            if Tx is not None:  # C + Tx Tx^T, by Woodbury and the matrix determinant lemma
                TU = np.einsum("nrd,dj->nrj", Tx, U)
                A = TT / floor - np.einsum("nrj,nsj->nrs", TU * w, TU)
                b = np.einsum("nrd,nd->nr", Tx, D) / floor - np.einsum("nrj,nj->nr", TU * w, W)
                A += np.eye(A.shape[1])[None]
                q = q - np.sum(b * np.linalg.solve(A, b[..., None])[..., 0], axis=1)
                s[:, k] = -0.5 * q - 0.5 * (logdet + np.linalg.slogdet(A)[1])
            else:
                s[:, k] = -0.5 * q - 0.5 * logdet
        return s

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.scores(X).argmax(axis=1)
