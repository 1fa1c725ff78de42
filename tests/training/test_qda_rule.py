"""The rule of noise-aware QDA without noise (issue 28: the non-private ceiling). With
``sigma = 0`` the release-space bulk had been read off the class's own spectrum, and with a
power-law spectrum and constant coordinates (an image's empty border) each fixed-point step
found more spikes above the shrinking bulk: every direction became a spike and the constant
ones got a variance near zero (MNIST: ceiling 0.831 below the private 0.94). The bulk is now
never below the Wishart sampling error of ``S_k`` (:func:`dpcda.training.qda_rule.wishart_level`),
which is below ``sigma^2`` wherever the noise dominates (private fits unchanged)."""

import numpy as np
from sklearn.datasets import load_digits

from dpcda.training.learners import NoiseAwareLDA
from dpcda.training.qda import NoiseAwareQDA
from dpcda.training.qda_rule import spiked_eigenvalues, wishart_level


def _power_law_rows(rng, n, d=120, border=20, a=1.0):
    """``n`` Gaussian rows with variances ``i^-a`` in ``d - border`` coordinates (a random basis)
    and ``border`` coordinates that are 0 in every row."""
    m = d - border
    lam = np.arange(1, m + 1, dtype=float) ** -a
    Q = np.linalg.qr(rng.normal(size=(m, m)))[0]
    X = np.zeros((n, d))
    X[:, :m] = rng.normal(size=(n, m)) * np.sqrt(lam) @ Q.T
    return X, lam


def test_without_noise_a_power_law_spectrum_keeps_a_bulk():
    rng = np.random.default_rng(5)
    n, d, border = 1500, 120, 20
    X, lam = _power_law_rows(rng, n, d, border)
    D = X - X.mean(axis=0)
    ell = np.linalg.eigvalsh(D.T @ D / (n - 1))
    gamma = d / (n - 1)
    var, order, floor, r = spiked_eigenvalues(ell, 0.0, 1.0, gamma, d)
    level = wishart_level(ell, gamma, d)
    # a spike stands beyond the Marchenko-Pastur edge of the sampling error
    assert np.all(ell[order[:r]] > level * (1 + np.sqrt(gamma)) ** 2)
    assert r < (d - border) / 2, r  # the old fixed point: r = d (every direction a spike)
    # the bulk is the clean variance the spikes leave, spread over the rest: not ~0
    assert floor > 0.2 * lam[r:].mean(), (floor, lam[r:].mean())
    assert var.min() >= floor
    # the covariance's log-determinant is finite and within reach of the truth's nonzero part
    logdet = float(np.sum(np.log(var)) + (d - r) * np.log(floor))
    assert logdet > np.sum(np.log(lam)) + border * np.log(1e-3 * lam.mean())


def test_the_level_is_below_the_noise_where_the_noise_dominates():
    """Private releases: sigma^2 much above f tr(Sigma) / d, so b = sigma^2 + f floor as before."""
    rng = np.random.default_rng(6)
    n, d, f, s2 = 4000, 120, 1 / 64, 0.05
    X, lam = _power_law_rows(rng, n, d)
    R = np.sqrt(f) * X + rng.normal(0, np.sqrt(s2), X.shape)
    D = R - R.mean(axis=0)
    ell = np.linalg.eigvalsh(D.T @ D / (n - 1))
    assert wishart_level(ell, d / (n - 1), d) < s2
    # and it vanishes as the release grows (gamma -> 0): no bulk is imposed on exact moments
    assert wishart_level(ell, 1e-8, d) < 1e-3 * ell.mean()


def test_noise_free_fit_is_not_below_lda_on_real_digits():
    """The ceiling setting on real images (sklearn's 8 x 8 digits, rows of norm 1, sigma = 0):
    the class Gaussians are at least as good as the pooled one on the same split, and no
    direction's variance is near zero."""
    X, y = load_digits(return_X_y=True)
    X = X / np.linalg.norm(X, axis=1, keepdims=True) * 8.0
    p = np.random.default_rng(0).permutation(len(X))
    tr, te = p[:1347], p[1347:]
    q = NoiseAwareQDA(10, image_shape=(1, 8, 8), tangent=False).fit(X[tr], y[tr])
    lda = NoiseAwareLDA(10).fit(X[tr], y[tr])
    acc_q = np.mean(q.predict(X[te]) == y[te])
    acc_l = np.mean(lda.predict(X[te]) == y[te])
    assert acc_q >= acc_l, (acc_q, acc_l)
    assert max(q.choice_["spikes"]) < X.shape[1]  # the old rule: all 64 directions per class
